package wasmguard

import (
	"errors"
	"fmt"
)

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
	// loops counts the loops instrumented, nested those of them in the
	// nested form.
	loops, nested int
	// labels is the stack of the current function's open blocks, innermost
	// last: true for a loop rewritten into the nested form (see
	// appendNestedHead), which wraps it in three new labels.
	labels []bool
	// inline makes every loop of the current function take the inline
	// form (see appendCheck): set for a function whose label immediates the
	// nested form does not remap, and for all with inlineAll
	// (Config.inline).
	inline, inlineAll bool
}

// errInline: the function uses an instruction with a label immediate that
// the nested form does not remap (exception handling, br_on_null and
// br_on_non_null); the caller rewrites it again with inline checks.
var errInline = errors.New("function needs the inline loop check")

func (rw *rewriter) fn(idx uint32) uint32 {
	if idx >= rw.firstShifted {
		return idx + 1
	}
	return idx
}

// appendCheck is inserted after the block type of a loop whose block type
// has parameters (the inline form). It counts the function's loop
// iterations down in a local of its own (a register, unlike a global, which
// compiled code keeps in memory), set to the budget when the function
// starts (see appendInit):
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
//
// The call inside the loop, though it rarely runs, makes wazero keep loop
// values in memory around it; loops without parameters take the nested
// form instead.
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
	return rw.appendSet(dst, rw.mask+1)
}

func (rw *rewriter) appendSet(dst []byte, v int32) []byte {
	dst = appendS32(append(dst, 0x41), v)
	return appendU32(append(dst, 0x21), rw.counter)
}

// appendNestedHead replaces the head of a loop without parameters, of
// block type bt (-> R), and appendNestedTail follows its end, so that the
// loop's hot path holds no call (the nested form):
//
//	block $done (bt)
//	  loop $outer
//	    block $tick
//	      loop $L (bt)
//	        local.get $counter
//	        i32.const 1
//	        i32.sub
//	        local.tee $counter
//	        i32.eqz
//	        br_if $tick
//	        BODY
//	      end
//	      br $done
//	    end
//	    call $tick
//	    i32.const budget+1
//	    local.set $counter
//	    br $outer
//	  end
//	  unreachable
//	end
//
// At the head of a loop without parameters the operand stack is empty, so
// re-entering $L through $outer is what a branch to $L does; the counter
// is reset to budget+1 because re-entering counts once more. A branch in
// BODY to a label outside $L crosses the three new labels (see depth).
func (rw *rewriter) appendNestedHead(dst, bt []byte) []byte {
	dst = append(append(dst, 0x02), bt...)
	dst = append(dst, 0x03, 0x40, 0x02, 0x40, 0x03)
	dst = append(dst, bt...)
	dst = appendU32(append(dst, 0x20), rw.counter)
	dst = append(dst, 0x41, 0x01, 0x6b)
	dst = appendU32(append(dst, 0x22), rw.counter)
	return append(dst, 0x45, 0x0d, 0x01)
}

func (rw *rewriter) appendNestedTail(dst []byte) []byte {
	dst = append(dst, 0x0c, 0x02, 0x0b)
	dst = appendU32(append(dst, 0x10), rw.firstShifted)
	dst = rw.appendSet(dst, rw.mask+2)
	return append(dst, 0x0c, 0x00, 0x0b, 0x00, 0x0b)
}

// depth maps a label index of the original body to the rewritten one: every
// nested loop strictly inside the target adds its three labels.
func (rw *rewriter) depth(d uint32) uint32 {
	out := d
	for k := uint32(0); k < d && int(k) < len(rw.labels); k++ {
		if rw.labels[len(rw.labels)-1-int(k)] {
			out += 3
		}
	}
	return out
}

// loopParams says whether a block type (0x40, a value type or an s33 type
// index) has parameters.
func (rw *rewriter) loopParams(bt []byte) (bool, error) {
	if len(bt) == 1 && bt[0]&0x40 != 0 { // negative s33: empty or one value type
		return false, nil
	}
	idx, err := (&reader{b: bt}).leb(5)
	if err != nil || bt[len(bt)-1]&0x40 != 0 || idx >= uint64(len(rw.typeParams)) {
		return false, fmt.Errorf("block type %x: %w", bt, ErrUnsupported)
	}
	return rw.typeParams[idx] > 0, nil
}

