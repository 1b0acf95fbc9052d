package mixtral

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/codecheck"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/codesandbox"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// TestMain makes the test binary the code sandbox's launcher (the
// helper-process pattern).
func TestMain(m *testing.M) {
	codesandbox.LaunchIfAsked()
	os.Exit(m.Run())
}

// The test code of the MBXP fixture's problem, add_two(1, 2) == 3, in
// each language as MBXP writes its tests (assertions that throw, a main
// that returns 0, Python's check(candidate)).
const (
	cppTest = "\nint main(int argc, char* argv[]) {\n    int x0 = add_two(1, 2);\n    if (!(x0 == 3)) {\n" +
		"        throw runtime_error(\"Exception -- test case 0 did not pass. x0 = \");\n    }\n    return 0;\n}\n"
	pythonTest     = "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n"
	phpTest        = "\nfunction compare($x, $y) {\n    return $x == $y;\n}\n\n$x0 = add_two(1, 2);\nif (!compare($x0, 3)) {\n    throw new Exception(\"Error at 1th assert statement.\");\n}\n"
	javascriptTest = "\nconst assert = require('node:assert');\n\nassert.deepEqual(add_two(1, 2), 3, \"Exception --- test case 0 failed to pass\");\n"
	rubyTest       = "\narg00 = 1\narg01 = 2\nx0 = add_two(arg00, arg01)\nif x0 != 3\n    raise \"Exception -- test case 0 did not pass. x0 = \" + x0.to_s\nend\n"
	typescriptTest = "\nimport * as assert from 'assert'\n\nlet actual_1 = add_two(1, 2);\nlet expected_1 = 3;\n" +
		"assert.deepEqual(actual_1, expected_1, \"Exception --- test case 0 failed to pass\");\n"
)

// mbxpRows are the MBXP fixture: a GSM8K row (the script divides by
// their count), then in each of the six languages solutions that pass and
// that fail, as Mixtral writes them (the code, then the block's ```
// and some prose), and a Go row, which evaluate_mbxp.py skips.
var mbxpRows = []fixtureRow{
	{Row{Kind: GSM8K, Target: "3"}, "1 + 2 = 3. The answer is 3."},
	{Row{Kind: MBXP, ID: "cpp_add_two", Target: cppTest},
		"#include <stdexcept>\nusing namespace std;\n\nint add_two(int a, int b) {\n    return a + b;\n}\n```\n\nThe function adds."},
	// Throws: abort, a signal, not exit status 0.
	{Row{Kind: MBXP, ID: "cpp_add_two", Target: cppTest},
		"#include <stdexcept>\nusing namespace std;\n\nint add_two(int a, int b) {\n    return a - b;\n}\n```"},
	{Row{Kind: MBXP, ID: "cpp_add_two", Target: cppTest}, "int add_two(int a, int b) {\n    return a + b\n}\n```"}, // does not compile
	// Leading blank lines and indentation (lstrip'd), Markdown's \_.
	{Row{Kind: MBXP, ID: "python_add_two", Target: pythonTest}, "\n  def add\\_two(a, b):\n    return a + b\n```\nDone."},
	{Row{Kind: MBXP, ID: "python_add_two", Target: pythonTest}, "def add_two(a, b):\n    return a * b\n"},
	// Exit status 0 as a script, but check_correctness's exec sees
	// SystemExit: it fails.
	{Row{Kind: MBXP, ID: "python_add_two", Target: pythonTest}, "import sys\n\ndef add_two(a, b):\n    return a + b\n\nsys.exit(0)\n```"},
	{Row{Kind: MBXP, ID: "php_add_two", Target: phpTest}, "<?php\nfunction add_two($a, $b) {\n    return $a + $b;\n}\n```"},
	{Row{Kind: MBXP, ID: "php_add_two", Target: phpTest}, "<?php\nfunction add\\_two($a, $b) {\n    return $a . $b;\n}\n```"},
	{Row{Kind: MBXP, ID: "javascript_add_two", Target: javascriptTest}, "function add_two(a, b) {\n    return a + b;\n}\n```\n\nUse it so."},
	{Row{Kind: MBXP, ID: "javascript_add_two", Target: javascriptTest}, "function add_two(a, b) {\n    return String(a) + b;\n}\n```"},
	{Row{Kind: MBXP, ID: "ruby_add_two", Target: rubyTest}, "def add_two(a, b)\n    a + b\nend\n```"},
	{Row{Kind: MBXP, ID: "ruby_add_two", Target: rubyTest}, "def add_two(a, b)\n    a + b + 1\nend\n```"},
	{Row{Kind: MBXP, ID: "typescript_add_two", Target: typescriptTest},
		"const add_two = function (a: number, b: number) : number  {\n    return a + b;\n}\n```"},
	{Row{Kind: MBXP, ID: "typescript_add_two", Target: typescriptTest},
		"const add_two = function (a: number, b: number) : number  {\n    return a * b;\n}\n```"},
	{Row{Kind: MBXP, ID: "go_add_two", Target: "\nfunc TestAddTwo(t *testing.T) {}\n"}, "func add_two(a, b int) int { return a + b }\n```"},
}

