package deepseekr1

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/livecodebench"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the generated token ids, int32 as the onnx plugin writes them"

// Scorer scores as language/deepseek-r1/eval_accuracy.py does.
var Scorer = accuracy.Scorer{Name: "deepseek-r1", Script: "language/deepseek-r1/eval_accuracy.py",
	Needs: []string{accuracy.NeedTruth, accuracy.NeedVocab}, Tokens: true, Score: score}

// Result is the score of a deepseek-r1 accuracy log.
type Result struct {
	// ExactMatch is the mean of each sample's 100 (correct) or 0.
	ExactMatch float64
	// TokensPerSample is the mean number of tokens generated.
	TokensPerSample float64
	// Samples is the number of distinct samples scored.
	Samples int
	// Correct and Total count the samples by source data set.
	Correct, Total map[string]int
}

// Text is the script's printed dict.
func (r Result) Text() string {
	return fmt.Sprintf("{'exact_match': %s, 'tokens_per_sample': %s, 'num-samples': %d}",
		py.Float(r.ExactMatch), py.Float(r.TokensPerSample), r.Samples)
}

// Value implements accuracy.Score.
func (r Result) Value(m benchmarks.Metric) (float64, bool) {
	switch m {
	case benchmarks.ExactMatch:
		return r.ExactMatch, true
	case benchmarks.TokensPerSample:
		return r.TokensPerSample, true
	}
	return 0, false
}

func score(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	if in.Vocab == "" {
		return nil, errors.New("deepseek-r1: no tokenizer.json given")
	}
	tok, err := tokenizer.Open(in.Vocab)
	if err != nil {
		return nil, err
	}
	set, err := ReadSet(in.Truth, false)
	if err != nil {
		return nil, fmt.Errorf("ground truth: %w", err)
	}
	ctx := in.Context
	if ctx == nil {
		ctx = context.Background() // no caller to cancel the programs' runs
	}
	return Score(ctx, log, tok, set, in.Dtype, Grader{Launcher: in.Launcher, Problems: in.Problems})
}

// Grader is what grading LiveCodeBench's rows needs: the code sandbox's
// launcher and LiveCodeBench's problems files (release_v1's test.jsonl;
// several separated by commas, livecodebench.Files).
type Grader struct {
	Launcher, Problems string
}

// row is one sample to grade.
type row struct {
	output  string
	truth   any
	dataset string
	tokens  int
	correct bool
}

