package gptoss

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/livecodebench"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// scoreDir scores a fixture directory's log as Scorer does.
func scoreDir(t *testing.T, dir string) Result {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, logFile))
	require.NoError(t, err)
	defer f.Close()
	s, err := Scorer.Score(f, accuracy.Inputs{Truth: filepath.Join(dir, setFile), Vocab: filepath.Join(dir, "tokenizer.json")})
	require.NoError(t, err)
	return s.(Result)
}

// TestScoreAsTheOfficialScript: on both fixtures, Report is what
// eval_mlperf_accuracy.py printed on its standard output there
// (official_stdout.golden, tools/accuracyref/verify.sh), Text its last
// line.
func TestScoreAsTheOfficialScript(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{decoderDir, answersDir} {
		r := scoreDir(t, dir)
		want, err := os.ReadFile(filepath.Join(dir, stdoutFile))
		require.NoError(t, err)
		assert.Equal(t, string(want), r.Report(), dir)
	}
	r := scoreDir(t, decoderDir)
	assert.Equal(t, "'exact_match': 50.000", r.Text())
	v, ok := r.Value(benchmarks.ExactMatch)
	assert.True(t, ok)
	assert.InDelta(t, 50.0, v, 1e-12)
	assert.True(t, strings.HasPrefix(r.Details(), strings.Repeat("=", 80)+"\nMLPerf Accuracy Evaluation Results\n"), r.Details())
	assert.True(t, strings.HasSuffix(r.Details(), "FINAL SCORE: 50.00% (0.65/1.30)\n"+strings.Repeat("=", 80)+"\n"), r.Details())
	_, ok = r.Value("TOKENS_PER_SAMPLE")
	assert.False(t, ok, "the script prints no tokens per sample")
}

// TestAnswers: each output of the answers fixture is judged as the
// official script judged it (its --output-file's is_correct, by
// qsl_idx).
func TestAnswers(t *testing.T) {
	t.Parallel()
	for i, a := range answers {
		evaluate, err := evaluatorOf(a.dataset)
		require.NoError(t, err)
		got, err := evaluate(a.output, a.truth)
		require.NoError(t, err)
		assert.Equal(t, a.correct, got, "answer %d: %q (truth %v)", i, a.output, a.truth)
	}
}

// TestScoreErrors: a reference set without its columns, a sub-dataset
// without an evaluator or one mlperf-host cannot judge, a log of
// partial tokens fail saying so; an entry beyond the set is skipped.
func TestScoreErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tok, err := tokenizer.Open(filepath.Join(answersDir, "tokenizer.json"))
	require.NoError(t, err)
	write := func(name string, samples []Sample, truth bool) *Set {
		path := filepath.Join(dir, name)
		require.NoError(t, WriteSet(path, samples, truth))
		s, err := ReadSet(path)
		require.NoError(t, err)
		return s
	}
	const oneEntry = `[{"seq_id": 0, "qsl_idx": 0, "data": "0A000000"}, {"seq_id": 1, "qsl_idx": 5, "data": "0A000000"}]`
	tests := []struct {
		name string
		set  *Set
		log  string
		err  string
	}{
		{name: "performance set", set: write("perf.pkl", []Sample{{Tokens: []int64{1}}}, false), log: oneEntry,
			err: "reference data missing required columns: ['dataset', 'ground_truth']"},
		{name: "unknown sub-dataset", set: write("x.pkl", []Sample{{Tokens: []int64{1}, Dataset: "Trivia", Truth: "x"}}, true), log: oneEntry,
			err: `no evaluator found for dataset "trivia"`},
		// The script cannot load LiveCodeBench's benchmark: it fails,
		// code block or not.
		{name: "code without problems", set: write("lcb.pkl", []Sample{{Tokens: []int64{1}, Dataset: "livecodebench_v6", Truth: "q1"}}, true),
			log: `[{"seq_id": 0, "qsl_idx": 0, "data": "0A000000"}]`,
			err: "gpt-oss: livecodebench samples need LiveCodeBench's problems (code_generation_lite's release_v6: test.jsonl, test2.jsonl, ..., test6.jsonl): --problems FILE[,FILE...]"},
		{name: "math", set: write("math.pkl", []Sample{{Tokens: []int64{1}, Dataset: "math500", Truth: "1/2"}}, true),
			log: `[{"seq_id": 0, "qsl_idx": 0, "data": "` + fmt.Sprintf("%X", encodeBytes(`so \boxed{\frac{1}{2}}`)) + `"}]`,
			err: "math500: sample 0: math500's answers are graded by PRM800K's grader"},
		{name: "no name", set: write("noname.pkl", []Sample{{Tokens: []int64{1}, Truth: "x"}}, true), log: oneEntry,
			err: "sample 0: no dataset name"},
		{name: "partial token", set: write("gpqa.pkl", []Sample{{Tokens: []int64{1}, Dataset: "gpqa_diamond", Truth: "A"}}, true),
			log: `[{"seq_id": 0, "qsl_idx": 0, "data": "0A0000"}]`, err: "entry 0 (qsl_idx 0): 3 bytes are not whole int32 token ids"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Score(t.Context(), stringsReader(tt.log), tt.set, tok, livecodebench.Grader{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	// Without a \boxed{} answer, an output is incorrect: nothing to
	// grade.
	unjudged, err := Score(t.Context(), stringsReader(`[{"seq_id": 0, "qsl_idx": 0, "data": "0A000000"}]`), write("nocode.pkl", []Sample{
		{Tokens: []int64{1}, Dataset: "math500", Truth: "2"}}, true), tok, livecodebench.Grader{})
	require.NoError(t, err)
	assert.Equal(t, []DatasetScore{{Name: "math500", Total: 1}}, unjudged.Datasets)
	r, err := Score(t.Context(), stringsReader(oneEntry), write("one.pkl", []Sample{{Tokens: []int64{1}, Dataset: "gpqa_diamond", Truth: "A"}}, true), tok, livecodebench.Grader{})
	require.NoError(t, err)
	assert.Equal(t, []DatasetScore{{Name: "gpqa_diamond", Total: 1}}, r.Datasets, "qsl_idx 5 is beyond the set: skipped")
}