// mbxpPassing are the rows of mbxpRows whose solution passes.
var mbxpPassing = map[int]bool{1: true, 4: true, 7: true, 9: true, 11: true, 13: true}

// launcher is the test binary, the sandbox's launcher.
func launcher(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	return self
}

// TestMBXPFixture: the committed MBXP fixture is what writeFixture
// writes; each solution passes or fails as mxeval judges it, and the
// line and evaluate_mbxp.py's lines are what the official scripts print
// on the fixture (tools/accuracyref/verify.sh, with mxeval's checkers in
// shims/mxeval). Where a language's toolchain is not installed, its rows
// are left out (the test says which) and the line is not checked.
func TestMBXPFixture(t *testing.T) {
	t.Parallel()
	checkFixture(t, "mbxp.pkl", "mbxp_log_accuracy.json", mbxpRows)
	dir, rows, idx := fixtureDir, mbxpRows, make([]int, len(mbxpRows)) // idx: rows' index in mbxpRows
	for i := range idx {
		idx[i] = i
	}
	var missing []string
	for _, name := range MBXPLanguages() {
		l, _ := mbxpLanguageOf(name)
		if err := l.need(); err != nil {
			t.Logf("not checked: %v", err)
			missing = append(missing, name+"_")
		}
	}
	if missing != nil {
		dir, rows, idx = t.TempDir(), nil, nil
		for i, r := range mbxpRows {
			if !slices.ContainsFunc(missing, func(p string) bool { return strings.HasPrefix(r.row.ID, p) }) {
				rows, idx = append(rows, r), append(idx, i)
			}
		}
		writeFixture(t, dir, "mbxp.pkl", "mbxp_log_accuracy.json", rows)
	}
	log, err := os.Open(filepath.Join(dir, "mbxp_log_accuracy.json"))
	require.NoError(t, err)
	defer log.Close()
	s, err := Scorer.Score(log, accuracy.Inputs{Truth: filepath.Join(dir, "mbxp.pkl"), Vocab: filepath.Join(fixtureDir, "tokenizer.json"),
		Dtype: "int32", Launcher: launcher(t), Workers: 4, Context: t.Context()})
	if len(missing) == len(MBXPLanguages()) {
		require.ErrorContains(t, err, "none in the languages")
		return
	}
	require.NoError(t, err)
	r, ok := s.(Result)
	require.True(t, ok)
	for i, row := range rows {
		if row.row.Kind != MBXP || strings.HasPrefix(row.row.ID, "go_") {
			continue
		}
		got, ok := r.MBXPVerdicts[uint64(i)]
		assert.True(t, ok, "row %d", idx[i])
		assert.Equal(t, mbxpPassing[idx[i]], got, "row %d, %s: %q", idx[i], row.row.ID, row.pred)
	}
	assert.Len(t, r.MBXPVerdicts, len(rows)-2, "all but the GSM8K and Go rows")
	if missing != nil {
		return
	}
	assert.Equal(t, "{'gsm8k': 100.0, 'mbxp': 42.857142857142854, 'gen_len': 0, 'gen_num': 17, 'gen_tok_len': 966, 'tokens_per_sample': 56.8}", s.Text())
	assert.Equal(t, " 42.86% pass@1\n{'cpp': 1, 'python': 1, 'php': 1, 'javascript': 1, 'ruby': 1, 'typescript': 1} "+
		"{'cpp': 3, 'python': 3, 'php': 2, 'javascript': 2, 'ruby': 2, 'typescript': 2}\n", r.Details())
	v, ok := s.Value(MBXPAccuracy)
	assert.True(t, ok)
	assert.InDelta(t, 600.0/14, v, 1e-12)
	v, _ = s.Value(benchmarks.Metric("gsm8k_accuracy"))
	assert.InDelta(t, 100.0, v, 0)
}

// TestMBXPSolution: evaluate_mbxp.py's post-processing.
func TestMBXPSolution(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, lang, response, want string }{
		{"cut at the first fence", "cpp", "int f();\n```\nmore ```", "int f();\n"},
		{"no fence", "ruby", "def f\nend\n", "def f\nend\n"},
		{"python lstrip, Unicode spaces too", "python", "\u00a0\n  def f_x(): pass", "def f_x(): pass"},
		{"lstrip is Python's alone", "php", "  <?php", "  <?php"},
		{"escaped underscores", "javascript", "const a\\_b = 1; // \\\\_", "const a_b = 1; // \\_"},
		{"a fence first: nothing", "python", "```python\ndef f(): pass\n```", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, mbxpSolution(tt.lang, tt.response))
		})
	}
}

