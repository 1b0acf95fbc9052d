package submission

import (
	"crypto/sha1" //nolint:gosec // the PTD session records SHA-1 checksums
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ptdSession is what a power run's PTD session is made of; the zero
// value, filled by fill, is one the Power WG's checks pass.
type ptdSession struct {
	name                 string
	version, goReply     string
	lastAmps             string
	extraLog             []string
	noUncertainty        bool
	rangingW, testingW   float64
	beginShift           time.Duration
	clientUUID           string
	debug                any
	start                time.Time
	rangingAt, testingAt time.Time
}

func (s *ptdSession) fill() {
	def := func(v *string, d string) {
		if *v == "" {
			*v = d
		}
	}
	def(&s.name, "2025-07-25_10-00-00")
	def(&s.version, "1.11.1")
	def(&s.goReply, "Starting untimed measurement, maximum 500000 samples at 1000ms with 0 rampup samples")
	def(&s.lastAmps, "SR,A,20.000000")
	def(&s.clientUUID, "0f6f8f3e-8d0a-4b1e-9c33-5a2d1e7b4c10")
	if s.rangingW == 0 {
		s.rangingW = 300
	}
	if s.testingW == 0 {
		s.testingW = 300
	}
	s.start = time.Date(2025, 7, 25, 10, 0, 0, 0, time.UTC)
	s.rangingAt, s.testingAt = s.start.Add(10*time.Second), s.start.Add(70*time.Second)
}

func ptdTimeOf(t time.Time) string { return t.Format("01-02-2006 15:04:05.000") }

func epoch(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// addPower makes the result whose performance directory is perf a power
// submission: a ranging run beside run_1 (a copy of its logs), each with
// power_begin and power_end and a 1 Hz spl.txt around them, and the PTD
// session's logs and descriptions in power/, recording the files'
// checksums.
func addPower(t testing.TB, perf string, s ptdSession) {
	t.Helper()
	s.fill()
	run1, ranging, power := filepath.Join(perf, "run_1"), filepath.Join(perf, "ranging"), filepath.Join(perf, "power")
	require.NoError(t, os.MkdirAll(ranging, 0o755))
	require.NoError(t, os.MkdirAll(power, 0o755))
	for _, f := range []string{DetailFile, SummaryFile} {
		require.NoError(t, CopyFile(filepath.Join(run1, f), filepath.Join(ranging, f)))
	}
	for _, r := range []struct {
		dir   string
		at    time.Time
		watts float64
		mark  string
	}{{ranging, s.rangingAt, s.rangingW, "ranging"}, {run1, s.testingAt, s.testingW, "testing"}} {
		log := filepath.Join(r.dir, DetailFile)
		b, err := os.ReadFile(log)
		require.NoError(t, err)
		for _, kv := range [][2]string{{"power_begin", ptdTimeOf(r.at.Add(s.beginShift))}, {"power_end", ptdTimeOf(r.at.Add(10 * time.Second))}} {
			if strings.Contains(string(b), `"key": "`+kv[0]+`"`) { // the official LoadGen logs them
				setKey(t, log, kv[0], fmt.Sprintf("%q", kv[1]))
				continue
			}
			f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			fmt.Fprintf(f, `:::MLLOG {"key": %q, "value": %q, "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}`+"\n", kv[0], kv[1])
			require.NoError(t, f.Close())
		}
		var spl strings.Builder
		for i := -3; i < 14; i++ {
			fmt.Fprintf(&spl, "Time,%s,Watts,%f,Volts,230.000000,Amps,1.300000,PF,0.980000,Mark,%s_%s\n",
				ptdTimeOf(r.at.Add(time.Duration(i)*time.Second+500*time.Millisecond)), r.watts, s.name, r.mark)
		}
		write(t, filepath.Join(r.dir, "spl.txt"), spl.String())
	}
	var log strings.Builder
	if !s.noUncertainty {
		fmt.Fprintf(&log, "%s: Uncertainty checking for YokogawaWT310 is activated\n", ptdTimeOf(s.start.Add(time.Second)))
	}
	fmt.Fprintf(&log, "%s: Go with mark '%s_ranging'\n", ptdTimeOf(s.start.Add(5*time.Second)), s.name)
	fmt.Fprintf(&log, "%s: ERROR: Can't evaluate uncertainty of this sample!\n", ptdTimeOf(s.start.Add(6*time.Second)))
	fmt.Fprintf(&log, "%s: Completed test\n", ptdTimeOf(s.start.Add(25*time.Second)))
	fmt.Fprintf(&log, "%s: Go with mark '%s_testing'\n", ptdTimeOf(s.start.Add(65*time.Second)), s.name)
	for _, l := range s.extraLog {
		fmt.Fprintf(&log, "%s: %s\n", ptdTimeOf(s.start.Add(75*time.Second)), l)
	}
	fmt.Fprintf(&log, "%s: Completed test\n", ptdTimeOf(s.start.Add(85*time.Second)))
	write(t, filepath.Join(power, "ptd_logs.txt"), log.String())
	write(t, filepath.Join(power, "client.log"), "client\n")
	write(t, filepath.Join(power, "server.log"), "server\n")

	sum := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(perf, rel))
		require.NoError(t, err)
		h := sha1.Sum(b) //nolint:gosec // as the PTD session records them
		return hex.EncodeToString(h[:])
	}
	sums := func(paths ...string) map[string]string {
		out := map[string]string{}
		for _, p := range paths {
			out[p] = sum(p)
		}
		return out
	}
	phase := func(base time.Time) [][]float64 {
		var out [][]float64
		for _, d := range []int{-10, -5, 15, 20} {
			out = append(out, []float64{epoch(base.Add(time.Duration(d) * time.Second)), 0})
		}
		return out
	}
	phases := map[string]any{"ranging": phase(s.rangingAt), "testing": phase(s.testingAt)}
	messages := []map[string]any{{"cmd": "mlcommons/power client v3", "reply": "mlcommons/power server v3"}, {"cmd": "time", "reply": "1"}}
	common := func(uuidClient string, results map[string]string) map[string]any {
		return map[string]any{"version": "1.0", "timezone": 0, "modules": map[string]string{}, "sources": v51.Power.SourcesChecksums[0],
			"messages": messages, "uuid": map[string]string{"client": uuidClient, "server": "7d1c5a90-3b2e-4f6a-8e19-0c4b2a6d9e57"},
			"session_name": s.name, "results": results, "phases": phases}
	}
	client := common(s.clientUUID, sums("power/client.log", "ranging/mlperf_log_detail.txt", "ranging/mlperf_log_summary.txt",
		"run_1/mlperf_log_detail.txt", "run_1/mlperf_log_summary.txt"))
	server := common("0f6f8f3e-8d0a-4b1e-9c33-5a2d1e7b4c10", sums("power/ptd_logs.txt", "power/server.log", "ranging/spl.txt", "run_1/spl.txt"))
	msgs := [][2]string{
		{"Hello", "Hello, PTDaemon here!"},
		{"Identify", "YokogawaWT310,1000,1,1,1,1,0,0,1,version=" + s.version + "-0123abcd-20240907,OS=Linux,mode=power"},
		{"RR", "Ranges,0,20.000000,0,300.000000"},
		{"SR,V,Auto", "Range V changed"}, {"SR,A,Auto", "Range A changed"}, {"SR,A,Auto", "Range A changed"},
		{"Go,1000,0," + s.name + "_ranging", s.goReply}, {"Stop", "Stopping untimed measurement"},
		{"SR,V,230.000000", "Range V changed"}, {"SR,A,1.500000", "Range A changed"},
		{"Go,1000,0," + s.name + "_testing", s.goReply}, {"Stop", "Stopping untimed measurement"},
		{"SR,V,300.000000", "Range V changed"}, {s.lastAmps, "Range A changed"},
	}
	var ptd []map[string]string
	for _, m := range msgs {
		ptd = append(ptd, map[string]string{"cmd": m[0], "reply": m[1]})
	}
	server["ptd_messages"] = ptd
	server["ptd_config"] = []map[string]any{{"device_type": 49, "command": []string{"ptd", "-p", "8888", "49", "/dev/usbtmc0"}, "channel": []int{1}}}
	if s.debug != nil {
		server["debug"] = s.debug
	}
	for name, v := range map[string]any{"client.json": client, "server.json": server} {
		b, err := json.MarshalIndent(v, "", "  ")
		require.NoError(t, err)
		write(t, filepath.Join(power, name), string(b)+"\n")
	}
}

