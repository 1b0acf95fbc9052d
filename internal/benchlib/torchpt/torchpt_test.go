package torchpt

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"flag"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

var update = flag.Bool("update", false, "rewrite testdata/latent.pt")

// The golden tensor: [1, 2, 1, 2, 3] (a video latent's five axes) of the
// values i/4 - 1.
func goldenTensor() ([]int, []float32) {
	shape := []int{1, 2, 1, 2, 3}
	v := make([]float32, Elements(shape))
	for i := range v {
		v[i] = float32(i)/4 - 1
	}
	return shape, v
}

func TestWriteGolden(t *testing.T) {
	t.Parallel()
	shape, v := goldenTensor()
	var b bytes.Buffer
	require.NoError(t, Write(&b, "latent", shape, v))
	if *update {
		require.NoError(t, os.WriteFile("testdata/latent.pt", b.Bytes(), 0o644))
	}
	want, err := os.ReadFile("testdata/latent.pt")
	require.NoError(t, err)
	assert.Equal(t, want, b.Bytes(), "testdata/latent.pt is not what Write writes (go test -update rewrites it)")
}

func TestReadRoundTrip(t *testing.T) {
	t.Parallel()
	for _, shape := range [][]int{{}, {7}, {2, 3}, {1, 16, 2, 1, 1}, {300}} {
		v := make([]float32, Elements(shape))
		for i := range v {
			v[i] = float32(i) * 0.5
		}
		var b bytes.Buffer
		require.NoError(t, Write(&b, "x", shape, v))
		got, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
		require.NoError(t, err, "shape %v", shape)
		assert.Equal(t, "float32", got.DType)
		assert.Equal(t, shape, got.Shape)
		assert.Equal(t, v, got.Values)
	}
}

// archive writes a torch.save archive of the given entries under a/.
func archive(t *testing.T, entries map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for name, data := range entries {
		f, err := z.CreateHeader(&zip.FileHeader{Name: "a/" + name, Method: zip.Store})
		require.NoError(t, err)
		_, err = f.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, z.Close())
	return b.Bytes()
}

// withClass is the pickle of a [2] tensor with another storage class.
func withClass(class string) []byte {
	return bytes.Replace(tensorPickle("FloatStorage", []int{2}), []byte("FloatStorage"), []byte(class), 1)
}

