package submission

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// power checks a result with power measurements (a performance/power
// directory) as the checker's PowerCheck does: the files of the testing
// run (run_1), the ranging run and the power directory
// (required_files_check), the Power WG's checks of the PTD session
// (external_power_check, [CheckPTDSession]), and that the testing run's
// spl.txt has power samples within the run's power_begin and power_end
// (get_power_metric_check), whose mean gives res its power metric.
func (c *checker) power(l Layout, perf *detailLog, res *Result) {
	dir := l.PowerDir()
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return
	}
	pr := c.round.Power
	want := append(slices.Clone(c.round.PerformanceFiles), pr.PerformanceFiles...)
	for _, run := range []string{l.PerformanceDir(), l.RangingDir()} {
		if st, err := os.Stat(run); err != nil || !st.IsDir() {
			c.add(run, "missing directory of a power submission (PowerCheck.required_files_check)")
			continue
		}
		if diff := fileDiff(files(run), want, pr.OptionalPerformanceFiles...); len(diff) > 0 {
			c.add(run, "file list differs from %s by %s (PowerCheck.required_files_check)", strings.Join(want, ", "), strings.Join(diff, ", "))
		}
	}
	if diff := fileDiff(files(dir), pr.PowerFiles); len(diff) > 0 {
		c.add(dir, "file list differs from %s by %s (PowerCheck.required_files_check)", strings.Join(pr.PowerFiles, ", "), strings.Join(diff, ", "))
	}
	for _, p := range CheckPTDSession(filepath.Dir(dir), c.round.Power) {
		c.add(filepath.Join(dir, p.File), "%s (external_power_check: %s)", p.Msg, p.Check)
	}
	if perf == nil {
		return
	}
	spl := filepath.Join(l.PerformanceDir(), "spl.txt")
	watts, err := meanPower(perf, spl)
	if err != nil {
		c.add(spl, "%v (get_power_metric_check)", err)
		return
	}
	sc, _ := scenarioOf(l.ScenarioName)
	switch sc {
	case benchmarks.Offline, benchmarks.Server, benchmarks.Interactive:
		res.Power, res.PowerUnit = watts, "W"
	case benchmarks.SingleStream, benchmarks.MultiStream:
		begin, _ := loadgenTime(perf.str("power_begin"))
		end, _ := loadgenTime(perf.str("power_end"))
		n, ok := perf.number("result_query_count")
		if !ok || n == 0 {
			c.add(perf.path, "no result_query_count for the energy per query (get_power_metric_check)")
			return
		}
		mj := watts * end.Sub(begin).Seconds() * 1000 / float64(int64(n))
		if sc == benchmarks.MultiStream && perf.str("effective_scenario") == string(benchmarks.SingleStream) {
			mj *= 8
		}
		res.Power, res.PowerUnit = mj, "mJ/query"
	}
}

// meanPower is the mean of the positive watts spl.txt records strictly
// between the run's power_begin and power_end.
func meanPower(perf *detailLog, spl string) (float64, error) {
	begin, err := loadgenTime(perf.str("power_begin"))
	if err != nil {
		return 0, errorf("power_begin: %v", err)
	}
	end, err := loadgenTime(perf.str("power_end"))
	if err != nil {
		return 0, errorf("power_end: %v", err)
	}
	w, n, err := splMean(spl, begin, end, false)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, errorf("no power samples between power_begin %s and power_end %s", perf.str("power_begin"), perf.str("power_end"))
	}
	return w, nil
}

// splMean reads spl.txt's "Time" lines as the checker does (the time in
// the second field; for the lines strictly between begin and end, the
// watts in the fourth and, withPF, the power factor in the tenth) and
// returns the mean of the positive watts and how many there are.
func splMean(path string, begin, end time.Time, withPF bool) (float64, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, errorf("missing spl.txt")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var sum float64
	n, line := 0, 0
	for sc.Scan() {
		line++
		if !strings.HasPrefix(sc.Text(), "Time") {
			continue
		}
		fields := strings.Split(sc.Text(), ",")
		if len(fields) < 2 {
			return 0, 0, errorf("spl.txt line %d: no time", line)
		}
		t, err := loadgenTime(fields[1])
		if err != nil {
			return 0, 0, errorf("spl.txt line %d: %v", line, err)
		}
		if !t.After(begin) || !t.Before(end) {
			continue
		}
		var w float64
		if len(fields) > 3 {
			w, err = pyParseFloat(fields[3])
		}
		if len(fields) <= 3 || err != nil {
			return 0, 0, errorf("spl.txt line %d: no watts", line)
		}
		if withPF {
			if len(fields) <= 9 {
				return 0, 0, errorf("spl.txt line %d: no power factor", line)
			}
			if _, err := pyParseFloat(fields[9]); err != nil {
				return 0, 0, errorf("spl.txt line %d: power factor %q", line, fields[9])
			}
		}
		if w > 0 {
			sum += w
			n++
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if n == 0 {
		return 0, 0, nil
	}
	return sum / float64(n), n, nil
}

var errorf = fmt.Errorf

// pyParseFloat is Python's float() of a string: surrounding whitespace allowed.
func pyParseFloat(s string) (float64, error) { return strconv.ParseFloat(pyStrip(s), 64) }

// loadgenTime parses a time as the checker's strptime("%m-%d-%Y
// %H:%M:%S.%f") does (one or two digits for the month, day, hour, minute
// and second, one to six for the fraction), in UTC.
func loadgenTime(s string) (time.Time, error) {
	bad := errorf("time %q is not MM-DD-YYYY HH:MM:SS.ffffff", s)
	i := 0
	num := func(minD, maxD int) (int, bool) {
		j := i
		for j < len(s) && j-i < maxD && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j-i < minD {
			return 0, false
		}
		v, _ := strconv.Atoi(s[i:j])
		i = j
		return v, true
	}
	sep := func(c byte) bool {
		if i < len(s) && s[i] == c {
			i++
			return true
		}
		return false
	}
	var v [6]int
	seps := []byte{'-', '-', ' ', ':', ':', '.'}
	widths := [][2]int{{1, 2}, {1, 2}, {4, 4}, {1, 2}, {1, 2}, {1, 2}}
	for k := range 6 {
		n, ok := num(widths[k][0], widths[k][1])
		if !ok || !sep(seps[k]) {
			return time.Time{}, bad
		}
		v[k] = n
	}
	start := i
	frac, ok := num(1, 6)
	if !ok || i != len(s) {
		return time.Time{}, bad
	}
	for range 6 - (i - start) {
		frac *= 10
	}
	month, day, year, hour, minute, sec := v[0], v[1], v[2], v[3], v[4], v[5]
	t := time.Date(year, time.Month(month), day, hour, minute, sec, frac*1000, time.UTC)
	if t.Month() != time.Month(month) || t.Day() != day || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, bad
	}
	return t, nil
}
