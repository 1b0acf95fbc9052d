package wasmguard

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Config says what the inserted check calls and how often.
type Config struct {
	// ImportModule and ImportName name the host function the check calls,
	// of type () -> (). It must not be one the module imports already.
	ImportModule, ImportName string
	// Budget is the number of iterations of a function's loops between
	// calls: a power of two, 1 to 2^30.
	Budget uint32

	// inline gives every loop the inline check (the form before the nested
	// one), for the tests and benchmarks that compare the two.
	inline bool
}

// ErrUnsupported is wrapped by errors about modules the rewrite cannot
// handle (unknown opcodes or section forms); the caller may fall back to
// another guard.
var ErrUnsupported = errors.New("module not supported by the loop guard")

// errTrailing: a section has bytes after its last element.
var errTrailing = errors.New("trailing bytes after the last element")

// Section ids of the WASM binary format.
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secTag       = 13
	importFunc   = 0x00
	importGlobal = 0x03
)

// rank orders sections as the binary format requires; custom sections have
// no rank.
var rank = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

type section struct {
	id   byte
	body []byte
}

// Result is an instrumented module and what was done to it.
type Result struct {
	// Module is the rewritten module.
	Module []byte
	// Loops is the number of loops that got the check.
	Loops int
	// Nested is how many of them took the nested form, whose check adds a
	// loop of its own (so Module has Loops + Nested loops).
	Nested int
}

// Instrument returns a copy of module in which every loop calls
// cfg.ImportModule.cfg.ImportName once per cfg.Budget iterations.
//
// # Errors
//
// A malformed module is an error; a module using instructions or section
// forms the rewrite does not know wraps [ErrUnsupported]. module is never
// modified.
func Instrument(module []byte, cfg Config) (Result, error) {
	if cfg.Budget == 0 || cfg.Budget > 1<<30 || cfg.Budget&(cfg.Budget-1) != 0 {
		return Result{}, fmt.Errorf("wasmguard: budget %d: want a power of two, 1 to 2^30", cfg.Budget)
	}
	secs, err := split(module)
	if err != nil {
		return Result{}, err
	}
	var funcImports uint32
	var funcTypes []uint32
	for _, s := range secs {
		switch s.id {
		case secImport:
			if funcImports, err = countImports(s.body); err != nil {
				return Result{}, fmt.Errorf("import section: %w", err)
			}
		case secFunction:
			if funcTypes, err = functionTypes(s.body); err != nil {
				return Result{}, fmt.Errorf("function section: %w", err)
			}
		}
	}
	rw := &rewriter{inlineAll: cfg.inline, firstShifted: funcImports, mask: int32(cfg.Budget - 1), funcTypes: funcTypes}
	var typeIdx uint32
	typeIdx, rw.typeParams, secs, err = addType(secs)
	if err != nil {
		return Result{}, fmt.Errorf("type section: %w", err)
	}
	imp := appendName(appendName(nil, cfg.ImportModule), cfg.ImportName)
	imp = appendU32(append(imp, importFunc), typeIdx)
	secs = appendToVec(secs, secImport, imp)

	out := append([]byte(nil), module[:8]...)
	for _, s := range secs {
		body, keep, err := rw.section(s)
		if err != nil {
			return Result{}, err
		}
		if keep {
			out = append(out, s.id)
			out = appendU32(out, uint32(len(body)))
			out = append(out, body...)
		}
	}
	return Result{Module: out, Loops: rw.loops, Nested: rw.nested}, nil
}

// split checks the header and cuts the module into sections.
func split(module []byte) ([]section, error) {
	if len(module) < 8 || !bytes.Equal(module[:4], []byte("\x00asm")) {
		return nil, errors.New("wasmguard: not a WASM module (no \\0asm magic)")
	}
	if !bytes.Equal(module[4:8], []byte{1, 0, 0, 0}) {
		return nil, fmt.Errorf("wasmguard: binary format version %x: %w", module[4:8], ErrUnsupported)
	}
	r := &reader{b: module, off: 8}
	var secs []section
	last := 0
	for !r.done() {
		id, _ := r.byte()
		n, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("wasmguard: section header at offset %d: %w", r.off, err)
		}
		start := r.off
		if err := r.skip(int(n)); err != nil {
			return nil, fmt.Errorf("wasmguard: section %d of %d bytes at offset %d: %w", id, n, start, err)
		}
		if id != secCustom {
			k, ok := rank[id]
			if !ok {
				return nil, fmt.Errorf("wasmguard: section id %d: %w", id, ErrUnsupported)
			}
			if k <= last {
				return nil, fmt.Errorf("wasmguard: section %d out of order", id)
			}
			last = k
		}
		secs = append(secs, section{id: id, body: module[start:r.off]})
	}
	return secs, nil
}

