package onnxpb

import (
	"testing"
)

// FuzzDecode checks that no input makes Decode or the tensor accessors
// panic, and that whatever decodes re-encodes and decodes again.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(sampleModel()))
	f.Add([]byte{})
	f.Add([]byte{0x3a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		for i := range m.Graph.Initializers {
			init := &m.Graph.Initializers[i]
			_, _ = init.Float32s()
			_, _ = init.Int64s()
			_, _ = init.Bytes()
		}
		if _, err := Decode(Encode(m)); err != nil {
			t.Fatalf("re-decode of an encoded model: %v", err)
		}
	})
}

// FuzzDecodeTensor does the same for single TensorProto files.
func FuzzDecodeTensor(f *testing.F) {
	ft := FloatTensor("x", []int64{2}, []float32{1, 2})
	f.Add(EncodeTensor(&ft))
	it := Int64Tensor("s", []int64{1}, []int64{-1})
	f.Add(EncodeTensor(&it))
	f.Fuzz(func(t *testing.T, b []byte) {
		tensor, err := DecodeTensor(b)
		if err != nil {
			return
		}
		_, _ = tensor.Float32s()
		_, _ = tensor.Int64s()
		_, _ = tensor.Bytes()
	})
}
