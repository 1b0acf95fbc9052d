package dlrmv3

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "float32 [ts_idx, query_idx, predictions..., labels..., weights..., candidate count] in an accuracy run"

// Result is one response of the accuracy form: the request it answers
// (ts_idx, query_idx) and per candidate the predicted probability, the
// label and the weight.
type Result struct {
	TS, Query                    int
	Predictions, Labels, Weights []float32
}

// floats reads little-endian float32s, as numpy's frombuffer does.
func floats(data []byte) []float32 {
	out := make([]float32, len(data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return out
}

// ParseResult reads a response of the accuracy form.
//
// # Errors
//
// Wraps accuracy.ErrLog for data that is not float32s, whose last one
// is not a candidate count n, or whose length is not 3+3n.
func ParseResult(data []byte) (Result, error) {
	v := floats(data)
	if len(data)%4 != 0 || len(v) < 3 {
		return Result{}, fmt.Errorf("%w: %d bytes, want float32 [ts_idx, query_idx, predictions, labels, weights, count]", accuracy.ErrLog, len(data))
	}
	c := v[len(v)-1]
	n := int(c) // numpy's astype(int): toward zero
	if c != c || c < 0 || c > float32(len(v)) || len(v) != 3+3*n {
		return Result{}, fmt.Errorf("%w: %d floats ending in count %v, want 3 + 3 × count", accuracy.ErrLog, len(v), c)
	}
	return Result{TS: int(v[0]), Query: int(v[1]), Predictions: v[2 : 2+n], Labels: v[2+n : 2+2*n], Weights: v[2+2*n : 2+3*n]}, nil
}

// ParsePerformance reads a response of the performance form, as
// run_verification.py does: the two keys, then every float a
// prediction.
//
// # Errors
//
// Wraps accuracy.ErrLog for data that is not float32s or holds fewer
// than two.
func ParsePerformance(data []byte) (ts, query int, predictions []float32, err error) {
	v := floats(data)
	if len(data)%4 != 0 || len(v) < 2 {
		return 0, 0, nil, fmt.Errorf("%w: %d bytes, want float32 [ts_idx, query_idx, predictions]", accuracy.ErrLog, len(data))
	}
	return int(v[0]), int(v[1]), v[2:], nil
}

// AppendResult appends r as a response of the accuracy form.
func AppendResult(dst []byte, r Result) []byte {
	put := func(v float32) { dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v)) }
	put(float32(r.TS))
	put(float32(r.Query))
	for _, s := range [][]float32{r.Predictions, r.Labels, r.Weights} {
		for _, v := range s {
			put(v)
		}
	}
	put(float32(len(r.Predictions)))
	return dst
}
