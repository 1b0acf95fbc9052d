package accuracy

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Metrics of the LLM benchmarks' quality targets.
const (
	ROUGE1          benchmarks.Metric = "ROUGE1"
	ROUGE2          benchmarks.Metric = "ROUGE2"
	ROUGEL          benchmarks.Metric = "ROUGEL"
	TokensPerSample benchmarks.Metric = "TOKENS_PER_SAMPLE"
)

// ROUGEResult is the score of an LLM accuracy log as the Llama 2 70B
// evaluate-accuracy.py computes it, less what needs NLTK's Punkt
// sentence splitter (rougeLsum, gen_len).
type ROUGEResult struct {
	// Rouge1, Rouge2, RougeL are the mean F-measures in percent, rounded
	// to four decimals as the script rounds them.
	Rouge1, Rouge2, RougeL float64
	// Samples is gen_num, the distinct samples; Tokens gen_tok_len, the
	// tokens they generated.
	Samples, Tokens int
}

// TokensPerSample is the script's round(gen_tok_len / gen_num, 1).
func (r ROUGEResult) TokensPerSample() float64 {
	if r.Samples == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(r.Tokens)/float64(r.Samples), 'f', 1, 64), 64)
	return v
}

// Text is the script's printed dict, as Python prints it, without
// rougeLsum and gen_len: the submission checker reads rouge1, rouge2,
// rougeL and tokens_per_sample from it.
func (r ROUGEResult) Text() string {
	return fmt.Sprintf("{'rouge1': %s, 'rouge2': %s, 'rougeL': %s, 'gen_num': %d, 'gen_tok_len': %d, 'tokens_per_sample': %s}",
		pyFloat(r.Rouge1), pyFloat(r.Rouge2), pyFloat(r.RougeL), r.Samples, r.Tokens, pyFloat(r.TokensPerSample()))
}

// Value implements Score.
func (r ROUGEResult) Value(m benchmarks.Metric) (float64, bool) {
	switch m {
	case ROUGE1:
		return r.Rouge1, true
	case ROUGE2:
		return r.Rouge2, true
	case ROUGEL:
		return r.RougeL, true
	case TokensPerSample:
		return r.TokensPerSample(), true
	}
	return 0, false
}

// ROUGE scores an LLM accuracy log: each distinct qsl_idx's first entry
// is its generated token ids (of dtype int32 or int64), decoded with tok
// and scored against targets[qsl_idx].
//
// # Errors
//
// Wraps [ErrLog] for a malformed log, a qsl_idx without a target or data
// that is not whole tokens; a token the tokenizer lacks.
func ROUGE(log io.Reader, tok *LLMTokenizer, targets []string, dtype string) (ROUGEResult, error) {
	size := 8
	switch dtype {
	case "", "int64":
	case "int32":
		size = 4
	default:
		return ROUGEResult{}, fmt.Errorf("rouge: response dtype %q: want int32 or int64", dtype)
	}
	var r ROUGEResult
	var r1, r2, rl []float64
	seen := map[uint64]bool{}
	err := ReadLog(log, func(e Entry) error {
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if e.QSLIdx >= uint64(len(targets)) {
			return fmt.Errorf("%w: qsl_idx %d: the data set has %d reference outputs", ErrLog, e.QSLIdx, len(targets))
		}
		if len(e.Data)%size != 0 {
			return fmt.Errorf("%w: qsl_idx %d: %d bytes are not whole %s tokens", ErrLog, e.QSLIdx, len(e.Data), dtype)
		}
		ids := make([]int64, len(e.Data)/size)
		for i := range ids {
			if size == 4 {
				ids[i] = int64(int32(binary.LittleEndian.Uint32(e.Data[4*i:])))
			} else {
				ids[i] = int64(binary.LittleEndian.Uint64(e.Data[8*i:]))
			}
		}
		text, err := tok.Decode(ids)
		if err != nil {
			return fmt.Errorf("rouge: qsl_idx %d: %w", e.QSLIdx, err)
		}
		pred, target := rougeTokens(text), rougeTokens(targets[e.QSLIdx])
		r1 = append(r1, rougeN(target, pred, 1))
		r2 = append(r2, rougeN(target, pred, 2))
		rl = append(rl, rougeL(target, pred))
		r.Samples++
		r.Tokens += len(ids)
		return nil
	})
	if err != nil {
		return ROUGEResult{}, err
	}
	r.Rouge1 = numpyRound(numpyMean(r1)*100, 4)
	r.Rouge2 = numpyRound(numpyMean(r2)*100, 4)
	r.RougeL = numpyRound(numpyMean(rl)*100, 4)
	return r, nil
}
