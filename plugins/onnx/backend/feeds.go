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

// A feed fills one model input from the samples of a batch.
type feed struct {
	desc engine.TensorDesc
	// src is the index of the data set tensor it reads, in the host's
	// schema ([sdk.Model.Inputs]); -1 reads a sample's whole Data (a host
	// that declared no tensors: the sample is the model's one input).
	src int
	// from is the data set tensor's dtype; the feed converts it to the
	// model's (int32 token ids for an int64 input, say).
	from engine.DType
	// shape is a sample's shape when src is -1: the input's without the
	// batch dimension (made once: tensor runs twice per sample).
	shape []int
}

// batchLayout is how a batch's samples make a model input.
type batchLayout int

const (
	// stackSamples: a sample is one element of the batch, the model input
	// [batch, the sample's shape...]. Samples batch together when their
	// shapes are equal.
	stackSamples batchLayout = iota
	// concatRows: a sample is rows of the batch, the model input [rows,
	// ...] and the sample's tensors [its rows, ...] (DLRM's user-item
	// pairs); the outputs' first dimension counts the same rows.
	concatRows
)

// feeds maps the data set's tensors onto the model's inputs.
type feeds struct {
	in     []feed
	layout batchLayout
	// schema is the host's data set schema (nil from an older host).
	schema []sdk.TensorSpec
	// fixedBytes is one sample's byte size when the host declared no
	// tensors: the model's one input without its batch dimension.
	fixedBytes int
	// windowed: the model sees windows of a sample, whose dimensions are
	// the segmenter's to check, not the model's.
	windowed bool
}

// engineDType returns the engine's dtype of a data set tensor's, false for
// one no engine takes.
func engineDType(d abi.DType) (engine.DType, bool) {
	switch d {
	case abi.Float32:
		return engine.Float32, true
	case abi.Uint8, abi.Bool:
		return engine.Uint8, true
	case abi.Int8:
		return engine.Int8, true
	case abi.Int32:
		return engine.Int32, true
	case abi.Int64:
		return engine.Int64, true
	}
	return 0, false
}

// convertible reports whether a feed converts from to to: the same dtype,
// or integers of 32 and 64 bits either way (a value that does not fit
// fails its sample).
func convertible(from, to engine.DType) bool {
	if from == to {
		return true
	}
	ints := func(d engine.DType) bool { return d == engine.Int32 || d == engine.Int64 }
	return ints(from) && ints(to)
}

// inputAliases are the other names a model input goes by: BERT's
// quantized graph says attention_mask and token_type_ids for the
// reference data set's input_mask and segment_ids.
var inputAliases = map[string][]string{
	"attention_mask": {"input_mask"}, "token_type_ids": {"segment_ids"},
	"input_mask": {"attention_mask"}, "segment_ids": {"token_type_ids"},
}

// newFeeds matches the model's inputs with the data set's tensors: by
// name (or an alias), or the only one with the only one. Without a schema (an older
// host) the model must have one input whose only free dimension is the
// batch, and a sample's Data is that input.
func newFeeds(model []engine.TensorDesc, schema []sdk.TensorSpec, windowed bool) (feeds, error) {
	if len(schema) == 0 {
		return legacyFeeds(model)
	}
	f := feeds{schema: schema, windowed: windowed}
	names := make([]string, len(schema))
	for i, s := range schema {
		names[i] = s.Name
	}
	layout := -1
	for _, in := range model {
		src := slices.Index(names, in.Name)
		for _, alias := range inputAliases[in.Name] {
			if src < 0 {
				src = slices.Index(names, alias)
			}
		}
		if src < 0 && len(model) == 1 && len(schema) == 1 {
			src = 0
		}
		if src < 0 {
			return feeds{}, fmt.Errorf("model input %v: the data set has no tensor %q (its tensors: %s)", in, in.Name, strings.Join(names, ", "))
		}
		spec := schema[src]
		from, ok := engineDType(spec.DType)
		if !ok || !convertible(from, in.DType) {
			return feeds{}, fmt.Errorf("model input %v: data set tensor %s is %s, which the model's %v cannot take", in, spec.Name, spec.DType, in.DType)
		}
		l, err := layoutOf(in, spec, windowed)
		if err != nil {
			return feeds{}, err
		}
		if layout >= 0 && l != int(layout) {
			return feeds{}, fmt.Errorf("model input %v: data set tensor %s is laid out unlike the other inputs' (%v)", in, spec.Name, spec.Shape)
		}
		layout = l
		f.in = append(f.in, feed{desc: in, src: src, from: from})
	}
	f.layout = batchLayout(layout)
	return f, nil
}

