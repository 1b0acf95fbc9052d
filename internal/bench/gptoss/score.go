package gptoss

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/livecodebench"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the generated token ids, int32 as the onnx plugin writes them"

// ExactMatch is the metric of gpt-oss-120b's quality target: the final
// score in percent.

// Script is the official accuracy script.
const Script = "language/gpt-oss-120b/eval_mlperf_accuracy.py"

// Scorer is eval_mlperf_accuracy.py: the log's generated token ids
// decoded with the model's tokenizer.json (--vocab), each answer
// extracted and judged by its sample's sub-dataset against the ground
// truth of the accuracy set (--truth, the data set); LiveCodeBench's
// programs run against the tests of its problems files (--problems) in
// the code sandbox.
var Scorer = accuracy.Scorer{Name: "gpt-oss", Script: Script,
	Needs: []string{accuracy.NeedTruth, accuracy.NeedVocab}, VocabIs: "the model's tokenizer.json (openai/gpt-oss-120b's)", Tokens: true, Score: score}

// repeats are the script's DATASET_REPEATS: how many times the accuracy
// set holds each question; other sub-datasets count once.
var repeats = map[string]int{"aime25": 8, "gpqa_diamond": 5, "livecodebench_v6": 3}

// DatasetScore is one sub-dataset's count.
type DatasetScore struct {
	Name           string
	Correct, Total int
}

// Repeats is the script's DATASET_REPEATS of the sub-dataset, 1 for one
// it does not list.
func (d DatasetScore) Repeats() int {
	if r, ok := repeats[d.Name]; ok {
		return r
	}
	return 1
}

// Result is what eval_mlperf_accuracy.py finds: each sub-dataset's
// correct answers, by name.
type Result struct {
	Datasets []DatasetScore
}

// scores are the script's final_score and max_score: the sums over the
// sub-datasets, in name order, of correct and total over repeats.
func (r Result) scores() (final, maxScore float64) {
	for _, d := range r.Datasets {
		final += float64(d.Correct) / float64(d.Repeats())
		maxScore += float64(d.Total) / float64(d.Repeats())
	}
	return final, maxScore
}

// FinalScore is the script's final_score_percentage.
func (r Result) FinalScore() float64 {
	final, maxScore := r.scores()
	if maxScore <= 0 {
		return 0
	}
	return final / maxScore * 100
}

// Text is the line the script prints for the submission checker, which
// it reads exact_match from (and TEST07's run_verification.py its score).
func (r Result) Text() string {
	return fmt.Sprintf("'exact_match': %.3f", r.FinalScore())
}

// Value implements accuracy.Score.
func (r Result) Value(m benchmarks.Metric) (float64, bool) {
	if m == benchmarks.ExactMatch {
		return r.FinalScore(), true
	}
	return 0, false
}

// Report is everything the script prints on its standard output: the
// raw accuracy, the per-dataset breakdown, the final score's
// calculation and, last, Text.
func (r Result) Report() string {
	rule, dash := strings.Repeat("=", 80), strings.Repeat("-", 80)
	correct, total := 0, 0
	for _, d := range r.Datasets {
		correct, total = correct+d.Correct, total+d.Total
	}
	raw := 0.0
	if total > 0 {
		raw = float64(correct) / float64(total) * 100
	}
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("\n%s\nMLPerf Accuracy Evaluation Results\n%s", rule, rule)
	line("Total samples evaluated: %d", total)
	line("Overall raw accuracy: %.2f%% (%d/%d)", raw, correct, total)
	line("%s\n\nPer-Dataset Breakdown:\n%s", rule, dash)
	line("%-25s %8s %8s %8s %10s %10s", "Dataset", "Correct", "Total", "Repeats", "Score", "Accuracy")
	line("%s", dash)
	var formula, values, results, maxes []string
	for _, d := range r.Datasets {
		rep := d.Repeats()
		component := float64(d.Correct) / float64(rep)
		if d.Total > 0 {
			line("%-25s %8d %8d %8d %10.2f %9.2f%%", d.Name, d.Correct, d.Total, rep, component, float64(d.Correct)/float64(d.Total)*100)
		}
		formula = append(formula, fmt.Sprintf("%s/%d", d.Name, rep))
		values = append(values, fmt.Sprintf("%d/%d", d.Correct, rep))
		results = append(results, fmt.Sprintf("%.2f", component))
		maxes = append(maxes, fmt.Sprintf("%d/%d", d.Total, rep))
	}
	final, maxScore := r.scores()
	line("%s\n\nFinal Score Calculation:\n%s", rule, dash)
	line("Formula: %s", strings.Join(formula, " + "))
	line("Score:   = %s", strings.Join(values, " + "))
	line("         = %s", strings.Join(results, " + "))
	line("         = %.2f", final)
	line("Max:     = %s", strings.Join(maxes, " + "))
	line("         = %.2f", maxScore)
	line("\nFINAL SCORE: %.2f%% (%.2f/%.2f)", r.FinalScore(), final, maxScore)
	line("%s\n\n\nPrinting for submission_checker:", rule)
	line("\n%s", r.Text())
	return b.String()
}

