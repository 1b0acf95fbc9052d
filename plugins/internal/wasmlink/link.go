package wasmlink

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// ErrLibrary reports a library module that breaks the rules in the
// package doc, or that lacks a function the plugin imports.
var ErrLibrary = errors.New("library cannot be linked")

// Link returns plugin with every function it imports from module
// replaced by the function lib exports under the same name, which must
// have the same signature. A plugin that imports nothing from module is
// returned unchanged.
//
// # Errors
//
// [ErrNotWasm] when either input is not a WASM module, [ErrLibrary] when
// lib breaks the library rules or lacks an imported function, and a
// decoding error naming the section for a malformed module.
func Link(plugin, lib []byte, module string) ([]byte, error) {
	p, err := parse(plugin)
	if err != nil {
		return nil, fmt.Errorf("plugin: %w", err)
	}
	if !slices.ContainsFunc(p.imports, func(im imp) bool { return im.module == module }) {
		return plugin, nil
	}
	l, err := parse(lib)
	if err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	if err := checkLibrary(l); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLibrary, err)
	}
	lk, err := newLinker(p, l, module)
	if err != nil {
		return nil, err
	}
	return lk.emit()
}

// checkLibrary enforces the library rules that its sections show; its
// code is checked while it is copied.
func checkLibrary(l *module) error {
	for _, im := range l.imports {
		if im.kind != kindMemory {
			return fmt.Errorf("it imports %s.%s: a library may import only a memory", im.module, im.name)
		}
	}
	for _, s := range l.sections {
		switch s.id {
		case secMemory:
			return errors.New("it defines a memory: it must import the plugin's")
		case secStart:
			return errors.New("it has a start function")
		case secTag:
			return errors.New("it defines exception tags")
		case secElement, secData:
			if d := (&dec{b: s.payload}); d.count() != 0 {
				return errors.New("it has element or data segments")
			}
		}
	}
	return nil
}

// linker holds the index maps of one link.
type linker struct {
	p, l   *module
	module string
	// funcMap maps the plugin's old function indices to new ones; libFunc
	// is where the library's defined functions start.
	funcMap []uint32
	libFunc uint32
	keep    []imp // the plugin's imports that stay
}

func newLinker(p, l *module, module string) (*linker, error) {
	lk := &linker{p: p, l: l, module: module}
	libExports := map[string]uint32{}
	for _, e := range l.exports {
		if e.kind == kindFunc {
			libExports[e.name] = e.idx
		}
	}
	// The plugin's function imports that stay keep their order, first;
	// its defined functions follow, then the library's.
	kept, removed := uint32(0), uint32(0)
	for _, im := range p.imports {
		if im.module != module {
			lk.keep = append(lk.keep, im)
			if im.kind == kindFunc {
				kept++
			}
			continue
		}
		if im.kind != kindFunc {
			return nil, fmt.Errorf("%w: the plugin imports a non-function %s.%s", ErrLibrary, im.module, im.name)
		}
		removed++
	}
	lk.libFunc = kept + uint32(len(p.funcs))
	next := uint32(0)
	for _, im := range p.imports {
		if im.kind != kindFunc {
			continue
		}
		if im.module != module {
			lk.funcMap = append(lk.funcMap, next)
			next++
			continue
		}
		idx, ok := libExports[im.name]
		if !ok {
			return nil, fmt.Errorf("%w: the plugin imports %s.%s, which the library does not export", ErrLibrary, module, im.name)
		}
		// The library imports no function (checked), so its export
		// indices are indices of its defined functions.
		if int(im.typ) >= len(p.types) || int(idx) >= len(l.funcs) || int(l.funcs[idx]) >= len(l.types) {
			return nil, fmt.Errorf("%w: %s.%s: bad index", ErrLibrary, module, im.name)
		}
		if want, got := p.types[im.typ], l.types[l.funcs[idx]]; !bytes.Equal(want, got) {
			return nil, fmt.Errorf("%w: %s.%s: the plugin imports type %x, the library exports %x", ErrLibrary,
				module, im.name, want, got)
		}
		lk.funcMap = append(lk.funcMap, lk.libFunc+idx)
	}
	for i := range p.funcs {
		lk.funcMap = append(lk.funcMap, kept+uint32(i))
	}
	return lk, nil
}