// functionTypes returns the type index of each defined function.
func functionTypes(body []byte) ([]uint32, error) {
	r := &reader{b: body}
	n, err := r.count()
	if err != nil {
		return nil, err
	}
	types := make([]uint32, n)
	for i := range types {
		if types[i], err = r.u32(); err != nil {
			return nil, err
		}
	}
	if !r.done() {
		return nil, errTrailing
	}
	return types, nil
}

// countImports returns the number of imported functions.
func countImports(body []byte) (funcs uint32, err error) {
	r := &reader{b: body}
	n, err := r.count()
	if err != nil {
		return 0, err
	}
	for range n {
		if err := r.name(); err != nil {
			return 0, err
		}
		if err := r.name(); err != nil {
			return 0, err
		}
		kind, err := r.byte()
		if err != nil {
			return 0, err
		}
		switch kind {
		case importFunc:
			funcs++
			_, err = r.u32()
		case 0x01: // table: reftype limits
			if err = r.valType(); err == nil {
				err = r.limits()
			}
		case 0x02: // memory
			err = r.limits()
		case importGlobal:
			if err = r.valType(); err == nil {
				err = r.skip(1)
			}
		case 0x04: // tag: attribute, type index
			if err = r.skip(1); err == nil {
				_, err = r.u32()
			}
		default:
			return 0, fmt.Errorf("import kind %d: %w", kind, ErrUnsupported)
		}
		if err != nil {
			return 0, err
		}
	}
	if !r.done() {
		return 0, errTrailing
	}
	return funcs, nil
}

func (r *reader) limits() error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	if flags > 7 {
		return fmt.Errorf("limits flags 0x%x: %w", flags, ErrUnsupported)
	}
	if _, err := r.leb(10); err != nil {
		return err
	}
	if flags&1 != 0 {
		_, err = r.leb(10)
	}
	return err
}

// addType appends the function type () -> () and returns its index, and
// the number of parameters of each type.
func addType(secs []section) (uint32, []int, []section, error) {
	for _, s := range secs {
		if s.id != secType {
			continue
		}
		r := &reader{b: s.body}
		n, err := r.count()
		if err != nil {
			return 0, nil, nil, err
		}
		params := make([]int, n)
		for i := range n {
			if c, err := r.byte(); err != nil || c != 0x60 {
				return 0, nil, nil, fmt.Errorf("type form 0x%02x: %w", c, ErrUnsupported)
			}
			for side := range 2 { // params, results
				k, err := r.count()
				if err != nil {
					return 0, nil, nil, err
				}
				if side == 0 {
					params[i] = k
				}
				for range k {
					if err := r.valType(); err != nil {
						return 0, nil, nil, err
					}
				}
			}
		}
		if !r.done() {
			return 0, nil, nil, errTrailing
		}
		return uint32(n), params, appendToVec(secs, secType, []byte{0x60, 0, 0}), nil
	}
	return 0, nil, appendToVec(secs, secType, []byte{0x60, 0, 0}), nil
}

// appendToVec appends elem to the vector that is the body of section id,
// creating the section in its place when the module has none. It returns a
// new slice; bodies are copied, never modified in place.
func appendToVec(secs []section, id byte, elem []byte) []section {
	out := make([]section, 0, len(secs)+1)
	done := false
	for _, s := range secs {
		if !done && s.id == id {
			r := &reader{b: s.body}
			n, _ := r.u32() // checked by the caller
			body := appendVec(nil, int(n)+1, s.body[r.off:])
			s.body = append(body, elem...)
			done = true
		}
		if !done && s.id != secCustom && rank[s.id] > rank[id] {
			out = append(out, section{id: id, body: append(appendU32(nil, 1), elem...)})
			done = true
		}
		out = append(out, s)
	}
	if !done {
		out = append(out, section{id: id, body: append(appendU32(nil, 1), elem...)})
	}
	return out
}

func appendName(dst []byte, s string) []byte {
	return append(appendU32(dst, uint32(len(s))), s...)
}

