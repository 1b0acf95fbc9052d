package submission

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// Pass and Fail end every verify_*.txt, as the official scripts write them.
const (
	Pass = "TEST PASS"
	Fail = "TEST FAIL"
)

// Verdict is a compliance verification: its report lines and whether it
// passed.
type Verdict struct {
	Lines []string
	Pass  bool
}

// Text is the verify_*.txt content.
func (v Verdict) Text() string {
	var b bytes.Buffer
	for _, l := range v.Lines {
		b.WriteString(l + "\n")
	}
	if v.Pass {
		b.WriteString(Pass + "\n")
	} else {
		b.WriteString(Fail + "\n")
	}
	return b.String()
}

// VerifyAccuracy is TEST01's accuracy check: every response the
// performance run logged must equal, byte for byte, the accuracy run's
// response for the same sample (a deterministic backend gives the same
// answer whether or not it is timed).
func VerifyAccuracy(accuracyLog, complianceLog io.Reader) (Verdict, error) {
	ref := map[uint64][]byte{}
	err := accuracy.ReadLog(accuracyLog, func(e accuracy.Entry) error {
		if _, ok := ref[e.QSLIdx]; !ok {
			ref[e.QSLIdx] = bytes.Clone(e.Data)
		}
		return nil
	})
	if err != nil {
		return Verdict{}, fmt.Errorf("accuracy run log: %w", err)
	}
	var n, same, missing int
	var firstDiff string
	err = accuracy.ReadLog(complianceLog, func(e accuracy.Entry) error {
		n++
		r, ok := ref[e.QSLIdx]
		switch {
		case !ok:
			missing++
		case bytes.Equal(r, e.Data):
			same++
		case firstDiff == "":
			firstDiff = fmt.Sprintf("first difference: qsl_idx %d", e.QSLIdx)
		}
		return nil
	})
	if err != nil {
		return Verdict{}, fmt.Errorf("compliance log: %w", err)
	}
	v := Verdict{Lines: []string{
		fmt.Sprintf("responses logged in performance mode: %d", n),
		fmt.Sprintf("equal to the accuracy run's: %d", same),
		fmt.Sprintf("samples absent from the accuracy run: %d", missing),
	}, Pass: n > 0 && same == n}
	if firstDiff != "" {
		v.Lines = append(v.Lines, firstDiff)
	}
	if n == 0 {
		v.Lines = append(v.Lines, "no response was logged: is accuracy_log_sampling_target set?")
	}
	return v, nil
}

// VerifyPerformance compares a compliance run's result metric with the
// performance run's. TEST01 and TEST05 must not be worse than tolerance
// (a fraction); TEST04, which issues one sample over and over, must not be
// better by more than tolerance (a faster result means cached results).
func VerifyPerformance(t benchmarks.Test, baseline, compliance *mllog.Log, tolerance float64) (Verdict, error) {
	b, err := baseline.Metric()
	if err != nil {
		return Verdict{}, fmt.Errorf("performance run: %w", err)
	}
	c, err := compliance.Metric()
	if err != nil {
		return Verdict{}, fmt.Errorf("%s run: %w", t, err)
	}
	if b.Key != c.Key || b.Value <= 0 || c.Value <= 0 {
		return Verdict{}, fmt.Errorf("%s: metrics %s=%v and %s=%v cannot be compared", t, b.Key, b.Value, c.Key, c.Value)
	}
	// goodness > 1 means the compliance run did better.
	goodness := c.Value / b.Value
	if !b.HigherIsBetter {
		goodness = b.Value / c.Value
	}
	v := Verdict{Lines: []string{
		fmt.Sprintf("reference %s: %g", b.Key, b.Value),
		fmt.Sprintf("%s %s: %g", t, c.Key, c.Value),
		fmt.Sprintf("compliance/reference (higher is better): %.4f", goodness),
	}}
	validity, _ := compliance.String("result_validity")
	if t == benchmarks.TEST04 {
		v.Pass = goodness <= 1+tolerance
		v.Lines = append(v.Lines, fmt.Sprintf("must not exceed %.4f", 1+tolerance))
	} else {
		v.Pass = goodness >= 1-tolerance
		v.Lines = append(v.Lines, fmt.Sprintf("must be at least %.4f", 1-tolerance))
	}
	v.Lines = append(v.Lines, "compliance run validity: "+validity)
	v.Pass = v.Pass && validity == "VALID"
	return v, nil
}

// WriteVerdict writes v to dir/name.
func WriteVerdict(dir, name string, v Verdict) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(v.Text()), 0o644)
}
