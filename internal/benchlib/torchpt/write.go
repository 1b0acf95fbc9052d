package torchpt

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Write writes a float32 tensor of shape as torch.save(tensor, "name.pt")
// does: the archive's entries under name/ (data.pkl, byteorder, data/0,
// version), stored; the pickle is the bytes torch's protocol-2 pickler
// writes for a contiguous CPU tensor.
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
	z := zip.NewWriter(w)
	for _, e := range []struct {
		name string
		data []byte
	}{{"data.pkl", tensorPickle(shape)}, {"byteorder", []byte("little")}, {"data/0", data}, {"version", []byte("3\n")}} {
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
	default:
		p.b = append(p.b, 0x8a, 8)
		p.b = binary.LittleEndian.AppendUint64(p.b, uint64(v))
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

// tensorPickle is data.pkl of a contiguous float32 tensor of shape, its
// storage key "0".
func tensorPickle(shape []int) []byte {
	p := &pickler{b: []byte{0x80, 2}}
	p.global("torch._utils", "_rebuild_tensor_v2")
	p.b = append(p.b, '(', '(')
	p.str("storage")
	p.global("torch", "FloatStorage")
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
