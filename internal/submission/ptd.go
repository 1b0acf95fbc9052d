package submission

import (
	"crypto/sha1" //nolint:gosec // the PTD session records SHA-1 checksums
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// PTDProblem is one check of the Power WG's that a power submission's PTD
// session fails: the file it read (relative to the power directory, or
// "../run_1/..."), the check's name and what is wrong.
type PTDProblem struct {
	File, Check, Msg string
}

// errPTDWarning is a check's finding that the Power WG accepts with a
// warning: it ends that check, which passes.
var errPTDWarning = errors.New("warning")

// The session descriptions' keys the checks need.
var sessionFields = []string{"version", "timezone", "modules", "sources", "messages", "uuid", "session_name", "results", "phases"}

// CheckPTDSession checks the PTD session of a power submission as the
// checker's checks/power/power_checker.py does. dir is the result's
// performance directory: power/ (client.json, server.json, the PTD logs),
// ranging/ and run_1/ (each run's detail log and spl.txt). The checks:
// the PTD client's and server's sources are a released version's; PTD's
// version, analyzer and replies (ranges set, sampling at 1000 ms, the
// initial ranges restored); client and server share the session's UUIDs
// and name; their phases agree within the tolerance, each run's
// power_begin and power_end lie inside its phase and testing's mean power
// is not 5% under ranging's; their messages match; the files' checksums
// are those the session recorded; the PTD log's errors and warnings
// (ranging errors only in the ranging phase, no uncertainty above 1% in
// the testing phase); the analyzer's channels; the server not in debug
// mode. It returns the checks that fail; what the Power WG treats as a
// warning passes.
func CheckPTDSession(dir string, pr benchmarks.PowerRules) []PTDProblem {
	client, err := loadSession(filepath.Join(dir, "power", "client.json"))
	if err != nil {
		return []PTDProblem{{File: "client.json", Check: "session description", Msg: err.Error()}}
	}
	server, err := loadSession(filepath.Join(dir, "power", "server.json"))
	if err != nil {
		return []PTDProblem{{File: "server.json", Check: "session description", Msg: err.Error()}}
	}
	checks := []struct {
		file, name string
		run        func() error
	}{
		{"client.json", "client sources checksum", func() error { return sourcesCheck(client, pr) }},
		{"server.json", "server sources checksum", func() error { return sourcesCheck(server, pr) }},
		{"server.json", "PTD commands and replies", func() error { return ptdMessagesCheck(server, pr) }},
		{"server.json", "UUID", func() error { return uuidCheck(client, server) }},
		{"server.json", "session name", func() error { return sameValue(client, server, "session_name") }},
		{"client.json", "time difference", func() error { return phasesCheck(client, server, dir, pr) }},
		{"server.json", "client server messages", func() error { return messagesCheck(client, server) }},
		{"server.json", "results checksum", func() error { return resultsCheck(server, client, dir, pr) }},
		{"ptd_logs.txt", "errors and warnings from PTD logs", func() error { return ptdLogsCheck(server, dir, pr) }},
		{"server.json", "PTD configuration", func() error { return ptdConfigCheck(server, pr) }},
		{"server.json", "debug is disabled on server-side", func() error {
			if d, ok := server.m["debug"]; ok && d != false {
				return errorf("the server ran in debug mode (debug is %s)", pyRepr(d))
			}
			return nil
		}},
	}
	var out []PTDProblem
	for _, ch := range checks {
		if err := ch.run(); err != nil && !errors.Is(err, errPTDWarning) {
			out = append(out, PTDProblem{File: ch.file, Check: ch.name, Msg: err.Error()})
		}
	}
	return out
}

// session is a PTD session description (client.json or server.json).
type session struct {
	path string
	m    map[string]any
}

func loadSession(path string) (*session, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf("missing")
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errorf("not a JSON object: %v", err)
	}
	var absent []string
	for _, f := range sessionFields {
		if _, ok := m[f]; !ok {
			absent = append(absent, f)
		}
	}
	if len(absent) > 0 {
		return nil, errorf("required fields %s do not exist", strings.Join(absent, ", "))
	}
	return &session{path: path, m: m}, nil
}

