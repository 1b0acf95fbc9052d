package onnxpb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrExternalData reports external data that cannot be read: a location
// outside the model's directory, a missing or short file, a range that
// does not fit the tensor's shape.
var ErrExternalData = errors.New("bad external data")

// ExternalData is where a tensor's data lies outside the model: the
// TensorProto's external_data entries (other keys, such as checksum, are
// ignored).
type ExternalData struct {
	// Location is the data file's path relative to the model's directory,
	// with forward slashes, as the model gives it.
	Location string
	// Offset is the data's first byte in the file.
	Offset int64
	// Length is the data's byte count when HasLength; otherwise the
	// tensor's shape and type say how many.
	Length    int64
	HasLength bool
}

// StringStringEntryProto field numbers.
const (
	entryKey   = 1
	entryValue = 2
)

// decodeExternalEntry reads one StringStringEntryProto into e. Offsets
// and lengths are decimal, as onnx writes them; a value that is not is
// malformed. Whether the location is safe to open is [ExternalData.check]'s.
func decodeExternalEntry(b []byte, e *ExternalData) error {
	var key, value string
	err := forEach(b, func(f field) error {
		var err error
		switch f.num {
		case entryKey:
			key, err = f.str()
		case entryValue:
			value, err = f.str()
		}
		return err
	})
	if err != nil {
		return err
	}
	switch key {
	case "location":
		e.Location = value
	case "offset", "length":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%s %q: want a non-negative decimal integer", key, value)
		}
		if key == "offset" {
			e.Offset = n
		} else {
			e.Length, e.HasLength = n, true
		}
	}
	return nil
}

// appendExternalData encodes e as external_data entries.
func appendExternalData(b []byte, e *ExternalData) []byte {
	entry := func(b []byte, key, value string) []byte {
		var m []byte
		m = appendStringField(m, entryKey, key)
		m = appendStringField(m, entryValue, value)
		return appendMessage(b, tensorExternalData, m)
	}
	b = entry(b, "location", e.Location)
	if e.Offset != 0 {
		b = entry(b, "offset", strconv.FormatInt(e.Offset, 10))
	}
	if e.HasLength {
		b = entry(b, "length", strconv.FormatInt(e.Length, 10))
	}
	return b
}

