package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/wan"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// TestWanSubmitTEST04: a wan-2.2-t2v-a14b submission runs the round's
// audit, TEST04, in both required scenarios with the official
// audit.config, whose wan-2.2-t2v-a14b lines (min_query_count 20) the
// run takes as the reference SUT does; the verdict compares two runs'
// speed, which a shared machine varies, so only its presence is checked.
// The accuracy runs are unscored (VBench's networks are not here).
func TestWanSubmitTEST04(t *testing.T) {
	t.Parallel()
	plugins, _ := onnxOrt(t)
	model, err := filepath.Abs(filepath.Join("testdata", "benchmarks", "wan-signature.onnx"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, wan.WriteData(filepath.Join(dir, "data"), wan.FixturePrompts, 2, 1, 1, 5))
	// SingleStream's early stopping takes 64 queries: TEST04's
	// min_query_count of 20 leaves them to the duration, which the audit
	// does not set (half a second of a model that answers in a
	// millisecond or less, and queries scheduled for 10 µs each).
	require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(benchConf+
		"wan-2.2-t2v-a14b.SingleStream.min_query_count = 64\nwan-2.2-t2v-a14b.SingleStream.min_duration = 500\n"+
		"wan-2.2-t2v-a14b.SingleStream.target_latency = 0.01\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "calibration.md"), []byte("# Calibration\n\nFP32 as trained.\n"), 0o644))
	r := mlperfHost(t, dir, append([]string{"submit", "--submission", "sub", "--benchmark", "wan-2.2-t2v-a14b", "--dataset", "data", "--model", model,
		"--plugin", "onnx-ort", "--plugin-dirs", plugins, "--user-conf", "user.conf", "--set", "category=datacenter",
		"--set", "calibration=calibration.md"}, submitTreeFlags("closed")...)...)
	res := filepath.Join(dir, "sub", "closed", "acme", "results", "box", "wan-2.2-t2v-a14b")
	scenarios := []string{"Offline", "SingleStream"}
	if last := submitStopped(t, r, res); last != "" {
		// A timed run missed its bound on this machine: the scenarios
		// before it were submitted whole.
		scenarios = submittedBefore(r, scenarios, last)
		t.Logf("submit ended at a %s run; checking %v", last, scenarios)
	} else {
		require.Equal(t, exitcode.SubmissionInvalid, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	b, err := benchmarks.MustRound("v6.1").Lookup("wan-2.2-t2v-a14b")
	require.NoError(t, err)
	official, ok := b.AuditConfigText(benchmarks.TEST04)
	require.True(t, ok)
	for _, sc := range scenarios {
		test04 := filepath.Join(res, sc, "TEST04")
		audit, err := os.ReadFile(filepath.Join(test04, "audit.config"))
		require.NoError(t, err, sc)
		assert.Equal(t, official, string(audit), sc)
		assert.Contains(t, string(audit), "wan-2.2-t2v-a14b."+sc+".min_query_count = 20", sc)
		f, err := os.Open(filepath.Join(test04, "performance", "run_1", "mlperf_log_detail.txt"))
		require.NoError(t, err, sc)
		log, err := mllog.Parse(f)
		f.Close()
		require.NoError(t, err, sc)
		n, err := log.Float("requested_min_query_count")
		require.NoError(t, err, sc)
		assert.InDelta(t, 20, n, 0, "%s: TEST04's wan-2.2-t2v-a14b min_query_count, not user.conf's", sc)
		verdict, err := os.ReadFile(filepath.Join(test04, "verify_performance.txt"))
		require.NoError(t, err, sc)
		assert.Contains(t, string(verdict), "Verifying performance.", sc)
	}
	assert.Contains(t, r.stdout, "not scored: the vbench scorer's metric needs VBench's networks")
}
