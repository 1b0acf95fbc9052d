package dataset

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompactRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		spec    Spec
		n       int
		labeled bool
	}{
		{name: "labeled images", spec: Spec{DType: Uint8, Shape: []int{1, 28, 28}}, n: 13, labeled: true},
		{name: "unlabeled floats", spec: Spec{DType: Float32, Shape: []int{3, 4}}, n: 5},
		{name: "one scalar", spec: Spec{DType: Int32, Shape: []int{}}, n: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := memorySet(t, tt.spec, tt.n, tt.labeled)
			d, err := Open(compactFile(t, src), Options{})
			require.NoError(t, err)
			defer d.Close()
			assert.Equal(t, SingleSchema(tt.spec), d.Schema())
			assert.Equal(t, tt.n, d.Len())
			assert.Equal(t, src.Labels(), d.Labels())
			buf := make([]byte, tt.spec.Bytes())
			for i := range tt.n {
				require.NoError(t, d.ReadSample(i, buf))
				assert.Equal(t, sample(tt.spec, i), buf, "sample %d", i)
			}
			require.NoError(t, d.(Verifier).Verify())
		})
	}
}

func TestCompactCorruption(t *testing.T) {
	t.Parallel()
	spec := Spec{DType: Uint8, Shape: []int{4, 4}}
	var good bytes.Buffer
	require.NoError(t, WriteCompact(&good, memorySet(t, spec, 6, true)))
	tests := []struct {
		name   string
		mutate func([]byte) []byte
		// verify: the damage only shows when the payload CRC is checked.
		verify bool
		err    string
	}{
		{name: "truncated", mutate: func(b []byte) []byte { return b[:len(b)-10] }, err: "truncated or appended"},
		{name: "appended", mutate: func(b []byte) []byte { return append(b, 0) }, err: "truncated or appended"},
		{name: "header byte", mutate: func(b []byte) []byte { b[17] ^= 1; return b }, err: "header CRC"},
		{name: "version", mutate: func(b []byte) []byte { b[7] = 3; return b }, err: "format version 3"},
		{name: "empty", mutate: func(b []byte) []byte { return b[:0] }, err: "compact header"},
		{name: "payload byte", mutate: func(b []byte) []byte { b[70] ^= 0x80; return b }, verify: true, err: "payload CRC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := tt.mutate(bytes.Clone(good.Bytes()))
			p := t.TempDir() + "/bad.mlph"
			require.NoError(t, os.WriteFile(p, b, 0o644))
			d, err := OpenCompact(p)
			if tt.verify {
				require.NoError(t, err)
				defer d.Close()
				err = d.(Verifier).Verify()
			}
			require.ErrorIs(t, err, ErrCorrupt)
			assert.Contains(t, err.Error(), tt.err)
			assert.Contains(t, err.Error(), p)
		})
	}
}

func FuzzParseCompactHeader(f *testing.F) {
	var b bytes.Buffer
	spec := Spec{DType: Float32, Shape: []int{3, 2}}
	m, _ := NewMemory("m", spec, [][]byte{make([]byte, 24)}, []int{1})
	_ = WriteCompact(&b, m)
	f.Add(b.Bytes()[:CompactHeaderSize])
	f.Add([]byte(compactMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseCompactHeader(data)
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		require.Positive(t, h.Count)
		require.LessOrEqual(t, len(h.Spec.Shape), MaxDims)
		require.Zero(t, h.DataOffset%compactAlign)
		require.Greater(t, h.FileSize(), h.DataOffset)
	})
}
