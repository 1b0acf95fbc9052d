package mixtral

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/punkt"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/rouge"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the generated token ids, int32 as the onnx plugin writes them"

// Metrics of Mixtral's quality targets (the round's accuracy patterns).
const (
	GSM8KAccuracy benchmarks.Metric = "gsm8k_accuracy"
	MBXPAccuracy  benchmarks.Metric = "mbxp_accuracy"
)

// Result is the score of an accuracy log as evaluate-accuracy.py
// computes it.
type Result struct {
	// OpenOrca is the number of OpenOrca samples scored; Rouge1, Rouge2,
	// RougeL and RougeLsum are their mean F-measures in percent, rounded
	// to four decimals (absent from the line when OpenOrca is 0).
	OpenOrca                          int
	Rouge1, Rouge2, RougeL, RougeLsum float64
	// GSM8K is 100 * correct / GSM8K samples.
	GSM8K float64
	// GenLen is gen_len, the characters of the OpenOrca texts with each
	// sentence on a line of its own; GenNum gen_num, the log's entries
	// (a repeated qsl_idx counted each time); GenTokLen gen_tok_len, the
	// tokens the distinct samples generated.
	GenLen, GenNum, GenTokLen int
	// MBXP is the log's MBXP samples scored by running their code
	// (evaluate_mbxp.py), by language in the order they first appear
	// (evaluate_mbxp.py's lang_passed and lang_counts); nil for a log
	// without MBXP samples, whose "mbxp" the script prints as 0.
	MBXP []MBXPLanguageScore
	// MBXPVerdicts says by qsl_idx whether each MBXP sample of those
	// languages passed (the script's evaluated_test.json).
	MBXPVerdicts map[uint64]bool
}

// MBXPPassed is 100 * passed / scored over MBXP's languages: the
// script's "mbxp" (pass@1 in percent).
func (r Result) MBXPPassed() float64 {
	var passed, n int
	for _, l := range r.MBXP {
		passed, n = passed+l.Passed, n+l.Counts
	}
	if n == 0 {
		return 0
	}
	return 100 * float64(passed) / float64(n)
}

// TokensPerSample is the script's round(gen_tok_len / gen_num, 1).
func (r Result) TokensPerSample() float64 {
	if r.GenNum == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(r.GenTokLen)/float64(r.GenNum), 'f', 1, 64), 64)
	return v
}

// Text is the script's printed dict, as Python prints it: the line the
// submission checker reads the scores from. "mbxp" is the script's 0 of
// a log without MBXP samples, else its float.
func (r Result) Text() string {
	var b strings.Builder
	b.WriteString("{")
	if r.OpenOrca > 0 {
		fmt.Fprintf(&b, "'rouge1': %s, 'rouge2': %s, 'rougeL': %s, 'rougeLsum': %s, ",
			py.Float(r.Rouge1), py.Float(r.Rouge2), py.Float(r.RougeL), py.Float(r.RougeLsum))
	}
	mbxp := "0"
	if r.MBXP != nil {
		mbxp = py.Float(r.MBXPPassed())
	}
	fmt.Fprintf(&b, "'gsm8k': %s, 'mbxp': %s, 'gen_len': %d, 'gen_num': %d, 'gen_tok_len': %d, 'tokens_per_sample': %s}",
		py.Float(r.GSM8K), mbxp, r.GenLen, r.GenNum, r.GenTokLen, py.Float(r.TokensPerSample()))
	return b.String()
}

// Details is what evaluate_mbxp.py prints before the line, but the time
// it took: its pass@1 line and its lang_passed and lang_counts dicts
// (in the order the languages first appear, which is the script's with
// n_workers=1; with more workers its order is that of the programs'
// ends); "" for a log without MBXP samples.
func (r Result) Details() string {
	if r.MBXP == nil {
		return ""
	}
	var passed, counts []string
	for _, l := range r.MBXP {
		passed = append(passed, fmt.Sprintf("'%s': %d", l.Language, l.Passed))
		counts = append(counts, fmt.Sprintf("'%s': %d", l.Language, l.Counts))
	}
	return fmt.Sprintf("% .2f%% pass@1\n{%s} {%s}\n", r.MBXPPassed(), strings.Join(passed, ", "), strings.Join(counts, ", "))
}

// Value implements accuracy.Score.
func (r Result) Value(m benchmarks.Metric) (float64, bool) {
	rougeOK := r.OpenOrca > 0
	switch m {
	case benchmarks.ROUGE1:
		return r.Rouge1, rougeOK
	case benchmarks.ROUGE2:
		return r.Rouge2, rougeOK
	case benchmarks.ROUGEL:
		return r.RougeL, rougeOK
	case benchmarks.ROUGELSUM:
		return r.RougeLsum, rougeOK
	case benchmarks.GenLen:
		return float64(r.GenLen), true
	case benchmarks.TokensPerSample:
		return r.TokensPerSample(), true
	case GSM8KAccuracy:
		return r.GSM8K, true
	case MBXPAccuracy:
		return r.MBXPPassed(), true
	}
	return 0, false
}

