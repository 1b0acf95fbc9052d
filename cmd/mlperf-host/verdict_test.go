package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// The timed runs of these tests share the machine with every other test
// package, so whether a run comes out VALID says how busy the machine was.
// What the code decides does not: assertVerdict checks that a performance
// run's verdict is the one its own measurements call for, and that every
// place the verdict shows (detail log, summary, console, exit code) agrees.

var (
	summaryResult = regexp.MustCompile(`(?m)^Result is : (VALID|INVALID)$`)
	consoleResult = regexp.MustCompile(`(?m)^result\s+(VALID|INVALID)$`)
)

// assertVerdict checks the verdict of the performance run r wrote into
// logs and returns whether it was VALID:
//   - VALID exactly when every check the detail log reports was met;
//   - in the Server scenario, the latency check met exactly when the
//     measured 99th percentile is within the bound;
//   - in the Offline scenario, the minimum duration met exactly when the
//     last sample completed after it, and samples/s the samples over
//     that duration;
//   - at least min_query_count queries exactly when "min queries" was met;
//   - the summary and the console say the same verdict, and the exit code
//     is OK for VALID and InvalidResult (with the reasons) for INVALID.
func assertVerdict(t *testing.T, r result, logs string) bool {
	t.Helper()
	f, err := os.Open(filepath.Join(logs, "mlperf_log_detail.txt"))
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	defer f.Close()
	log, err := mllog.Parse(f)
	require.NoError(t, err)
	// The one error a run of correct plugins may log is the LoadGen's own:
	// a SUT faster than the settings expect runs out of generated queries,
	// which makes the run INVALID.
	var errs []mllog.Record
	ranOut := false
	for _, e := range log.Errors() {
		if strings.Contains(string(e.Value), "Ran out of generated queries") {
			ranOut = true
			continue
		}
		errs = append(errs, e)
	}
	require.Empty(t, errs, "the plugins of these tests answer every sample correctly")

	verdict, ok := log.String("result_validity")
	require.True(t, ok, "the detail log has a verdict")
	if ranOut {
		assert.Equal(t, "INVALID", verdict, "a run that ran out of generated queries is INVALID")
	}
	allMet := true
	for _, key := range []string{"result_min_duration_met", "result_min_queries_met", "early_stopping_met", "result_perf_constraints_met"} {
		if raw, ok := log.Raw(key); ok {
			allMet = allMet && string(raw) == "true"
		}
	}
	valid := verdict == "VALID"
	assert.Equal(t, allMet, valid, "VALID exactly when every check is met (%s)", verdict)

	if sc, _ := log.String("effective_scenario"); sc == "Server" {
		assertServerConstraint(t, log)
	}
	if sc, _ := log.String("effective_scenario"); sc == "Offline" {
		// One query: the run lasts until its last sample completes.
		duration := detailFloat(t, log, "result_max_latency_ns")
		minDuration := detailFloat(t, log, "effective_min_duration_ms") * 1e6
		met, _ := log.Raw("result_min_duration_met")
		assert.Equal(t, strconv.FormatBool(duration >= minDuration), string(met),
			"min duration met exactly when the last sample completed after %.0f ns (%.0f ns)", minDuration, duration)
		// The log prints samples/s to about six significant digits. The
		// query holds generated_samples_per_query samples, which may be
		// more than the setting's (LoadGen's summary says so).
		assert.InEpsilon(t, detailFloat(t, log, "result_query_count")*detailFloat(t, log, "generated_samples_per_query")/(duration/1e9),
			detailFloat(t, log, "result_samples_per_second"), 1e-4, "samples/s is the samples over the duration")
	}
	queries := detailFloat(t, log, "result_query_count")
	minQueries := detailFloat(t, log, "effective_min_query_count")
	if queries < minQueries {
		met, _ := log.Raw("result_min_queries_met")
		assert.Equal(t, "false", string(met), "%v queries of the %v required", queries, minQueries)
	}

	summary, err := os.ReadFile(filepath.Join(logs, "mlperf_log_summary.txt"))
	require.NoError(t, err)
	if m := summaryResult.FindStringSubmatch(string(summary)); assert.NotNil(t, m, "summary verdict") {
		assert.Equal(t, verdict, m[1], "summary verdict")
	}
	// The last run on the console is this one (a submit prints every run
	// before it).
	if all := consoleResult.FindAllStringSubmatch(r.stdout, -1); assert.NotEmpty(t, all, "console verdict:\n%s", r.stdout) {
		assert.Equal(t, verdict, all[len(all)-1][1], "console verdict")
	}
	if valid {
		assert.Equal(t, exitcode.OK, r.code, "stderr:\n%s", r.stderr)
	} else {
		assert.Equal(t, exitcode.InvalidResult, r.code, "stderr:\n%s", r.stderr)
		assert.Contains(t, r.stderr, "the result is INVALID: ")
		t.Logf("INVALID on this machine, as its measurements say: %s", r.stderr)
	}
	return valid
}