// Score scores an accuracy log as eval_accuracy.py does: each distinct
// qsl_idx's first entry (entries out of the data set's range, or not
// whole tokens of dtype, skipped as the script skips them) is decoded
// with tok, special tokens skipped; each row is graded by its source
// data set's rule (the first of gpqa, mmlu_pro, math500, aime and
// livecodebench its lower-cased name contains); exact_match is the mean
// of 100 for a correct row and 0 for the others, tokens_per_sample the
// mean of the tokens generated.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log; a log with no valid
// entry; a token the tokenizer lacks; a data set name with no rule;
// livecodebench rows with code and no problems file or launcher; a
// sandbox that cannot run.
func Score(ctx context.Context, log io.Reader, tok *tokenizer.Tokenizer, set *Set, dtype string, g Grader) (Result, error) {
	size := 4
	switch dtype {
	case "":
		dtype = "int32" // the script's default
	case "int32":
	case "int64":
		size = 8
	default:
		return Result{}, fmt.Errorf("deepseek-r1: response dtype %q: want int32 or int64", dtype)
	}
	var rows []*row
	seen := map[uint64]bool{}
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if e.QSLIdx >= uint64(len(set.Truths)) || len(e.Data)%size != 0 {
			return nil // the script skips the entry
		}
		ids, err := llmtext.IDs(e.Data, dtype, func(id int32) bool { _, ok := tok.Token(id); return ok })
		if err != nil {
			return fmt.Errorf("deepseek-r1: qsl_idx %d: %w", e.QSLIdx, err)
		}
		text := tok.Decode(ids, true, tokenizer.CleanUpSpaces(tok.Config().CleanUpTokenizationSpaces))
		rows = append(rows, &row{output: text, truth: set.Truths[e.QSLIdx], dataset: set.Datasets[e.QSLIdx], tokens: len(ids)})
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if len(rows) == 0 {
		return Result{}, fmt.Errorf("%w: no valid predictions", accuracy.ErrLog)
	}
	r := Result{Samples: len(rows), Correct: map[string]int{}, Total: map[string]int{}}
	var code []*row
	var codeText []string
	for _, x := range rows {
		kind, err := ruleOf(x.dataset)
		if err != nil {
			return Result{}, err
		}
		if x.truth == nil {
			continue
		}
		out := pyStrip(x.output)
		switch kind {
		case "gpqa", "mmlu_pro":
			maxOpt := byte('D')
			if kind == "mmlu_pro" {
				maxOpt = 'J'
			}
			if p := parseMultipleChoice(out, maxOpt); p != "" {
				gt, _ := x.truth.(string)
				x.correct = gt != "" && strings.Contains("ABCDEFGHIJ"[:maxOpt-'A'+1], p) && p == strings.ToUpper(gt)
			}
		case "math500":
			if p, ok := parseBoxed(out); ok {
				x.correct = pyStrip(p) != "" && truthy(x.truth) && gradeAnswer(pyStrip(p), pyStr(x.truth))
			}
		case "aime":
			if p, ok := parseAIME(out); ok {
				gt, ok := pyInt(x.truth)
				x.correct = ok && gt == int64(p)
			}
		case "livecodebench":
			if p, ok := parseCode(out); ok && p != "" && pyStr(x.truth) != "" {
				code, codeText = append(code, x), append(codeText, p)
			}
		}
	}
	if len(code) > 0 {
		if err := gradeCode(ctx, g, code, codeText); err != nil {
			return Result{}, err
		}
	}
	acc := make([]float64, len(rows))
	lens := make([]float64, len(rows))
	for i, x := range rows {
		if x.correct {
			acc[i] = 100
			r.Correct[x.dataset]++
		}
		r.Total[x.dataset]++
		lens[i] = float64(x.tokens)
	}
	r.ExactMatch = py.NumpyMean(acc)
	r.TokensPerSample = py.NumpyMean(lens)
	return r, nil
}

// rules are the script's evaluators, in the order it tries them.
var rules = []string{"gpqa", "mmlu_pro", "math500", "aime", "livecodebench"}

func ruleOf(name string) (string, error) {
	if name == "" {
		return "", errors.New("deepseek-r1: a row's data set name is empty")
	}
	lower := strings.ToLower(name)
	for _, k := range rules {
		if strings.Contains(lower, k) {
			return k, nil
		}
	}
	return "", fmt.Errorf("deepseek-r1: no evaluator for data set %q (want a name containing one of %s)", name, strings.Join(rules, ", "))
}

// truthy is Python's bool of a ground truth.
func truthy(v any) bool {
	switch x := v.(type) {
	case string:
		return x != ""
	case int64:
		return x != 0
	case float64:
		return x != 0
	}
	return false
}

// pyStr is Python's str of a ground truth.
func pyStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return py.Float(x)
	}
	return ""
}

// pyInt is Python's int of a ground truth; false where it raises.
func pyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x != x || x > 9e18 || x < -9e18 {
			return 0, false
		}
		return int64(x), true
	case string:
		s := strings.ReplaceAll(pyStrip(x), "_", "")
		n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		return n, err == nil && !strings.HasPrefix(s, "+-") && !strings.HasPrefix(s, "--")
	}
	return 0, false
}

// gradeCode runs each program against its problem's tests in the
// sandbox (a question the problems file lacks is not correct, as the
// script finds it).
func gradeCode(ctx context.Context, g Grader, rows []*row, code []string) error {
	if g.Problems == "" {
		return errors.New("deepseek-r1: livecodebench rows need LiveCodeBench's problems (code_generation_lite's test.jsonl, release_v1): --problems FILE")
	}
	if g.Launcher == "" {
		return errors.New("deepseek-r1: livecodebench rows need the code sandbox's launcher")
	}
	subs := make([]livecodebench.Submission, len(rows))
	for i, x := range rows {
		subs[i] = livecodebench.Submission{QuestionID: pyStr(x.truth), Code: code[i]}
	}
	passed, err := livecodebench.Grader{Launcher: g.Launcher, Problems: livecodebench.Files(g.Problems)}.Grade(ctx, subs)
	if err != nil {
		return fmt.Errorf("deepseek-r1: %w", err)
	}
	for i, x := range rows {
		x.correct = passed[i]
	}
	return nil
}