// TestReadHalfAndBFloat16: float16 and bfloat16 storages are converted
// to float32 exactly, subnormals and infinities included.
func TestReadHalfAndBFloat16(t *testing.T) {
	t.Parallel()
	le := func(v ...uint16) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, x)
		}
		return b
	}
	tests := []struct {
		name, class string
		data        []byte
		want        []float32
	}{
		// 1, -2, the least subnormal 2⁻²⁴, +Inf.
		{name: "half", class: "HalfStorage", data: le(0x3c00, 0xc000, 0x0001, 0x7c00), want: []float32{1, -2, 1.0 / (1 << 24), float32(math.Inf(1))}},
		{name: "half zeros", class: "HalfStorage", data: le(0x3e00, 0x0000, 0x8000, 0xfc00), want: []float32{1.5, 0, float32(math.Copysign(0, -1)), float32(math.Inf(-1))}},
		{name: "bfloat16", class: "BFloat16Storage", data: le(0x3f80, 0xc000, 0x0000, 0x4049), want: []float32{1, -2, 0, 3.140625}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			require.NoError(t, WriteStorage(&b, "latents", tt.class, []int{1, 1, 2, 2}, tt.data))
			got, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
			require.NoError(t, err)
			require.Len(t, got.Values, len(tt.want))
			for i, w := range tt.want {
				assert.Equal(t, math.Float32bits(w), math.Float32bits(got.Values[i]), "element %d: %v, want %v", i, got.Values[i], w)
			}
		})
	}
	assert.True(t, math.IsNaN(float64(Half(0x7e00))))
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	good := tensorPickle("FloatStorage", []int{2})
	data := make([]byte, 8)
	tests := []struct {
		name    string
		entries map[string][]byte
		want    string
	}{
		{name: "no data.pkl", entries: map[string][]byte{"data/0": data}, want: "no <name>/data.pkl"},
		{name: "no storage", entries: map[string][]byte{"data.pkl": good}, want: "no entry a/data/0"},
		{name: "short storage", entries: map[string][]byte{"data.pkl": good, "data/0": data[:4]}, want: "entry a/data/0: 4 bytes for 2 elements"},
		{name: "big endian", entries: map[string][]byte{"data.pkl": good, "data/0": data, "byteorder": []byte("big")}, want: `byte order "big"`},
		{name: "float64 storage", entries: map[string][]byte{"data.pkl": withClass("DoubleStorage"), "data/0": data}, want: "a/data.pkl: a torch.DoubleStorage tensor"},
		{name: "not a pickle", entries: map[string][]byte{"data.pkl": []byte("hello"), "data/0": data}, want: "data.pkl"},
		{name: "another call", entries: map[string][]byte{"data.pkl": bytes.Replace(good, []byte("_rebuild_tensor_v2"), []byte("_rebuild_parameter"), 1), "data/0": data},
			want: "want one tensor"},
		// A view past the end of its storage: numel 1 for two elements.
		{name: "view past storage", entries: map[string][]byte{"data.pkl": bytes.Replace(good, []byte("cpu"+"q\x04K\x02"), []byte("cpu"+"q\x04K\x01"), 1), "data/0": data},
			want: "contiguous elements"},
		// Three sizes of 2²⁸ would overflow to a product of 0.
		{name: "too many elements", entries: map[string][]byte{"data.pkl": tensorPickle("FloatStorage", []int{1 << 28, 1 << 28, 1 << 28}), "data/0": data},
			want: "over 268435456 elements"},
		{name: "a string storage", entries: map[string][]byte{"data.pkl": rebuildOf(func(w *pickle.Writer) { w.Str("s") }), "data/0": data},
			want: "storage is not ('storage', class, key, location, numel)"},
		{name: "not a storage id", entries: map[string][]byte{"data.pkl": rebuildOf(func(w *pickle.Writer) { w.Str("x"); w.Op('Q') }), "data/0": data},
			want: "storage is not ('storage', class, key, location, numel)"},
		{name: "not a torch class", entries: map[string][]byte{"data.pkl": rebuildOf(func(w *pickle.Writer) { storageID(w, "numpy", "cpu") }), "data/0": data},
			want: "want a torch storage class"},
		{name: "no location", entries: map[string][]byte{"data.pkl": rebuildOf(func(w *pickle.Writer) { storageID(w, "torch", "") }), "data/0": data},
			want: "a location"},
		{name: "short int64 storage", entries: map[string][]byte{"data.pkl": withClass("LongStorage"), "data/0": data}, want: "8 bytes for 2 elements of int64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := archive(t, tt.entries)
			_, err := Read(bytes.NewReader(b), int64(len(b)))
			require.ErrorIs(t, err, ErrFormat)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Read(bytes.NewReader([]byte("not a zip")), 9)
	require.ErrorIs(t, err, ErrFormat)
}

// rebuildOf is a pickle of _rebuild_tensor_v2(storage, 0, (), ()) whose
// storage argument storage writes.
func rebuildOf(storage func(w *pickle.Writer)) []byte {
	var w pickle.Writer
	w.Global("torch._utils", "_rebuild_tensor_v2")
	w.Op('(')
	storage(&w)
	w.Int(0)
	w.Op(')', ')', 't', 'R')
	var b bytes.Buffer
	_ = w.Encode(&b) // a bytes.Buffer never fails
	return b.Bytes()
}

// storageID writes the persistent id ('storage', <module>.FloatStorage,
// '0', location, 1), location None where it is empty.
func storageID(w *pickle.Writer, module, location string) {
	w.Op('(')
	w.Str("storage")
	w.Global(module, "FloatStorage")
	w.Str("0")
	if location == "" {
		w.Op('N')
	} else {
		w.Str(location)
	}
	w.Int(1)
	w.Op('t', 'Q')
}

// TestTensorPickle: the data.pkl of a [1, 4, 128, 128] float tensor is
// 171 bytes, the size of the one in the reference's latents.pt, and
// reads back as the contiguous view of its storage.
func TestTensorPickle(t *testing.T) {
	t.Parallel()
	pkl := tensorPickle("FloatStorage", []int{1, 4, 128, 128})
	assert.Len(t, pkl, 171)
	v, err := pickle.Load(bytes.NewReader(pkl), int64(len(pkl)))
	require.NoError(t, err)
	view, err := viewOf(v)
	require.NoError(t, err)
	assert.Equal(t, storage{class: "FloatStorage", key: "0", numel: 65536}, view.storage)
	assert.Equal(t, []int{1, 4, 128, 128}, view.shape)
	assert.Equal(t, []int{65536, 16384, 128, 1}, view.stride)
	assert.True(t, view.contiguous())
}

// TestReadFile: a file reads as its tensor; a missing one is the file
// system's error, one that is not a zip ErrFormat.
func TestReadFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "val_idx.pt")
	var b bytes.Buffer
	require.NoError(t, WriteInt64(&b, "val_idx", []int{3}, []int64{3, 1, 4}))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	got, err := ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []int64{3, 1, 4}, got.Ints)
	_, err = ReadFile(path + ".missing")
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.NotErrorIs(t, err, ErrFormat)
	require.NoError(t, os.WriteFile(path, []byte("not a zip"), 0o644))
	_, err = ReadFile(path)
	require.ErrorIs(t, err, ErrFormat)
}

