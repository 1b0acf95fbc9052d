package deepseekr1

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/livecodebench"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

var update = flag.Bool("update", false, "rewrite the fixtures under testdata")

// fixtureCase is a sample and the text the model answered.
type fixtureCase struct {
	row    FixtureRow
	output string
}

// mixedCases exercise each grader of eval_accuracy.py but LiveCodeBench's
// (the comment says what the official script makes of the case).
var mixedCases = []fixtureCase{
	{FixtureRow{Dataset: "gpqa", Truth: "B"}, "<think>B or C?</think>\nThe answer is ANSWER: B"},             // right
	{FixtureRow{Dataset: "gpqa", Truth: "C"}, "Final Answer: (D)."},                                          // wrong letter
	{FixtureRow{Dataset: "gpqa", Truth: "A"}, "I pick a"},                                                    // no ANSWER: none
	{FixtureRow{Dataset: "mmlu_pro", Truth: "H"}, "I think the option is h."},                                // standalone letter
	{FixtureRow{Dataset: "mmlu_pro", Truth: "E"}, "answer = e\n"},                                            // right
	{FixtureRow{Dataset: "math500", Truth: `\frac{1}{2}`}, `so \boxed{0.5}`},                                 // MATH normalization
	{FixtureRow{Dataset: "math500", Truth: `3\sqrt{13}`}, `\boxed{3\sqrt{13}}`},                              // same
	{FixtureRow{Dataset: "math500", Truth: `\left( 3, \frac{\pi}{2} \right)`}, `\boxed{(3, \frac{\pi}{2})}`}, // tuple
	{FixtureRow{Dataset: "math500", Truth: "10"}, `\boxed{10.0}`},                                            // a float that is an integer
	{FixtureRow{Dataset: "math500", Truth: "x^2+7x+10"}, `\boxed{(x+2)(x+5)}`},                               // symbolic
	{FixtureRow{Dataset: "math500", Truth: `\frac{14}{3}`}, `\boxed{\frac{28}{6}}`},                          // unreduced: wrong
	{FixtureRow{Dataset: "math500", Truth: `\text{Evelyn}`}, `\boxed{\text{Evelyn}}`},                        // text
	{FixtureRow{Dataset: "math500", Truth: "5"}, "The answer is 5"},                                          // no box
	{FixtureRow{Dataset: "math500", Truth: `2\sqrt{2}`}, `\boxed{\sqrt{8}}`},                                 // roots
	{FixtureRow{Dataset: "math500", Truth: `\frac{\sqrt{3}}{3}`}, `\boxed{\frac{1}{\sqrt{3}}}`},              // roots, fractions
	{FixtureRow{Dataset: "math500", Truth: `4`}, `\boxed{4.5}`},                                              // integer against non-integer
	{FixtureRow{Dataset: "aime", Truth: 204}, `\boxed{204}`},                                                 // right
	{FixtureRow{Dataset: "aime", Truth: "33"}, "so... Answer: 033"},                                          // leading zero
	{FixtureRow{Dataset: "aime", Truth: 70}, "Answer: 70."},                                                  // a '.' after: none
	{FixtureRow{Dataset: "aime", Truth: 1000}, `\boxed{1000}`},                                               // beyond 999: none
	{FixtureRow{Dataset: "math500", Truth: nil}, `\boxed{1}`},                                                // no ground truth
}

// lcbCases are LiveCodeBench rows, graded in the sandbox against
// lcbProblems.
var lcbCases = []fixtureCase{
	{FixtureRow{Dataset: "livecodebench", Truth: "q1"}, "```python\nn = int(input())\nprint(n * 2)\n```"},                                  // right
	{FixtureRow{Dataset: "livecodebench", Truth: "q2"}, "```python\nclass Solution:\n    def add(self, a, b):\n        return a + b\n```"}, // right
	{FixtureRow{Dataset: "livecodebench", Truth: "q1"}, "```python\nn = int(input())\nprint(n * 3)\n```"},                                  // wrong
	{FixtureRow{Dataset: "livecodebench", Truth: "q1"}, "```python\nraise ValueError('no')\n```"},                                          // raises
	{FixtureRow{Dataset: "livecodebench", Truth: "q3"}, "```python\nimport os\nos.fork()\nprint(1.0)\n```"},                                // no fork
	{FixtureRow{Dataset: "livecodebench", Truth: "q3"}, "```python\nif __name__ == '__main__':\n    print('1.000')\n```"},                  // decimals
	{FixtureRow{Dataset: "livecodebench", Truth: "q9"}, "```python\nprint(1)\n```"},                                                        // no such problem
	{FixtureRow{Dataset: "livecodebench", Truth: "q1"}, "no code"},                                                                         // no block
}

