package deepseekr1

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/codesandbox"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// TestMain makes the test binary the code sandbox's launcher (the
// helper-process pattern).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == codesandbox.LaunchArg {
		err := codesandbox.Main(os.Args[2:])
		fmt.Fprintln(os.Stderr, codesandbox.LaunchPrefix+err.Error())
		os.Exit(codesandbox.LaunchFailed)
	}
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

// TestReadProblems reads the private tests packed as LiveCodeBench's
// release packs them (base64 of zlib of a pickled JSON text) and names
// the line of a malformed problem.
func TestReadProblems(t *testing.T) {
	t.Parallel()
	var p pickle.Writer
	p.Str(`[{"input": "5\n", "output": "10\n", "testtype": "stdin"}]`)
	var pk bytes.Buffer
	require.NoError(t, p.Encode(&pk))
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, err := zw.Write(pk.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	packed := base64.StdEncoding.EncodeToString(z.Bytes())
	path := filepath.Join(t.TempDir(), "test.jsonl")
	line := fmt.Sprintf(`{"question_id": "abc", "public_test_cases": "[{\"input\": \"1\\n\", \"output\": \"2\\n\", \"testtype\": \"stdin\"}]", "private_test_cases": %q, "metadata": "{}"}`, packed)
	require.NoError(t, os.WriteFile(path, []byte(line+"\n"), 0o644))
	got, err := ReadProblems(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]Problem{"abc": {Inputs: []string{"1\n", "5\n"}, Outputs: []string{"2\n", "10\n"}}}, got)

	require.NoError(t, os.WriteFile(path, []byte(line+"\n{\"question_id\": \"x\", \"public_test_cases\": \"[\"}\n"), 0o644))
	_, err = ReadProblems(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": line 2: question x: public_test_cases")
}

// FuzzParseProblem: any line is read or refused, never a panic.
func FuzzParseProblem(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "livecodebench", "problems.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		_, p, err := parseProblem(line)
		if err == nil && len(p.Inputs) != len(p.Outputs) {
			t.Fatalf("%d inputs, %d outputs", len(p.Inputs), len(p.Outputs))
		}
	})
}