// layoutOf says how samples of spec make batches of input in: one more
// dimension in the model is the batch (stackSamples); the same rank with a
// free first dimension is rows (concatRows). Fixed dimensions must agree.
func layoutOf(in engine.TensorDesc, spec sdk.TensorSpec, windowed bool) (int, error) {
	var model []int64
	var sample []int
	var l batchLayout
	switch {
	case len(in.Shape) == len(spec.Shape)+1 && len(in.Shape) > 0:
		l, model, sample = stackSamples, in.Shape[1:], spec.Shape
	case len(in.Shape) == len(spec.Shape) && len(in.Shape) > 0 && in.Shape[0] < 0:
		l, model, sample = concatRows, in.Shape[1:], spec.Shape[1:]
	default:
		return 0, fmt.Errorf("model input %v: data set tensor %s %v: want the model's shape less its batch dimension, "+
			"or rows of it%s", in, spec.Name, spec.Shape, melHint(in, spec))
	}
	for k, d := range model {
		if d >= 0 && sample[k] != abi.Varies && int64(sample[k]) != d && !windowed {
			return 0, fmt.Errorf("model input %v: data set tensor %s has shape %v", in, spec.Name, spec.Shape)
		}
	}
	return int(l), nil
}

// legacyFeeds is the one input of a model served to a host that declared
// no tensors.
func legacyFeeds(model []engine.TensorDesc) (feeds, error) {
	if len(model) != 1 {
		return feeds{}, fmt.Errorf("model has %d inputs and the host declared no data set tensors to feed them", len(model))
	}
	in := model[0]
	if len(in.Shape) == 0 || in.Shape[0] >= 0 && in.Shape[0] != 1 {
		return feeds{}, fmt.Errorf("input %v: the first dimension must be the batch", in)
	}
	size := in.DType.Size()
	shape := make([]int, len(in.Shape)-1)
	for k, d := range in.Shape[1:] {
		if d < 0 {
			return feeds{}, fmt.Errorf("input %v: only the batch dimension may be free", in)
		}
		size *= int(d)
		shape[k] = int(d)
	}
	return feeds{in: []feed{{desc: in, src: -1, from: in.DType, shape: shape}}, fixedBytes: size}, nil
}

// freeInner reports whether a model input has a free dimension besides
// the batch: the engine then plans each shape when it first sees it.
func (f *feeds) freeInner() bool {
	for _, in := range f.in {
		if len(in.desc.Shape) > 1 && slices.Contains(in.desc.Shape[1:], -1) {
			return true
		}
	}
	return f.layout == concatRows
}

// tensor returns what sample s gives feed in: its shape (the caller's to
// read, not to change) and bytes.
func (f *feeds) tensor(s *sdk.Sample, in *feed) ([]int, []byte, error) {
	if in.src < 0 {
		if len(s.Data) != f.fixedBytes {
			return nil, nil, fmt.Errorf("sample %d has %d bytes, input %v wants %d", s.Index, len(s.Data), in.desc, f.fixedBytes)
		}
		return in.shape, s.Data, nil
	}
	if in.src >= len(s.Tensors) {
		return nil, nil, fmt.Errorf("sample %d has %d tensors, the data set declared %d", s.Index, len(s.Tensors), len(f.schema))
	}
	t := s.Tensors[in.src]
	return t.Shape, t.Data, nil
}

