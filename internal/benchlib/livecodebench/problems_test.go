package livecodebench

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

var update = flag.Bool("update", false, "rewrite testdata/problems.jsonl")

// problems are a stdin problem, a functional one and one without private
// tests.
var problems = map[string]Problem{
	"q1": {Inputs: []string{"3\n", "10\n"}, Outputs: []string{"6\n", "20\n"}},
	"q2": {Inputs: []string{"1\n2", "-5\n5"}, Outputs: []string{"3", "0"}, FnName: "add"},
	"q3": {Inputs: []string{""}, Outputs: []string{"1\n"}},
}

const problemsGolden = "testdata/problems.jsonl"

// TestWriteProblems: WriteProblems writes code_generation_lite's form
// (testdata/problems.jsonl; go test -update rewrites it), which
// ReadProblems reads back.
func TestWriteProblems(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.jsonl")
	require.NoError(t, WriteProblems(path, problems, []string{"q1", "q2", "q3"}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(problemsGolden, got, 0o644))
	}
	want, err := os.ReadFile(problemsGolden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "go test -update rewrites %s", problemsGolden)
	back, err := ReadProblems(path)
	require.NoError(t, err)
	assert.Equal(t, problems, back)
}

// TestReadProblems reads the private tests packed as LiveCodeBench's
// release packs them (base64 of zlib of a pickled JSON text), several
// files (a question a later one holds again is the later one's), and
// names the line of a malformed problem.
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
	dir := t.TempDir()
	path := filepath.Join(dir, "test.jsonl")
	line := fmt.Sprintf(`{"question_id": "abc", "public_test_cases": "[{\"input\": \"1\\n\", \"output\": \"2\\n\", \"testtype\": \"stdin\"}]", "private_test_cases": %q, "metadata": "{}"}`, packed)
	require.NoError(t, os.WriteFile(path, []byte(line+"\n\n"), 0o644))
	got, err := ReadProblems(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]Problem{"abc": {Inputs: []string{"1\n", "5\n"}, Outputs: []string{"2\n", "10\n"}}}, got)

	got, err = ReadProblems(path, problemsGolden)
	require.NoError(t, err)
	assert.Len(t, got, 4)
	assert.Equal(t, problems["q2"], got["q2"])
	again := filepath.Join(dir, "test2.jsonl")
	require.NoError(t, WriteProblems(again, map[string]Problem{"abc": problems["q3"]}, []string{"abc"}))
	got, err = ReadProblems(path, again)
	require.NoError(t, err)
	assert.Equal(t, map[string]Problem{"abc": problems["q3"]}, got)

	require.NoError(t, os.WriteFile(path, []byte(line+"\n{\"question_id\": \"x\", \"public_test_cases\": \"[\"}\n"), 0o644))
	_, err = ReadProblems(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": line 2: question x: public_test_cases")
	_, err = ReadProblems(filepath.Join(dir, "none.jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestFiles: the options' comma-separated lists.
func TestFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, list string
		want       []string
	}{
		{name: "one", list: "test.jsonl", want: []string{"test.jsonl"}},
		{name: "release_v6", list: "a/test.jsonl, a/test2.jsonl,a/test6.jsonl", want: []string{"a/test.jsonl", "a/test2.jsonl", "a/test6.jsonl"}},
		{name: "none", list: "", want: nil},
		{name: "empty items", list: ",x,,", want: []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Files(tt.list))
		})
	}
}

// FuzzParseProblem: any line is read or refused, never a panic.
func FuzzParseProblem(f *testing.F) {
	b, err := os.ReadFile(problemsGolden)
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
