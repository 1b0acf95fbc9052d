package dataset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNPYDir(t *testing.T) {
	t.Parallel()
	spec := Spec{DType: Float32, Shape: []int{3, 2, 2}}
	dir := npyDirSet(t, spec, 12)
	d, err := Open(dir, Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, 12, d.Len())
	assert.Equal(t, SingleSchema(spec), d.Schema())
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1}, d.Labels())
	buf := make([]byte, spec.Bytes())
	require.NoError(t, d.ReadSample(11, buf))
	assert.Equal(t, sample(spec, 11), buf)

	// The same samples converted to the compact form read back the same.
	c, err := Open(compactFile(t, d), Options{})
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, d.Labels(), c.Labels())
	require.NoError(t, c.ReadSample(11, buf))
	assert.Equal(t, sample(spec, 11), buf)
}

func TestNPYDirNamesWithoutExtension(t *testing.T) {
	t.Parallel()
	// Reference preprocessors that replace the extension: a.JPEG -> a.npy.
	spec := Spec{DType: Uint8, Shape: []int{2}}
	dir := t.TempDir()
	writeNPY(t, filepath.Join(dir, "a.npy"), spec, []byte{1, 2})
	writeNPY(t, filepath.Join(dir, "b.npy"), spec, []byte{3, 4})
	labels := filepath.Join(t.TempDir(), "map.txt")
	require.NoError(t, os.WriteFile(labels, []byte("b.JPEG 7\n\na.JPEG 3\n"), 0o644))
	d, err := Open(dir, Options{LabelMap: labels})
	require.NoError(t, err)
	assert.Equal(t, []int{7, 3}, d.Labels())
	buf := make([]byte, 2)
	require.NoError(t, d.ReadSample(0, buf))
	assert.Equal(t, []byte{3, 4}, buf)

	// Without a label map: every .npy in name order, no labels.
	u, err := OpenNPYDir(dir, "")
	require.NoError(t, err)
	assert.Nil(t, u.Labels())
	require.NoError(t, u.ReadSample(0, buf))
	assert.Equal(t, []byte{1, 2}, buf)
}

