package torchpt

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestReadHalfAndBFloat16(t *testing.T) {
	t.Parallel()
	le := func(v ...uint16) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, x)
		}
		return b
	}
	// 1.5 and -2 as binary16 (0x3e00, 0xc000) and bfloat16 (0x3fc0, 0xc000).
	for class, data := range map[string][]byte{"HalfStorage": le(0x3e00, 0xc000), "BFloat16Storage": le(0x3fc0, 0xc000)} {
		b := archive(t, map[string][]byte{"data.pkl": withClass(class), "data/0": data, "byteorder": []byte("little")})
		got, err := Read(bytes.NewReader(b), int64(len(b)))
		require.NoError(t, err, class)
		assert.Equal(t, []float32{1.5, -2}, got.Values, class)
	}
	assert.Equal(t, math.Float32bits(1.0/(1<<24)), math.Float32bits(Half(1))) // the least subnormal
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
		{name: "short storage", entries: map[string][]byte{"data.pkl": good, "data/0": data[:4]}, want: "4 bytes for 2 elements"},
		{name: "big endian", entries: map[string][]byte{"data.pkl": good, "data/0": data, "byteorder": []byte("big")}, want: `byte order "big"`},
		{name: "float64 storage", entries: map[string][]byte{"data.pkl": withClass("DoubleStorage"), "data/0": data}, want: "torch.DoubleStorage tensor"},
		{name: "not a pickle", entries: map[string][]byte{"data.pkl": []byte("hello"), "data/0": data}, want: "data.pkl"},
		{name: "another call", entries: map[string][]byte{"data.pkl": bytes.Replace(good, []byte("_rebuild_tensor_v2"), []byte("_rebuild_parameter"), 1), "data/0": data},
			want: "want one tensor"},
		// A view past the end of its storage: numel 1 for two elements.
		{name: "view past storage", entries: map[string][]byte{"data.pkl": bytes.Replace(good, []byte("cpu"+"q\x04K\x02"), []byte("cpu"+"q\x04K\x01"), 1), "data/0": data},
			want: "contiguous elements"},
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