// sourcesCheck: the session's sources checksums are one of the released
// sets.
func sourcesCheck(s *session, pr benchmarks.PowerRules) error {
	src, _ := s.m["sources"].(map[string]any)
	for _, set := range pr.SourcesChecksums {
		if len(src) == len(set) && !slices.ContainsFunc(slices.Collect(mapKeys(set)), func(k string) bool { return src[k] != set[k] }) {
			return nil
		}
	}
	return errorf("its sources' checksums are not a released PTD client and server's")
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// ptdMessages returns the server's PTD commands and replies.
func ptdMessages(s *session) ([][2]string, error) {
	raw, ok := s.m["ptd_messages"].([]any)
	if !ok {
		return nil, errorf("no ptd_messages")
	}
	var out [][2]string
	for _, r := range raw {
		m, ok := r.(map[string]any)
		cmd, ok1 := m["cmd"].(string)
		reply, ok2 := m["reply"].(string)
		if !ok || !ok1 || !ok2 {
			return nil, errorf("ptd_messages: %s is not a command and its reply", pyRepr(r))
		}
		out = append(out, [2]string{cmd, reply})
	}
	return out, nil
}

// ptdMessagesCheck: PTD's version and analyzer are supported, its
// replies to setting ranges, starting and stopping are the expected ones,
// and the initial ranges are set again at the end.
func ptdMessagesCheck(s *session, pr benchmarks.PowerRules) error {
	msgs, err := ptdMessages(s)
	if err != nil {
		return err
	}
	identify := ""
	for _, m := range msgs {
		if m[0] == "Identify" {
			identify = m[1]
			break
		}
	}
	if identify == "" {
		return errorf("there is no answer to the 'Identify' command for PTD")
	}
	model, _, _ := strings.Cut(identify, ",")
	if v := ptdVersion(identify); !slices.Contains(pr.PTDVersions, v) {
		return errorf("PTD version %q is not supported: want %s", v, strings.Join(pr.PTDVersions, ", "))
	}
	if _, ok := pr.Meters[model]; !ok {
		return errorf("power meter %q is not supported", model)
	}
	for _, want := range pr.Replies {
		prefix, reply := want[0], want[1]
		stops := 0
		for _, m := range msgs {
			if !strings.HasPrefix(m[0], prefix) {
				continue
			}
			if m[0] == "Stop" {
				if stops == 2 {
					reply = pr.ThirdStopReply
				}
				stops++
			}
			if m[1] != reply {
				return errorf("wrong reply for %q: want %q, got %q", m[0], reply, m[1])
			}
		}
	}
	if len(msgs) < 3 {
		return errorf("fewer than 3 PTD messages: no initial ranges")
	}
	amps, err := initialRange(1, msgs[2][1])
	if err != nil {
		return err
	}
	volts, err := initialRange(3, msgs[2][1])
	if err != nil {
		return err
	}
	a3, err := nthCommand(msgs, "SR,A", 3)
	if err != nil {
		return err
	}
	a4, err := nthCommand(msgs, "SR,A", 4)
	if err != nil {
		return err
	}
	v3, err := nthCommand(msgs, "SR,V", 3)
	if err != nil {
		return err
	}
	if a3 != "SR,A,"+amps && a4 != "SR,A,"+amps {
		return errorf("the amps range is not set back to the initial one: want %q, got %q and %q", "SR,A,"+amps, a3, a4)
	}
	if v3 != "SR,V,"+volts {
		return errorf("the volts range is not set back to the initial one: want %q, got %q", "SR,V,"+volts, v3)
	}
	return nil
}

// ptdVersion reads "version=1.11.1-..." of an Identify reply: what
// follows the first "version=" up to the next "-".
func ptdVersion(identify string) string {
	for rest := identify; ; {
		i := strings.Index(rest, "version=")
		if i < 0 {
			return ""
		}
		rest = rest[i+len("version="):]
		if line, _, _ := strings.Cut(rest, "\n"); len(line) > 1 {
			if j := strings.Index(line[1:], "-"); j >= 0 {
				return line[:j+1]
			}
		}
	}
}

// initialRange is the range a "Ranges,..." reply gives at field i
// ("0,40.000000": 40 A), or Auto.
func initialRange(i int, reply string) (string, error) {
	f := strings.Split(reply, ",")
	if i >= len(f) {
		return "", errorf("cannot get the power meter's initial values from %q", reply)
	}
	if f[i] != "0" {
		return "Auto", nil
	}
	if i+1 >= len(f) {
		return "", errorf("cannot get the power meter's initial values from %q", reply)
	}
	v, err := pyParseFloat(f[i+1])
	if err != nil {
		return "", errorf("cannot get the power meter's initial values from %q", reply)
	}
	if v > 0 {
		return f[i+1], nil
	}
	return "Auto", nil
}

// nthCommand is the n-th command starting with prefix.
func nthCommand(msgs [][2]string, prefix string, n int) (string, error) {
	k := 0
	for _, m := range msgs {
		if strings.HasPrefix(m[0], prefix) {
			k++
			if k == n {
				return m[0], nil
			}
		}
	}
	return "", errorf("cannot find the command %d starting with %q", n, prefix)
}

// uuidCheck: client and server name the same client and server UUIDs.
func uuidCheck(client, server *session) error {
	cu, _ := client.m["uuid"].(map[string]any)
	su, _ := server.m["uuid"].(map[string]any)
	for _, k := range []string{"client", "server"} {
		a, err1 := parseUUID(cu[k])
		b, err2 := parseUUID(su[k])
		if err1 != nil || err2 != nil {
			return errorf("%s uuid: %v", k, errors.Join(err1, err2))
		}
		if a != b {
			return errorf("%s uuid is not equal", k)
		}
	}
	return nil
}

// parseUUID reads a UUID as Python's uuid.UUID does: hex digits, with or
// without hyphens, braces and a "urn:uuid:" prefix.
func parseUUID(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", errorf("%s is not a UUID", pyRepr(v))
	}
	h := strings.ReplaceAll(strings.Trim(strings.TrimPrefix(strings.TrimPrefix(s, "urn:"), "uuid:"), "{}"), "-", "")
	if len(h) != 32 {
		return "", errorf("%q is not a UUID", s)
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", errorf("%q is not a UUID", s)
	}
	return strings.ToLower(h), nil
}