func TestDatasetErrors(t *testing.T) {
	t.Parallel()
	spec := Spec{DType: Float32, Shape: []int{2, 2}}
	tests := []struct {
		name  string
		setup func(t *testing.T) (string, Options)
		// read: the error shows when sample 1 is read, not at open.
		read bool
		is   error
		err  string
	}{
		{name: "missing path", is: ErrNotFound, err: "not found", setup: func(t *testing.T) (string, Options) {
			return filepath.Join(t.TempDir(), "nope"), Options{}
		}},
		{name: "missing label map", is: ErrNotFound, err: "label map", setup: func(t *testing.T) (string, Options) {
			return t.TempDir(), Options{LabelMap: "/nonexistent/val_map.txt"}
		}},
		{name: "empty dir", is: ErrNotFound, err: "no .npy files", setup: func(t *testing.T) (string, Options) {
			return t.TempDir(), Options{}
		}},
		{name: "missing sample file", is: ErrNotFound, err: "ILSVRC2012_val_ab.JPEG", setup: func(t *testing.T) (string, Options) {
			dir := npyDirSet(t, spec, 3)
			require.NoError(t, os.Remove(filepath.Join(dir, sampleName(1)+".npy")))
			return dir, Options{}
		}},
		{name: "bad label", is: ErrCorrupt, err: "val_map.txt:2", setup: func(t *testing.T) (string, Options) {
			dir := npyDirSet(t, spec, 3)
			m := sampleName(0) + " 1\n" + sampleName(1) + " cat\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, DefaultLabelMap), []byte(m), 0o644))
			return dir, Options{}
		}},
		{name: "shape mismatch", read: true, is: ErrMismatch, err: "float32[3 2]", setup: func(t *testing.T) (string, Options) {
			dir := npyDirSet(t, spec, 3)
			writeNPY(t, filepath.Join(dir, sampleName(1)+".npy"), Spec{DType: Float32, Shape: []int{3, 2}}, make([]byte, 24))
			return dir, Options{}
		}},
		{name: "dtype mismatch", read: true, is: ErrMismatch, err: "uint8[2 2]", setup: func(t *testing.T) (string, Options) {
			dir := npyDirSet(t, spec, 3)
			writeNPY(t, filepath.Join(dir, sampleName(1)+".npy"), Spec{DType: Uint8, Shape: []int{2, 2}}, make([]byte, 4))
			return dir, Options{}
		}},
		{name: "truncated sample", read: true, is: ErrCorrupt, err: "data", setup: func(t *testing.T) (string, Options) {
			dir := npyDirSet(t, spec, 3)
			p := filepath.Join(dir, sampleName(1)+".npy")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, b[:len(b)-3], 0o644))
			return dir, Options{}
		}},
		{name: "not a data set", is: ErrCorrupt, err: "neither", setup: func(t *testing.T) (string, Options) {
			p := filepath.Join(t.TempDir(), "x.txt")
			require.NoError(t, os.WriteFile(p, []byte("hello"), 0o644))
			return p, Options{}
		}},
		{name: "single npy", is: ErrCorrupt, err: "single .npy", setup: func(t *testing.T) (string, Options) {
			p := filepath.Join(t.TempDir(), "x.npy")
			writeNPY(t, p, spec, make([]byte, 16))
			return p, Options{}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path, o := tt.setup(t)
			d, err := Open(path, o)
			if tt.read {
				require.NoError(t, err)
				err = d.ReadSample(1, make([]byte, spec.Bytes()))
			}
			require.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	d := memorySet(t, Spec{DType: Uint8, Shape: []int{1, 28, 28}}, 2, false)
	require.NoError(t, Check(d, Spec{DType: Uint8, Shape: []int{1, 28, 28}}))
	require.NoError(t, Check(d, Spec{}))
	err := Check(d, Spec{DType: Float32})
	require.ErrorIs(t, err, ErrMismatch)
	assert.Contains(t, err.Error(), "samples are uint8[1 28 28], the benchmark wants float32[]")
	require.ErrorIs(t, Check(d, Spec{DType: Uint8, Shape: []int{28, 28}}), ErrMismatch)
}

func TestParseLabelMap(t *testing.T) {
	t.Parallel()
	e, err := ParseLabelMap("m", strings.NewReader("a.JPEG 65\nb.JPEG 970\n"))
	require.NoError(t, err)
	assert.Equal(t, []LabelMapEntry{{"a.JPEG", 65, true}, {"b.JPEG", 970, true}}, e)
	for _, bad := range []string{"", "a 1\nb\n", "a 1\na 2\n", "a 1 2\n", "a -1\n"} {
		_, err := ParseLabelMap("m", strings.NewReader(bad))
		require.ErrorIs(t, err, ErrCorrupt, "%q", bad)
	}
}

func FuzzParseLabelMap(f *testing.F) {
	f.Add("ILSVRC2012_val_00000001.JPEG 65\nILSVRC2012_val_00000002.JPEG 970\n")
	f.Add("a\nb\n")
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseLabelMap("m", strings.NewReader(s))
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		require.NotEmpty(t, e)
		for _, x := range e {
			require.NotEmpty(t, x.Name)
			require.GreaterOrEqual(t, x.Label, 0)
		}
	})
}

func TestArena(t *testing.T) {
	t.Parallel()
	spec := Spec{DType: Uint8, Shape: []int{8}}
	d := memorySet(t, spec, 10, false)
	a := NewArena(d)
	require.NoError(t, a.Load(context.Background(), d, []uint64{7, 2, 7, 9}))
	assert.Equal(t, []uint64{7, 2, 9}, a.Loaded())
	assert.Equal(t, 3*8, a.Bytes())
	assert.Equal(t, sample(spec, 2), a.Sample(2))
	assert.Equal(t, sample(spec, 9), a.Sample(9))
	assert.Nil(t, a.Sample(0))
	assert.Nil(t, a.Sample(100))

	require.NoError(t, a.Load(context.Background(), d, []uint64{0}))
	assert.Nil(t, a.Sample(7), "a new load replaces the old")
	assert.Equal(t, sample(spec, 0), a.Sample(0))

	require.ErrorContains(t, a.Load(context.Background(), d, []uint64{10}), "out of range")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, a.Load(ctx, d, []uint64{1}), context.Canceled)
	assert.Empty(t, a.Loaded())
}

func BenchmarkArenaSample(b *testing.B) {
	spec := Spec{DType: Float32, Shape: []int{3, 224, 224}}
	d := memorySet(b, spec, 64, false)
	a := NewArena(d)
	idx := make([]uint64, 64)
	for i := range idx {
		idx[i] = uint64(i)
	}
	require.NoError(b, a.Load(context.Background(), d, idx))
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		_ = a.Sample(i % 64)
		i++
	}
}
