package acceltest

import "github.com/mlperf-host/mlperf-host/sdk"

// IDBase is added to a sample's index to make its id in [Query].
const IDBase = 1000

// SampleBytes returns n bytes that differ from sample to sample.
func SampleBytes(index uint64, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(int(index)*31 + j*7 + 1)
	}
	return b
}

// Query builds a query of the given sample indices, with ids
// IDBase+index, each sample's [SampleBytes] of size attached when withData
// is set, and WantOutput set to want.
func Query(indices []uint64, size int, withData, want bool) sdk.Query {
	q := sdk.Query{}
	for _, i := range indices {
		s := sdk.Sample{ID: IDBase + i, Index: i, WantOutput: want}
		if withData {
			s.Data = SampleBytes(i, size)
		}
		q.Samples = append(q.Samples, s)
	}
	return q
}

// Loaded returns the [SampleBytes] of size for indices, to pass to
// LoadSamples.
func Loaded(indices []uint64, size int) []sdk.LoadedSample {
	out := make([]sdk.LoadedSample, len(indices))
	for k, i := range indices {
		out[k] = sdk.LoadedSample{Index: i, Data: SampleBytes(i, size)}
	}
	return out
}

// Seq returns 0..n-1.
func Seq(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i)
	}
	return out
}

// EchoOutput is what the fake runtimes compute for a sample: output k is
// input (k mod #inputs), repeated or cut to the output's size; outputs
// are concatenated. ins and outs are the tensors' bytes per sample.
func EchoOutput(sample []byte, ins, outs []int) []byte {
	var parts [][]byte
	off := 0
	for _, n := range ins {
		parts = append(parts, sample[off:off+n])
		off += n
	}
	var out []byte
	for k, n := range outs {
		src := parts[k%len(parts)]
		for n > 0 {
			c := min(n, len(src))
			out = append(out, src[:c]...)
			n -= c
		}
	}
	return out
}
