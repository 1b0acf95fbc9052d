package gguf

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// sample has a value of every type and two tensors, the second placed
// after padding.
func sample() *File {
	return &File{
		KV: []KV{
			{Key: "general.architecture", Value: "llama"},
			{Key: "u8", Value: uint8(7)},
			{Key: "i8", Value: int8(-7)},
			{Key: "u16", Value: uint16(0x1234)},
			{Key: "i16", Value: int16(-2)},
			{Key: "u32", Value: uint32(64)},
			{Key: "i32", Value: int32(-3)},
			{Key: "f32", Value: float32(1e-5)},
			{Key: "bool", Value: true},
			{Key: "u64", Value: uint64(1) << 40},
			{Key: "i64", Value: int64(-4)},
			{Key: "f64", Value: 0.25},
			{Key: "tokens", Value: []string{"<unk>", "<s>", "▁"}},
			{Key: "scores", Value: []float32{0, -1, -2}},
			{Key: "types", Value: []int32{2, 3, 1}},
			{Key: "flags", Value: []bool{false, true}},
			{Key: "bytes", Value: []uint8{1, 2}},
			{Key: "i8s", Value: []int8{-1}},
			{Key: "u16s", Value: []uint16{3}},
			{Key: "i16s", Value: []int16{-3}},
			{Key: "u32s", Value: []uint32{4}},
			{Key: "u64s", Value: []uint64{5}},
			{Key: "i64s", Value: []int64{-5}},
			{Key: "f64s", Value: []float64{0.5}},
		},
		Tensors: []Tensor{
			{Name: "a", Dims: []uint64{3}, Type: F32, Data: f32s(1, 2, 3)},
			{Name: "b", Dims: []uint64{2, 2}, Type: F16, Data: []byte{0, 0x3c, 0, 0x40, 0, 0x42, 0, 0x44}},
		},
	}
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func encode(t *testing.T, f *File) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := f.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	t.Parallel()
	got := encode(t, sample())
	path := filepath.Join("testdata", "sample.gguf.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestLayout(t *testing.T) {
	t.Parallel()
	b := encode(t, sample())
	assert.Equal(t, "GGUF", string(b[:4]))
	assert.Equal(t, uint32(3), binary.LittleEndian.Uint32(b[4:]))
	assert.Equal(t, uint64(2), binary.LittleEndian.Uint64(b[8:]), "tensor count")
	assert.Equal(t, uint64(24), binary.LittleEndian.Uint64(b[16:]), "metadata count")
	// The data of "a" (12 bytes) starts the aligned data section; "b"
	// starts 32 bytes later, and the file ends with its 8 bytes.
	assert.Zero(t, (len(b)-32-8)%DefaultAlignment)
	assert.Equal(t, f32s(1, 2, 3), b[len(b)-40:len(b)-28])
	assert.Equal(t, make([]byte, 20), b[len(b)-28:len(b)-8])
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		file *File
	}{
		{name: "every type", file: sample()},
		{name: "empty", file: &File{KV: []KV{}, Tensors: []Tensor{}}},
		// A larger alignment moves the data section and every tensor.
		{name: "alignment 64", file: &File{
			KV:      []KV{{Key: AlignmentKey, Value: uint32(64)}},
			Tensors: []Tensor{{Name: "x", Dims: []uint64{1}, Type: F32, Data: f32s(1)}, {Name: "y", Dims: []uint64{1, 1}, Type: F32, Data: f32s(2)}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := encode(t, tc.file)
			got, err := Read(b)
			require.NoError(t, err)
			assert.Equal(t, tc.file, got)
			align := tc.file.Alignment()
			for _, tensor := range got.Tensors {
				off := cap(b) - cap(tensor.Data) // Data is a slice of b
				assert.Zero(t, uint64(off)%align, tensor.Name)
			}
		})
	}
}

func TestAccessors(t *testing.T) {
	t.Parallel()
	f := sample()
	v, ok := f.Value("u32")
	assert.True(t, ok)
	assert.Equal(t, uint32(64), v)
	_, ok = f.Value("missing")
	assert.False(t, ok)
	tensor, ok := f.Tensor("b")
	assert.True(t, ok)
	assert.Equal(t, []uint64{2, 2}, tensor.Dims)
	_, ok = f.Tensor("c")
	assert.False(t, ok)
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		file *File
		want string
	}{
		{name: "value type", file: &File{KV: []KV{{Key: "k", Value: 1}}}, want: `metadata "k": value of type int not supported`},
		{name: "short data", file: &File{Tensors: []Tensor{{Name: "t", Dims: []uint64{2}, Type: F32, Data: f32s(1)}}}, want: `tensor "t": 4 bytes of data, its dimensions [2] need 8`},
		{name: "tensor type", file: &File{Tensors: []Tensor{{Name: "t", Dims: []uint64{1}, Type: 2}}}, want: `tensor "t": tensor type 2 not supported`},
		{name: "twice", file: &File{Tensors: []Tensor{{Name: "t", Type: F32, Data: f32s(1)}, {Name: "t", Type: F32, Data: f32s(1)}}}, want: `tensor "t": written twice`},
		{name: "overflow", file: &File{Tensors: []Tensor{{Name: "t", Dims: []uint64{1 << 62, 8}, Type: F32}}}, want: `tensor "t": size overflows`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.file.WriteTo(&bytes.Buffer{})
			require.EqualError(t, err, tc.want)
		})
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	good := encode(t, sample())
	with := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return b
	}
	tensorFile := func(dims int, off uint64) []byte {
		return handmade(1, 0, func(e *encoder) {
			e.str("t")
			e.u32(uint32(dims))
			for range dims {
				e.u64(1)
			}
			e.u32(uint32(F32))
			e.u64(off)
		})
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{name: "magic", b: with(0, 'G', 'G', 'M', 'L'), want: "not a GGUF file: bad magic"},
		{name: "version", b: with(4, 2), want: "GGUF version 2: want 3"},
		{name: "header cut", b: good[:12], want: "truncated"},
		{name: "counts", b: with(16, 0xff, 0xff, 0xff), want: "counts exceed the file"},
		{name: "cut in metadata", b: good[:400], want: `metadata "types": truncated`},
		{name: "cut in data", b: good[:len(good)-1], want: `tensor "b": data past the end of the file`},
		{name: "dims", b: tensorFile(5, 0), want: `tensor "t": 5 dimensions, at most 4`},
		{name: "misaligned", b: tensorFile(1, 4), want: `tensor "t": offset 4 not a multiple of 32`},
		{name: "far offset", b: tensorFile(1, 1<<63), want: `tensor "t": data past the end of the file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(tc.b)
			require.EqualError(t, err, tc.want)
		})
	}
}

// handmade is a GGUF header of nt tensors and nkv pairs, what body
// writes, and 64 zero bytes.
func handmade(nt, nkv uint64, body func(e *encoder)) []byte {
	var b bytes.Buffer
	e := encoder{w: &b}
	e.raw([]byte(Magic))
	e.u32(Version)
	e.u64(nt)
	e.u64(nkv)
	body(&e)
	e.zeros(64)
	return b.Bytes()
}

func TestReadValueErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		value func(e *encoder)
		want  string
	}{
		{name: "type", value: func(e *encoder) { e.u32(13) }, want: `metadata "k": value type 13`},
		{name: "bool", value: func(e *encoder) { e.u32(uint32(TypeBool)); e.u8(2) }, want: `metadata "k": bool 2`},
		{name: "nested", value: func(e *encoder) { e.u32(uint32(TypeArray)); e.u32(uint32(TypeArray)); e.u64(0) }, want: `metadata "k": arrays of arrays not supported`},
		{name: "element type", value: func(e *encoder) { e.u32(uint32(TypeArray)); e.u32(99); e.u64(0) }, want: `metadata "k": array of value type 99`},
		{name: "long array", value: func(e *encoder) { e.u32(uint32(TypeArray)); e.u32(uint32(TypeString)); e.u64(1 << 40) }, want: `metadata "k": truncated`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(handmade(0, 1, func(e *encoder) { e.str("k"); tc.value(e) }))
			require.EqualError(t, err, tc.want)
		})
	}
}

// FuzzRead: Read never panics, and what it reads writes back to bytes
// it reads as the same file.
func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	_, err := sample().WriteTo(&buf)
	require.NoError(f, err)
	f.Add(buf.Bytes())
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Read(b)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := file.WriteTo(&out); err != nil {
			return // e.g. an alignment key of another type than the one read
		}
		again, err := Read(out.Bytes())
		require.NoError(t, err)
		require.Len(t, again.KV, len(file.KV))
		require.Len(t, again.Tensors, len(file.Tensors))
		for i := range file.Tensors {
			require.Equal(t, file.Tensors[i].Data, again.Tensors[i].Data)
		}
	})
}