// powerCase is a PTD session, maybe broken after the fact, and what the
// Power WG's checks find wrong with it ("" when they pass it).
type powerCase struct {
	name    string
	session ptdSession
	after   func(t *testing.T, perf string)
	want    string
}

// powerCases are PTD sessions as the Power WG's checks pass them, and
// each thing they refuse.
func powerCases() []powerCase {
	return []powerCase{
		{name: "as PTD writes it"},
		{name: "a warning during ranging passes", session: ptdSession{extraLog: []string{"WARNING: Uncertainty unknown for the last measurement sample"}}},
		{name: "PTD version", session: ptdSession{version: "1.10.0"}, want: `PTD version "1.10.0" is not supported`},
		{name: "sampling interval", session: ptdSession{goReply: "Starting untimed measurement, maximum 500000 samples at 500ms with 0 rampup samples"},
			want: "wrong reply for"},
		{name: "initial amps range not restored", session: ptdSession{lastAmps: "SR,A,10.000000"}, want: "the amps range is not set back"},
		{name: "an error in the testing phase", session: ptdSession{extraLog: []string{"ERROR: Bad watts reading nan from analyzer"}},
			want: "outside the ranging phase"},
		{name: "uncertainty checking off", session: ptdSession{noUncertainty: true}, want: "'Uncertainty checking for Yokogawa... is activated' is not found"},
		{name: "testing power under ranging's", session: ptdSession{testingW: 270}, want: "by more than 5%: -10%"},
		{name: "power_begin outside its phase", session: ptdSession{beginShift: -30 * time.Second}, want: "begin is not within the ranging mode's time interval"},
		{name: "client and server UUIDs differ", session: ptdSession{clientUUID: "1f6f8f3e-8d0a-4b1e-9c33-5a2d1e7b4c10"}, want: "client uuid is not equal"},
		{name: "debug mode", session: ptdSession{debug: true}, want: "the server ran in debug mode"},
		{name: "a file changed after the session", after: func(t *testing.T, perf string) {
			write(t, filepath.Join(perf, "run_1", SummaryFile), "edited\n")
		}, want: "files whose checksums differ from the session's: run_1/mlperf_log_summary.txt"},
		{name: "no spl.txt", after: func(t *testing.T, perf string) {
			require.NoError(t, os.Remove(filepath.Join(perf, "run_1", "spl.txt")))
		}, want: "missing spl.txt"},
		{name: "no server.json", after: func(t *testing.T, perf string) {
			require.NoError(t, os.Remove(filepath.Join(perf, "power", "server.json")))
		}, want: "server.json: missing"},
	}
}

// TestCheckPTDSession checks the PTD sessions of powerCases. (The same
// sessions on a published result are brokenCases', which the official
// checker judges.)
func TestCheckPTDSession(t *testing.T) {
	t.Parallel()
	for _, tt := range powerCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			perf := t.TempDir()
			detail(t, filepath.Join(perf, "run_1"), perfLogOf(v51, "Offline"))
			addPower(t, perf, tt.session)
			if tt.after != nil {
				tt.after(t, perf)
			}
			var got []string
			for _, p := range CheckPTDSession(perf, v51.Power) {
				got = append(got, p.File+": "+p.Msg+" ("+p.Check+")")
			}
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, strings.Join(got, "\n"), tt.want)
		})
	}
}
