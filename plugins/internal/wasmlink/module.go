package wasmlink

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Section ids of the WASM binary format.
const (
	secCustom   = 0
	secType     = 1
	secImport   = 2
	secFunction = 3
	secTable    = 4
	secMemory   = 5
	secGlobal   = 6
	secExport   = 7
	secStart    = 8
	secElement  = 9
	secCode     = 10
	secData     = 11
	secDataCnt  = 12
	secTag      = 13
)

// External kinds of imports and exports.
const (
	kindFunc   = 0
	kindMemory = 2
)

var magic = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// ErrNotWasm reports input that is not a WASM binary module.
var ErrNotWasm = errors.New("not a WASM module")

type section struct {
	id      byte
	payload []byte
}

// imp is one import entry.
type imp struct {
	module, name string
	kind         byte
	typ          uint32 // the type index of a function import
	raw          []byte // the whole entry as encoded
}

type export struct {
	name string
	kind byte
	idx  uint32
}

// module is a parsed module: every section in order, and the parts
// linking reads decoded.
type module struct {
	sections []section
	types    [][]byte // each func type as encoded (0x60 params results)
	imports  []imp
	funcs    []uint32 // type index of each defined function
	exports  []export
	bodies   [][]byte // one per defined function, without its size
	names    map[uint32]string
}

func parse(b []byte) (*module, error) {
	if len(b) < len(magic) || !bytes.Equal(b[:len(magic)], magic) {
		return nil, ErrNotWasm
	}
	m := &module{}
	d := &dec{b: b, pos: len(magic)}
	for d.more() {
		id := d.u8()
		payload := d.bytes(d.u32())
		if d.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, d.err)
		}
		m.sections = append(m.sections, section{id, payload})
		if err := m.decode(id, payload); err != nil {
			return nil, fmt.Errorf("section %d: %w", id, err)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(m.funcs) != len(m.bodies) {
		return nil, fmt.Errorf("%d functions declared, %d bodies", len(m.funcs), len(m.bodies))
	}
	return m, nil
}

// decode reads the sections linking needs to understand.
func (m *module) decode(id byte, payload []byte) error {
	d := &dec{b: payload}
	switch id {
	case secType:
		n := d.count()
		for range n {
			start := d.pos
			if form := d.u8(); form != 0x60 {
				return fmt.Errorf("type form 0x%02x: only function types are supported", form)
			}
			for range 2 { // params, results
				k := d.count()
				for range k {
					if t := d.u8(); t == 0x63 || t == 0x64 {
						d.s33()
					}
				}
			}
			m.types = append(m.types, d.b[start:d.pos])
		}
	case secImport:
		n := d.count()
		for range n {
			start := d.pos
			im := imp{module: d.name(), name: d.name(), kind: d.u8()}
			switch im.kind {
			case kindFunc:
				im.typ = d.u32()
			case 1: // table: reftype limits
				if t := d.u8(); t == 0x63 || t == 0x64 {
					d.s33()
				}
				limits(d)
			case kindMemory:
				limits(d)
			case 3: // global: valtype mut
				if t := d.u8(); t == 0x63 || t == 0x64 {
					d.s33()
				}
				d.u8()
			case 4: // tag
				d.u8()
				d.u32()
			default:
				d.fail("import kind %d", im.kind)
			}
			im.raw = d.b[start:d.pos]
			m.imports = append(m.imports, im)
		}
	case secFunction:
		n := d.count()
		for range n {
			m.funcs = append(m.funcs, d.u32())
		}
	case secExport:
		n := d.count()
		for range n {
			m.exports = append(m.exports, export{name: d.name(), kind: d.u8(), idx: d.u32()})
		}
	case secCode:
		n := d.count()
		for range n {
			m.bodies = append(m.bodies, d.bytes(d.u32()))
		}
	case secCustom:
		if d.name() == "name" {
			m.names = functionNames(d.b[d.pos:])
		}
		return nil
	default:
		return nil
	}
	if d.err == nil && d.pos != len(d.b) {
		d.fail("%d bytes after the last entry", len(d.b)-d.pos)
	}
	return d.err
}

func limits(d *dec) {
	flags := d.u8()
	if flags&0x04 != 0 { // memory64
		d.leb(10)
		if flags&0x01 != 0 {
			d.leb(10)
		}
		return
	}
	d.u32()
	if flags&0x01 != 0 {
		d.u32()
	}
}

// functionNames reads the function names subsection of a name section
// (best effort: names only label the library's functions in stack
// traces).
func functionNames(b []byte) map[uint32]string {
	d := &dec{b: b}
	for d.more() {
		id := d.u8()
		sub := d.bytes(d.u32())
		if d.err != nil || id != 1 {
			continue
		}
		s := &dec{b: sub}
		n := s.count()
		names := make(map[uint32]string, n)
		for range n {
			idx := s.u32()
			names[idx] = s.name()
		}
		if s.err == nil {
			return names
		}
	}
	return nil
}

func isDebug(payload []byte) bool {
	d := &dec{b: payload}
	name := d.name()
	return d.err == nil && (strings.HasPrefix(name, ".debug") || name == "external_debug_info" || name == "sourceMappingURL")
}