// Details is what the `accuracy` command prints after the line: Report's
// raw accuracy, per-dataset breakdown and final score's calculation.
func (r Result) Details() string {
	report := strings.TrimPrefix(r.Report(), "\n")
	if i := strings.Index(report, "\n\n\nPrinting for submission_checker:"); i >= 0 {
		report = report[:i+1]
	}
	return report
}

var (
	_ accuracy.Reporter = Result{}
	_ accuracy.Detailer = Result{}
)

func score(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	if in.Truth == "" {
		return nil, errors.New("gpt-oss: no reference data: the accuracy set's pickle (--truth, or the data set) holds it")
	}
	if in.Vocab == "" {
		return nil, errors.New("gpt-oss: no tokenizer.json given")
	}
	set, err := ReadSet(in.Truth)
	if err != nil {
		return nil, fmt.Errorf("reference data: %w", err)
	}
	tok, err := tokenizer.Open(in.Vocab)
	if err != nil {
		return nil, err
	}
	ctx := in.Context
	if ctx == nil {
		ctx = context.Background() // no caller to cancel the programs' runs
	}
	return Score(ctx, log, set, tok, livecodebench.Grader{Launcher: in.Launcher, Problems: livecodebench.Files(in.Problems)})
}

// evaluator is the script's DATASET_EVALUATORS entry: whether a sample's
// output is correct against its ground truth.
type evaluator func(output string, truth any) (bool, error)

// evaluators are DATASET_EVALUATORS in the script's order: a sub-dataset
// takes the first whose key its lower-cased name contains.
var evaluators = []struct {
	key      string
	evaluate evaluator
}{
	{"gpqa", multipleChoice(gpqaChoices)},
	{"mmlu_pro", multipleChoice(mmluChoices)},
	{"math500", math500},
	{"aime", aime},
	{"livecodebench", nil}, // run in a batch: gradeCode
	{"mmlu", multipleChoice(mmluChoices)},
}

func evaluatorOf(name string) (evaluator, error) {
	for _, e := range evaluators {
		if strings.Contains(name, e.key) {
			return e.evaluate, nil
		}
	}
	return nil, fmt.Errorf("no evaluator found for dataset %q", name)
}

// math500 is parse_boxed_math and evaluate_math500: an output without a
// \boxed{} answer is incorrect; one with an answer cannot be judged
// here, which grades it with PRM800K's grader.
func math500(output string, truth any) (bool, error) {
	got, ok := parseBoxedMath(output)
	if gt, isStr := truth.(string); !ok || got == "" || isNA(truth) || isStr && gt == "" {
		return false, nil
	}
	return false, errors.New("math500's answers are graded by PRM800K's grader, which mlperf-host does not have")
}

// isNA is pd.isna of a cell: None or a NaN.
func isNA(v any) bool {
	f, ok := v.(float64)
	return v == nil || ok && math.IsNaN(f)
}

// multipleChoice is parse_multiple_choice and evaluate_multiple_choice:
// the letter must be the ground truth upper-cased (a ground truth that
// is not a string is the script's caught error: incorrect).
func multipleChoice(c choicePatterns) evaluator {
	return func(output string, truth any) (bool, error) {
		got, ok := parseMultipleChoice(output, c)
		gt, isStr := truth.(string)
		if !ok || isNA(truth) || !isStr || gt == "" {
			return false, nil
		}
		return got == strings.ToUpper(gt), nil
	}
}

// aime is parse_aime_answer and evaluate_aime: the integer must be
// int(ground_truth).
func aime(output string, truth any) (bool, error) {
	got, ok := parseAIMEAnswer(output)
	if !ok || isNA(truth) {
		return false, nil
	}
	want, ok := pyInt(truth)
	return ok && want == int64(got), nil
}

// pyInt is Python's int() of a ground-truth cell, false where int()
// raises (or the number is beyond int64, which no answer equals).
func pyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) >= 1<<63 {
			return 0, false
		}
		return int64(x), true
	case string:
		s := strip(x)
		neg := false
		if s != "" && (s[0] == '+' || s[0] == '-') {
			neg, s = s[0] == '-', s[1:]
		}
		if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
			return 0, false
		}
		var n int64
		for _, r := range strings.ReplaceAll(s, "_", "") {
			if !isDecimal(r) || n > (math.MaxInt64-9)/10 {
				return 0, false
			}
			n = n*10 + int64(digitValue(r))
		}
		if neg {
			n = -n
		}
		return n, true
	}
	return 0, false
}

