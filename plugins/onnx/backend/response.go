package backend

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// The values of the response option.
const (
	// ResponseOutputs answers each sample with its slice of every output,
	// concatenated in output order (the default).
	ResponseOutputs = "outputs"
	// ResponseClass answers each sample with its predicted class as one
	// little-endian float32: the response MLPerf's ResNet-50 reference
	// writes and accuracy-imagenet.py reads (its default --dtype float32).
	ResponseClass = "class"
)

// responder turns a batch's outputs into each sample's response.
type responder struct {
	class bool
	// out is the index of the output the class comes from; offset is
	// added to the class (-1 for a model whose class 0 is "background",
	// as MLPerf's 1001-class ResNet-50 graphs).
	out    int
	offset int
}

// newResponder checks the response options against the model's outputs.
func newResponder(c config, outs []engine.TensorDesc) (responder, error) {
	switch c.response {
	case ResponseOutputs:
		if c.classOutput != "" || c.classOffset != 0 {
			return responder{}, fmt.Errorf("options %s and %s need %s=%s", OptClassOutput, OptClassOffset, OptResponse, ResponseClass)
		}
		return responder{}, nil
	case ResponseClass:
	default:
		return responder{}, fmt.Errorf("option %s=%q: want %s or %s", OptResponse, c.response, ResponseOutputs, ResponseClass)
	}
	r := responder{class: true, offset: c.classOffset}
	if c.classOutput != "" {
		r.out = -1
		names := make([]string, len(outs))
		for i, o := range outs {
			names[i] = o.Name
			if o.Name == c.classOutput {
				r.out = i
			}
		}
		if r.out < 0 {
			return responder{}, fmt.Errorf("option %s=%q: the model's outputs are %s", OptClassOutput, c.classOutput, strings.Join(names, ", "))
		}
	}
	o := outs[r.out]
	per := 1
	for _, d := range o.Shape[min(1, len(o.Shape)):] {
		per *= int(d) // -1 for a free dimension: checked per batch
	}
	switch {
	case per == 1 && o.DType.Size() > 0:
		// The class itself, as ArgMax outputs it.
	case o.DType == engine.Float32:
		// Scores (logits or probabilities): the class is the first highest.
	default:
		return responder{}, fmt.Errorf("output %v: want one class per sample or float32 scores", o)
	}
	return r, nil
}

// appendResponse appends sample i's response among the n samples of a
// batch's outputs to dst.
func (r responder) appendResponse(dst []byte, outs []engine.Tensor, i, n int) ([]byte, error) {
	if !r.class {
		for _, o := range outs {
			per := len(o.Data) / n
			dst = append(dst, o.Data[i*per:(i+1)*per]...)
		}
		return dst, nil
	}
	o := outs[r.out]
	per := len(o.Data) / n
	data := o.Data[i*per : (i+1)*per]
	var cls int64
	switch {
	case per == o.DType.Size():
		cls = classValue(o.DType, data)
	case o.DType == engine.Float32 && per > 0:
		cls = argmaxFloat32(data)
	default:
		return dst, fmt.Errorf("output %s: %d bytes per sample, want one class or float32 scores", o.Name, per)
	}
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(cls+int64(r.offset)))), nil
}

// classValue reads one element as a class index.
func classValue(dt engine.DType, b []byte) int64 {
	switch dt {
	case engine.Float32:
		return int64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case engine.Int32:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case engine.Int64:
		return int64(binary.LittleEndian.Uint64(b))
	case engine.Int8:
		return int64(int8(b[0]))
	}
	return int64(b[0])
}

// argmaxFloat32 is numpy's argmax: the index of the first highest value,
// a NaN counting as highest.
func argmaxFloat32(b []byte) int64 {
	best, bestV := 0, math.Float32frombits(binary.LittleEndian.Uint32(b))
	for i := 4; i+4 <= len(b) && bestV == bestV; i += 4 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
		if v > bestV || v != v {
			best, bestV = i/4, v
		}
	}
	return int64(best)
}
