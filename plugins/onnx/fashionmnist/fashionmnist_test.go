package fashionmnist

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	s, err := Load()
	require.NoError(t, err)
	ref, err := LoadReference()
	require.NoError(t, err)
	assert.Len(t, s.Images, 1000)
	assert.Len(t, s.Labels, 1000)
	assert.Equal(t, 28, s.Rows)
	assert.Equal(t, 28, s.Cols)
	assert.Len(t, s.Images[999], 784)
	assert.Len(t, ref.Predictions, 1000)
	assert.Len(t, Classes(), 10)
	correct := 0
	for i, p := range ref.Predictions {
		if p == int(s.Labels[i]) {
			correct++
		}
	}
	assert.InDelta(t, ref.SubsetAccuracy, float64(correct)/1000, 1e-6)
	assert.NotEmpty(t, Model())
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

func TestReadIDX(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []byte
		dims []int
		ok   bool
	}{
		{name: "2x3", in: gz([]byte{0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6}), dims: []int{2, 3}, ok: true},
		{name: "not gzip", in: []byte{0, 0, 8, 1}},
		{name: "float type", in: gz([]byte{0, 0, 0x0d, 1, 0, 0, 0, 1, 0, 0, 0, 0})},
		{name: "short data", in: gz([]byte{0, 0, 8, 1, 0, 0, 0, 4, 1, 2})},
		{name: "long data", in: gz([]byte{0, 0, 8, 1, 0, 0, 0, 1, 1, 2})},
		{name: "huge dims", in: gz([]byte{0, 0, 8, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})},
		{name: "zero dim", in: gz([]byte{0, 0, 8, 1, 0, 0, 0, 0})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dims, data, err := ReadIDX(bytes.NewReader(tt.in))
			if !tt.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.dims, dims)
			assert.Equal(t, []byte{1, 2, 3, 4, 5, 6}, data)
		})
	}
}

func FuzzReadIDX(f *testing.F) {
	f.Add(gz([]byte{0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6}))
	f.Add(labelsGz)
	f.Fuzz(func(t *testing.T, b []byte) {
		dims, data, err := ReadIDX(bytes.NewReader(b))
		if err != nil {
			return
		}
		n := 1
		for _, d := range dims {
			n *= d
		}
		if n != len(data) {
			t.Fatalf("dims %v but %d bytes", dims, len(data))
		}
	})
}
