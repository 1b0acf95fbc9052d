package deepseekr1

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/codesandbox"
)

// TestMain makes the test binary the code sandbox's launcher (the
// helper-process pattern).
func TestMain(m *testing.M) {
	codesandbox.LaunchIfAsked()
	os.Exit(m.Run())
}

// TestScoreLiveCodeBench: the line eval_accuracy.py prints on the
// LiveCodeBench fixture (with LiveCodeBench's own grader; verify.sh runs
// it), the programs run in the sandbox.
func TestScoreLiveCodeBench(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skipf("LiveCodeBench's programs are Python: %v", err)
	}
	self, err := os.Executable()
	require.NoError(t, err)
	r := scoreFixture(t, "livecodebench", Grader{Launcher: self, Problems: filepath.Join("testdata", "livecodebench", "problems.jsonl")})
	assert.Equal(t, "{'exact_match': 37.5, 'tokens_per_sample': 43.125, 'num-samples': 8}", r.Text())
	assert.Equal(t, 3, r.Correct["livecodebench"])
}

// TestScoreLiveCodeBenchInterrupted: a cancelled context fails the
// score rather than marking the programs wrong.
func TestScoreLiveCodeBenchInterrupted(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	dir := filepath.Join("testdata", "livecodebench")
	in := inputs(dir)
	in.Launcher, in.Problems = self, filepath.Join(dir, "problems.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in.Context = ctx
	_, err = score(mustOpen(t, filepath.Join(dir, "mlperf_log_accuracy.json")), in)
	require.ErrorIs(t, err, context.Canceled)
}

// TestScoreLiveCodeBenchNeedsProblems: code rows without the problems
// file are an error naming it, not a silent zero.
func TestScoreLiveCodeBenchNeedsProblems(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "livecodebench")
	_, err := score(mustOpen(t, filepath.Join(dir, "mlperf_log_accuracy.json")), inputs(dir))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--problems")
}