func sameValue(a, b *session, key string) error {
	x, _ := json.Marshal(a.m[key])
	y, _ := json.Marshal(b.m[key])
	if string(x) != string(y) {
		return errorf("%s is not equal: client %s, server %s", key, pyRepr(a.m[key]), pyRepr(b.m[key]))
	}
	return nil
}

// phases returns a session's phase start times of mode (ranging,
// testing).
func phases(s *session, mode string) ([]float64, error) {
	p, _ := s.m["phases"].(map[string]any)
	raw, ok := p[mode].([]any)
	if !ok {
		return nil, errorf("%s: no %s phases", filepath.Base(s.path), mode)
	}
	var out []float64
	for _, r := range raw {
		pair, _ := r.([]any)
		if len(pair) == 0 {
			return nil, errorf("%s: a %s phase %s without its time", filepath.Base(s.path), mode, pyRepr(r))
		}
		t, ok := pair[0].(float64)
		if !ok {
			return nil, errorf("%s: a %s phase's time %s is not a number", filepath.Base(s.path), mode, pyRepr(pair[0]))
		}
		out = append(out, t)
	}
	return out, nil
}

// powerWindow reads a run's power_begin and power_end as the Power WG's
// checks do: the first time in the first line of the detail log that
// mentions each.
func powerWindow(runDir string) (begin, end time.Time, err error) {
	lines, rerr := readLines(filepath.Join(runDir, DetailFile))
	if rerr != nil {
		return begin, end, errorf("%s: %v", filepath.Base(runDir), rerr)
	}
	var haveBegin, haveEnd bool
	for _, line := range lines {
		low := strings.ToLower(line)
		var t *time.Time
		var have *bool
		switch {
		case strings.Contains(low, "power_begin"):
			t, have = &begin, &haveBegin
		case strings.Contains(low, "power_end"):
			t, have = &end, &haveEnd
		default:
			continue
		}
		m := logTimeIn.FindString(line)
		v, perr := loadgenTime(m)
		if perr != nil {
			return begin, end, errorf("%s: %q: %v", filepath.Base(runDir), strings.TrimSpace(line), perr)
		}
		*t, *have = v, true
		if haveBegin && haveEnd {
			break
		}
	}
	if !haveBegin || !haveEnd {
		return begin, end, errorf("cannot get power_begin and power_end from %s/%s", filepath.Base(runDir), DetailFile)
	}
	return begin, end, nil
}