// section rewrites one section's body; keep is false for a section to drop.
func (rw *rewriter) section(s section) (body []byte, keep bool, err error) {
	switch s.id {
	case secCustom:
		return rw.custom(s.body)
	case secGlobal:
		body, err = rw.globals(s.body)
	case secExport:
		body, err = rw.exports(s.body)
	case secStart:
		var idx uint32
		if idx, err = (&reader{b: s.body}).u32(); err == nil {
			body = appendU32(nil, rw.fn(idx))
		}
	case secElement:
		body, err = rw.elements(s.body)
	case secCode:
		body, err = rw.code(s.body)
	default:
		body = s.body
	}
	if err != nil {
		return nil, false, fmt.Errorf("wasmguard: section %d: %w", s.id, err)
	}
	return body, true, nil
}

func (rw *rewriter) globals(body []byte) ([]byte, error) {
	return vec(body, func(r *reader, out []byte) ([]byte, error) {
		start := r.off
		if err := r.valType(); err != nil {
			return nil, err
		}
		if err := r.skip(1); err != nil { // mutability
			return nil, err
		}
		return rw.expr(r, append(out, r.b[start:r.off]...), true)
	})
}

func (rw *rewriter) exports(body []byte) ([]byte, error) {
	return vec(body, func(r *reader, out []byte) ([]byte, error) {
		start := r.off
		if err := r.name(); err != nil {
			return nil, err
		}
		kind, err := r.byte()
		if err != nil {
			return nil, err
		}
		out = append(out, r.b[start:r.off]...)
		idx, err := r.u32()
		if err != nil {
			return nil, err
		}
		if kind == importFunc {
			idx = rw.fn(idx)
		}
		return appendU32(out, idx), nil
	})
}

// vec rewrites a vector: it copies the count, lets elem rewrite each
// element and checks that nothing follows the last.
func vec(body []byte, elem func(r *reader, out []byte) ([]byte, error)) ([]byte, error) {
	r := &reader{b: body}
	n, err := r.count()
	if err != nil {
		return nil, err
	}
	out := appendU32(make([]byte, 0, len(body)+len(body)/8), uint32(n))
	for range n {
		if out, err = elem(r, out); err != nil {
			return nil, err
		}
	}
	if !r.done() {
		return nil, errTrailing
	}
	return out, nil
}

// elements rewrites element segments: function index vectors and ref.func
// in expressions.
func (rw *rewriter) elements(body []byte) ([]byte, error) {
	return vec(body, func(r *reader, out []byte) ([]byte, error) {
		flags, err := r.u32()
		if err != nil {
			return nil, err
		}
		if flags > 7 {
			return nil, fmt.Errorf("element segment flags %d: %w", flags, ErrUnsupported)
		}
		out = appendU32(out, flags)
		if flags&2 != 0 && flags&1 == 0 { // explicit table index
			idx, err := r.u32()
			if err != nil {
				return nil, err
			}
			out = appendU32(out, idx)
		}
		if flags&1 == 0 { // active: offset expression
			if out, err = rw.expr(r, out, true); err != nil {
				return nil, err
			}
		}
		if flags&3 != 0 { // element kind or reference type
			start := r.off
			if err := r.valType(); err != nil {
				return nil, err
			}
			out = append(out, r.b[start:r.off]...)
		}
		k, err := r.count()
		if err != nil {
			return nil, err
		}
		out = appendU32(out, uint32(k))
		for range k {
			if flags&4 != 0 { // expressions
				if out, err = rw.expr(r, out, true); err != nil {
					return nil, err
				}
				continue
			}
			idx, err := r.u32()
			if err != nil {
				return nil, err
			}
			out = appendU32(out, rw.fn(idx))
		}
		return out, nil
	})
}

