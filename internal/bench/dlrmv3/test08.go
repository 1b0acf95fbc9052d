package dlrmv3

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// TEST08Tolerance is run_verification.py's default relative NE tolerance.
const TEST08Tolerance = 0.001

// TEST08 is the verdict of compliance/TEST08/run_verification.py: the
// performance run's logged responses matched by (ts_idx, query_idx) with
// the accuracy run's, each one's NE against the accuracy run's labels and
// weights within Tolerance of the accuracy run's own.
type TEST08 struct {
	AccEntries, PerfEntries          int
	Matched, Unmatched, NEMismatched int
	Tolerance                        float64
	// Mismatches are the lines the script prints for each NE mismatch.
	Mismatches []string
}

// Pass is the script's verdict: every response matched, at least one,
// and no NE mismatch.
func (t TEST08) Pass() bool { return t.NEMismatched == 0 && t.Matched > 0 && t.Unmatched == 0 }

// Text is what the script prints, which verify_accuracy.txt holds.
func (t TEST08) Text() string {
	var b strings.Builder
	b.WriteString("Verifying accuracy. This might take a while...\nReading accuracy mode results...\nReading performance mode results...\n")
	for _, m := range t.Mismatches {
		b.WriteString(m + "\n")
	}
	fmt.Fprintf(&b, "\nnum_acc_log_entries = %d\nnum_perf_log_entries = %d\nnum_matched = %d\nnum_unmatched = %d\nnum_ne_mismatch = %d\ntolerance = %.2f%%\n",
		t.AccEntries, t.PerfEntries, t.Matched, t.Unmatched, t.NEMismatched, t.Tolerance*100)
	if t.Pass() {
		b.WriteString("\nTEST PASS\n")
	} else {
		b.WriteString("\nTEST FAIL\n")
	}
	b.WriteString("TEST08 verification complete\n")
	return b.String()
}

type key struct{ ts, query int }

type accSample struct {
	ne              float32
	labels, weights []float32
}

// VerifyTEST08 reads the accuracy run's log (acc) and the TEST08 run's
// (perf) and compares them as run_verification.py does; a later
// accuracy response of the same key replaces an earlier one, as the
// script's dictionary does.
//
// # Errors
//
// Names the log and entry of a response of the wrong form.
func VerifyTEST08(acc, perf io.Reader, tolerance float64) (TEST08, error) {
	t := TEST08{Tolerance: tolerance}
	samples := map[key]accSample{}
	err := accuracy.ReadLog(acc, func(e accuracy.Entry) error {
		t.AccEntries++
		r, err := ParseResult(e.Data)
		if err != nil {
			return fmt.Errorf("accuracy log entry seq_id %d: %w", e.SeqID, err)
		}
		samples[key{r.TS, r.Query}] = accSample{ne: sampleNE(r.Predictions, r.Labels, r.Weights),
			labels: append([]float32(nil), r.Labels...), weights: append([]float32(nil), r.Weights...)}
		return nil
	})
	if err != nil {
		return TEST08{}, err
	}
	err = accuracy.ReadLog(perf, func(e accuracy.Entry) error {
		t.PerfEntries++
		ts, q, preds, err := ParsePerformance(e.Data)
		if err != nil {
			return fmt.Errorf("TEST08 log entry seq_id %d: %w", e.SeqID, err)
		}
		s, ok := samples[key{ts, q}]
		if !ok {
			t.Unmatched++
			return nil
		}
		t.Matched++
		if len(preds) != len(s.labels) {
			// numpy cannot broadcast the two: the script stops there.
			return fmt.Errorf("TEST08 log entry seq_id %d: %w: %d predictions for (%d, %d), whose accuracy response has %d candidates", e.SeqID, accuracy.ErrLog, len(preds), ts, q, len(s.labels))
		}
		perfNE := sampleNE(preds, s.labels, s.weights)
		switch {
		case s.ne == 0 && perfNE == 0:
		case s.ne == 0 || perfNE == 0:
			t.NEMismatched++
			t.Mismatches = append(t.Mismatches, fmt.Sprintf("  NE mismatch at (%d, %d): acc_ne=%s, perf_ne=%s", ts, q, py.Float32(s.ne), py.Float32(perfNE)))
		default:
			if d := abs32(perfNE-s.ne) / abs32(s.ne); float64(d) > tolerance {
				t.NEMismatched++
				t.Mismatches = append(t.Mismatches, fmt.Sprintf("  NE mismatch at (%d, %d): acc_ne=%.6f, perf_ne=%.6f, diff=%.4f%%", ts, q, s.ne, perfNE, d*100))
			}
		}
		return nil
	})
	return t, err
}

// sampleNE is run_verification.py's compute_ne of one response: numpy
// in float32 (its inputs' type) but for the log; eps 1e-7.
func sampleNE(preds, labels, weights []float32) float32 {
	const eps = float32(1e-7)
	var total, ce, pl float32
	for i := range preds {
		p := min(max(preds[i], eps), 1-eps)
		l := min(max(labels[i], eps), 1-eps)
		w := weights[i]
		total += w
		ce += w * (l*log32(p) + (1-l)*log32(1-p))
		pl += w * l
	}
	ce = -ce
	if total == 0 {
		return 0
	}
	p := min(max(pl/total, eps), 1-eps)
	base := -p*log32(p) - (1-p)*log32(1-p)
	if base == 0 {
		return 0
	}
	return ce / (base * total)
}

func log32(x float32) float32 { return float32(math.Log(float64(x))) }

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }
