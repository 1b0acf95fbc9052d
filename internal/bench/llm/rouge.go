package llm

import (
	"fmt"
	"io"
	"strconv"
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

// LLMScript is the evaluation script whose line a ROUGEResult prints.
type LLMScript int

const (
	// EvaluateAccuracy is language/llama2-70b/evaluate-accuracy.py: the
	// scores as numbers, then gen_len, gen_num, gen_tok_len and
	// tokens_per_sample.
	EvaluateAccuracy LLMScript = iota
	// Evaluation is language/llama3.1-8b/evaluation.py: the scores as
	// strings, then gen_len and gen_num.
	Evaluation
)

// ROUGEResult is the score of an LLM accuracy log as the LLM evaluation
// scripts compute it.
type ROUGEResult struct {
	// Script is the script whose line Text prints.
	Script LLMScript
	// Rouge1, Rouge2, RougeL, RougeLsum are the mean F-measures in
	// percent, rounded to four decimals as the script rounds them.
	Rouge1, Rouge2, RougeL, RougeLsum float64
	// Samples is gen_num, the distinct samples; Tokens gen_tok_len, the
	// tokens they generated; GenLen gen_len, the characters of their
	// texts with each sentence on a line of its own.
	Samples, Tokens, GenLen int
}

// TokensPerSample is the script's round(gen_tok_len / gen_num, 1).
func (r ROUGEResult) TokensPerSample() float64 {
	if r.Samples == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(r.Tokens)/float64(r.Samples), 'f', 1, 64), 64)
	return v
}

// Text is the script's printed dict, as Python prints it (numpy 1's
// scalars printed as Python's): the line the submission checker reads
// rouge1, rouge2, rougeL, rougeLsum, gen_len and tokens_per_sample from.
func (r ROUGEResult) Text() string {
	if r.Script == Evaluation {
		return fmt.Sprintf("{'rouge1': '%s', 'rouge2': '%s', 'rougeL': '%s', 'rougeLsum': '%s', 'gen_len': %d, 'gen_num': %d}",
			py.Float(r.Rouge1), py.Float(r.Rouge2), py.Float(r.RougeL), py.Float(r.RougeLsum), r.GenLen, r.Samples)
	}
	return fmt.Sprintf("{'rouge1': %s, 'rouge2': %s, 'rougeL': %s, 'rougeLsum': %s, 'gen_len': %d, 'gen_num': %d, 'gen_tok_len': %d, 'tokens_per_sample': %s}",
		py.Float(r.Rouge1), py.Float(r.Rouge2), py.Float(r.RougeL), py.Float(r.RougeLsum), r.GenLen, r.Samples, r.Tokens, py.Float(r.TokensPerSample()))
}

// Value implements accuracy.Score.
func (r ROUGEResult) Value(m benchmarks.Metric) (float64, bool) {
	switch m {
	case benchmarks.ROUGE1:
		return r.Rouge1, true
	case benchmarks.ROUGE2:
		return r.Rouge2, true
	case benchmarks.ROUGEL:
		return r.RougeL, true
	case benchmarks.ROUGELSUM:
		return r.RougeLsum, true
	case benchmarks.GenLen:
		return float64(r.GenLen), true
	case benchmarks.TokensPerSample:
		return r.TokensPerSample(), r.Script == EvaluateAccuracy
	}
	return 0, false
}

// ROUGE scores an LLM accuracy log as script does: each distinct
// qsl_idx's first entry is its generated token ids (of dtype int32 or
// int64), decoded with tok as the script's tokenizer.batch_decode(ids,
// skip_special_tokens=True) does (transformers' clean-up of spaces where
// tokenizer_config.json asks for it); it and targets[qsl_idx] are
// stripped and split into sentences with split, one a line, then scored.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log, a qsl_idx without a target or data
// that is not whole tokens; a token the tokenizer lacks.
func ROUGE(log io.Reader, tok *tokenizer.Tokenizer, targets []string, dtype string, split *punkt.Tokenizer, script LLMScript) (ROUGEResult, error) {
	if dtype != "" && dtype != "int32" && dtype != "int64" {
		return ROUGEResult{}, fmt.Errorf("rouge: response dtype %q: want int32 or int64", dtype)
	}
	r := ROUGEResult{Script: script}
	var scores rouge.Scores
	seen := map[uint64]bool{}
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if e.QSLIdx >= uint64(len(targets)) {
			return fmt.Errorf("%w: qsl_idx %d: the data set has %d reference outputs", accuracy.ErrLog, e.QSLIdx, len(targets))
		}
		ids, err := llmtext.IDs(e.Data, dtype, func(id int32) bool { _, ok := tok.Token(id); return ok })
		if err != nil {
			return fmt.Errorf("%w: qsl_idx %d: %w", accuracy.ErrLog, e.QSLIdx, err)
		}
		text := tok.Decode(ids, true, tokenizer.CleanUpSpaces(tok.Config().CleanUpTokenizationSpaces))
		predText, targetText := llmtext.Lines(split, text), llmtext.Lines(split, targets[e.QSLIdx])
		scores.Add(targetText, predText)
		r.GenLen += utf8.RuneCountInString(predText)
		r.Samples++
		r.Tokens += len(ids)
		return nil
	})
	if err != nil {
		return ROUGEResult{}, err
	}
	p := scores.Percent()
	r.Rouge1, r.Rouge2, r.RougeL, r.RougeLsum = p[0], p[1], p[2], p[3]
	return r, nil
}