var lcbProblems = map[string]livecodebench.Problem{
	"q1": {Inputs: []string{"3\n", "10\n"}, Outputs: []string{"6\n", "20\n"}},
	"q2": {Inputs: []string{"1\n2", "-5\n5"}, Outputs: []string{"3", "0"}, FnName: "add"},
	"q3": {Inputs: []string{""}, Outputs: []string{"1\n"}},
}

// writeFixture writes a fixture of cases under dir: dataset.pkl,
// tokenizer.json, mlperf_log_accuracy.json (and problems.jsonl).
func writeFixture(t *testing.T, dir string, cases []fixtureCase, problems map[string]livecodebench.Problem) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	rows := make([]FixtureRow, len(cases))
	outs := make([][]int32, len(cases))
	for i, c := range cases {
		rows[i] = c.row
		rows[i].Prompt = ByteTokens(rows[i].Dataset)
		outs[i] = ByteTokens(c.output)
	}
	require.NoError(t, WriteSet(filepath.Join(dir, "dataset.pkl"), rows))
	require.NoError(t, WriteByteTokenizer(filepath.Join(dir, "tokenizer.json")))
	require.NoError(t, WriteLog(filepath.Join(dir, "mlperf_log_accuracy.json"), outs))
	if problems != nil {
		require.NoError(t, livecodebench.WriteProblems(filepath.Join(dir, "problems.jsonl"), problems, []string{"q1", "q2", "q3"}))
	}
}

// TestFixtures: the committed fixtures are what writeFixture writes
// (go test -update rewrites them).
func TestFixtures(t *testing.T) {
	t.Parallel()
	for _, f := range []struct {
		name     string
		cases    []fixtureCase
		problems map[string]livecodebench.Problem
	}{{"mixed", mixedCases, nil}, {"livecodebench", lcbCases, lcbProblems}} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			want := filepath.Join("testdata", f.name)
			if *update {
				writeFixture(t, want, f.cases, f.problems)
			}
			got := t.TempDir()
			writeFixture(t, got, f.cases, f.problems)
			entries, err := os.ReadDir(got)
			require.NoError(t, err)
			for _, e := range entries {
				a, err := os.ReadFile(filepath.Join(got, e.Name()))
				require.NoError(t, err)
				b, err := os.ReadFile(filepath.Join(want, e.Name()))
				require.NoError(t, err)
				assert.True(t, bytes.Equal(a, b), "%s differs from what writeFixture writes: go test -update", e.Name())
			}
		})
	}
}

// scoreFixture scores a committed fixture.
func scoreFixture(t *testing.T, name string, g Grader) Result {
	t.Helper()
	dir := filepath.Join("testdata", name)
	tok, err := tokenizer.Open(filepath.Join(dir, "tokenizer.json"))
	require.NoError(t, err)
	set, err := ReadSet(filepath.Join(dir, "dataset.pkl"), true)
	require.NoError(t, err)
	f, err := os.Open(filepath.Join(dir, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer f.Close()
	r, err := Score(context.Background(), f, tok, set, "int32", g)
	require.NoError(t, err)
	return r
}

// TestScoreMixed: the line eval_accuracy.py prints on the mixed fixture
// (tools/accuracyref/verify.sh runs it), and the rows it finds correct.
func TestScoreMixed(t *testing.T) {
	t.Parallel()
	r := scoreFixture(t, "mixed", Grader{})
	assert.Equal(t, officialMixed, r.Text())
	assert.Equal(t, map[string]int{"gpqa": 1, "mmlu_pro": 2, "math500": 8, "aime": 2}, r.Correct)
}

// officialMixed is eval_accuracy.py's line on testdata/mixed.
const officialMixed = "{'exact_match': 61.904761904761905, 'tokens_per_sample': 19.333333333333332, 'num-samples': 21}"
