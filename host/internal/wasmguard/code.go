package wasmguard

import "fmt"

// rewriter renumbers function indices and inserts the loop check while
// copying instruction streams.
type rewriter struct {
	// firstShifted is the first function index that moves up by one: the
	// number of functions the module imported before the rewrite, which is
	// also the index of the new import.
	firstShifted uint32
	// mask is the budget minus one: the check calls the tick when the
	// counter's low bits are all zero.
	mask int32
	// counter is the index of the counting local of the function being
	// rewritten.
	counter uint32
	// funcTypes is the type of each defined function; typeParams the
	// number of parameters of each type.
	funcTypes  []uint32
	typeParams []int
	// loops counts the loops instrumented.
	loops int
}

func (rw *rewriter) fn(idx uint32) uint32 {
	if idx >= rw.firstShifted {
		return idx + 1
	}
	return idx
}

// check is inserted after every loop's block type. It counts the
// function's loop iterations down in a local of its own (a register, unlike
// a global, which compiled code keeps in memory), set to the budget when the
// function starts (see appendInit):
//
//	block
//	  local.get $counter
//	  i32.const 1
//	  i32.sub
//	  local.tee $counter
//	  br_if 0
//	  call $tick
//	  i32.const budget
//	  local.set $counter
//	end
func (rw *rewriter) appendCheck(dst []byte) []byte {
	dst = append(dst, 0x02, 0x40)
	dst = appendU32(append(dst, 0x20), rw.counter)
	dst = append(dst, 0x41, 0x01, 0x6b)
	dst = appendU32(append(dst, 0x22), rw.counter)
	dst = append(dst, 0x0d, 0x00)
	dst = appendU32(append(dst, 0x10), rw.firstShifted)
	return append(rw.appendInit(dst), 0x0b)
}

// appendInit sets the counter to the budget: i32.const budget; local.set.
func (rw *rewriter) appendInit(dst []byte) []byte {
	dst = appendS32(append(dst, 0x41), rw.mask+1)
	return appendU32(append(dst, 0x21), rw.counter)
}

// expr copies instructions from r to dst. With constExpr it stops after
// the end that closes the expression; otherwise it runs to the end of r
// (a function body) and instruments loops.
func (rw *rewriter) expr(r *reader, dst []byte, constExpr bool) ([]byte, error) {
	depth := 0
	copied := r.off // r.b[copied:r.off] is still to be copied to dst
	for !r.done() {
		at := r.off
		op, _ := r.byte()
		var err error
		switch op {
		case 0x02, 0x04, 0x06: // block, if, try
			err = r.blockType()
			depth++
		case 0x03: // loop
			if err = r.blockType(); err == nil && !constExpr {
				dst = append(dst, r.b[copied:r.off]...)
				dst = rw.appendCheck(dst)
				copied = r.off
				rw.loops++
			}
			depth++
		case 0x1f: // try_table
			err = r.tryTable()
			depth++
		case 0x0b: // end
			depth--
			if constExpr && depth < 0 {
				return append(dst, r.b[copied:r.off]...), nil
			}
		case 0x10, 0x12, 0xd2: // call, return_call, ref.func
			var idx uint32
			if idx, err = r.u32(); err == nil {
				dst = append(dst, r.b[copied:at+1]...)
				dst = appendU32(dst, rw.fn(idx))
				copied = r.off
			}
		default:
			err = r.immediates(op)
		}
		if err != nil {
			return nil, fmt.Errorf("instruction 0x%02x at offset %d: %w", op, at, err)
		}
	}
	if constExpr {
		return nil, fmt.Errorf("constant expression without end: %w", errShort)
	}
	return append(dst, r.b[copied:]...), nil
}

// blockType skips a block type: 0x40, a value type or an s33 type index.
func (r *reader) blockType() error {
	_, err := r.leb(5)
	return err
}

