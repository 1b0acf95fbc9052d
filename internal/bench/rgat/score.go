package rgat

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the predicted class, the argmax of the model's 2983 logits, as one integer of accuracy_igbh.py's --dtype: uint8 by default (as the reference SUT answers), int32, int64 or float32"

// Result is the score of an R-GAT accuracy log, as accuracy_igbh.py
// computes it.
type Result struct {
	Good, Total int
}

// Accuracy is the share of the samples classified right, in percent, as
// the script computes it (good / total, then times 100).
func (r Result) Accuracy() float64 { return 100.0 * (float64(r.Good) / float64(r.Total)) }

// Text is the line accuracy_igbh.py writes: "accuracy=72.860%,
// good=..., total=...".
func (r Result) Text() string {
	return fmt.Sprintf("accuracy=%.3f%%, good=%d, total=%d", r.Accuracy(), r.Good, r.Total)
}

// Value implements accuracy.Score.
func (r Result) Value(m benchmarks.Metric) (float64, bool) { return r.Accuracy(), m == benchmarks.Top1 }

// classOf reads a response's class as accuracy_igbh.py does: the first
// element of dtype, made an integer (a float truncated).
func classOf(data []byte, dtype string) (int64, error) {
	size := map[string]int{"uint8": 1, "int32": 4, "int64": 8, "float32": 4}[dtype]
	if size == 0 {
		return 0, fmt.Errorf("dtype %q: want uint8, float32, int32 or int64", dtype)
	}
	if len(data) < size {
		return 0, fmt.Errorf("a response of %d bytes holds no %s", len(data), dtype)
	}
	switch dtype {
	case "uint8":
		return int64(data[0]), nil
	case "int32":
		return int64(int32(binary.LittleEndian.Uint32(data))), nil
	case "int64":
		return int64(binary.LittleEndian.Uint64(data)), nil
	}
	f := float64(math.Float32frombits(binary.LittleEndian.Uint32(data)))
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("a response of class %v", f)
	}
	return int64(f), nil
}

// Score scores an R-GAT accuracy log against the validation papers'
// labels (labels[i] is sample i's, [Dir.ValLabels]) as accuracy_igbh.py
// does: each qsl_idx once, its first response, the class the first
// element of dtype ("" for the script's uint8).
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log, a qsl_idx past the
// validation papers, a response too short for its dtype or a log
// without entries.
func Score(r io.Reader, labels []int64, dtype string) (Result, error) {
	if dtype == "" {
		dtype = "uint8"
	}
	if _, err := classOf(make([]byte, 8), dtype); err != nil {
		return Result{}, err
	}
	var res Result
	seen := map[uint64]bool{}
	err := accuracy.ReadLog(r, func(e accuracy.Entry) error {
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if e.QSLIdx >= uint64(len(labels)) {
			return fmt.Errorf("%w: qsl_idx %d: the data set has %d validation papers", accuracy.ErrLog, e.QSLIdx, len(labels))
		}
		c, err := classOf(e.Data, dtype)
		if err != nil {
			return fmt.Errorf("%w: qsl_idx %d: %w", accuracy.ErrLog, e.QSLIdx, err)
		}
		if c == labels[e.QSLIdx] {
			res.Good++
		}
		res.Total++
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if res.Total == 0 {
		return Result{}, fmt.Errorf("%w: no responses", accuracy.ErrLog)
	}
	return res, nil
}

// Scorer is R-GAT's: accuracy_igbh.py's accuracy. Its truth is the IGBH
// data set (its root as the script's --dataset-path with one size, the
// size's directory or its processed directory), its dtype the script's
// --dtype.
var Scorer = accuracy.Scorer{Name: "igbh", Script: "graph/R-GAT/tools/accuracy_igbh.py",
	Needs: []string{accuracy.NeedTruth}, Score: scoreIGBH}

func scoreIGBH(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	dir, ok := Locate(in.Truth)
	if !ok {
		return nil, fmt.Errorf("igbh truth %s: no %s under %s, SIZE/%s or its sizes", in.Truth, ValIdx, Processed, Processed)
	}
	_, labels, err := dir.ValLabels()
	if err != nil {
		return nil, fmt.Errorf("igbh truth: %w", err)
	}
	return Score(log, labels, in.Dtype)
}
