package torchpt

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// ErrFormat is wrapped by every error about a file that is not a
// torch.save archive of one tensor Read understands.
var ErrFormat = errors.New("not a torch.save archive of one tensor")

// Tensor is a tensor read from a torch.save archive.
type Tensor struct {
	// DType is the storage's element type: "float32", "float16",
	// "bfloat16", "int64" or "int32".
	DType string
	// Storage is its torch storage class ("FloatStorage", "LongStorage").
	Storage string
	// Shape is the tensor's size.
	Shape []int
	// Values are a floating-point tensor's elements in C order,
	// converted to float32 exactly; nil for an integer tensor.
	Values []float32
	// Ints are an integer tensor's elements in C order, as int64; nil
	// for a floating-point tensor.
	Ints []int64
}

// Elements is the product of shape's dimensions.
func Elements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// storageTypes maps torch's storage classes to element types and sizes.
var storageTypes = map[string]struct {
	dtype string
	size  int
}{
	"FloatStorage":    {"float32", 4},
	"HalfStorage":     {"float16", 2},
	"BFloat16Storage": {"bfloat16", 2},
	"LongStorage":     {"int64", 8},
	"IntStorage":      {"int32", 4},
}

// MaxElements bounds the elements Read accepts (1 GiB of float32; IGBH
// full's train_idx holds 94.6 million).
const MaxElements = 1 << 28

// Read reads the one tensor of a torch.save archive of size bytes.
//
// # Errors
//
// Wraps ErrFormat naming what is wrong and the entry: not a zip, no
// <name>/data.pkl, a pickle of other than one tensor, a storage of
// another type (by its class), a
// big-endian archive, a view that is not its storage's contiguous
// elements or runs past them, a storage entry of the wrong length.
func Read(r io.ReaderAt, size int64) (*Tensor, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: not a zip archive: %w", ErrFormat, err)
	}
	return readArchive(z)
}

// ReadFile reads the one tensor of the torch.save archive at path.
//
// # Errors
//
// Returns the file system's errors opening or reading the file
// (*fs.PathError, which names it) as they are; otherwise Read's, which
// name the entry and not the file: the caller says which file it was.
func ReadFile(path string) (*Tensor, error) {
	z, err := zip.OpenReader(path)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: not a zip archive: %w", ErrFormat, err)
	}
	defer z.Close()
	return readArchive(&z.Reader)
}

// readArchive reads the one tensor of an opened archive.
func readArchive(z *zip.Reader) (*Tensor, error) {
	entries := map[string]*zip.File{}
	prefix := ""
	for _, f := range z.File {
		entries[f.Name] = f
		if dir, ok := strings.CutSuffix(f.Name, "/data.pkl"); ok && !strings.Contains(dir, "/") {
			if prefix != "" {
				return nil, fmt.Errorf("%w: two data.pkl entries", ErrFormat)
			}
			prefix = dir + "/"
		}
	}
	if prefix == "" {
		return nil, fmt.Errorf("%w: no <name>/data.pkl entry", ErrFormat)
	}
	read := func(name string, limit int64) ([]byte, error) {
		f, ok := entries[prefix+name]
		if !ok {
			return nil, fmt.Errorf("%w: no entry %s", ErrFormat, prefix+name)
		}
		if f.UncompressedSize64 > uint64(limit) {
			return nil, fmt.Errorf("%w: entry %s of %d bytes, want at most %d", ErrFormat, f.Name, f.UncompressedSize64, limit)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%w: entry %s: %w", ErrFormat, f.Name, err)
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, limit))
		if err != nil {
			return nil, fmt.Errorf("%w: entry %s: %w", ErrFormat, f.Name, err)
		}
		return b, nil
	}
	if order, err := read("byteorder", 16); err == nil && string(order) != "little" {
		return nil, fmt.Errorf("%w: byte order %q, want little", ErrFormat, order)
	}
	pkl, err := read("data.pkl", 1<<20)
	if err != nil {
		return nil, err
	}
	var view tensorView
	v, err := pickle.Load(bytes.NewReader(pkl), int64(len(pkl)))
	if err == nil {
		view, err = viewOf(v)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %sdata.pkl: %w", ErrFormat, prefix, err)
	}
	st, ok := storageTypes[view.storage.class]
	if !ok {
		return nil, fmt.Errorf("%w: %sdata.pkl: a torch.%s tensor, want FloatStorage, HalfStorage, BFloat16Storage, LongStorage or IntStorage", ErrFormat, prefix, view.storage.class)
	}
	n := Elements(view.shape)
	if n > MaxElements || !view.contiguous() || view.offset+int64(n) > view.storage.numel {
		return nil, fmt.Errorf("%w: %sdata.pkl: a view of size %v, stride %v at offset %d of a %d-element storage: want its contiguous elements",
			ErrFormat, prefix, view.shape, view.stride, view.offset, view.storage.numel)
	}
	data, err := read("data/"+view.storage.key, view.storage.numel*int64(st.size))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != view.storage.numel*int64(st.size) {
		return nil, fmt.Errorf("%w: entry %sdata/%s: %d bytes for %d elements of %s", ErrFormat, prefix, view.storage.key, len(data), view.storage.numel, st.dtype)
	}
	data = data[view.offset*int64(st.size):]
	t := &Tensor{DType: st.dtype, Storage: view.storage.class, Shape: view.shape}
	switch st.dtype {
	case "int64", "int32":
		t.Ints = make([]int64, n)
	default:
		t.Values = make([]float32, n)
	}
	for i := range n {
		switch st.dtype {
		case "float32":
			t.Values[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		case "bfloat16":
			t.Values[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(data[2*i:])) << 16)
		case "float16":
			t.Values[i] = Half(binary.LittleEndian.Uint16(data[2*i:]))
		case "int64":
			t.Ints[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		default:
			t.Ints[i] = int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
		}
	}
	return t, nil
}

// Half converts an IEEE 754 binary16 value to float32 exactly.
func Half(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch exp {
	case 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case 0:
		v := float32(frac) * (1.0 / (1 << 24)) // subnormal (or zero): frac × 2⁻²⁴
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}