func (r *reader) tryTable() error {
	if err := r.blockType(); err != nil {
		return err
	}
	n, err := r.count()
	if err != nil {
		return err
	}
	for range n {
		kind, err := r.byte()
		if err != nil {
			return err
		}
		if kind > 3 {
			return fmt.Errorf("unknown catch kind %d", kind)
		}
		if kind <= 1 { // catch, catch_ref: tag index
			if _, err := r.u32(); err != nil {
				return err
			}
		}
		if _, err := r.u32(); err != nil { // label
			return err
		}
	}
	return nil
}

func (r *reader) memarg() error {
	align, err := r.u32()
	if err != nil {
		return err
	}
	if align&0x40 != 0 { // multi-memory: a memory index follows
		if _, err := r.u32(); err != nil {
			return err
		}
	}
	_, err = r.leb(10) // offset; u64 with memory64
	return err
}

func (r *reader) u32s(n int) error {
	for range n {
		if _, err := r.u32(); err != nil {
			return err
		}
	}
	return nil
}

// valType skips a value type, including reference types with a heap type.
func (r *reader) valType() error {
	c, err := r.byte()
	if err != nil {
		return err
	}
	if c == 0x63 || c == 0x64 { // (ref null ht), (ref ht)
		_, err = r.leb(5)
	}
	return err
}

// immediates skips the immediates of every opcode that has no function
// index and does not open a block.
func (r *reader) immediates(op byte) error {
	switch {
	case op <= 0x01, op == 0x05, op == 0x0a, op == 0x0f, op == 0x19, op == 0x1a, op == 0x1b,
		op >= 0x45 && op <= 0xc4, op == 0xd1, op == 0xd3, op == 0xd5:
		return nil
	case op == 0x07, op == 0x08, op == 0x09, op == 0x18, op == 0x0c, op == 0x0d, op == 0x14, op == 0x15,
		op >= 0x20 && op <= 0x26, op == 0x3f, op == 0x40, op == 0xd4, op == 0xd6:
		return r.u32s(1)
	case op == 0x0e: // br_table
		n, err := r.count()
		if err != nil {
			return err
		}
		return r.u32s(n + 1)
	case op == 0x11, op == 0x13: // call_indirect, return_call_indirect
		return r.u32s(2)
	case op == 0x1c: // select t*
		n, err := r.count()
		if err != nil {
			return err
		}
		for range n {
			if err := r.valType(); err != nil {
				return err
			}
		}
		return nil
	case op >= 0x28 && op <= 0x3e:
		return r.memarg()
	case op == 0x41:
		_, err := r.leb(5)
		return err
	case op == 0x42:
		_, err := r.leb(10)
		return err
	case op == 0x43:
		return r.skip(4)
	case op == 0x44:
		return r.skip(8)
	case op == 0xd0: // ref.null heap type
		_, err := r.leb(5)
		return err
	case op == 0xfc:
		return r.miscImmediates()
	case op == 0xfd:
		return r.simdImmediates()
	case op == 0xfe:
		return r.atomicImmediates()
	}
	return fmt.Errorf("unsupported opcode")
}

func (r *reader) miscImmediates() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7: // saturating truncations
		return nil
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		return r.u32s(2)
	case sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
		return r.u32s(1)
	}
	return fmt.Errorf("unsupported 0xfc sub-opcode %d", sub)
}

func (r *reader) simdImmediates() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 11, sub == 92, sub == 93: // loads and stores
		return r.memarg()
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		return r.skip(16)
	case sub >= 21 && sub <= 34: // extract_lane, replace_lane
		return r.skip(1)
	case sub >= 84 && sub <= 91: // load_lane, store_lane
		if err := r.memarg(); err != nil {
			return err
		}
		return r.skip(1)
	case sub <= 0x113: // no immediates (relaxed SIMD included)
		return nil
	}
	return fmt.Errorf("unsupported 0xfd sub-opcode %d", sub)
}

func (r *reader) atomicImmediates() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub == 3: // atomic.fence
		return r.skip(1)
	case sub <= 2, sub >= 0x10 && sub <= 0x4e:
		return r.memarg()
	}
	return fmt.Errorf("unsupported 0xfe sub-opcode %d", sub)
}
