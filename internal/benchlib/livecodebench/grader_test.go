package livecodebench

import (
	"context"
	"os"
	"testing"
	"time"

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

// grader judges against testdata/problems.jsonl, each test given a
// second (the verdicts are those of LiveCodeBench's 60: a program that
// never ends times out either way).
func grader(t *testing.T) Grader {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skipf("LiveCodeBench's programs are Python: %v", err)
	}
	self, err := os.Executable()
	require.NoError(t, err)
	return Grader{Launcher: self, Problems: []string{problemsGolden}, Timeout: time.Second}
}

// TestGrade: each verdict as LiveCodeBench's run_test gives it.
func TestGrade(t *testing.T) {
	t.Parallel()
	subs := []struct {
		name string
		sub  Submission
		pass bool
	}{
		{"right", Submission{"q1", "n = int(input())\nprint(n * 2)"}, true},
		{"functional", Submission{"q2", "class Solution:\n    def add(self, a, b):\n        return a + b"}, true},
		{"wrong on a private test", Submission{"q1", "n = int(input())\nprint(6)"}, false},
		{"raises", Submission{"q1", "raise ValueError('no')"}, false},
		{"never ends", Submission{"q1", "while True:\n    pass"}, false},
		{"forks", Submission{"q3", "import os\nos.fork()\nprint(1.0)"}, false},
		{"decimals, a main block", Submission{"q3", "if __name__ == '__main__':\n    print('1.000')"}, true},
		{"no such problem", Submission{"q9", "print(1)"}, false},
		{"empty code", Submission{"q3", ""}, false},
	}
	in := make([]Submission, len(subs))
	for i, s := range subs {
		in[i] = s.sub
	}
	got, err := grader(t).Grade(t.Context(), in)
	require.NoError(t, err)
	require.Len(t, got, len(subs))
	for i, s := range subs {
		assert.Equal(t, s.pass, got[i], s.name)
	}
}

// TestGradeErrors: no problems file, no launcher, an interrupted run
// give no verdict.
func TestGradeErrors(t *testing.T) {
	t.Parallel()
	g := grader(t)
	sub := []Submission{{"q1", "print(6)"}}
	_, err := Grader{Launcher: g.Launcher}.Grade(t.Context(), sub)
	require.ErrorIs(t, err, ErrNoProblems)
	_, err = Grader{Problems: g.Problems}.Grade(t.Context(), sub)
	require.ErrorContains(t, err, "no code sandbox launcher")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = g.Grade(ctx, sub)
	require.ErrorIs(t, err, context.Canceled)
}

// TestConfig: the sandbox's limits are the official scripts' (timeout+1
// seconds a test and 5 more), the harness's alarm whole seconds.
func TestConfig(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 127*time.Second, Grader{}.config(2).WallTime)
	assert.Equal(t, 9*time.Second, Grader{Timeout: 1400 * time.Millisecond}.config(2).CPUTime)
	assert.Equal(t, time.Second, Grader{Timeout: time.Millisecond}.timeout())
}
