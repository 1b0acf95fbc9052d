package dlrmv2

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "per pair, the click probability and the label as two float32"

// AUCResult is the score of a DLRM accuracy log, as accuracy-dlrm.py
// computes it.
type AUCResult struct {
	// AUC is the ROC AUC of the click predictions, in percent.
	AUC float64
	// Good counts the pairs whose prediction rounds to the label, among
	// Total pairs of Queries distinct samples.
	Good, Total, Queries int
}

// Text is accuracy-dlrm.py's line:
// "AUC=80.312%, accuracy=96.588%, good=1, total=2, queries=1".
func (r AUCResult) Text() string {
	acc := 0.0
	if r.Total > 0 {
		acc = 100 * float64(r.Good) / float64(r.Total)
	}
	return fmt.Sprintf("AUC=%.3f%%, accuracy=%.3f%%, good=%d, total=%d, queries=%d", r.AUC, acc, r.Good, r.Total, r.Queries)
}

// Value implements accuracy.Score.
func (r AUCResult) Value(m benchmarks.Metric) (float64, bool) { return r.AUC, m == benchmarks.AUC }

// DLRMLabels are the click labels of each sample (a sample is several
// user-item pairs), for logs that hold predictions alone.
type DLRMLabels [][]float32

// ReadDLRMLabels reads the labels as accuracy-dlrm.py does with
// --day-23-file and --aggregation-trace-file: the trace's third
// comma-separated field is each sample's pair count, and the day-23 file's
// first tab-separated field of each line is a pair's label, in order.
//
// # Errors
//
// A trace line without a count, a day-23 line without an integer label,
// or a day-23 file shorter than the trace says.
func ReadDLRMLabels(day23, trace io.Reader) (DLRMLabels, error) {
	var counts []int
	sc := bufio.NewScanner(trace)
	for n := 1; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), ", ")
		if len(f) < 3 {
			return nil, fmt.Errorf("aggregation trace line %d: want at least 3 fields separated by \", \"", n)
		}
		c, err := strconv.Atoi(strings.TrimSpace(f[2]))
		if err != nil || c < 0 {
			return nil, fmt.Errorf("aggregation trace line %d: pair count %q", n, f[2])
		}
		counts = append(counts, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("aggregation trace: %w", err)
	}
	br := bufio.NewReaderSize(day23, 1<<16)
	labels := make(DLRMLabels, len(counts))
	line := 0
	for i, c := range counts {
		labels[i] = make([]float32, c)
		for k := range c {
			s, err := br.ReadString('\n')
			if err != nil && (s == "" || err != io.EOF) {
				return nil, fmt.Errorf("day-23 file: line %d (pair %d of sample %d): %w", line+1, k, i, err)
			}
			line++
			field, _, _ := strings.Cut(s, "\t")
			v, err := strconv.Atoi(strings.TrimSpace(field))
			if err != nil {
				return nil, fmt.Errorf("day-23 file line %d: label %q is not an integer", line, field)
			}
			labels[i][k] = float32(v)
		}
	}
	return labels, nil
}

// AUC scores a DLRM accuracy log as accuracy-dlrm.py does. With labels
// nil the log holds, per pair, the prediction and the label as two
// float32 (the reference SUT's response); otherwise it holds predictions
// alone, one float32 per pair, and labels[qsl_idx] are the sample's
// labels. Entries for a sample already seen are skipped.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log, a response that is not whole
// float32 records, a qsl_idx without labels or a pair count that differs
// from the labels'; an error when the labels are all of one class (the
// AUC is undefined, as sklearn says).
func AUC(r io.Reader, labels DLRMLabels) (AUCResult, error) {
	var res AUCResult
	var scores, truth []float32
	seen := map[uint64]bool{}
	width := 2
	if labels != nil {
		width = 1
	}
	err := accuracy.ReadLog(r, func(e accuracy.Entry) error {
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if len(e.Data)%(4*width) != 0 {
			return fmt.Errorf("%w: qsl_idx %d: %d bytes, want float32 records of %d", accuracy.ErrLog, e.QSLIdx, len(e.Data), width)
		}
		n := len(e.Data) / (4 * width)
		if labels != nil {
			if e.QSLIdx >= uint64(len(labels)) {
				return fmt.Errorf("%w: qsl_idx %d has no labels (the trace has %d samples)", accuracy.ErrLog, e.QSLIdx, len(labels))
			}
			if len(labels[e.QSLIdx]) != n {
				return fmt.Errorf("%w: qsl_idx %d: %d predictions, the trace says %d pairs", accuracy.ErrLog, e.QSLIdx, n, len(labels[e.QSLIdx]))
			}
		}
		for k := range n {
			p := math.Float32frombits(binary.LittleEndian.Uint32(e.Data[4*width*k:]))
			var y float32
			if labels != nil {
				y = labels[e.QSLIdx][k]
			} else {
				y = math.Float32frombits(binary.LittleEndian.Uint32(e.Data[4*width*k+4:]))
			}
			scores, truth = append(scores, p), append(truth, y)
			if math.RoundToEven(float64(p)) == float64(y) {
				res.Good++
			}
		}
		return nil
	})
	if err != nil {
		return AUCResult{}, err
	}
	res.Total, res.Queries = len(scores), len(seen)
	auc, err := rocAUC(truth, scores)
	if err != nil {
		return AUCResult{}, err
	}
	res.AUC = 100 * auc
	return res, nil
}

// rocAUC is sklearn's roc_auc_score for binary labels: the ROC curve at
// every distinct score (collinear points dropped, as roc_curve's
// drop_intermediate does), integrated by the trapezoid rule. A label is
// positive when it is 1, as sklearn's pos_label.
func rocAUC(truth, scores []float32) (float64, error) {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	// Descending score; ties are one threshold, so their order is moot.
	slices.SortStableFunc(idx, py.Descending(func(i int) float32 { return scores[i] }))
	for _, y := range truth {
		if y != 0 && y != 1 {
			return 0, fmt.Errorf("roc auc: label %v is neither 0 nor 1", y)
		}
	}
	var tps, fps []float64
	tp := 0.0
	for i, j := range idx {
		tp += float64(truth[j])
		if i == len(idx)-1 || scores[idx[i+1]] != scores[j] {
			tps = append(tps, tp)
			fps = append(fps, float64(i+1)-tp)
		}
	}
	if len(tps) == 0 || tps[len(tps)-1] == 0 || fps[len(fps)-1] == 0 {
		return 0, fmt.Errorf("roc auc: only one class in the labels, the AUC is undefined")
	}
	// Drop the points where neither rate changes its slope.
	keepT, keepF := []float64{0}, []float64{0}
	for i := range tps {
		if i == 0 || i == len(tps)-1 ||
			fps[i+1]-2*fps[i]+fps[i-1] != 0 || tps[i+1]-2*tps[i]+tps[i-1] != 0 {
			keepT, keepF = append(keepT, tps[i]), append(keepF, fps[i])
		}
	}
	pT, pF := keepT[len(keepT)-1], keepF[len(keepF)-1]
	area := 0.0
	for i := 1; i < len(keepT); i++ {
		dx := keepF[i]/pF - keepF[i-1]/pF
		area += dx * (keepT[i]/pT + keepT[i-1]/pT) / 2
	}
	return area, nil
}
