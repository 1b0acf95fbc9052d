package bench

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// PatternInput returns one input tensor per desc with every free
// dimension set to batch, filled as rawort.c fills its input: element i
// is i mod 251, divided by 251 for float tensors.
//
// # Errors
//
// A type other than float, uint8 or int8, or a shape whose size
// overflows.
func PatternInput(descs []engine.TensorDesc, batch int) ([]engine.Tensor, error) {
	ins := make([]engine.Tensor, len(descs))
	for k, d := range descs {
		shape := make([]int64, len(d.Shape))
		for i, n := range d.Shape {
			shape[i] = n
			if n < 0 {
				shape[i] = int64(batch)
			}
		}
		n := engine.Elements(shape)
		if n < 0 {
			return nil, fmt.Errorf("input %q: shape %v overflows", d.Name, shape)
		}
		data := make([]byte, n*d.DType.Size())
		switch d.DType {
		case engine.Float32:
			for i := range n {
				binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i%251)/251))
			}
		case engine.Uint8, engine.Int8:
			for i := range n {
				data[i] = byte(i % 251)
			}
		default:
			return nil, fmt.Errorf("input %q: element type %v", d.Name, d.DType)
		}
		ins[k] = engine.Tensor{Name: d.Name, DType: d.DType, Shape: shape, Data: data}
	}
	return ins, nil
}