// pluginFunc maps one of the plugin's function indices; an index past
// the end (invalid in the input) stays invalid in the output.
func (lk *linker) pluginFunc(i uint32) uint32 {
	if int(i) < len(lk.funcMap) {
		return lk.funcMap[i]
	}
	return lk.libFunc + uint32(len(lk.l.funcs)) + i
}

func (lk *linker) libType(t uint32) uint32 { return uint32(len(lk.p.types)) + t }

func (lk *linker) libFn(i uint32) uint32 { return lk.libFunc + i }

// emit writes the linked module: the plugin's sections in their order,
// with the ones that linking changes rewritten.
func (lk *linker) emit() ([]byte, error) {
	out := slices.Clone(magic)
	for _, s := range lk.p.sections {
		payload, keep, err := lk.rewrite(s)
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", s.id, err)
		}
		if keep {
			out = appendSection(out, s.id, payload)
		}
	}
	return out, nil
}

func (lk *linker) rewrite(s section) ([]byte, bool, error) {
	switch s.id {
	case secType:
		b := appendU32(nil, uint32(len(lk.p.types)+len(lk.l.types)))
		for _, t := range lk.p.types {
			b = append(b, t...)
		}
		for _, t := range lk.l.types {
			b = append(b, t...)
		}
		return b, true, nil
	case secImport:
		b := appendU32(nil, uint32(len(lk.keep)))
		for _, im := range lk.keep {
			b = append(b, im.raw...)
		}
		return b, true, nil
	case secFunction:
		b := appendU32(nil, uint32(len(lk.p.funcs)+len(lk.l.funcs)))
		for _, t := range lk.p.funcs {
			b = appendU32(b, t)
		}
		for _, t := range lk.l.funcs {
			b = appendU32(b, lk.libType(t))
		}
		return b, true, nil
	case secExport:
		b := appendU32(nil, uint32(len(lk.p.exports)))
		for _, e := range lk.p.exports {
			idx := e.idx
			if e.kind == kindFunc {
				idx = lk.pluginFunc(idx)
			}
			b = appendU32(append(appendName(b, e.name), e.kind), idx)
		}
		return b, true, nil
	case secStart:
		d := &dec{b: s.payload}
		idx := d.u32()
		return appendU32(nil, lk.pluginFunc(idx)), true, d.err
	case secElement:
		b, err := lk.elements(s.payload)
		return b, true, err
	case secCode:
		b, err := lk.code()
		return b, true, err
	case secCustom:
		if isDebug(s.payload) {
			return nil, false, nil
		}
		d := &dec{b: s.payload}
		if d.name() == "name" && d.err == nil {
			return lk.names(s.payload[:d.pos], s.payload[d.pos:]), true, nil
		}
	}
	return s.payload, true, nil
}

func (lk *linker) code() ([]byte, error) {
	pr := &renumber{fn: lk.pluginFunc}
	lr := &renumber{fn: lk.libFn, typ: lk.libType, lib: true}
	b := appendU32(nil, uint32(len(lk.p.bodies)+len(lk.l.bodies)))
	var body []byte
	var err error
	for i, src := range lk.p.bodies {
		if body, err = pr.body(body[:0], src); err != nil {
			return nil, fmt.Errorf("plugin function %d: %w", i, err)
		}
		b = append(appendU32(b, uint32(len(body))), body...)
	}
	for i, src := range lk.l.bodies {
		if body, err = lr.body(body[:0], src); err != nil {
			return nil, fmt.Errorf("%w: function %s: %v", ErrLibrary, lk.l.names[uint32(i)], err)
		}
		b = append(appendU32(b, uint32(len(body))), body...)
	}
	return b, nil
}

