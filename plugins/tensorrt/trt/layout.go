package trt

import (
	"errors"
	"fmt"

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
	// sampleBytes is the size of one batch row.
	sampleBytes int
	// offset is where this input starts in a sample's bytes (inputs only).
	offset int
}

// layout is what the scheduler needs to know about an engine.
type layout struct {
	inputs, outputs []tensorInfo
	// dynamic is true when the batch dimension is -1 (set per enqueue).
	dynamic bool
	// minBatch and maxBatch bound the rows of one enqueue: the profile's
	// range for dynamic engines, the fixed batch for static ones.
	minBatch, maxBatch int
	// inBytes and outBytes are one sample's input and output sizes.
	inBytes, outBytes int
}

// rowBytes returns the size of one batch row of a tensor with the given
// data type and non-batch dimensions.
func rowBytes(name string, dt dataType, rest []int64) (int, error) {
	t, ok := dataTypes[dt]
	if !ok {
		return 0, fmt.Errorf("tensor %q has unsupported data type %d", name, dt)
	}
	bits := int64(t.bits)
	for _, d := range rest {
		if d < 0 {
			return 0, fmt.Errorf("tensor %q has a dynamic non-batch dimension: only the batch may be dynamic", name)
		}
		bits *= d
	}
	if bits%8 != 0 {
		return 0, fmt.Errorf("tensor %q: a batch row of %d bits is not whole bytes", name, bits)
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
		if t.sampleBytes, err = rowBytes(name, t.dtype, shape[1:]); err != nil {
			return nil, err
		}
		switch api.IOMode(eng, t.cname) {
		case ioInput:
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
			l.minBatch = max(l.minBatch, int(lo[0]))
			if l.maxBatch < 0 || int(hi[0]) < l.maxBatch {
				l.maxBatch = int(hi[0])
			}
		}
	}
	if l.maxBatch < l.minBatch {
		return nil, fmt.Errorf("optimization profiles %v share no batch size (min %d, max %d)", profiles, l.minBatch, l.maxBatch)
	}
	return l, nil
}

// rows returns how many batch rows an enqueue of n samples runs: n raised
// to the profile minimum, or the fixed batch of a static engine.
func (l *layout) rows(n int) int {
	if !l.dynamic {
		return l.maxBatch
	}
	return max(n, l.minBatch)
}
