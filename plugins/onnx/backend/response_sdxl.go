package backend

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// sdxlResponder answers a generated image as the SDXL reference SUT does
// (ResponseSDXL): the pipeline's float image [3, H, W] in [0, 1] as
// uint8 [H, W, 3], each value (t × 255).round() (half to even, in
// float32) cast to uint8, which accuracy_coco.py reads.
type sdxlResponder struct{ out int }

// newSDXLResponder checks the model's image output: its first, float32
// [N, 3, H, W].
func newSDXLResponder(outs []engine.TensorDesc) (sdxlResponder, error) {
	o := outs[0]
	if o.DType != engine.Float32 || len(o.Shape) != 4 || o.Shape[1] != 3 {
		return sdxlResponder{}, fmt.Errorf("response %s: output %v: want the image, float32 [N, 3, height, width]", ResponseSDXL, o)
	}
	return sdxlResponder{}, nil
}

func (r sdxlResponder) appendResponse(dst []byte, rn *ran, i int) ([]byte, error) {
	o := rn.outs[r.out]
	if len(o.Shape) != 4 || o.Shape[1] != 3 {
		return dst, fmt.Errorf("response %s: output %s of shape %v, want [N, 3, height, width]", ResponseSDXL, o.Name, o.Shape)
	}
	img := rn.part(o, i)
	plane := int(o.Shape[2] * o.Shape[3])
	if len(img) != 4*3*plane {
		return dst, fmt.Errorf("response %s: sample %d: %d bytes of output %s, want %d", ResponseSDXL, i, len(img), o.Name, 4*3*plane)
	}
	for p := range plane {
		for c := range 3 {
			v := math.Float32frombits(binary.LittleEndian.Uint32(img[4*(c*plane+p):]))
			dst = append(dst, toUint8(float32(math.RoundToEven(float64(v*255)))))
		}
	}
	return dst, nil
}

// toUint8 is numpy's astype(uint8) of a value the pipeline's clamp keeps
// in [0, 255]; beyond it, saturated (numpy leaves it undefined).
func toUint8(v float32) byte {
	switch {
	case v != v || v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return byte(v)
}
