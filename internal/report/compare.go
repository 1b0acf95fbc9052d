package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ErrNotComparable is wrapped by the errors of runs a comparison cannot
// put side by side.
var ErrNotComparable = errors.New("runs not comparable")

// Check says whether runs can be compared. Runs of different benchmarks
// or scenarios can, with a warning that names what differs and in which
// run; a run without performance results (an accuracy run) cannot.
//
// # Errors
//
// Wraps [ErrNotComparable], naming the run.
func Check(runs []*Run) (warnings []string, err error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("%w: a comparison needs two runs or more, got %d", ErrNotComparable, len(runs))
	}
	for _, r := range runs {
		if !r.HasPerformance() {
			mode := r.Mode()
			if mode == "" {
				mode = "unknown"
			}
			return nil, fmt.Errorf("%w: run %s has no performance results (effective_test_mode %s): compare performance runs",
				ErrNotComparable, r.Name, mode)
		}
	}
	for _, what := range []struct {
		name string
		of   func(*Run) string
	}{{"benchmark", (*Run).benchmarkKey}, {"scenario", (*Run).Scenario}} {
		var unknown []string
		values := map[string]bool{}
		for _, r := range runs {
			v := what.of(r)
			if v == "" {
				unknown = append(unknown, r.Name)
				continue
			}
			values[v] = true
		}
		if len(values) > 1 {
			var each []string
			for _, r := range runs {
				each = append(each, fmt.Sprintf("%s: %s", r.Name, orUnknown(what.of(r))))
			}
			warnings = append(warnings, fmt.Sprintf("the runs are of different %ss (%s): their numbers do not measure the same thing",
				what.name, strings.Join(each, ", ")))
		} else if len(unknown) > 0 {
			warnings = append(warnings, fmt.Sprintf("the %s of %s is not in its detail log: it may differ from the others'",
				what.name, strings.Join(unknown, ", ")))
		}
	}
	return warnings, nil
}

// benchmarkKey tells benchmarks apart: the round's name where the run
// names one it knows (llama3_1-8b and llama3.1-8b directories are one),
// else what the run says.
func (r *Run) benchmarkKey() string {
	if r.Bench != nil {
		return r.Bench.SubmissionName
	}
	return r.Benchmark()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// settingsRow is one setting the runs do not share.
type settingsRow struct {
	Key    string
	Values []string
}

// differentSettings are the effective settings whose values are not the
// same in every run, by key.
func differentSettings(runs []*Run) []settingsRow {
	var keys []string
	for _, r := range runs {
		if r.Detail == nil {
			continue
		}
		for _, rec := range r.Detail.Records {
			if strings.HasPrefix(rec.Key, "effective_") && !slices.Contains(keys, rec.Key) {
				keys = append(keys, rec.Key)
			}
		}
	}
	slices.Sort(keys)
	var out []settingsRow
	for _, k := range keys {
		row := settingsRow{Key: k}
		for _, r := range runs {
			v := "—"
			if raw, ok := r.raw(k); ok {
				v = humanValue(k, raw)
			}
			row.Values = append(row.Values, v)
		}
		if slices.ContainsFunc(row.Values, func(v string) bool { return v != row.Values[0] }) {
			out = append(out, row)
		}
	}
	return out
}

// headlineFigure draws the first run's result metric for every run as
// horizontal bars, each labelled with its value and its ratio to the
// first.
func headlineFigure(runs []*Run) (figure, bool) {
	m, ok := runs[0].result()
	if !ok {
		return figure{}, false
	}
	vals := make([]float64, len(runs))
	have := make([]bool, len(runs))
	top := 0.0
	for i, r := range runs {
		if o, ok := r.result(); ok && o.key == m.key {
			vals[i], have[i] = o.value, true
			top = math.Max(top, vals[i])
		}
	}
	format := func(v float64) string { return rate(v) + " " + m.unit }
	axisFmt, better, sign := axisRate, "higher is better", 1
	if m.latency {
		format, axisFmt, better, sign = duration, axisDuration, "lower is better", -1
	}
	const rowH = 30.0
	c := newSizedChart("result metric by run", linearAxis(metricLabel(m.key), top*1.05, axisFmt), 8+float64(len(runs))*rowH+padB, 190)
	for i, r := range runs {
		y := c.padT + float64(i)*rowH
		fmt.Fprintf(&c.b, `<text x="%.0f" y="%.1f" class="cat">%s</text>`, c.padL-8, y+rowH/2+4, esc(r.label()))
		if !have[i] {
			fmt.Fprintf(&c.b, `<text x="%.0f" y="%.1f" class="val">not in this run's log</text>`, c.padL+6, y+rowH/2+4)
			continue
		}
		x1 := c.X(vals[i])
		fmt.Fprintf(&c.b, `<rect x="%.0f" y="%.1f" width="%.1f" height="%.1f" class="bar s%d"><title>%s</title></rect>`,
			c.padL, y+5, math.Max(x1-c.padL, 1), rowH-10, i%len(seriesColors), esc(r.label()+": "+format(vals[i])))
		text := format(vals[i])
		if i > 0 && vals[0] != 0 {
			ratio, _ := ratioCell(vals[i]/vals[0], sign)
			text += " (" + ratio + ")"
		}
		// The value goes right of its bar, or inside it where the bar
		// leaves no room.
		if x1+8+6.4*float64(len([]rune(text))) < chartW-padR {
			fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="val">%s</text>`, x1+6, y+rowH/2+4, esc(text))
		} else {
			fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="val in">%s</text>`, x1-6, y+rowH/2+4, esc(text))
		}
	}
	return figure{Title: "Result metric", SVG: c.html(),
		Note: fmt.Sprintf("%s of each run (%s); ratios against %s.", m.label(), better, runs[0].Name)}, true
}

// metricLabel names a result metric key for a reader.
func metricLabel(key string) string {
	for _, sc := range []string{"Offline", "Server", "SingleStream", "MultiStream"} {
		for _, d := range catalogue(sc) {
			if d.key == key {
				return d.label
			}
		}
	}
	return key
}
