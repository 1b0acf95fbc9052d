package rouge

import "github.com/mlperf-host/mlperf-host/internal/benchlib/py"

// Scores are evaluate's "rouge" metric of text pairs, one score a pair
// (compute(predictions, references, use_stemmer=True,
// use_aggregator=False)): ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum
// F-measures.
type Scores struct {
	Rouge1, Rouge2, RougeL, RougeLsum []float64
}

// Add scores one pair: the texts with a sentence a line (ROUGE-Lsum's
// summary level).
func (s *Scores) Add(target, pred string) {
	t, p := Tokens(target), Tokens(pred)
	s.Rouge1 = append(s.Rouge1, N(t, p, 1))
	s.Rouge2 = append(s.Rouge2, N(t, p, 2))
	s.RougeL = append(s.RougeL, L(t, p))
	s.RougeLsum = append(s.RougeLsum, Lsum(Lines(target), Lines(pred)))
}

// Len is the number of pairs scored.
func (s *Scores) Len() int { return len(s.Rouge1) }

// Percent is each score's round(np.mean(v) * 100, 4), as the LLM
// scripts report them: ROUGE-1, ROUGE-2, ROUGE-L, ROUGE-Lsum.
func (s *Scores) Percent() [4]float64 {
	var out [4]float64
	for i, v := range [][]float64{s.Rouge1, s.Rouge2, s.RougeL, s.RougeLsum} {
		out[i] = py.NumpyRound(py.NumpyMean(v)*100, 4)
	}
	return out
}
