package torchpt

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Write writes a float32 tensor of shape as torch.save(tensor, "name.pt")
// does ([WriteStorage] of a FloatStorage).
//
// # Errors
//
// Refuses values that are not shape's element count; returns w's
// errors.
func Write(w io.Writer, name string, shape []int, values []float32) error {
	if Elements(shape) != len(values) {
		return fmt.Errorf("%d values for shape %v", len(values), shape)
	}
	data := make([]byte, 0, 4*len(values))
	for _, v := range values {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
	}
	return WriteStorage(w, name, "FloatStorage", shape, data)
}

// WriteInt64 writes an int64 tensor of shape as torch.save does
// ([WriteStorage] of a LongStorage; split_seeds.py's index tensors).
//
// # Errors
//
// As Write's.
func WriteInt64(w io.Writer, name string, shape []int, values []int64) error {
	if Elements(shape) != len(values) {
		return fmt.Errorf("%d values for shape %v", len(values), shape)
	}
	data := make([]byte, 0, 8*len(values))
	for _, v := range values {
		data = binary.LittleEndian.AppendUint64(data, uint64(v))
	}
	return WriteStorage(w, name, "LongStorage", shape, data)
}

// WriteStorage writes a contiguous tensor of shape whose storage, of
// torch storage class class ("FloatStorage"), holds data, as
// torch.save(tensor, "name.pt") does: the archive's entries under name/
// (data.pkl, byteorder, data/0, version), stored; the pickle is the
// bytes torch's protocol-2 pickler writes for a contiguous CPU tensor.
// Torch's 64-byte alignment of the entries and its serialization id,
// which readers do not need, are left out. data's length is not checked
// against class, so that tests can write short storages.
//
// # Errors
//
// Returns w's errors.
func WriteStorage(w io.Writer, name, class string, shape []int, data []byte) error {
	z := zip.NewWriter(w)
	for _, e := range []struct {
		name string
		data []byte
	}{{"data.pkl", tensorPickle(class, shape)}, {"byteorder", []byte("little")}, {"data/0", data}, {"version", []byte("3\n")}} {
		f, err := z.CreateHeader(&zip.FileHeader{Name: name + "/" + e.name, Method: zip.Store})
		if err != nil {
			return err
		}
		if _, err := f.Write(e.data); err != nil {
			return err
		}
	}
	return z.Close()
}

// pickler writes the protocol-2 opcodes of a tensor, memoizing what
// Python's pickler memoizes (globals, strings, non-empty tuples).
type pickler struct {
	b    []byte
	memo byte
}

func (p *pickler) put() {
	p.b = append(p.b, 'q', p.memo)
	p.memo++
}

func (p *pickler) str(s string) {
	p.b = append(p.b, 'X')
	p.b = binary.LittleEndian.AppendUint32(p.b, uint32(len(s)))
	p.b = append(p.b, s...)
	p.put()
}

func (p *pickler) global(module, name string) {
	p.b = append(p.b, 'c')
	p.b = append(p.b, module+"\n"+name+"\n"...)
	p.put()
}

func (p *pickler) int(v int) {
	switch {
	case v < 256:
		p.b = append(p.b, 'K', byte(v))
	case v < 65536:
		p.b = append(p.b, 'M')
		p.b = binary.LittleEndian.AppendUint16(p.b, uint16(v))
	case v <= math.MaxInt32:
		p.b = append(p.b, 'J')
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(v))
	default: // LONG1 of the shortest little-endian two's complement
		b := binary.LittleEndian.AppendUint64(nil, uint64(v))
		for len(b) > 1 && b[len(b)-1] == 0 && b[len(b)-2]&0x80 == 0 {
			b = b[:len(b)-1]
		}
		p.b = append(p.b, 0x8a, byte(len(b)))
		p.b = append(p.b, b...)
	}
}

// ints writes a tuple of integers: TUPLE1 to TUPLE3 for one to three
// items, MARK ... TUPLE for more.
func (p *pickler) ints(v []int) {
	if len(v) == 0 {
		p.b = append(p.b, ')')
		return
	}
	if len(v) > 3 {
		p.b = append(p.b, '(')
	}
	for _, x := range v {
		p.int(x)
	}
	if len(v) > 3 {
		p.b = append(p.b, 't')
	} else {
		p.b = append(p.b, 0x84+byte(len(v)))
	}
	p.put()
}

// tensorPickle is data.pkl of a contiguous tensor of shape, its storage
// of class class and key "0".
func tensorPickle(class string, shape []int) []byte {
	p := &pickler{b: []byte{0x80, 2}}
	p.global("torch._utils", "_rebuild_tensor_v2")
	p.b = append(p.b, '(', '(')
	p.str("storage")
	p.global("torch", class)
	p.str("0")
	p.str("cpu")
	p.int(Elements(shape))
	p.b = append(p.b, 't')
	p.put()
	p.b = append(p.b, 'Q')
	p.int(0)
	p.ints(shape)
	stride := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		stride[i] = s
		s *= shape[i]
	}
	p.ints(stride)
	p.b = append(p.b, 0x89) // requires_grad False
	p.global("collections", "OrderedDict")
	p.b = append(p.b, ')', 'R')
	p.put()
	p.b = append(p.b, 't')
	p.put()
	p.b = append(p.b, 'R')
	p.put()
	return append(p.b, '.')
}
