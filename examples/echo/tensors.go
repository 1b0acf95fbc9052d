package echo

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// A sample of more than one tensor is echoed as the tensors the backend
// read, by name, so that a test can check from the accuracy log that
// every tensor of every sample reached the plugin with its shape: per
// tensor, in the order of the sample's,
//
//	u8 name length, the name, u8 dtype length, the dtype,
//	u8 rank, rank × u32 dimensions, u32 data length, the data
//
// (little-endian). A sample of one tensor is echoed as its bytes.

// EncodeTensors appends the echo of ts to dst.
func EncodeTensors(dst []byte, ts []sdk.Tensor) []byte {
	for _, t := range ts {
		dst = append(dst, byte(len(t.Name)))
		dst = append(dst, t.Name...)
		dst = append(dst, byte(len(t.DType)))
		dst = append(dst, t.DType...)
		dst = append(dst, byte(len(t.Shape)))
		for _, d := range t.Shape {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(d))
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(t.Data)))
		dst = append(dst, t.Data...)
	}
	return dst
}

var errShort = errors.New("echoed tensors: truncated")

// DecodeTensors reads what EncodeTensors wrote.
func DecodeTensors(b []byte) ([]sdk.Tensor, error) {
	var out []sdk.Tensor
	take := func(n int) ([]byte, error) {
		if n > len(b) {
			return nil, errShort
		}
		v := b[:n]
		b = b[n:]
		return v, nil
	}
	str := func() (string, error) {
		n, err := take(1)
		if err != nil {
			return "", err
		}
		v, err := take(int(n[0]))
		return string(v), err
	}
	for len(b) > 0 {
		var t sdk.Tensor
		var err error
		if t.Name, err = str(); err != nil {
			return nil, err
		}
		dt, err := str()
		if err != nil {
			return nil, err
		}
		t.DType = abi.DType(dt)
		rank, err := take(1)
		if err != nil {
			return nil, err
		}
		dims, err := take(4 * int(rank[0]))
		if err != nil {
			return nil, err
		}
		for i := range int(rank[0]) {
			t.Shape = append(t.Shape, int(binary.LittleEndian.Uint32(dims[4*i:])))
		}
		n, err := take(4)
		if err != nil {
			return nil, err
		}
		if t.Data, err = take(int(binary.LittleEndian.Uint32(n))); err != nil {
			return nil, fmt.Errorf("tensor %s: %w", t.Name, err)
		}
		out = append(out, t)
	}
	return out, nil
}
