package trt

import (
	"testing"
)

// shapedTRT is an engine of one input "x" and one output "y" whose shapes,
// profile range and context output shape are what a fuzzer says.
type shapedTRT struct {
	nullTRT
	in, out, lo, hi, ctxOut []int64
}

func (s shapedTRT) IOShape(_ handle, name []byte) ([]int64, error) {
	if name[0] == 'x' {
		return s.in, nil
	}
	return s.out, nil
}

func (s shapedTRT) ProfileShape(_ handle, _ []byte, _, which int) ([]int64, error) {
	if which == profileMin {
		return s.lo, nil
	}
	return s.hi, nil
}

func (s shapedTRT) TensorShape(_ handle, _ []byte, d *[maxDims]int64) (int, error) {
	return copy(d[:], s.ctxOut), nil
}

// dimsOf reads up to maxDims dimensions, one signed byte each; bytes
// from 100 to 127 are huge dimensions (1<<24 and more).
func dimsOf(b []byte) []int64 {
	out := make([]int64, 0, maxDims)
	for _, v := range b[:min(len(b), maxDims)] {
		d := int64(int8(v))
		if d >= 100 {
			d <<= 24 + d - 100
		}
		out = append(out, d)
	}
	return out
}

// FuzzReadLayout: whatever shapes and profile ranges an engine reports,
// readLayout and sizeOutputs return an error or a layout whose rows are
// whole, non-negative byte counts and whose varying inputs have a range
// inside the profile.
func FuzzReadLayout(f *testing.F) {
	f.Add([]byte{0xff, 0xff}, []byte{0xff, 0xff, 2}, []byte{1, 4}, []byte{8, 64}, []byte{8, 64, 2})
	f.Add([]byte{0xff, 4}, []byte{0xff, 4}, []byte{1, 4}, []byte{8, 4}, []byte{})
	f.Add([]byte{4, 0xff}, []byte{4, 8}, []byte{4, 1}, []byte{4, 8}, []byte{4, 8})
	f.Fuzz(func(t *testing.T, in, out, lo, hi, ctxOut []byte) {
		api := shapedTRT{in: dimsOf(in), out: dimsOf(out), lo: dimsOf(lo), hi: dimsOf(hi), ctxOut: dimsOf(ctxOut)}
		l, err := readLayout(api, 1, []int{0})
		if err != nil {
			return
		}
		if err := l.sizeOutputs(api, 1); err != nil {
			return
		}
		for _, ts := range [][]tensorInfo{l.inputs, l.outputs} {
			for _, x := range ts {
				if x.sampleBytes < 0 {
					t.Fatalf("tensor %q: row of %d bytes", x.name, x.sampleBytes)
				}
				for d := range x.lo {
					if x.lo[d] < 1 || x.lo[d] > x.hi[d] {
						t.Fatalf("tensor %q: range %v to %v", x.name, x.lo, x.hi)
					}
				}
			}
		}
		if l.maxBatch < l.minBatch {
			t.Fatalf("batch range %d to %d", l.minBatch, l.maxBatch)
		}
	})
}