// check reports a location that could reach outside the model's
// directory (empty, absolute, with a ".." element or a NUL byte) and a
// range that overflows.
func (e *ExternalData) check() error {
	loc := e.Location
	switch {
	case loc == "":
		return errors.New("no location")
	case strings.ContainsRune(loc, 0):
		return fmt.Errorf("location %q holds a NUL byte", loc)
	case strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, `\`) || filepath.IsAbs(loc) || filepath.VolumeName(loc) != "":
		return fmt.Errorf("location %q is absolute: it must name a file in the model's directory", loc)
	}
	for _, el := range strings.FieldsFunc(loc, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return fmt.Errorf("location %q leaves the model's directory", loc)
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(loc)) {
		return fmt.Errorf("location %q is not a path inside the model's directory", loc)
	}
	if e.Offset < 0 || e.Length < 0 {
		return fmt.Errorf("offset %d, length %d: negative", e.Offset, e.Length)
	}
	return nil
}

// byteSize returns the bytes that n elements of d take in raw_data, and
// false for a type without a fixed size (STRING, unknown types).
func byteSize(d DataType, n int64) (int64, bool) {
	switch d {
	case Uint8, Int8, Bool, 17, 18, 19, 20: // FLOAT8 variants
		return n, true
	case Uint16, Int16, Float16, 16: // BFLOAT16
		return 2 * n, true
	case Float, Int32, Uint32:
		return 4 * n, true
	case Int64, Double, Uint64, 14: // COMPLEX64
		return 8 * n, true
	case 15: // COMPLEX128
		return 16 * n, true
	case 21, 22, 23: // UINT4, INT4, FLOAT4E2M1: two per byte
		return (n + 1) / 2, true
	}
	return 0, false
}

// ExternalDir reads tensors' external data from the files of one
// directory, the model file's, through an [os.Root]: no location, symbolic
// link included, reaches outside it. Close it after use.
type ExternalDir struct {
	root *os.Root
}

// OpenExternalDir opens dir for [ExternalDir.Read]. dir "" is a model that
// came as bytes with no file: each Read then fails naming the tensor and
// the file it wants.
func OpenExternalDir(dir string) (*ExternalDir, error) {
	if dir == "" {
		return &ExternalDir{}, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: model directory: %w", ErrExternalData, err)
	}
	return &ExternalDir{root: root}, nil
}

// Close releases the directory.
func (d *ExternalDir) Close() error {
	if d.root == nil {
		return nil
	}
	return d.root.Close()
}

// Check checks that t's external data can be read: a safe location, a
// file that exists and holds the whole range, a length equal to the
// shape's. It reads nothing but the file's size.
//
// # Errors
//
// Wraps [ErrExternalData] naming the tensor and the file.
func (d *ExternalDir) Check(t *Tensor) error {
	f, _, err := d.open(t)
	if err != nil {
		return err
	}
	return f.Close()
}

// Read reads t's external data into t.Raw (HasRaw set, External cleared),
// after the checks of [ExternalDir.Check].
//
// # Errors
//
// Wraps [ErrExternalData] naming the tensor and the file.
func (d *ExternalDir) Read(t *Tensor) error {
	f, n, err := d.open(t)
	if err != nil {
		return err
	}
	defer f.Close()
	raw := make([]byte, n)
	if _, err := io.ReadFull(io.NewSectionReader(f, t.ExternalData.Offset, n), raw); err != nil {
		return d.fail(t, "read: %w", err)
	}
	t.Raw, t.HasRaw, t.External = raw, true, false
	return nil
}

// open checks t's external data and opens its file, returning the
// data's byte count.
func (d *ExternalDir) open(t *Tensor) (*os.File, int64, error) {
	e := &t.ExternalData
	if err := e.check(); err != nil {
		return nil, 0, fmt.Errorf("%w: tensor %q: %w", ErrExternalData, t.Name, err)
	}
	if d.root == nil {
		return nil, 0, d.fail(t, "the model came as bytes, with no directory to find the file in (give the plugin the model's path)")
	}
	elems, err := t.Elements()
	if err != nil {
		return nil, 0, d.fail(t, "%w", err)
	}
	n, ok := byteSize(t.DataType, int64(elems))
	if !ok {
		return nil, 0, d.fail(t, "external data of type %v is not supported", t.DataType)
	}
	if e.HasLength && e.Length != n {
		return nil, 0, d.fail(t, "length %d: the shape %v of %v takes %d bytes", e.Length, t.Dims, t.DataType, n)
	}
	f, err := d.root.Open(filepath.FromSlash(e.Location))
	if err != nil {
		return nil, 0, d.fail(t, "%w", err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err == nil && (e.Offset > st.Size() || n > st.Size()-e.Offset) {
		err = fmt.Errorf("the file holds %d bytes, the tensor wants bytes [%d, %d): short file", st.Size(), e.Offset, e.Offset+n)
	}
	if err != nil {
		f.Close()
		return nil, 0, d.fail(t, "%w", err)
	}
	return f, n, nil
}

// fail wraps [ErrExternalData] with the tensor's name and file.
func (d *ExternalDir) fail(t *Tensor, format string, args ...any) error {
	return fmt.Errorf("%w: tensor %q: file %q: %w", ErrExternalData, t.Name, t.ExternalData.Location, fmt.Errorf(format, args...))
}

// ExternalTensors returns the tensors of a serialized ModelProto whose
// data is external: the initializers, sparse initializers' values and
// indices, and tensor attributes, of the main graph and of every
// subgraph (an If's branches, a Loop's body) to a depth of
// [MaxGraphDepth]. Only the fields on the way are decoded, so this is
// cheap next to [Decode] on a large model.
//
// # Errors
//
// Malformed input returns a *[DecodeError] wrapping [ErrMalformed].
func ExternalTensors(model []byte) ([]Tensor, error) {
	var out []Tensor
	err := forEach(model, func(f field) error {
		if f.num != modelGraph {
			return nil
		}
		gb, err := f.bytes()
		if err == nil {
			err = at("graph", externalInGraph(gb, 0, &out))
		}
		return err
	})
	if err != nil {
		return nil, at("", err)
	}
	return out, nil
}

// MaxGraphDepth bounds how deep [ExternalTensors] follows subgraphs.
const MaxGraphDepth = 32

// SparseTensorProto field numbers.
const (
	sparseValues  = 1
	sparseIndices = 2
)

func externalInGraph(b []byte, depth int, out *[]Tensor) error {
	if depth > MaxGraphDepth {
		return fmt.Errorf("subgraphs nested deeper than %d", MaxGraphDepth)
	}
	return forEach(b, func(f field) error {
		switch f.num {
		case graphInitializer:
			return externalTensor(f, out)
		case graphSparseInitializer:
			sb, err := f.bytes()
			if err != nil {
				return err
			}
			return at("sparse_initializer", forEach(sb, func(f field) error {
				if f.num == sparseValues || f.num == sparseIndices {
					return externalTensor(f, out)
				}
				return nil
			}))
		case graphNode:
			nb, err := f.bytes()
			if err != nil {
				return err
			}
			return at("node", forEach(nb, func(f field) error {
				if f.num != nodeAttribute {
					return nil
				}
				ab, err := f.bytes()
				if err != nil {
					return err
				}
				return at("attribute", externalInAttr(ab, depth, out))
			}))
		}
		return nil
	})
}

func externalInAttr(b []byte, depth int, out *[]Tensor) error {
	return forEach(b, func(f field) error {
		switch f.num {
		case attrT, attrTensors:
			return externalTensor(f, out)
		case attrG, attrGraphs:
			gb, err := f.bytes()
			if err != nil {
				return err
			}
			return at("g", externalInGraph(gb, depth+1, out))
		}
		return nil
	})
}

// externalTensor decodes the TensorProto in f and keeps it when its data
// is external (with no data fields: Raw aliases the model).
func externalTensor(f field, out *[]Tensor) error {
	tb, err := f.bytes()
	if err != nil {
		return err
	}
	// Most tensors are inline: look for the external fields before
	// decoding (typed data fields would be copied).
	external := false
	if err := at("tensor", forEach(tb, func(f field) error {
		external = external || f.num == tensorExternalData || (f.num == tensorDataLocation && f.v == 1)
		return nil
	})); err != nil || !external {
		return err
	}
	var t Tensor
	if err := at("tensor", decodeTensor(tb, &t)); err != nil {
		return err
	}
	if t.External {
		*out = append(*out, Tensor{Name: t.Name, DataType: t.DataType, Dims: t.Dims, External: true, ExternalData: t.ExternalData})
	}
	return nil
}