// expr copies instructions from r to dst. With constExpr it stops after
// the end that closes the expression; otherwise it runs to the end of r
// (a function body), instruments loops and remaps branch depths.
func (rw *rewriter) expr(r *reader, dst []byte, constExpr bool) ([]byte, error) {
	depth := 0
	rw.labels = rw.labels[:0]
	copied := r.off // r.b[copied:r.off] is still to be copied to dst
	for !r.done() {
		at := r.off
		op, _ := r.byte()
		var err error
		switch op {
		case 0x02, 0x04: // block, if
			err = r.blockType()
			depth++
			rw.labels = append(rw.labels, false)
		case 0x03: // loop
			if err = r.blockType(); err == nil && !constExpr {
				dst, err = rw.loop(dst, r.b[copied:at], r.b[at+1:r.off])
				copied = r.off
			}
			depth++
		case 0x0b: // end
			depth--
			if constExpr && depth < 0 {
				return append(dst, r.b[copied:r.off]...), nil
			}
			if n := len(rw.labels); !constExpr && n > 0 {
				if rw.labels[n-1] {
					dst = rw.appendNestedTail(append(dst, r.b[copied:r.off]...))
					copied = r.off
				}
				rw.labels = rw.labels[:n-1]
			}
		case 0x0c, 0x0d, 0x0e: // br, br_if, br_table
			dst = append(dst, r.b[copied:r.off]...)
			dst, err = rw.branch(r, dst, op == 0x0e)
			copied = r.off
		case 0x06, 0x07, 0x08, 0x09, 0x0a, 0x18, 0x19, 0x1f, 0xd5, 0xd6: // exception handling, br_on_null, br_on_non_null
			if !constExpr && !rw.inline {
				return nil, errInline
			}
			err = r.exceptionImmediates(op)
			switch op {
			case 0x06, 0x1f: // try, try_table open a block
				depth++
				rw.labels = append(rw.labels, false)
			case 0x18: // delegate closes one
				depth--
				rw.labels = rw.labels[:max(len(rw.labels)-1, 0)]
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

// loop copies pending (the bytes before the loop opcode) and the loop's
// head, of block type bt, with its check.
func (rw *rewriter) loop(dst, pending, bt []byte) ([]byte, error) {
	params, err := rw.loopParams(bt)
	if err != nil {
		return nil, err
	}
	rw.loops++
	dst = append(dst, pending...)
	nested := !params && !rw.inline
	rw.labels = append(rw.labels, nested)
	if nested {
		rw.nested++
		return rw.appendNestedHead(dst, bt), nil
	}
	return rw.appendCheck(append(append(dst, 0x03), bt...)), nil
}

// branch reads the label immediates of br, br_if (one) or br_table (a
// vector and a default) and appends them remapped.
func (rw *rewriter) branch(r *reader, dst []byte, table bool) ([]byte, error) {
	n := 1
	if table {
		k, err := r.count()
		if err != nil {
			return nil, err
		}
		dst = appendU32(dst, uint32(k))
		n = k + 1
	}
	for range n {
		d, err := r.u32()
		if err != nil {
			return nil, err
		}
		dst = appendU32(dst, rw.depth(d))
	}
	return dst, nil
}

// exceptionImmediates skips the immediates of the exception-handling
// instructions, br_on_null and br_on_non_null.
func (r *reader) exceptionImmediates(op byte) error {
	switch op {
	case 0x06: // try bt
		return r.blockType()
	case 0x1f:
		return r.tryTable()
	case 0x07, 0x08, 0x09, 0x18, 0xd5, 0xd6: // catch, throw: tag; rethrow, delegate, br_on_*: label
		return r.u32s(1)
	}
	return nil // throw_ref, catch_all
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
	case op <= 0x01, op == 0x05, op == 0x0f, op == 0x1a, op == 0x1b,
		op >= 0x45 && op <= 0xc4, op == 0xd1, op == 0xd3, op == 0xd4:
		return nil
	case op == 0x14, op == 0x15, op >= 0x20 && op <= 0x26, op == 0x3f, op == 0x40:
		return r.u32s(1)
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