// elements renumbers the functions element segments list.
func (lk *linker) elements(payload []byte) ([]byte, error) {
	rn := &renumber{fn: lk.pluginFunc}
	d := &dec{b: payload}
	n := d.count()
	b := appendU32(nil, uint32(n))
	for range n {
		start := d.pos
		flags := d.u32()
		if flags > 7 {
			return nil, fmt.Errorf("element segment flags %d", flags)
		}
		if flags&0x02 != 0 && flags&0x01 == 0 { // explicit table index
			d.u32()
		}
		b = append(b, payload[start:d.pos]...)
		var err error
		if flags&0x01 == 0 { // active: offset expression
			if b, err = rn.expr(b, d, true); err != nil {
				return nil, err
			}
		}
		start = d.pos
		if flags&0x03 != 0 { // elemkind or reftype
			if t := d.u8(); flags&0x04 != 0 && (t == 0x63 || t == 0x64) {
				d.s33()
			}
		}
		b = append(b, payload[start:d.pos]...)
		count := d.count()
		b = appendU32(b, uint32(count))
		for range count {
			if flags&0x04 == 0 {
				b = appendU32(b, lk.pluginFunc(d.u32()))
				continue
			}
			if b, err = rn.expr(b, d, true); err != nil {
				return nil, err
			}
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	return b, d.err
}

// names rewrites a name section: function and local names follow their
// functions, the library's functions are named "<module>.<name>", label
// names (keyed by function) are dropped and the rest is kept.
func (lk *linker) names(head, body []byte) []byte {
	out := slices.Clone(head)
	d := &dec{b: body}
	for d.more() {
		id := d.u8()
		sub := d.bytes(d.u32())
		if d.err != nil {
			break
		}
		switch id {
		case 1:
			out = appendSubsection(out, 1, lk.functionNames(sub))
		case 2:
			out = appendSubsection(out, 2, lk.localNames(sub))
		case 3:
		default:
			out = appendSubsection(out, id, sub)
		}
	}
	return out
}

func appendSubsection(b []byte, id byte, payload []byte) []byte {
	return append(appendU32(append(b, id), uint32(len(payload))), payload...)
}

// removed reports whether a plugin function index was a linked import.
func (lk *linker) removed(i uint32) bool {
	return lk.pluginFunc(i) >= lk.libFunc && int(i) < len(lk.funcMap)
}

func (lk *linker) functionNames(sub []byte) []byte {
	d := &dec{b: sub}
	n := d.count()
	type entry struct {
		idx  uint32
		name string
	}
	var es []entry
	for range n {
		idx, name := d.u32(), d.name()
		if d.err != nil {
			break
		}
		if !lk.removed(idx) {
			es = append(es, entry{lk.pluginFunc(idx), name})
		}
	}
	exported := map[uint32]string{}
	for _, e := range lk.l.exports {
		if e.kind == kindFunc {
			exported[e.idx] = e.name
		}
	}
	for i := range lk.l.funcs {
		name := lk.l.names[uint32(i)]
		if name == "" {
			name = exported[uint32(i)]
		}
		if name == "" {
			name = fmt.Sprintf("f%d", i)
		}
		es = append(es, entry{lk.libFn(uint32(i)), lk.module + "." + name})
	}
	slices.SortFunc(es, func(a, b entry) int { return int(a.idx) - int(b.idx) })
	b := appendU32(nil, uint32(len(es)))
	for _, e := range es {
		b = appendName(appendU32(b, e.idx), e.name)
	}
	return b
}

func (lk *linker) localNames(sub []byte) []byte {
	d := &dec{b: sub}
	n := d.count()
	var b []byte
	kept := uint32(0)
	for range n {
		idx := d.u32()
		start := d.pos
		m := d.count()
		for range m {
			d.u32()
			d.name()
		}
		if d.err != nil {
			break
		}
		if !lk.removed(idx) {
			b = append(appendU32(b, lk.pluginFunc(idx)), sub[start:d.pos]...)
			kept++
		}
	}
	return append(appendU32(nil, kept), b...)
}
