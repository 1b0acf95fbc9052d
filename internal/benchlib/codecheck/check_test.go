package codecheck

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

// checker runs Python programs, with limits far beyond what they need
// on a loaded machine (a test of the limits sets its own).
func checker(t *testing.T) Checker {
	t.Helper()
	if err := Need("python", "", "python3"); err != nil {
		t.Skipf("the tests' programs are Python: %v", err)
	}
	self, err := os.Executable()
	require.NoError(t, err)
	return Checker{Launcher: self, Timeout: 2 * time.Minute, CompileTimeout: 2 * time.Minute, Memory: 1 << 30, Threads: 8, Workers: 2}
}

func py(code string) Job {
	return Job{Files: map[string][]byte{"main.py": []byte(code)}, Run: []string{"python3", "main.py"}}
}

// TestCheck: each verdict, from the exit status, the compiler's, or the
// job's own reading of the result.
func TestCheck(t *testing.T) {
	t.Parallel()
	// A "compiler" that writes what the program then reads, and exits
	// with the status given.
	compiled := func(status string, ok func(int) bool) Job {
		j := py("print(open('built').read())")
		j.Files["build.py"] = []byte("open('built', 'w').write('from the compiler')\nraise SystemExit(" + status + ")")
		j.Compile, j.Compiled = []string{"python3", "build.py"}, ok
		return j
	}
	withOutput := py("print('PASS')")
	withOutput.Passed = func(r codesandbox.Result) bool { return string(r.Stdout) == "PASS\n" }
	lies := py("import os\nos._exit(0)")
	lies.Passed = withOutput.Passed
	tests := []struct {
		name    string
		job     Job
		timeout time.Duration // 0 for checker's
		pass    bool
	}{
		{"exits 0", py("assert 1 + 1 == 2"), 0, true},
		{"fails its test", py("assert 1 + 1 == 3"), 0, false},
		{"never ends", py("while True:\n    pass"), time.Second, false},
		{"sleeps past the limit", py("import time\ntime.sleep(600)"), time.Second, false},
		{"compiled", compiled("0", nil), 0, true},
		{"does not compile", compiled("1", nil), 0, false},
		// A compiler whose success is status 2 (tsc that emitted output
		// with type errors).
		{"compiled with status 2", compiled("2", func(s int) bool { return s == 2 }), 0, true},
		{"status 0 where 2 is wanted", compiled("0", func(s int) bool { return s == 2 }), 0, false},
		{"its own verdict", withOutput, 0, true},
		{"exit 0 without the verdict's output", lies, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := checker(t)
			if tt.timeout > 0 {
				c.Timeout = tt.timeout
			}
			got, err := c.Check(t.Context(), tt.job)
			require.NoError(t, err)
			assert.Equal(t, tt.pass, got)
		})
	}
}

// TestCheckAll: verdicts in the jobs' order; an interrupted run and a
// sandbox that cannot start give none.
func TestCheckAll(t *testing.T) {
	t.Parallel()
	c := checker(t)
	jobs := []Job{py("pass"), py("raise ValueError"), py("print(1)"), py("import sys\nsys.exit(3)")}
	got, err := c.CheckAll(t.Context(), jobs)
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false, true, false}, got)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = c.CheckAll(ctx, jobs)
	require.ErrorIs(t, err, context.Canceled)

	_, err = c.CheckAll(t.Context(), []Job{{Run: []string{"no-such-program"}}})
	require.ErrorContains(t, err, "program 0")
}

// TestValidate names each bad field.
func TestValidate(t *testing.T) {
	t.Parallel()
	err := Checker{}.Validate()
	for _, want := range []string{"launcher", "timeouts", "workers"} {
		assert.ErrorContains(t, err, want)
	}
	_, err = Checker{}.Check(t.Context(), py("pass"))
	require.Error(t, err)
}

// TestNeed: a missing program is a ToolchainError naming the language
// and the program.
func TestNeed(t *testing.T) {
	t.Parallel()
	require.NoError(t, Need("shell", "", "sh"))
	err := Need("cobol", "Debian: apt-get install gnucobol", "sh", "no-such-cobc")
	require.ErrorIs(t, err, ErrNoToolchain)
	var te *ToolchainError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "no-such-cobc", te.Program)
	assert.EqualError(t, err, "cobol programs need no-such-cobc, which is not in /usr/bin or /bin (Debian: apt-get install gnucobol)")
}
