package dlrmv3

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// The quality metrics of dlrm-v3, as the submission checker names them.
const (
	NE       benchmarks.Metric = "DLRM_NE"
	Accuracy benchmarks.Metric = "DLRM_ACC"
	GAUC     benchmarks.Metric = "DLRM_AUC"
)

// The names accuracy.py logs the metrics under (torchrec's lifetime
// metrics of the one task, "rating"), which the checker's patterns read.
const (
	neKey       = "metric/lifetime_ne/rating"
	accuracyKey = "metric/lifetime_accuracy/rating"
	gaucKey     = "metric/lifetime_gauc/rating"
)

// Scorer scores a dlrm-v3 accuracy log as accuracy.py does; the log
// holds the labels and weights.
var Scorer = accuracy.Scorer{
	Name:   "dlrm-v3",
	Script: "recommendation/dlrm_v3/accuracy.py",
	Score: func(log io.Reader, _ accuracy.Inputs) (accuracy.Score, error) {
		return ScoreLog(log)
	},
}

// Metrics are torchrec's lifetime states over every logged response, as
// accuracy.py's MetricsLogger keeps them (one update per response).
type Metrics struct {
	crossEntropy, weights, pos, neg float64 // NEMetricComputation
	accurate                        float64 // AccuracyMetricComputation (its weights are NE's)
	aucSum, groups                  float64 // GAUCMetricComputation
	// Responses counts the updates.
	Responses int
}

// eta is torchrec's NE clamp.
const eta = 1e-12

// Add updates the metrics with one response, as torchrec's NE, accuracy
// and GAUC computations do with a batch of one: products of the float32
// labels and weights stay float32, the cross entropy is float64.
func (m *Metrics) Add(r Result) {
	m.Responses++
	var w, pos, neg, acc float32
	var ce float64
	for i, p := range r.Predictions {
		l, wt := r.Labels[i], r.Weights[i]
		q := min(max(float64(p), eta), 1-eta)
		ce += -float64(wt*l)*math.Log2(q) - float64(wt*(1-l))*math.Log2(1-q)
		w += wt
		pos += wt * l
		neg += wt * (1 - l)
		if b2f(float64(p) >= 0.5) == l {
			acc += wt
		}
	}
	m.crossEntropy += ce
	m.weights += float64(w)
	m.pos += float64(pos)
	m.neg += float64(neg)
	m.accurate += float64(acc)
	auc, ok := groupAUC(r)
	if ok {
		m.aucSum += float64(auc)
		m.groups++
	}
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// groupAUC is compute_gauc_3d's AUC of one response's candidates: over
// the candidates in ascending order of prediction, each positive's
// weight times the negative weight ranked at or below it, divided by
// the product of the positive and negative weights plus 1e-10; false
// (skipped) when the predictions are all equal (or zero) or the labels
// all one class. Ties keep the log's order (a stable sort; torch's
// argsort leaves them unspecified).
func groupAUC(r Result) (float32, bool) {
	n := len(r.Predictions)
	if n == 0 {
		return 0, false
	}
	same := true
	for _, p := range r.Predictions {
		if p != r.Predictions[0] && p != 0 {
			same = false
		}
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.Predictions[idx[a]] < r.Predictions[idx[b]] })
	var cumNeg, num, wPos, wNeg float32
	for _, i := range idx {
		l, w := r.Labels[i], r.Weights[i]
		cumNeg += w * (1 - l)
		num += l * w * cumNeg
		wPos += l * w
		wNeg += (1 - l) * w
	}
	if same || wPos <= 0 || wNeg <= 0 {
		return 0, false
	}
	return num / (wPos*wNeg + 1e-10), true
}

// NE is torchrec's lifetime normalized entropy: the cross entropy over
// that of the mean label.
func (m *Metrics) NE() float64 {
	mean := m.pos / max(m.weights, eta)
	mean = min(max(mean, eta), 1-eta)
	return m.crossEntropy / (-m.pos*math.Log2(mean) - m.neg*math.Log2(1-mean))
}

// Accuracy is torchrec's lifetime accuracy: the weight of the candidates
// whose prediction ≥ 0.5 matches the label, over all the weight.
func (m *Metrics) Accuracy() float64 {
	if m.weights == 0 {
		return 0
	}
	return m.accurate / m.weights
}

// GAUC is torchrec's lifetime GAUC: the mean AUC of the responses not
// skipped, (sum + 1e-9) / (count + 2e-9).
func (m *Metrics) GAUC() float64 { return (m.aucSum + 1e-9) / (m.groups + 2e-9) }

// Text is accuracy.py's three lifetime lines, on one line in the order
// it logs them: "metric/lifetime_ne/rating: 0.86687, ...".
func (m *Metrics) Text() string {
	return fmt.Sprintf("%s: %s, %s: %s, %s: %s", neKey, py.Float(m.NE()), accuracyKey, py.Float(m.Accuracy()), gaucKey, py.Float(m.GAUC()))
}

// Value implements accuracy.Score: NE, accuracy and GAUC as fractions.
func (m *Metrics) Value(metric benchmarks.Metric) (float64, bool) {
	switch metric {
	case NE:
		return m.NE(), true
	case Accuracy:
		return m.Accuracy(), true
	case GAUC:
		return m.GAUC(), true
	}
	return 0, false
}

// ScoreLog scores an accuracy log of responses of the accuracy form.
//
// # Errors
//
// Names the entry of a response that is not of the accuracy form, and
// refuses a log without responses.
func ScoreLog(log io.Reader) (*Metrics, error) {
	m := &Metrics{}
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		r, err := ParseResult(e.Data)
		if err != nil {
			return fmt.Errorf("entry seq_id %d (qsl_idx %d): %w", e.SeqID, e.QSLIdx, err)
		}
		m.Add(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if m.Responses == 0 {
		return nil, fmt.Errorf("%w: no responses", accuracy.ErrLog)
	}
	return m, nil
}