// stoppedRun is how submit names the run whose INVALID result ended it:
// a scenario's performance run, or the performance run of one of its
// compliance tests (TEST04's, whose audit sets no minimum duration).
var stoppedRun = regexp.MustCompile(`(?m)^mlperf-host: (\w+) (performance|TEST\d\d) run: the result is INVALID`)

// submitStopped returns the scenario whose performance run ended the
// submit r into the results directory of its benchmark, or "" when no run
// ended it. On a busy machine a timed run may miss its latency bound, and
// submit then stops with InvalidResult; that run's verdict must be the
// one its own measurements call for (assertVerdict).
func submitStopped(t *testing.T, r result, results string) string {
	t.Helper()
	if r.code != exitcode.InvalidResult {
		return ""
	}
	m := stoppedRun.FindStringSubmatch(r.stderr)
	require.NotNil(t, m, "submit ends INVALID only on a run it names:\n%s", r.stderr)
	run := filepath.Join(results, m[1], "performance", "run_1")
	if m[2] != "performance" {
		run = filepath.Join(results, m[1], m[2], "performance", "run_1")
	}
	require.False(t, assertVerdict(t, r, run), "the run submit stopped on is INVALID")
	return m[1]
}

// submittedBefore returns those of scenarios that submit r made whole
// before the run it stopped on: each started (and so its predecessors
// ended) before stopped's.
func submittedBefore(r result, scenarios []string, stopped string) []string {
	var done []string
	for _, sc := range scenarios {
		if sc != stopped && strings.Contains(r.stderr, " "+sc+" (performance) with ") {
			done = append(done, sc)
		}
	}
	return done
}

func detailFloat(t *testing.T, log *mllog.Log, key string) float64 {
	t.Helper()
	v, err := log.Float(key)
	require.NoError(t, err)
	return v
}

// assertServerConstraint checks a Server run's latency constraint against
// its own percentiles: the sample latency at the target percentile for a
// plain run; TTFT and TPOT against their bounds for a run with token
// latencies, whose sample latency LoadGen does not bound.
func assertServerConstraint(t *testing.T, log *mllog.Log) {
	t.Helper()
	met, _ := log.Raw("result_perf_constraints_met")
	pct := strconv.FormatFloat(detailFloat(t, log, "effective_target_latency_percentile")*100, 'f', 2, 64)
	if tokens, _ := log.Raw("requested_use_token_latencies"); string(tokens) != "true" {
		p := detailFloat(t, log, "result_"+pct+"_percentile_latency_ns")
		bound := detailFloat(t, log, "effective_target_latency_ns")
		assert.Equal(t, strconv.FormatBool(p <= bound), string(met),
			"latency constraint met exactly when p%s %.0f ns <= bound %.0f ns", pct, p, bound)
		return
	}
	ttft := detailFloat(t, log, "result_first_token_"+pct+"_percentile_latency_ns")
	tpot := detailFloat(t, log, "result_time_per_output_token_"+pct+"_percentile_ns")
	ttftBound := detailFloat(t, log, "requested_server_ttft_latency")
	tpotBound := detailFloat(t, log, "requested_server_tpot_latency")
	assert.Equal(t, strconv.FormatBool(ttft <= ttftBound && tpot <= tpotBound), string(met),
		"latency constraint met exactly when TTFT p%s %.0f ns <= %.0f ns and TPOT %.0f ns <= %.0f ns", pct, ttft, ttftBound, tpot, tpotBound)
}