// FuzzMBXPSolution: a post-processed response never holds the fence it
// was cut at, a Python one never begins with white space, and the cut
// keeps what comes before the first fence.
func FuzzMBXPSolution(f *testing.F) {
	for _, s := range []string{"def f(): pass\n```\nmore", "  \\_x", "``", "a\\```"} {
		f.Add("python", s)
		f.Add("cpp", s)
	}
	f.Fuzz(func(t *testing.T, lang, response string) {
		got := mbxpSolution(lang, response)
		if strings.Contains(got, "```") {
			t.Fatalf("%q: %q holds a fence", response, got)
		}
		before, _, _ := strings.Cut(response, "```")
		if lang == "python" && got != "" && strings.TrimLeftFunc(got, py.IsSpace) != got {
			t.Fatalf("%q: %q begins with white space", response, got)
		}
		if lang != "python" && len(got) > len(before) {
			t.Fatalf("%q: %q is longer than the text before the fence", response, got)
		}
	})
}

// TestMBXPProgram: the program mxeval assembles, prompt emptied: for
// Python with check(ENTRY) after the test code, else solution and test
// code alone, each run as its checker runs it.
func TestMBXPProgram(t *testing.T) {
	t.Parallel()
	p := mbxpProblem{lang: "python", entry: "add_two", test: "def check(c): pass", response: "x"}
	j, err := pythonJob(p, "def add_two(): pass", 20*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "def add_two(): pass\ndef check(c): pass\ncheck(add_two)", string(j.Files["program.py"]))
	assert.Equal(t, []string{"python3", "mbxp_check.py", j.Run[2], "20"}, j.Run)
	assert.Len(t, j.Run[2], 32, "a nonce")
	tests := []struct {
		lang, file       string
		compile, run     []string
		compiledStatuses []int // exit statuses of the compiler that count as compiled
	}{
		{"cpp", "main.cpp", []string{"g++", "main.cpp", "-o", "main_cpp"}, []string{"./main_cpp"}, []int{0}},
		{"php", "main.php", nil, []string{"php", "main.php"}, nil},
		{"javascript", "main.js", nil, []string{"node", "main.js"}, nil},
		{"ruby", "main.rb", nil, []string{"ruby", "main.rb"}, nil},
		{"typescript", "main.ts", []string{"tsc", "main.ts", "--target", "es5", "--lib", "es2016"}, []string{"node", "main.js"}, []int{2}},
	}
	for _, tt := range tests {
		l, ok := mbxpLanguageOf(tt.lang)
		require.True(t, ok)
		j, err := l.job(mbxpProblem{lang: tt.lang, entry: "f", test: "TEST"}, "SOLUTION", time.Second)
		require.NoError(t, err)
		assert.Equal(t, map[string][]byte{tt.file: []byte("SOLUTIONTEST")}, j.Files, tt.lang)
		assert.Equal(t, tt.compile, j.Compile, tt.lang)
		assert.Equal(t, tt.run, j.Run, tt.lang)
		for _, s := range tt.compiledStatuses {
			assert.True(t, j.Compiled == nil && s == 0 || j.Compiled != nil && j.Compiled(s), "%s: status %d", tt.lang, s)
		}
	}
	_, ok := mbxpLanguageOf("go")
	assert.False(t, ok, "evaluate_mbxp.py skips go")
}

// TestMBXPErrors: what evaluate-accuracy.py cannot score is an error:
// an id without its language, MBXP samples all in skipped languages
// (it divides by zero), no sandbox launcher, a missing toolchain.
func TestMBXPErrors(t *testing.T) {
	t.Parallel()
	score := func(id string, in accuracy.Inputs) error {
		data := filepath.Join(t.TempDir(), "data.pkl")
		require.NoError(t, WriteData(data, []Row{{Kind: GSM8K, Tokens: []int32{5}, Target: "1"}, {Kind: MBXP, ID: id, Tokens: []int32{5}, Target: "TEST"}}))
		var log bytes.Buffer
		require.NoError(t, accuracy.WriteLog(&log, []accuracy.Entry{{QSLIdx: 0, Data: []byte{52, 0, 0, 0}}, {QSLIdx: 1, Data: []byte{52, 0, 0, 0}}}))
		in.Truth, in.Vocab, in.Dtype = data, filepath.Join(fixtureDir, "tokenizer.json"), "int32"
		_, err := Scorer.Score(&log, in)
		return err
	}
	require.ErrorContains(t, score("python", accuracy.Inputs{}), `id "python" is not LANGUAGE_ENTRYPOINT`)
	require.ErrorContains(t, score("scala_f", accuracy.Inputs{}), "none in the languages evaluate_mbxp.py scores (cpp, python, php, javascript, ruby, typescript)")
	if (mbxpLanguage{name: "python", programs: []string{"python3"}}).need() == nil {
		require.ErrorContains(t, score("python_f", accuracy.Inputs{}), "launcher")
	}
	err := mbxpLanguage{name: "cobol", programs: []string{"no-such-cobc"}, debian: "gnucobol"}.need()
	require.ErrorIs(t, err, codecheck.ErrNoToolchain)
	assert.EqualError(t, err, "MBXP cobol programs need no-such-cobc, which is not in /usr/bin or /bin (Debian: apt-get install gnucobol)")
}