// logTimeIn finds a time in a detail log line, as the Power WG's checks
// search for one.
var logTimeIn = regexp.MustCompile(`\d*-\d*-\d* \d*:\d*:\d*\.\d*`)

// seconds is a time as the Python checks hold it: seconds since the
// epoch, from whole microseconds.
func seconds(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// phasesCheck: client's and server's phases start within the tolerance of
// each other; each run's power_begin and power_end lie within its phase
// (or an hour later, for a daylight saving change); and testing's mean
// power is not more than 5% under ranging's. A testing run shorter than
// half the ranging one is a warning, which ends the check.
func phasesCheck(client, server *session, dir string, pr benchmarks.PowerRules) error {
	tol := float64(pr.TimeDeltaToleranceMS) / 1000
	mode := map[string]string{"ranging": "ranging", "testing": "run_1"}
	var clientPhases = map[string][]float64{}
	for _, m := range []string{"ranging", "testing"} {
		c, err := phases(client, m)
		if err != nil {
			return err
		}
		s, err := phases(server, m)
		if err != nil {
			return err
		}
		if len(c) != len(s) {
			return errorf("phases amount is not equal for %s mode", mode[m])
		}
		for i := range c {
			if d := math.Abs(c[i] - s[i]); d > tol {
				return errorf("the time difference for phase %d of %s mode is more than %d ms: %g ms", i+1, mode[m], pr.TimeDeltaToleranceMS, d*1000)
			}
		}
		clientPhases[m] = c
	}
	var dur [2]float64
	for i, m := range []string{"ranging", "testing"} {
		begin, end, err := powerWindow(filepath.Join(dir, mode[m]))
		if err != nil {
			return err
		}
		p := clientPhases[m]
		if len(p) < 3 {
			return errorf("%s mode has %d phases, not the 3 its times are checked against", mode[m], len(p))
		}
		within := func(t float64) bool { return (p[1] < t && t < p[2]) || (p[1] < t-3600 && t-3600 < p[2]) }
		if !within(seconds(begin)) {
			return errorf("the LoadGen test's begin is not within the %s mode's time interval", mode[m])
		}
		if !within(seconds(end)) {
			return errorf("the LoadGen test's end is not within the %s mode's time interval", mode[m])
		}
		dur[i] = seconds(end) - seconds(begin)
	}
	if dur[0] == 0 {
		return errorf("the ranging run lasts 0 s")
	}
	if (dur[0]-dur[1])/dur[0] > 0.5 {
		return errPTDWarning // testing much shorter than ranging: the Power WG warns
	}
	var watts [2]float64
	for i, run := range []string{"ranging", "run_1"} {
		begin, end, err := powerWindow(filepath.Join(dir, run))
		if err != nil {
			return err
		}
		w, n, err := splMean(filepath.Join(dir, run, "spl.txt"), begin, end, true)
		if err != nil {
			return errorf("%s: %v", run, err)
		}
		watts[i] = -1
		if n > 0 {
			watts[i] = w
		}
		watts[i] = pyRound(watts[i], 5)
	}
	if delta := pyRound((watts[1]/watts[0]-1)*100, 2); !(delta > -5) {
		return errorf("the testing run's mean power (%g W) is under the ranging run's (%g W) by more than 5%%: %g%%", watts[1], watts[0], delta)
	}
	return nil
}

// pyRound is Python's round(x, n): the double nearest the decimal rounded
// correctly, halves to even.
func pyRound(x float64, n int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', n, 64), 64)
	return v
}

// messagesCheck: the server recorded the client's commands and their
// replies (a time command's reply aside), and both are the same version.
func messagesCheck(client, server *session) error {
	mc, _ := client.m["messages"].([]any)
	ms, _ := server.m["messages"].([]any)
	if len(mc) != len(ms) {
		return errorf("client commands list length (%d) should be equal to server commands list length (%d)", len(mc), len(ms))
	}
	get := func(list []any, i int, key string) any {
		m, _ := list[i].(map[string]any)
		return m[key]
	}
	for i := range mc {
		if pyRepr(get(mc, i, "cmd")) != pyRepr(get(ms, i, "cmd")) {
			return errorf("commands %d are different: server %s, client %s", i, pyRepr(get(ms, i, "cmd")), pyRepr(get(mc, i, "cmd")))
		}
		if get(mc, i, "cmd") != "time" && pyRepr(get(mc, i, "reply")) != pyRepr(get(ms, i, "reply")) {
			return errorf("replies to %s are different: server %s, client %s", pyRepr(get(mc, i, "cmd")), pyRepr(get(ms, i, "reply")), pyRepr(get(mc, i, "reply")))
		}
	}
	if len(ms) == 0 {
		return errorf("no messages")
	}
	cmd, _ := get(ms, 0, "cmd").(string)
	reply, _ := get(ms, 0, "reply").(string)
	cv := clientVersion.FindStringSubmatch(cmd)
	sv := serverVersion.FindStringSubmatch(reply)
	if cv == nil || sv == nil {
		return errorf("the client or server version is not defined in %q / %q", cmd, reply)
	}
	if cv[1] != sv[1] {
		return errorf("client version (%s) is not equal to server version (%s)", cv[1], sv[1])
	}
	return nil
}

var (
	clientVersion = regexp.MustCompile(`mlcommons/power client v(\d+)\n?$`)
	serverVersion = regexp.MustCompile(`mlcommons/power server v(\d+)\n?$`)
)

// hashDir is the SHA-1 of every file under dir, by its slash-separated
// path relative to dir (links to files followed, links to directories
// not).
func hashDir(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(path); err != nil || st.IsDir() {
				return nil //nolint:nilerr // a dangling link or a link to a directory: os.walk lists no file
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		sum := sha1.Sum(b) //nolint:gosec // the PTD session's checksums are SHA-1
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	return out, err
}

// resultsCheck: the checksums client and server recorded agree, and are
// those of the result's files (the session descriptions aside).
func resultsCheck(server, client *session, dir string, pr benchmarks.PowerRules) error {
	files, err := hashDir(dir)
	if err != nil {
		return err
	}
	for _, f := range []string{"power/server.json", "power/client.json"} {
		if _, ok := files[f]; !ok {
			return errorf("no %s", f)
		}
	}
	want := slices.DeleteFunc(slices.Clone(pr.ResultPaths), func(p string) bool { return p == "power/server.json" || p == "power/client.json" })
	keep := func(m map[string]any) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			if slices.Contains(want, k) {
				out[k], _ = v.(string)
			}
		}
		return out
	}
	rs, _ := server.m["results"].(map[string]any)
	rc, _ := client.m["results"].(map[string]any)
	s, c := keep(rs), keep(rc)
	have := map[string]string{}
	for k, v := range files {
		if slices.Contains(want, k) {
			have[k] = v
		}
	}
	for k, v := range s {
		if cv, ok := c[k]; ok && cv != v {
			return errorf("server.json and client.json record %s's checksum as %s and %s", k, v, cv)
		}
	}
	both := map[string]string{}
	for k, v := range c {
		both[k] = v
	}
	for k, v := range s {
		both[k] = v
	}
	var missing, extra, differ []string
	for k, v := range both {
		if hv, ok := have[k]; !ok {
			missing = append(missing, k)
		} else if hv != v {
			differ = append(differ, k)
		}
	}
	for k := range have {
		if _, ok := both[k]; !ok {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	slices.Sort(differ)
	switch {
	case len(missing) > 0:
		return errorf("the session records files the result lacks: %s", strings.Join(missing, ", "))
	case len(extra) > 0:
		return errorf("the result has files the session does not record: %s", strings.Join(extra, ", "))
	case len(differ) > 0:
		return errorf("files whose checksums differ from the session's: %s", strings.Join(differ, ", "))
	}
	for _, p := range want {
		if _, ok := both[p]; !ok {
			return errorf("the session records no checksum of %s", p)
		}
	}
	return nil
}

// ptdLogsCheck reads the PTD log as the Power WG's checks do: the ranging
// phase (from "Go with mark 'SESSION_ranging'" to "Completed test") found,
// uncertainty checking activated before it, then the first WARNING or
// ERROR line decides: an error outside ranging, or an uncertainty above
// 1% well inside the testing run, fails; an error PTD's ranging commonly
// logs passes on; anything else is a warning, which passes.
func ptdLogsCheck(server *session, dir string, pr benchmarks.PowerRules) error {
	name, _ := server.m["session_name"].(string)
	startLoad, stopLoad, err := powerWindow(filepath.Join(dir, "run_1"))
	if err != nil {
		return err
	}
	if _, err := pyInt(server.m["timezone"]); err != nil {
		return errorf("timezone %s: %v", pyRepr(server.m["timezone"]), err)
	}
	lines, err := readLines(filepath.Join(dir, "power", "ptd_logs.txt"))
	if err != nil {
		return errorf("missing ptd_logs.txt")
	}
	goLine := ": Go with mark " + pyStrRepr(name+"_ranging")
	var start, stop float64
	for _, line := range lines {
		t, msg, ok, err := ptdLine(line)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if start == 0 && msg == goLine {
			start = t
		}
		if stop == 0 && start != 0 && msg == ": Completed test" {
			stop = t
			break
		}
	}
	if start == 0 || stop == 0 {
		return errorf("cannot find the ranging phase (%q to %q) in ptd_logs.txt", goLine, ": Completed test")
	}
	activated := false
	for _, line := range lines {
		if !uncertaintyOn.MatchString(line) {
			continue
		}
		t, _, ok, err := ptdLine(line)
		switch {
		case err != nil:
			return err
		case !ok:
			return errorf("no time on the line %q", strings.TrimSpace(line))
		case !(t < start):
			return errorf("uncertainty checking was activated after the ranging phase started")
		}
		activated = true
		break
	}
	if !activated {
		return errorf("the line 'Uncertainty checking for Yokogawa... is activated' is not found")
	}
	warnAsErr := make([]*regexp.Regexp, 0, len(pr.TestingWarningsAsErrors))
	for _, p := range pr.TestingWarningsAsErrors {
		re, err := regexp.Compile(p)
		if err != nil {
			return err
		}
		warnAsErr = append(warnAsErr, re)
	}
	tol := float64(pr.TimeDeltaToleranceMS) // as the Power WG compares it: in seconds
	for _, line := range lines {
		for _, level := range []string{"WARNING:", "ERROR:"} {
			problem, ok := after(line, level)
			if !ok {
				continue
			}
			t, err := ptdTime(line)
			if err != nil {
				return err
			}
			problem = pyStrip(problem)
			if level == "ERROR:" {
				if slices.Contains(pr.TestingErrors, problem) {
					return errPTDWarning
				}
				if !(start < t && t < stop) {
					return errorf("%q in ptd_logs.txt, outside the ranging phase", strings.TrimSpace(line))
				}
				if !slices.ContainsFunc(pr.RangingErrors, func(e string) bool { return strings.HasPrefix(problem, e) }) {
					return errPTDWarning
				}
				continue
			}
			if seconds(startLoad)+tol < t && t < seconds(stopLoad)-tol {
				for _, re := range warnAsErr {
					if re.MatchString(problem) {
						return errorf("%q in ptd_logs.txt during the testing phase", strings.TrimSpace(line))
					}
				}
				return errPTDWarning
			}
		}
	}
	return nil
}

var uncertaintyOn = regexp.MustCompile(`Uncertainty checking for Yokogawa\S+ is activated`)

// ptdTimeAt matches the time that starts a PTD log line.
var ptdTimeAt = regexp.MustCompile(`^\d\d-\d\d-\d\d\d\d \d\d:\d\d:\d\d.\d\d\d`)

// ptdTime is the time a PTD log line starts with, in seconds.
func ptdTime(line string) (float64, error) {
	m := ptdTimeAt.FindString(line)
	if m == "" {
		return 0, errorf("no time on the line %q of ptd_logs.txt", strings.TrimSpace(line))
	}
	t, err := loadgenTime(m)
	if err != nil {
		return 0, err
	}
	return seconds(t), nil
}

// ptdLine splits a PTD log line into its time and its message (what
// follows the time, stripped); ok is false for a line without a time or
// without a message.
func ptdLine(line string) (t float64, msg string, ok bool, err error) {
	if !ptdTimeAt.MatchString(line) {
		return 0, "", false, nil
	}
	t, err = ptdTime(line)
	if err != nil {
		return 0, "", false, err
	}
	rest, _, _ := strings.Cut(line[len(ptdTimeAt.FindString(line)):], "\n")
	if rest == "" {
		return 0, "", false, nil
	}
	return t, pyStrip(rest), true, nil
}

// after returns what follows the first occurrence of mark in line that
// something follows, up to the end of the line.
func after(line, mark string) (string, bool) {
	line, _, _ = strings.Cut(line, "\n")
	for off := 0; ; {
		i := strings.Index(line[off:], mark)
		if i < 0 {
			return "", false
		}
		j := off + i + len(mark)
		if j < len(line) {
			return line[j:], true
		}
		off = j
	}
}

// pyInt is Python's int() of a JSON value: a number (truncated) or a
// string of digits.
func pyInt(v any) (int64, error) {
	switch x := v.(type) {
	case float64:
		return int64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		return strconv.ParseInt(pyStrip(x), 10, 64)
	}
	return 0, fmt.Errorf("not a number")
}

// pyStrRepr is Python's repr() of a string: single quotes, unless it
// holds one and no double quote.
func pyStrRepr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteString(`\` + string(q))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// ptdConfigCheck: the analyzers are supported devices, a multichannel
// one (device 77) configured with two channels.
func ptdConfigCheck(server *session, pr benchmarks.PowerRules) error {
	cfg, ok := server.m["ptd_config"].([]any)
	if !ok {
		return errorf("no ptd_config")
	}
	known := map[int]bool{}
	for _, n := range pr.Meters {
		known[n] = true
	}
	for _, a := range cfg {
		m, _ := a.(map[string]any)
		n, ok := m["device_type"].(float64)
		if !ok || n != math.Trunc(n) || !known[int(n)] {
			return errorf("device number %s is not supported", pyRepr(m["device_type"]))
		}
		if n != 77 {
			continue
		}
		cmd, _ := m["command"].([]any)
		channels := ""
		for i := range cmd {
			if cmd[i] == "-c" && i+1 < len(cmd) {
				channels, _ = cmd[i+1].(string)
				break
			}
		}
		ch, _ := m["channel"].([]any)
		if len(strings.Split(channels, ",")) != 2 || len(ch) != 2 {
			return errorf("expected the multichannel mode of device 77, but got one channel")
		}
	}
	return nil
}
