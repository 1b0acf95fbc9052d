package mixtral

import (
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

// ErrMBXP is returned for a log with MBXP samples: evaluate_mbxp.py
// scores those in C++, Python, PHP, JavaScript, Ruby and TypeScript by
// running the generated code against the test code (mxeval's checkers,
// 20 s each), which mlperf-host does not do.
var ErrMBXP = errors.New("mixtral: MBXP samples are scored by running their code, which mlperf-host does not do")

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
// a log without MBXP samples.
func (r Result) Text() string {
	var b strings.Builder
	b.WriteString("{")
	if r.OpenOrca > 0 {
		fmt.Fprintf(&b, "'rouge1': %s, 'rouge2': %s, 'rougeL': %s, 'rougeLsum': %s, ",
			py.Float(r.Rouge1), py.Float(r.Rouge2), py.Float(r.RougeL), py.Float(r.RougeLsum))
	}
	fmt.Fprintf(&b, "'gsm8k': %s, 'mbxp': 0, 'gen_len': %d, 'gen_num': %d, 'gen_tok_len': %d, 'tokens_per_sample': %s}",
		py.Float(r.GSM8K), r.GenLen, r.GenNum, r.GenTokLen, py.Float(r.TokensPerSample()))
	return b.String()
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
		return 0, true
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
	return Score(log, d, tok, split, in.Dtype)
}

// Score scores an accuracy log as evaluate-accuracy.py does: each
// distinct qsl_idx's first entry is its generated token ids (dtype int32
// or int64), decoded with tok as the script's tokenizer does
// (skip_special_tokens=True); an OpenOrca sample is scored with ROUGE
// against its gt_output, both split into sentences with split; a GSM8K
// sample is right when the number its text answers equals its
// gt_output's as Python floats.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log or a qsl_idx beyond the
// data set; [ErrMBXP] for an MBXP sample; an error for a log without
// GSM8K samples (the script divides by their count).
func Score(log io.Reader, d *Data, tok *tokenizer.Tokenizer, split *punkt.Tokenizer, dtype string) (Result, error) {
	var r Result
	var scores rouge.Scores
	var gsmTotal, gsmCorrect, mbxp int
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
			mbxp++
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if mbxp > 0 {
		return Result{}, fmt.Errorf("%w (%d samples)", ErrMBXP, mbxp)
	}
	if gsmTotal == 0 {
		return Result{}, errors.New("mixtral: the log has no GSM8K sample, whose count evaluate-accuracy.py divides by")
	}
	r.GSM8K = 100.0 * float64(gsmCorrect) / float64(gsmTotal)
	if r.OpenOrca = scores.Len(); r.OpenOrca > 0 {
		p := scores.Percent()
		r.Rouge1, r.Rouge2, r.RougeL, r.RougeLsum = p[0], p[1], p[2], p[3]
	}
	return r, nil
}
