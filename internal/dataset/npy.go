package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ErrCorrupt is wrapped by every error about a malformed file.
var ErrCorrupt = errors.New("corrupt data set file")

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// maxNPYHeader bounds the header dictionary's length.
const maxNPYHeader = 1 << 16

// maxSampleBytes bounds one sample's size (4 GiB).
const maxSampleBytes = 1 << 32

// NPYHeader is what a .npy file's header says.
type NPYHeader struct {
	Spec Spec
	// DataOffset is where the array's bytes start in the file.
	DataOffset int64
}

// ReadNPYHeader reads a .npy header (format versions 1, 2 and 3) from r,
// leaving r at the start of the data.
//
// # Errors
//
// Wraps [ErrCorrupt] for a bad magic, version, length or dictionary, and
// for Fortran-ordered arrays of more than one dimension; an unsupported or
// big-endian dtype is named with the supported ones.
func ReadNPYHeader(r io.Reader) (NPYHeader, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return NPYHeader{}, fmt.Errorf("%w: npy preamble: %w", ErrCorrupt, err)
	}
	if string(pre[:6]) != npyMagic {
		return NPYHeader{}, fmt.Errorf("%w: not a .npy file (magic % x)", ErrCorrupt, pre[:6])
	}
	var hlen int
	var off int64
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return NPYHeader{}, fmt.Errorf("%w: npy header length: %w", ErrCorrupt, err)
		}
		hlen, off = int(binary.LittleEndian.Uint16(b[:])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return NPYHeader{}, fmt.Errorf("%w: npy header length: %w", ErrCorrupt, err)
		}
		hlen, off = int(binary.LittleEndian.Uint32(b[:])), 12
	default:
		return NPYHeader{}, fmt.Errorf("%w: npy version %d.%d (want 1, 2 or 3)", ErrCorrupt, pre[6], pre[7])
	}
	if hlen <= 0 || hlen > maxNPYHeader {
		return NPYHeader{}, fmt.Errorf("%w: npy header length %d (want 1 to %d)", ErrCorrupt, hlen, maxNPYHeader)
	}
	h := make([]byte, hlen)
	if _, err := io.ReadFull(r, h); err != nil {
		return NPYHeader{}, fmt.Errorf("%w: npy header: %w", ErrCorrupt, err)
	}
	spec, err := parseNPYDict(string(h))
	if err != nil {
		return NPYHeader{}, err
	}
	return NPYHeader{Spec: spec, DataOffset: off + int64(hlen)}, nil
}

// parseNPYDict reads the header's Python dict literal:
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 224, 224), }
func parseNPYDict(s string) (Spec, error) {
	p := &pyParser{s: strings.TrimRight(s, " \n\x00")}
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("%w: npy header %q: %s", ErrCorrupt, truncate(s, 120), fmt.Sprintf(format, args...))
	}
	if !p.eat('{') {
		return bad("want a dict")
	}
	var descr string
	var fortran bool
	var shape []int
	seen := map[string]bool{}
	for !p.eat('}') {
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return bad("want 'key': value at offset %d", p.i)
		}
		if seen[key] {
			return bad("duplicate key %q", key)
		}
		seen[key] = true
		switch key {
		case "descr":
			if descr, ok = p.str(); !ok {
				return bad("descr is not a string")
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				fortran = true
			case p.word("False"):
			default:
				return bad("fortran_order is not True or False")
			}
		case "shape":
			if shape, ok = p.tuple(); !ok {
				return bad("shape is not a tuple of non-negative integers")
			}
		default:
			return bad("unknown key %q", key)
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return bad("want , or } at offset %d", p.i)
			}
			break
		}
	}
	p.skip()
	if p.i != len(p.s) {
		return bad("trailing bytes after the dict")
	}
	if !seen["descr"] || !seen["shape"] || !seen["fortran_order"] {
		return bad("want keys descr, fortran_order and shape")
	}
	dt, err := ParseDType(descr)
	if err != nil {
		return Spec{}, fmt.Errorf("%w: npy %w", ErrCorrupt, err)
	}
	if fortran && len(shape) > 1 {
		return bad("Fortran-ordered arrays are not supported: save with numpy.ascontiguousarray")
	}
	spec := Spec{DType: dt, Shape: shape}
	if err := checkSize(spec); err != nil {
		return Spec{}, err
	}
	return spec, nil
}

// checkSize rejects shapes whose size overflows or passes maxSampleBytes.
func checkSize(s Spec) error {
	n := uint64(s.DType.Size())
	for _, d := range s.Shape {
		if d < 0 || (d > 0 && n > math.MaxUint64/uint64(d)) {
			return fmt.Errorf("%w: shape %v overflows", ErrCorrupt, s.Shape)
		}
		n *= uint64(d)
	}
	if n > maxSampleBytes {
		return fmt.Errorf("%w: sample %s is %d bytes, over the %d limit", ErrCorrupt, s, n, uint64(maxSampleBytes))
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// pyParser reads the small subset of Python literals numpy writes.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) word(w string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *pyParser) str() (string, bool) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", false
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, true
}

func (p *pyParser) tuple() ([]int, bool) {
	if !p.eat('(') {
		return nil, false
	}
	shape := []int{}
	for !p.eat(')') {
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, false
		}
		// numpy writes Python ints; Python 2 pickles could add an L suffix.
		d, err := strconv.Atoi(p.s[p.i:j])
		if err != nil || d > math.MaxInt32 {
			return nil, false
		}
		p.i = j
		p.word("L")
		shape = append(shape, d)
		if len(shape) > 32 {
			return nil, false
		}
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, false
			}
			break
		}
	}
	return shape, true
}

// WriteNPY writes one array as a version 1.0 .npy file.
func WriteNPY(w io.Writer, spec Spec, data []byte) error {
	if len(data) != spec.Bytes() {
		return fmt.Errorf("write npy: %d bytes of data for %s (want %d)", len(data), spec, spec.Bytes())
	}
	dims := make([]string, len(spec.Shape))
	for i, d := range spec.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", spec.DType.Descr(), shape)
	// Pad with spaces and a newline so that the data starts 64-byte aligned.
	total := 10 + len(dict) + 1
	dict += strings.Repeat(" ", (64-total%64)%64) + "\n"
	bw := bufio.NewWriter(w)
	bw.WriteString(npyMagic)
	bw.Write([]byte{1, 0})
	bw.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(dict))))
	bw.WriteString(dict)
	bw.Write(data)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write npy: %w", err)
	}
	return nil
}
