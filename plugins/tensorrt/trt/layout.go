package trt

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// dataType is an nvinfer1::DataType value.
type dataType int

// dataTypes maps nvinfer1::DataType values to their name and width in bits.
var dataTypes = map[dataType]struct {
	name string
	bits int
}{
	0: {"float32", 32}, 1: {"float16", 16}, 2: {"int8", 8}, 3: {"int32", 32},
	4: {"bool", 8}, 5: {"uint8", 8}, 6: {"fp8", 8}, 7: {"bfloat16", 16},
	8: {"int64", 64}, 9: {"int4", 4}, 10: {"fp4", 4},
}

// tensorInfo describes one engine I/O tensor.
type tensorInfo struct {
	name  string
	cname []byte
	dtype dataType
	// dims is the engine shape; dims[0] is the batch (-1 when dynamic).
	dims []int64
	// bits is the width of one element.
	bits int
	// varies says a dimension after the batch is dynamic; lo and hi are
	// then an input's range of those dimensions that every profile in use
	// takes.
	varies bool
	lo, hi []int64
	// sampleBytes is the size of one batch row: for a tensor that varies,
	// its largest (an input at hi, an output at the shape hi inputs give).
	sampleBytes int
	// offset is where this input starts in a sample's bytes (inputs only).
	offset int
}

// layout is what the scheduler needs to know about an engine.
type layout struct {
	inputs, outputs []tensorInfo
	// dynamic is true when the batch dimension is -1 (set per enqueue).
	dynamic bool
	// varShape is true when an input varies beyond the batch: each batch
	// then sets its inputs' whole shapes, taken from its samples' tensors.
	varShape bool
	// minBatch and maxBatch bound the rows of one enqueue: the profile's
	// range for dynamic engines, the fixed batch for static ones.
	minBatch, maxBatch int
	// inBytes and outBytes are one sample's input and output sizes.
	inBytes, outBytes int
}

// maxRowBits bounds one batch row of a tensor: 1 TiB, far beyond any
// device's memory, and far from overflowing a row count's product.
const maxRowBits = 8 << 40

// rowBytes returns the size of one batch row of tensor t with the given
// dimensions after the batch.
func rowBytes(t *tensorInfo, rest []int64) (int, error) {
	bits := int64(t.bits)
	for _, d := range rest {
		if d < 0 {
			return 0, fmt.Errorf("tensor %q has a dynamic dimension after the batch with no range", t.name)
		}
		if d > 0 && bits > maxRowBits/d {
			return 0, fmt.Errorf("tensor %q: a batch row of shape %v is beyond %d bytes", t.name, rest, maxRowBits/8)
		}
		bits *= d
	}
	if bits%8 != 0 {
		return 0, fmt.Errorf("tensor %q: a batch row of %d bits is not whole bytes", t.name, bits)
	}
	return int(bits / 8), nil
}

// readLayout queries an engine's I/O tensors and the batch range of the
// given optimization profiles.
func readLayout(api trtAPI, eng handle, profiles []int) (*layout, error) {
	n := api.NumIO(eng)
	if n <= 0 {
		return nil, errors.New("engine has no I/O tensors")
	}
	l := &layout{minBatch: 1, maxBatch: -1}
	static, dynamic := 0, 0
	for i := range n {
		name := api.IOName(eng, i)
		t := tensorInfo{name: name, cname: native.CString(name), dtype: dataType(api.IODataType(eng, native.CString(name)))}
		shape, err := api.IOShape(eng, t.cname)
		if err != nil {
			return nil, err
		}
		if len(shape) == 0 {
			return nil, fmt.Errorf("tensor %q is a scalar: every I/O tensor needs a batch dimension", name)
		}
		t.dims = shape
		dt, ok := dataTypes[t.dtype]
		if !ok {
			return nil, fmt.Errorf("tensor %q has unsupported data type %d", name, t.dtype)
		}
		t.bits = dt.bits
		t.varies = slices.Contains(shape[1:], -1)
		if !t.varies {
			if t.sampleBytes, err = rowBytes(&t, shape[1:]); err != nil {
				return nil, err
			}
		}
		switch api.IOMode(eng, t.cname) {
		case ioInput:
			l.varShape = l.varShape || t.varies
			t.offset = l.inBytes
			l.inBytes += t.sampleBytes
			if shape[0] < 0 {
				dynamic++
			} else {
				static++
			}
			l.inputs = append(l.inputs, t)
		case ioOutput:
			l.outBytes += t.sampleBytes
			l.outputs = append(l.outputs, t)
		default:
			return nil, fmt.Errorf("tensor %q is neither an input nor an output", name)
		}
	}
	if len(l.inputs) == 0 || len(l.outputs) == 0 {
		return nil, fmt.Errorf("engine has %d inputs and %d outputs; it needs at least one of each",
			len(l.inputs), len(l.outputs))
	}
	if static > 0 && dynamic > 0 {
		return nil, errors.New("engine mixes static and dynamic batch dimensions across inputs")
	}
	l.dynamic = dynamic > 0
	if l.varShape && !l.dynamic {
		return nil, errors.New("engine has inputs dynamic beyond a static batch: only engines with a dynamic batch may vary in other dimensions")
	}
	if !l.dynamic {
		b := int(l.inputs[0].dims[0])
		for _, ts := range [][]tensorInfo{l.inputs, l.outputs} {
			for _, t := range ts {
				if int(t.dims[0]) != b {
					return nil, fmt.Errorf("tensor %q has batch %d, input %q has %d", t.name, t.dims[0], l.inputs[0].name, b)
				}
			}
		}
		l.minBatch, l.maxBatch = b, b
		return l, nil
	}
	for _, p := range profiles {
		for _, t := range l.inputs {
			lo, err := api.ProfileShape(eng, t.cname, p, profileMin)
			if err != nil {
				return nil, err
			}
			hi, err := api.ProfileShape(eng, t.cname, p, profileMax)
			if err != nil {
				return nil, err
			}
			if len(lo) != len(t.dims) || len(hi) != len(t.dims) {
				return nil, fmt.Errorf("input %q: profile %d has shapes of rank %d and %d, the tensor %d", t.name, p, len(lo), len(hi), len(t.dims))
			}
			l.minBatch = max(l.minBatch, int(lo[0]))
			if l.maxBatch < 0 || int(hi[0]) < l.maxBatch {
				l.maxBatch = int(hi[0])
			}
		}
	}
	if l.maxBatch < l.minBatch {
		return nil, fmt.Errorf("optimization profiles %v share no batch size (min %d, max %d)", profiles, l.minBatch, l.maxBatch)
	}
	if err := l.readRanges(api, eng, profiles); err != nil {
		return nil, err
	}
	return l, nil
}