// check reports whether sample s fits the model's inputs, and its rows
// (concatRows; 1 otherwise).
func (f *feeds) check(s *sdk.Sample) (int, error) {
	rows := 1
	for i := range f.in {
		in := &f.in[i]
		sh, _, err := f.tensor(s, in)
		if err != nil {
			return 0, err
		}
		model := in.desc.Shape[1:]
		inner := sh
		if f.layout == concatRows {
			if len(sh) == 0 {
				return 0, fmt.Errorf("sample %d: tensor %s has no rows", s.Index, in.desc.Name)
			}
			if i > 0 && sh[0] != rows {
				return 0, fmt.Errorf("sample %d: tensor %s has %d rows, %s %d", s.Index, f.schema[in.src].Name, sh[0], f.in[0].desc.Name, rows)
			}
			rows, inner = sh[0], sh[1:]
		}
		for k, d := range model {
			if d >= 0 && int64(inner[k]) != d && !f.windowed {
				return 0, fmt.Errorf("sample %d: tensor %s has shape %v, model input %v", s.Index, f.schema[in.src].Name, sh, in.desc)
			}
		}
	}
	return rows, nil
}

// sameShapes reports whether samples a and b give the model equal shapes
// (stackSamples batches only hold samples of one shape).
func (f *feeds) sameShapes(a, b *sdk.Sample) bool {
	if f.layout == concatRows {
		return true
	}
	for i := range f.in {
		if f.in[i].src < 0 {
			continue
		}
		if !slices.Equal(a.Tensors[f.in[i].src].Shape, b.Tensors[f.in[i].src].Shape) {
			return false
		}
	}
	return true
}

// fill sets dst (one tensor per model input) to the batch of samples
// (checked with check), converting dtypes, reusing dst's buffers.
func (f *feeds) fill(dst []engine.Tensor, samples []sdk.Sample) error {
	for i := range f.in {
		in := &f.in[i]
		t := &dst[i]
		t.Name, t.DType, t.Data = in.desc.Name, in.desc.DType, t.Data[:0]
		rows := 0
		var inner []int
		for k := range samples {
			sh, data, err := f.tensor(&samples[k], in)
			if err != nil {
				return err
			}
			if f.layout == concatRows {
				rows += sh[0]
				inner = sh[1:]
			} else {
				rows++
				inner = sh
			}
			if t.Data, err = appendConverted(t.Data, data, in.from, in.desc.DType); err != nil {
				return fmt.Errorf("sample %d: tensor %s: %w", samples[k].Index, in.desc.Name, err)
			}
		}
		t.Shape = append(t.Shape[:0], int64(rows))
		for _, d := range inner {
			t.Shape = append(t.Shape, int64(d))
		}
	}
	return nil
}

// appendConverted appends src, elements of dtype from, to dst as elements
// of dtype to (see convertible).
func appendConverted(dst, src []byte, from, to engine.DType) ([]byte, error) {
	switch {
	case from == to:
		return append(dst, src...), nil
	case from == engine.Int32 && to == engine.Int64:
		for i := 0; i+4 <= len(src); i += 4 {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(int64(int32(binary.LittleEndian.Uint32(src[i:])))))
		}
		return dst, nil
	case from == engine.Int64 && to == engine.Int32:
		for i := 0; i+8 <= len(src); i += 8 {
			v := int64(binary.LittleEndian.Uint64(src[i:]))
			if v < math.MinInt32 || v > math.MaxInt32 {
				return dst, fmt.Errorf("element %d is %d, beyond the model's int32", i/8, v)
			}
			dst = binary.LittleEndian.AppendUint32(dst, uint32(int32(v)))
		}
		return dst, nil
	}
	return dst, fmt.Errorf("cannot convert %v to %v", from, to)
}
