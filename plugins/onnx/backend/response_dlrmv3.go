package backend

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// The names response=dlrmv3 reads: the data set's tensor of a request's
// key (int64 [2]: the timestamp's index among the inference timestamps,
// the request's index in it) and the model outputs of the reference's
// HSTU model, one value per candidate.
const (
	dlrmv3KeyTensor   = "ts_query"
	dlrmv3Predictions = "predictions"
	dlrmv3Labels      = "labels"
	dlrmv3Weights     = "weights"
)

// dlrmv3Responder answers a dlrm-v3 request as the reference SUT does
// (ResponseDLRMv3): float32 [ts_idx, query_idx, predictions...], and in
// an accuracy run the labels, the weights and the candidate count after
// them (accuracy.py's form; a performance run's, TEST08's included, is
// the shorter one run_verification.py reads).
type dlrmv3Responder struct {
	key int
	// outs are the predictions', labels' and weights' output indices;
	// the last two only in an accuracy run.
	outs []int
}

// newDLRMv3Responder finds the key tensor in the data set and the
// outputs, each float32 [N, candidates].
func newDLRMv3Responder(outs []engine.TensorDesc, schema []sdk.TensorSpec, mode sdk.Mode) (dlrmv3Responder, error) {
	r := dlrmv3Responder{key: slices.IndexFunc(schema, func(t sdk.TensorSpec) bool { return t.Name == dlrmv3KeyTensor })}
	if r.key < 0 {
		names := make([]string, len(schema))
		for i, t := range schema {
			names[i] = t.Name
		}
		return r, fmt.Errorf("response %s: the data set has no tensor %s (its tensors: %s)", ResponseDLRMv3, dlrmv3KeyTensor, strings.Join(names, ", "))
	}
	if k := schema[r.key]; k.DType != abi.Int64 || !slices.Equal(k.Shape, []int{2}) {
		return r, fmt.Errorf("response %s: data set tensor %s is %s%v, want int64 [2]", ResponseDLRMv3, k.Name, k.DType, k.Shape)
	}
	want := []string{dlrmv3Predictions}
	if mode == sdk.AccuracyOnly {
		want = append(want, dlrmv3Labels, dlrmv3Weights)
	}
	for _, name := range want {
		o := slices.IndexFunc(outs, func(d engine.TensorDesc) bool { return d.Name == name })
		if o < 0 {
			names := make([]string, len(outs))
			for k, d := range outs {
				names[k] = d.Name
			}
			return r, fmt.Errorf("response %s in %s: the model has no output %s (its outputs: %s)", ResponseDLRMv3, mode, name, strings.Join(names, ", "))
		}
		if d := outs[o]; d.DType != engine.Float32 || len(d.Shape) != 2 {
			return r, fmt.Errorf("response %s: output %v: want float32 [N, candidates]", ResponseDLRMv3, d)
		}
		r.outs = append(r.outs, o)
	}
	return r, nil
}

func (r dlrmv3Responder) appendResponse(dst []byte, rn *ran, i int) ([]byte, error) {
	key := rn.samples[i].Tensors[r.key].Data
	if len(key) != 16 {
		return dst, fmt.Errorf("tensor %s of %d bytes, want int64 [2]", dlrmv3KeyTensor, len(key))
	}
	for k := range 2 {
		v := int64(binary.LittleEndian.Uint64(key[8*k:]))
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(v)))
	}
	n := -1
	for _, o := range r.outs {
		part := rn.part(rn.outs[o], i)
		if n >= 0 && len(part) != 4*n {
			return dst, fmt.Errorf("output %s has %d values, %s %d", rn.outs[o].Name, len(part)/4, dlrmv3Predictions, n)
		}
		n = len(part) / 4
		dst = append(dst, part...)
	}
	if len(r.outs) > 1 {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(n)))
	}
	return dst, nil
}
