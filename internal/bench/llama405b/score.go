package llama405b

import (
	"errors"
	"fmt"
	"io"
	"regexp"
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

// The keys of the scores in the script's line.
const (
	keyROUGEL     = "rougeL"
	keyExactMatch = "exact_match"
)

// Result is the score of an accuracy log as evaluate-accuracy.py
// computes it.
type Result struct {
	// Keys are the scores' keys ("rougeL", "exact_match") in the order
	// the log's samples first name them; Means their means over the
	// samples scored by each, as pandas' describe() takes them.
	Keys  []string
	Means []float64
	// GenLen is gen_len, the characters of the generated texts with each
	// sentence on a line of its own; GenNum gen_num, the distinct
	// samples; GenTokLen gen_tok_len, the tokens they generated.
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

// Text is the script's printed dict, as Python prints it (numpy 1's
// scalars printed as Python's): the line the submission checker reads
// rougeL, exact_match and tokens_per_sample from.
func (r Result) Text() string {
	var b strings.Builder
	b.WriteString("{")
	for i, k := range r.Keys {
		fmt.Fprintf(&b, "'%s': %s, ", k, py.Float(r.Means[i]))
	}
	fmt.Fprintf(&b, "'gen_len': %d, 'gen_num': %d, 'gen_tok_len': %d, 'tokens_per_sample': %s}",
		r.GenLen, r.GenNum, r.GenTokLen, py.Float(r.TokensPerSample()))
	return b.String()
}

// Value implements accuracy.Score.
func (r Result) Value(m benchmarks.Metric) (float64, bool) {
	mean := func(key string) (float64, bool) {
		for i, k := range r.Keys {
			if k == key {
				return r.Means[i], true
			}
		}
		return 0, false
	}
	switch m {
	case benchmarks.ROUGEL:
		return mean(keyROUGEL)
	case benchmarks.ExactMatch:
		return mean(keyExactMatch)
	case benchmarks.GenLen:
		return float64(r.GenLen), true
	case benchmarks.TokensPerSample:
		return r.TokensPerSample(), true
	}
	return 0, false
}

// Scorer is language/llama3.1-405b/evaluate-accuracy.py.
var Scorer = accuracy.Scorer{Name: "llama405b", Script: "language/llama3.1-405b/evaluate-accuracy.py",
	Needs: []string{accuracy.NeedTruth, accuracy.NeedVocab}, Tokens: true, Score: score}

func score(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	if in.Truth == "" {
		return nil, errors.New("llama405b: no data set pickle given (--truth)")
	}
	d, err := ReadData(in.Truth)
	if err != nil {
		return nil, fmt.Errorf("llama405b: %w", err)
	}
	if in.Vocab == "" {
		return nil, errors.New("llama405b: no tokenizer.json given")
	}
	tok, err := tokenizer.Open(in.Vocab)
	if err != nil {
		return nil, err
	}
	split, err := llmtext.Splitter(in.Punkt)
	if err != nil {
		return nil, fmt.Errorf("llama405b: %w", err)
	}
	return Score(log, d, tok, split, in.Dtype)
}

// sampleScore is one sample's score: its key and value.
type sampleScore struct {
	key string
	v   float64
}

// Score scores an accuracy log as evaluate-accuracy.py does: each
// distinct qsl_idx's first entry is its generated token ids (dtype int32
// or int64), decoded with tok (skip_special_tokens=True); it and the
// sample's gt_output are stripped and split into sentences with split,
// then scored by the sample's metric; each score's mean is over the
// samples that have it.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log or a qsl_idx beyond the
// data set; an error for a log without samples.
func Score(log io.Reader, d *Data, tok *tokenizer.Tokenizer, split *punkt.Tokenizer, dtype string) (Result, error) {
	var r Result
	var scores []sampleScore
	seen := map[uint64]bool{}
	known := func(id int32) bool { _, ok := tok.Token(id); return ok }
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if e.QSLIdx >= uint64(len(d.Targets)) {
			return fmt.Errorf("%w: qsl_idx %d: the data set has %d samples", accuracy.ErrLog, e.QSLIdx, len(d.Targets))
		}
		ids, err := llmtext.IDs(e.Data, dtype, known)
		if err != nil {
			return fmt.Errorf("%w: qsl_idx %d: %w", accuracy.ErrLog, e.QSLIdx, err)
		}
		r.GenTokLen += len(ids)
		text := tok.Decode(ids, true, tokenizer.CleanUpSpaces(tok.Config().CleanUpTokenizationSpaces))
		pred, target := llmtext.Lines(split, text), llmtext.Lines(split, d.Targets[e.QSLIdx])
		r.GenLen += utf8.RuneCountInString(pred)
		switch d.Metrics[e.QSLIdx] {
		case MetricROUGE:
			scores = append(scores, sampleScore{keyROUGEL, 100 * rouge.L(rouge.Tokens(target), rouge.Tokens(pred))})
		case MetricNIAH:
			scores = append(scores, sampleScore{keyExactMatch, niahEM(target, pred)})
		default:
			scores = append(scores, sampleScore{keyExactMatch, qaEM(target, pred)})
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if len(scores) == 0 {
		return Result{}, errors.New("llama405b: the log has no samples")
	}
	r.GenNum = len(scores)
	r.Keys, r.Means = describeMeans(scores)
	return r, nil
}

// describeMeans is the script's
// df.accuracy.apply(pd.Series).describe().loc["mean"]: a column per key
// in the order of first appearance, each mean pandas' nanmean (the
// column with its missing cells zero, summed by numpy's pairwise sum,
// over the cells present).
func describeMeans(scores []sampleScore) ([]string, []float64) {
	var keys []string
	var means []float64
	for _, s := range scores {
		known := false
		for _, k := range keys {
			known = known || k == s.key
		}
		if known {
			continue
		}
		col, present := make([]float64, len(scores)), make([]bool, len(scores))
		for i, o := range scores {
			if o.key == s.key {
				col[i], present[i] = o.v, true
			}
		}
		keys = append(keys, s.key)
		means = append(means, py.PandasNanMean(col, present))
	}
	return keys, means
}

// uuidPattern is niah_em's [\w]{8}-[\w]{4}-[\w]{4}-[\w]{4}-[\w]{12}, with
// Python's \w: Unicode letters and numbers, and the underscore.
var uuidPattern = regexp.MustCompile(`[\p{L}\p{N}_]{8}-[\p{L}\p{N}_]{4}-[\p{L}\p{N}_]{4}-[\p{L}\p{N}_]{4}-[\p{L}\p{N}_]{12}`)

// niahEM is the script's niah_em: over the generated UUIDs paired with
// the reference's, the share of each reference UUID's characters found
// in its generated one, in percent, rounded to two decimals.
func niahEM(label, pred string) float64 {
	labels, preds := uuidPattern.FindAllString(label, -1), uuidPattern.FindAllString(pred, -1)
	if len(preds) == 0 {
		return 0
	}
	sum := 0.0
	for i := 0; i < len(preds) && i < len(labels); i++ {
		p := strings.ToLower(preds[i])
		hits := 0.0
		for _, c := range labels[i] {
			if strings.Contains(p, strings.ToLower(string(c))) {
				hits += 1.0
			}
		}
		sum += hits / float64(utf8.RuneCountInString(labels[i]))
	}
	return pyRound2(sum / float64(len(preds)) * 100)
}

// pyRound2 is Python's round(x, 2): the double nearest the decimal x
// rounds to.
func pyRound2(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	return v
}

// qaAnswer is qa_em's answer marker.
const qaAnswer = "Answer: "

// qaEM is the script's qa_em: 100 when the generated answer (after the
// last "Answer: ", else all of it) is in the reference, or when, white
// space removed and lower-cased, it contains one of the reference's
// "|"-separated entries; else 0.
func qaEM(label, pred string) float64 {
	answer := pred
	if i := strings.LastIndex(pred, qaAnswer); i >= 0 {
		answer = pred[i+len(qaAnswer):]
	}
	if strings.Contains(label, answer) {
		return 100
	}
	norm := func(s string) string {
		return strings.ToLower(strings.Join(strings.FieldsFunc(s, py.IsSpace), ""))
	}
	a := norm(answer)
	for _, entry := range strings.Split(label, "|") {
		if strings.Contains(a, norm(entry)) {
			return 100
		}
	}
	return 0
}
