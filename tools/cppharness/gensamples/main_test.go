package main

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func TestRunWritesAnNPYDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, run(dir, 3, "2,4"))
	ds, err := dataset.OpenNPYDir(dir, "")
	require.NoError(t, err)
	defer ds.Close()
	assert.Equal(t, 3, ds.Len())
	assert.Equal(t, []int{0, 0, 0}, ds.Labels())
	buf := make([]byte, 2*4*4)
	require.NoError(t, ds.ReadSample(2, buf))
	// Sample 2's first element is (0+2)/251 - 0.5.
	assert.InDelta(t, float32(2)/251-0.5, math.Float32frombits(binary.LittleEndian.Uint32(buf)), 1e-7)
}

func TestRunRefusesBadArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, out, shape string
		n                int
		want             string
	}{
		{name: "no out", shape: "3", n: 1, want: "-out is required"},
		{name: "no samples", out: t.TempDir(), shape: "3", n: 0, want: "want at least one sample"},
		{name: "bad dimension", out: t.TempDir(), shape: "3,x", n: 1, want: `"x" is not a positive dimension`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.ErrorContains(t, run(tc.out, tc.n, tc.shape), tc.want)
		})
	}
}