// Score scores an accuracy log as eval_mlperf_accuracy.py does: every
// entry (a qsl_idx beyond the set is left out, as the script warns and
// skips it) is decoded as int32 token ids with tok, special tokens kept,
// and judged by its sample's sub-dataset; a LiveCodeBench sample's code
// (parse_code's) runs against its question's tests with lcb, as
// evaluate_livecodebench runs it.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log or data that is not whole
// int32 tokens; a sample without a sub-dataset, a sub-dataset no
// evaluator serves or one mlperf-host cannot judge (math500), where the
// script fails too; LiveCodeBench samples without lcb's problems files
// (the script cannot load the benchmark) or launcher; a sandbox that
// cannot run; ctx's error when it ends before the programs do.
func Score(ctx context.Context, log io.Reader, set *Set, tok *tokenizer.Tokenizer, lcb livecodebench.Grader) (Result, error) {
	if set.Datasets == nil || set.Truth == nil {
		var missing []string
		if set.Datasets == nil {
			missing = append(missing, "'"+datasetColumn+"'")
		}
		if set.Truth == nil {
			missing = append(missing, "'"+truthColumn+"'")
		}
		return Result{}, fmt.Errorf("%s: reference data missing required columns: [%s]", set.Path, strings.Join(missing, ", "))
	}
	type sample struct {
		idx int
		ids []int32
	}
	byName := map[string][]sample{}
	n := 0
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		defer func() { n++ }()
		if e.QSLIdx >= uint64(len(set.Tokens)) {
			return nil
		}
		i := int(e.QSLIdx)
		name := strings.ToLower(set.Datasets[i])
		if name == "" {
			return fmt.Errorf("%s: sample %d: no dataset name", set.Path, i)
		}
		if len(e.Data)%4 != 0 {
			return fmt.Errorf("%w: entry %d (qsl_idx %d): %d bytes are not whole int32 token ids", accuracy.ErrLog, n, i, len(e.Data))
		}
		ids := make([]int32, len(e.Data)/4)
		for k := range ids {
			ids[k] = int32(binary.LittleEndian.Uint32(e.Data[4*k:]))
			if ids[k] < 0 {
				return fmt.Errorf("%w: entry %d (qsl_idx %d): token id %d", accuracy.ErrLog, n, i, ids[k])
			}
		}
		byName[name] = append(byName[name], sample{idx: i, ids: ids})
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	var r Result
	cleanUp := tokenizer.CleanUpSpaces(tok.Config().CleanUpTokenizationSpaces)
	if slices.ContainsFunc(names, isLiveCodeBench) && len(lcb.Problems) == 0 {
		return Result{}, errors.New("gpt-oss: livecodebench samples need LiveCodeBench's problems (code_generation_lite's release_v6: " +
			"test.jsonl, test2.jsonl, ..., test6.jsonl): --problems FILE[,FILE...] (accuracy.problems)")
	}
	for _, name := range names {
		d := DatasetScore{Name: name}
		if isLiveCodeBench(name) {
			var subs []livecodebench.Submission
			for _, s := range byName[name] {
				code, ok := parseCode(tok.Decode(s.ids, false, cleanUp))
				d.Total++
				if truth := set.Truth[s.idx]; ok && !isNA(truth) {
					id, _ := truth.(string) // another type names no question
					subs = append(subs, livecodebench.Submission{QuestionID: id, Code: code})
				}
			}
			passed, err := lcb.Grade(ctx, subs)
			if err != nil {
				return Result{}, fmt.Errorf("gpt-oss: %s: %w", name, err)
			}
			for _, p := range passed {
				if p {
					d.Correct++
				}
			}
			r.Datasets = append(r.Datasets, d)
			continue
		}
		evaluate, err := evaluatorOf(name)
		if err != nil {
			return Result{}, err
		}
		for _, s := range byName[name] {
			ok, err := evaluate(tok.Decode(s.ids, false, cleanUp), set.Truth[s.idx])
			if err != nil {
				return Result{}, fmt.Errorf("%s: sample %d: %w", name, s.idx, err)
			}
			d.Total++
			if ok {
				d.Correct++
			}
		}
		r.Datasets = append(r.Datasets, d)
	}
	return r, nil
}

// isLiveCodeBench: the script runs a sub-dataset's code in a batch
// (process_livecodebench_batch) when its name holds "livecodebench".
func isLiveCodeBench(name string) bool { return strings.Contains(name, "livecodebench") }

// isDecimal is str.isdecimal of one character (Unicode's Nd).
func isDecimal(r rune) bool { return unicode.Is(unicode.Nd, r) }
