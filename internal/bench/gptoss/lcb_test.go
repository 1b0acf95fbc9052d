package gptoss

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/codesandbox"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/livecodebench"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// TestMain makes the test binary the code sandbox's launcher (the
// helper-process pattern).
func TestMain(m *testing.M) {
	codesandbox.LaunchIfAsked()
	os.Exit(m.Run())
}

// lcbGrader runs the fixture's programs, each test given a second: the
// verdicts are those of LiveCodeBench's 60 (the program that never ends
// times out either way), in seconds rather than minutes.
func lcbGrader(t *testing.T) livecodebench.Grader {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skipf("LiveCodeBench's programs are Python: %v", err)
	}
	self, err := os.Executable()
	require.NoError(t, err)
	return livecodebench.Grader{Launcher: self, Problems: []string{filepath.Join(lcbDir, problems)}, Timeout: time.Second}
}

// scoreLCB scores testdata/livecodebench's log with g.
func scoreLCB(ctx context.Context, t *testing.T, g livecodebench.Grader) (Result, error) {
	t.Helper()
	tok, err := tokenizer.Open(filepath.Join(lcbDir, "tokenizer.json"))
	require.NoError(t, err)
	set, err := ReadSet(filepath.Join(lcbDir, setFile))
	require.NoError(t, err)
	f, err := os.Open(filepath.Join(lcbDir, logFile))
	require.NoError(t, err)
	defer f.Close()
	return Score(ctx, f, set, tok, g)
}

// lcbLoaded is what LiveCodeBench's loader prints on the script's
// standard output when it reads the fixture's problems.
const lcbLoaded = "Loaded 3 problems\n"

// TestScoreLiveCodeBench: the programs of testdata/livecodebench run in
// the sandbox; Report is what eval_mlperf_accuracy.py printed there, with
// LiveCodeBench's own grader (official_stdout.golden,
// tools/accuracyref/verify.sh), after the line LiveCodeBench's loader
// prints.
func TestScoreLiveCodeBench(t *testing.T) {
	t.Parallel()
	r, err := scoreLCB(t.Context(), t, lcbGrader(t))
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(lcbDir, stdoutFile))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(want), lcbLoaded), "%s", want)
	assert.Equal(t, strings.TrimPrefix(string(want), lcbLoaded), r.Report())
	assert.Equal(t, "'exact_match': 37.500", r.Text())
	correct := 0
	for _, a := range lcbAnswers {
		if a.correct && a.dataset == "livecodebench_v6" {
			correct++
		}
	}
	assert.Equal(t, []DatasetScore{{Name: "gpqa_diamond", Correct: 1, Total: 1}, {Name: "livecodebench_v6", Correct: correct, Total: 9}}, r.Datasets)
}

// TestScoreLiveCodeBenchInterrupted: a cancelled context fails the score
// rather than marking the programs wrong.
func TestScoreLiveCodeBenchInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := scoreLCB(ctx, t, lcbGrader(t))
	require.ErrorIs(t, err, context.Canceled)
}

// TestScorerLiveCodeBenchOptions: the scorer takes the problems files
// from --problems (accuracy.problems) and the launcher from the caller;
// without the files, the error names the option.
func TestScorerLiveCodeBenchOptions(t *testing.T) {
	t.Parallel()
	in := accuracy.Inputs{Truth: filepath.Join(lcbDir, setFile), Vocab: filepath.Join(lcbDir, "tokenizer.json")}
	score := func(in accuracy.Inputs) error {
		f, err := os.Open(filepath.Join(lcbDir, logFile))
		require.NoError(t, err)
		defer f.Close()
		_, err = Scorer.Score(f, in)
		return err
	}
	err := score(in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--problems FILE[,FILE...] (accuracy.problems)")
	in.Problems = filepath.Join(lcbDir, problems)
	require.ErrorContains(t, score(in), "no code sandbox launcher")
	in.Launcher = lcbGrader(t).Launcher
	in.Problems += "," + filepath.Join(lcbDir, "none.jsonl")
	require.ErrorIs(t, score(in), os.ErrNotExist, "every file of the list is read")
}