// Scorer is language/mixtral-8x7b/evaluate-accuracy.py.
var Scorer = accuracy.Scorer{Name: "mixtral", Script: "language/mixtral-8x7b/evaluate-accuracy.py",
	Needs: []string{accuracy.NeedTruth, accuracy.NeedVocab}, Tokens: true, Score: score}

func score(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	if in.Truth == "" {
		return nil, errors.New("mixtral: no data set pickle given (--truth)")
	}
	d, err := ReadData(in.Truth)
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	if in.Vocab == "" {
		return nil, errors.New("mixtral: no tokenizer.json given")
	}
	tok, err := tokenizer.Open(in.Vocab)
	if err != nil {
		return nil, err
	}
	split, err := llmtext.Splitter(in.Punkt)
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	ctx := in.Context
	if ctx == nil {
		ctx = context.Background() // no caller to cancel the programs' runs
	}
	return Score(ctx, log, d, tok, split, in.Dtype, MBXPGrader{Launcher: in.Launcher, Workers: in.Workers})
}

// Score scores an accuracy log as evaluate-accuracy.py does: each
// distinct qsl_idx's first entry is its generated token ids (dtype int32
// or int64), decoded with tok as the script's tokenizer does
// (skip_special_tokens=True); an OpenOrca sample is scored with ROUGE
// against its gt_output, both split into sentences with split; a GSM8K
// sample is right when the number its text answers equals its
// gt_output's as Python floats; an MBXP sample (any other kind) in
// cpp, python, php, javascript, ruby or typescript passes when its code,
// post-processed as evaluate_mbxp.py does, passes its test code, run in
// the code sandbox as mxeval runs it (g, [MBXPGrader]).
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log or a qsl_idx beyond the
// data set; an error for a log without GSM8K samples (the script
// divides by their count), for MBXP samples without the data set's id
// and input columns, none in the scored languages, or without the
// sandbox's launcher; a *codecheck.ToolchainError naming a scored
// language whose toolchain is not installed; the sandbox's errors and
// ctx's (no verdict).
func Score(ctx context.Context, log io.Reader, d *Data, tok *tokenizer.Tokenizer, split *punkt.Tokenizer, dtype string, g MBXPGrader) (Result, error) {
	var r Result
	var scores rouge.Scores
	var gsmTotal, gsmCorrect int
	var mbxp []mbxpProblem
	seen := map[uint64]bool{}
	known := func(id int32) bool { _, ok := tok.Token(id); return ok }
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		r.GenNum++
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if e.QSLIdx >= uint64(len(d.Kinds)) {
			return fmt.Errorf("%w: qsl_idx %d: the data set has %d samples", accuracy.ErrLog, e.QSLIdx, len(d.Kinds))
		}
		ids, err := llmtext.IDs(e.Data, dtype, known)
		if err != nil {
			return fmt.Errorf("%w: qsl_idx %d: %w", accuracy.ErrLog, e.QSLIdx, err)
		}
		r.GenTokLen += len(ids)
		text := tok.Decode(ids, true, tokenizer.CleanUpSpaces(tok.Config().CleanUpTokenizationSpaces))
		switch d.Kinds[e.QSLIdx] {
		case OpenOrca:
			pred, target := llmtext.Lines(split, text), llmtext.Lines(split, d.Targets[e.QSLIdx])
			scores.Add(target, pred)
			r.GenLen += utf8.RuneCountInString(pred)
		case GSM8K:
			gsmTotal++
			want, wantOK := tryFloat(d.Targets[e.QSLIdx])
			if got, ok := tryFloat(gsm8kAnswer(text)); ok && wantOK && got == want {
				gsmCorrect++
			}
		default:
			p, err := newMBXPProblem(d, e.QSLIdx, text)
			if err != nil {
				return fmt.Errorf("mixtral: %w", err)
			}
			mbxp = append(mbxp, p)
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if gsmTotal == 0 {
		return Result{}, errors.New("mixtral: the log has no GSM8K sample, whose count evaluate-accuracy.py divides by")
	}
	if len(mbxp) > 0 {
		if r.MBXP, r.MBXPVerdicts, err = gradeMBXP(ctx, g, mbxp); err != nil {
			return Result{}, fmt.Errorf("mixtral: %w", err)
		}
	}
	r.GSM8K = 100.0 * float64(gsmCorrect) / float64(gsmTotal)
	if r.OpenOrca = scores.Len(); r.OpenOrca > 0 {
		p := scores.Percent()
		r.Rouge1, r.Rouge2, r.RougeL, r.RougeLsum = p[0], p[1], p[2], p[3]
	}
	return r, nil
}
