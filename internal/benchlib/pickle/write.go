package pickle

import (
	"encoding/binary"
	"io"
)

// Writer writes values as pickle protocol 4 does with numpy 1.x (the
// fixtures' pickles, byte for byte what pickle.dump(v, f, protocol=4)
// writes), without frames and memo entries, which readers do not need.
// The caller writes the containers' opcodes with Op: ']' '(' ... 'e'
// for a list, '}' '(' ... 'u' for a dict, '(' ... 't' for a tuple.
type Writer struct {
	b []byte
}

// Op appends opcodes.
func (p *Writer) Op(b ...byte) { p.b = append(p.b, b...) }

// Str appends a string.
func (p *Writer) Str(s string) {
	if len(s) < 256 {
		p.Op(0x8c, byte(len(s)))
	} else {
		p.Op('X')
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(len(s)))
	}
	p.b = append(p.b, s...)
}

// Int appends an integer of 32 bits.
func (p *Writer) Int(v int) {
	switch {
	case v >= 0 && v < 256:
		p.Op('K', byte(v))
	case v >= 0 && v < 65536:
		p.Op('M')
		p.b = binary.LittleEndian.AppendUint16(p.b, uint16(v))
	default:
		p.Op('J')
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(int32(v)))
	}
}

// Global appends a class or function by name.
func (p *Writer) Global(module, name string) {
	p.Str(module)
	p.Str(name)
	p.Op(0x93)
}

// Int64 appends an integer of 64 bits as Python does (BININT1, BININT2
// or BININT where it fits, else LONG1).
func (p *Writer) Int64(v int64) {
	if v >= -1<<31 && v < 1<<31 {
		p.Int(int(v))
		return
	}
	b := binary.LittleEndian.AppendUint64(nil, uint64(v))
	// The shortest two's complement: drop bytes that repeat the sign.
	for len(b) > 1 && (b[len(b)-1] == 0 && b[len(b)-2]&0x80 == 0 || b[len(b)-1] == 0xff && b[len(b)-2]&0x80 != 0) {
		b = b[:len(b)-1]
	}
	p.Op(0x8a, byte(len(b)))
	p.b = append(p.b, b...)
}

// Bytes appends a byte string.
func (p *Writer) Bytes(b []byte) {
	if len(b) < 256 {
		p.Op('C', byte(len(b)))
	} else {
		p.Op(0x8e)
		p.b = binary.LittleEndian.AppendUint64(p.b, uint64(len(b)))
	}
	p.b = append(p.b, b...)
}

// Array appends a C-ordered numpy array of dtype descr ("<f4", "|u1")
// as ndarray.__reduce__ makes it.
func (p *Writer) Array(descr string, shape []int, data []byte) {
	p.arrayHead(shape, descr[1:], descr[:1], 0)
	p.Bytes(data)
	p.Op('t', 'b')
}

// arrayHead appends a C-ordered array up to its data: _reconstruct, then
// the state (1, shape, dtype(code) with byte order and flags, False).
func (p *Writer) arrayHead(shape []int, code, order string, flags int) {
	p.Global("numpy.core.multiarray", "_reconstruct")
	p.Global("numpy", "ndarray")
	p.Int(0)
	p.Op(0x85) // TUPLE1
	p.Bytes([]byte("b"))
	p.Op(0x87, 'R') // TUPLE3, REDUCE
	p.Op('(')
	p.Int(1)
	p.Op('(')
	for _, d := range shape {
		p.Int(d)
	}
	p.Op('t')
	p.Global("numpy", "dtype")
	p.Str(code)
	p.Op(0x89, 0x88, 0x87, 'R') // False, True, TUPLE3, REDUCE
	p.Op('(')
	p.Int(3)
	p.Str(order)
	p.Op('N', 'N', 'N')
	p.Int(-1)
	p.Int(-1)
	p.Int(flags)
	p.Op('t', 'b')
	p.Op(0x89) // not Fortran
}

// Encode writes the pickle: the protocol, what was appended, STOP.
func (p *Writer) Encode(w io.Writer) error {
	_, err := w.Write(append([]byte{0x80, 4}, append(p.b, '.')...))
	return err
}