// code rewrites every function body.
func (rw *rewriter) code(body []byte) ([]byte, error) {
	if n, _ := (&reader{b: body}).u32(); int(n) != len(rw.funcTypes) {
		return nil, fmt.Errorf("%d function bodies for %d functions", n, len(rw.funcTypes))
	}
	var fb []byte
	i := 0
	return vec(body, func(r *reader, out []byte) ([]byte, error) {
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		start := r.off
		if err := r.skip(int(size)); err != nil {
			return nil, fmt.Errorf("function %d: %w", i, err)
		}
		f := &reader{b: r.b[start:r.off]}
		groups, locals, countEnd, err := f.locals()
		if err != nil {
			return nil, fmt.Errorf("function %d locals: %w", i, err)
		}
		if t := rw.funcTypes[i]; int(t) >= len(rw.typeParams) {
			return nil, fmt.Errorf("function %d has type %d of %d", i, t, len(rw.typeParams))
		}
		// The counter is a new local after the others; it is declared
		// only if the function has a loop.
		rw.counter = uint32(rw.typeParams[rw.funcTypes[i]]) + locals
		localsEnd := f.off
		loops, nested := rw.loops, rw.nested
		rw.inline = rw.inlineAll
		fb, err = rw.expr(f, fb[:0], false)
		if errors.Is(err, errInline) {
			f.off, rw.loops, rw.nested, rw.inline = localsEnd, loops, nested, true
			fb, err = rw.expr(f, fb[:0], false)
		}
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", i, wrapUnsupported(err))
		}
		i++
		decl := f.b[:localsEnd]
		if rw.loops > loops {
			decl = appendU32(nil, uint32(groups+1))
			decl = append(decl, f.b[countEnd:localsEnd]...)
			decl = append(decl, 1, 0x7f) // one i32
			decl = rw.appendInit(decl)   // the body's first instructions
		}
		out = appendU32(out, uint32(len(decl)+len(fb)))
		return append(append(out, decl...), fb...), nil
	})
}

func wrapUnsupported(err error) error {
	if strings.Contains(err.Error(), "unsupported") && !errors.Is(err, ErrUnsupported) {
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	return err
}

// locals skips a function's local declarations and returns the number of
// groups, of locals, and the offset just after the group count.
func (r *reader) locals() (groups int, total uint32, countEnd int, err error) {
	n, err := r.count()
	if err != nil {
		return 0, 0, 0, err
	}
	countEnd = r.off
	for range n {
		k, err := r.u32()
		if err != nil {
			return 0, 0, 0, err
		}
		if total+k < total || total+k > 1<<20 {
			return 0, 0, 0, fmt.Errorf("%w: too many locals", ErrUnsupported)
		}
		total += k
		if err := r.valType(); err != nil {
			return 0, 0, 0, err
		}
	}
	return n, total, countEnd, nil
}

// custom drops sections whose content the rewrite invalidates and
// renumbers the name section.
func (rw *rewriter) custom(body []byte) ([]byte, bool, error) {
	r := &reader{b: body}
	n, err := r.u32()
	if err != nil || int(n) > len(body)-r.off {
		return nil, false, errors.New("wasmguard: malformed custom section name")
	}
	name := string(body[r.off : r.off+int(n)])
	r.off += int(n)
	switch {
	case strings.HasPrefix(name, ".debug_"), name == "sourceMappingURL", name == "external_debug_info":
		return nil, false, nil
	case name == "name":
		out, err := rw.names(r, body[:r.off])
		if err != nil {
			// A bad name section only loses names; wazero ignores it too.
			return nil, false, nil //nolint:nilerr // dropping is the recovery
		}
		return out, true, nil
	}
	return body, true, nil
}

// names renumbers the function, local and label name subsections.
func (rw *rewriter) names(r *reader, out []byte) ([]byte, error) {
	out = append([]byte(nil), out...)
	for !r.done() {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		start := r.off
		if err := r.skip(int(size)); err != nil {
			return nil, err
		}
		sub := r.b[start:r.off]
		switch id {
		case 1: // function names: namemap keyed by function index
			sub, err = rw.nameMap(sub, false)
		case 2, 3: // local and label names: indirect maps keyed by function index
			sub, err = rw.nameMap(sub, true)
		}
		if err != nil {
			return nil, err
		}
		out = append(appendU32(append(out, id), uint32(len(sub))), sub...)
	}
	return out, nil
}

func (rw *rewriter) nameMap(b []byte, indirect bool) ([]byte, error) {
	return vec(b, func(r *reader, out []byte) ([]byte, error) {
		idx, err := r.u32()
		if err != nil {
			return nil, err
		}
		start := r.off
		if indirect {
			k, err := r.count()
			if err != nil {
				return nil, err
			}
			for range k {
				if _, err := r.u32(); err != nil {
					return nil, err
				}
				if err := r.name(); err != nil {
					return nil, err
				}
			}
		} else if err := r.name(); err != nil {
			return nil, err
		}
		return append(appendU32(out, rw.fn(idx)), r.b[start:r.off]...), nil
	})
}