// readRanges sets the range of every input that varies beyond the batch:
// the dimensions every profile in use takes, and its largest row.
func (l *layout) readRanges(api trtAPI, eng handle, profiles []int) error {
	for k := range l.inputs {
		t := &l.inputs[k]
		if !t.varies {
			continue
		}
		for i, p := range profiles {
			lo, err := api.ProfileShape(eng, t.cname, p, profileMin)
			if err != nil {
				return err
			}
			hi, err := api.ProfileShape(eng, t.cname, p, profileMax)
			if err != nil {
				return err
			}
			if i == 0 {
				t.lo, t.hi = slices.Clone(lo[1:]), slices.Clone(hi[1:])
			}
			for d := range t.lo {
				t.lo[d], t.hi[d] = max(t.lo[d], lo[d+1]), min(t.hi[d], hi[d+1])
			}
		}
		for d := range t.lo {
			if t.lo[d] < 1 || t.hi[d] < t.lo[d] {
				return fmt.Errorf("input %q: optimization profiles %v share no size of dimension %d (min %d, max %d)",
					t.name, profiles, d+1, t.lo[d], t.hi[d])
			}
		}
		var err error
		if t.sampleBytes, err = rowBytes(t, t.hi); err != nil {
			return err
		}
	}
	return nil
}

// varOutputs reports whether an output varies beyond the batch: its row
// size then comes from the context once the input shapes are set.
func (l *layout) varOutputs() bool {
	return slices.ContainsFunc(l.outputs, func(t tensorInfo) bool { return t.varies })
}

// sizeOutputs sets the largest row of every output that varies: its shape
// in a context of eng whose inputs take their largest batch and shape.
func (l *layout) sizeOutputs(api trtAPI, eng handle) error {
	if !l.varOutputs() {
		return nil
	}
	ctx, err := api.ContextCreate(eng)
	if err != nil {
		return err
	}
	defer api.ContextDestroy(ctx)
	errBuf := make([]byte, errBufBytes)
	for k := range l.inputs {
		t := &l.inputs[k]
		if !l.dynamic {
			break
		}
		shape := append([]int64{int64(l.maxBatch)}, t.dims[1:]...)
		if t.varies {
			shape = append(shape[:1], t.hi...)
		}
		if err := api.SetInputShape(ctx, t.cname, shape, errBuf); err != nil {
			return err
		}
	}
	var d [maxDims]int64
	for k := range l.outputs {
		t := &l.outputs[k]
		if !t.varies {
			continue
		}
		rank, err := api.TensorShape(ctx, t.cname, &d)
		if err != nil {
			return fmt.Errorf("output %q: %w", t.name, err)
		}
		if rank != len(t.dims) {
			return fmt.Errorf("output %q has rank %d in a context, %d in the engine", t.name, rank, len(t.dims))
		}
		if t.sampleBytes, err = rowBytes(t, d[1:rank]); err != nil {
			return err
		}
	}
	return nil
}

// rows returns how many batch rows an enqueue of n samples runs: n raised
// to the profile minimum, or the fixed batch of a static engine.
func (l *layout) rows(n int) int {
	if !l.dynamic {
		return l.maxBatch
	}
	return max(n, l.minBatch)
}
