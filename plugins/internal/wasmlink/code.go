package wasmlink

import "fmt"

// renumber copies function bodies and constant expressions, rewriting the
// indices that linking changes: function indices everywhere, and in a
// library's code type indices too (its types move after the plugin's).
type renumber struct {
	fn  func(uint32) uint32
	typ func(uint32) uint32 // nil: types keep their indices
	// lib makes the copy refuse what a library may not do (see the package
	// doc): globals, tables, indirect calls, memory.grow, other memories,
	// data segments and exceptions.
	lib bool
}

// body copies one function body (locals, then code) to dst.
func (rn *renumber) body(dst, body []byte) ([]byte, error) {
	d := &dec{b: body}
	groups := d.count()
	for range groups {
		d.u32()
		if t := d.u8(); t == 0x63 || t == 0x64 { // (ref null? ht)
			if ht := d.s33(); ht >= 0 && rn.lib {
				d.fail("local of a typed reference")
			}
		}
	}
	if d.err != nil {
		return nil, fmt.Errorf("locals: %w", d.err)
	}
	dst = append(dst, body[:d.pos]...)
	return rn.expr(dst, d, false)
}

// expr copies instructions from d to dst: to the end of d (a body), or
// with constant through the end that closes a constant expression.
func (rn *renumber) expr(dst []byte, d *dec, constant bool) ([]byte, error) {
	depth := 0
	from := d.pos // d.b[from:d.pos] is still to be copied
	flush := func(at int) { dst = append(dst, d.b[from:at]...) }
	for d.more() {
		at := d.pos
		op := d.u8()
		switch op {
		case 0x02, 0x03, 0x04: // block, loop, if
			pos := d.pos
			if bt := d.s33(); bt >= 0 && rn.typ != nil {
				flush(pos)
				dst = appendS33(dst, int64(rn.typ(uint32(bt))))
				from = d.pos
			}
			depth++
		case 0x0b: // end
			depth--
			if constant && depth < 0 {
				flush(d.pos)
				return dst, nil
			}
		case 0x10, 0x12, 0xd2: // call, return_call, ref.func
			pos := d.pos
			idx := d.u32()
			flush(pos)
			dst = appendU32(dst, rn.fn(idx))
			from = d.pos
		default:
			rn.immediates(d, op)
		}
		if d.err != nil {
			return nil, fmt.Errorf("instruction 0x%02x at %d: %w", op, at, d.err)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if constant {
		return nil, fmt.Errorf("constant expression without end: %w", errTruncated)
	}
	flush(d.pos)
	return dst, nil
}

// immediates skips the immediates of op (any opcode that neither opens a
// block nor names a function), and in a library refuses what it may not
// use.
func (rn *renumber) immediates(d *dec, op byte) {
	refuse := func(what string) {
		if rn.lib {
			d.fail("a library may not use %s", what)
		}
	}
	switch {
	case op <= 0x01, op == 0x05, op == 0x0a, op == 0x0f, op == 0x1a, op == 0x1b, op >= 0x45 && op <= 0xc4,
		op == 0xd1, op == 0xd3, op == 0xd4:
	case op == 0x06, op == 0x07, op == 0x08, op == 0x09, op == 0x18, op == 0x19, op == 0x1f:
		refuse("exceptions")
		switch op {
		case 0x06:
			d.s33()
		case 0x07, 0x08, 0x09, 0x18:
			d.u32()
		case 0x1f:
			rn.tryTable(d)
		}
	case op == 0x0c, op == 0x0d, op == 0xd5, op == 0xd6: // br, br_if, br_on_null, br_on_non_null
		d.u32()
	case op == 0x0e: // br_table
		n := d.count()
		for range n + 1 {
			d.u32()
		}
	case op == 0x11, op == 0x13: // call_indirect, return_call_indirect
		refuse("indirect calls")
		d.u32()
		d.u32()
	case op == 0x14, op == 0x15: // call_ref, return_call_ref
		refuse("indirect calls")
		d.u32()
	case op == 0x1c: // select t*
		n := d.count()
		for range n {
			if t := d.u8(); t == 0x63 || t == 0x64 {
				d.s33()
			}
		}
	case op >= 0x20 && op <= 0x22: // local.get, local.set, local.tee
		d.u32()
	case op == 0x23, op == 0x24: // global.get, global.set
		refuse("globals (is the C code using the shadow stack?)")
		d.u32()
	case op == 0x25, op == 0x26: // table.get, table.set
		refuse("tables")
		d.u32()
	case op >= 0x28 && op <= 0x3e:
		rn.memarg(d)
	case op == 0x3f: // memory.size
		rn.memidx(d)
	case op == 0x40: // memory.grow
		refuse("memory.grow")
		rn.memidx(d)
	case op == 0x41:
		d.leb(5)
	case op == 0x42:
		d.leb(10)
	case op == 0x43:
		d.bytes(4)
	case op == 0x44:
		d.bytes(8)
	case op == 0xd0: // ref.null
		d.s33()
	case op == 0xfc:
		rn.misc(d, refuse)
	case op == 0xfd:
		rn.simd(d)
	case op == 0xfe:
		rn.atomic(d)
	default:
		d.fail("unsupported opcode")
	}
}

func (rn *renumber) tryTable(d *dec) {
	d.s33()
	n := d.count()
	for range n {
		kind := d.u8()
		if kind > 3 {
			d.fail("unknown catch kind %d", kind)
			return
		}
		if kind <= 1 { // catch, catch_ref: a tag
			d.u32()
		}
		d.u32() // label
	}
}

// memidx reads a memory index; a library has only memory 0.
func (rn *renumber) memidx(d *dec) {
	if idx := d.u32(); idx != 0 && rn.lib {
		d.fail("a library may use only memory 0")
	}
}

func (rn *renumber) memarg(d *dec) {
	align := d.u32()
	if align&0x40 != 0 { // multi-memory: a memory index follows
		rn.memidx(d)
	}
	d.leb(10) // offset: u64 with memory64
}

func (rn *renumber) misc(d *dec, refuse func(string)) {
	switch sub := d.u32(); {
	case sub <= 7: // saturating truncations
	case sub == 8: // memory.init
		refuse("data segments")
		d.u32()
		rn.memidx(d)
	case sub == 9: // data.drop
		refuse("data segments")
		d.u32()
	case sub == 10: // memory.copy
		rn.memidx(d)
		rn.memidx(d)
	case sub == 11: // memory.fill
		rn.memidx(d)
	case sub == 12, sub == 14: // table.init, table.copy
		refuse("tables")
		d.u32()
		d.u32()
	case sub >= 13 && sub <= 17: // elem.drop, table.grow, table.size, table.fill
		refuse("tables")
		d.u32()
	default:
		d.fail("unsupported 0xfc sub-opcode %d", sub)
	}
}

func (rn *renumber) simd(d *dec) {
	switch sub := d.u32(); {
	case sub <= 11, sub == 92, sub == 93: // loads and stores
		rn.memarg(d)
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		d.bytes(16)
	case sub >= 21 && sub <= 34: // extract_lane, replace_lane
		d.u8()
	case sub >= 84 && sub <= 91: // load_lane, store_lane
		rn.memarg(d)
		d.u8()
	case sub <= 0x113: // no immediates (relaxed SIMD included)
	default:
		d.fail("unsupported 0xfd sub-opcode %d", sub)
	}
}

func (rn *renumber) atomic(d *dec) {
	switch sub := d.u32(); {
	case sub == 3: // atomic.fence
		d.u8()
	case sub <= 2, sub >= 0x10 && sub <= 0x4e:
		rn.memarg(d)
	default:
		d.fail("unsupported 0xfe sub-opcode %d", sub)
	}
}