// FuzzRead: any data.pkl reads or fails with an error, never a panic;
// what reads has as many elements as its shape.
func FuzzRead(f *testing.F) {
	f.Add(tensorPickle("FloatStorage", []int{1, 16, 2, 1, 1}))
	f.Add(tensorPickle("FloatStorage", nil))
	f.Add(withClass("HalfStorage"))
	f.Add(withClass("LongStorage"))
	f.Fuzz(func(t *testing.T, pkl []byte) {
		b := archive(t, map[string][]byte{"data.pkl": pkl, "data/0": make([]byte, 64)})
		got, err := Read(bytes.NewReader(b), int64(len(b)))
		if err == nil {
			assert.Equal(t, Elements(got.Shape), len(got.Values)+len(got.Ints))
		}
	})
}

// FuzzReadArchive: any file reads or fails with an error, never a
// panic; what reads has as many elements as its shape, and every error
// wraps ErrFormat.
func FuzzReadArchive(f *testing.F) {
	var b bytes.Buffer
	require.NoError(f, WriteInt64(&b, "val_idx", []int{3}, []int64{3, 1, 4}))
	f.Add(b.Bytes())
	b.Reset()
	require.NoError(f, WriteStorage(&b, "latents", "HalfStorage", []int{1, 4, 1, 1}, make([]byte, 8)))
	f.Add(b.Bytes())
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			require.ErrorIs(t, err, ErrFormat)
			return
		}
		assert.Equal(t, Elements(got.Shape), len(got.Values)+len(got.Ints))
	})
}

// TestInt64RoundTrip: an index tensor as split_seeds.py saves it reads
// back as its integers, LONG1 sizes included.
func TestInt64RoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range [][]int64{{5}, {0, 1 << 40, -3, 70000, 255}} {
		var b bytes.Buffer
		require.NoError(t, WriteInt64(&b, "val_idx", []int{len(v)}, v))
		got, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
		require.NoError(t, err)
		assert.Equal(t, "int64", got.DType)
		assert.Equal(t, v, got.Ints)
		assert.Nil(t, got.Values)
	}
}
