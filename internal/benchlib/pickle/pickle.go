package pickle

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Dict is a Python dict, its keys in insertion order.
type Dict struct {
	keys []any
	vals []any
}

// Get returns the value of string key k.
func (d *Dict) Get(k string) (any, bool) {
	for i, key := range d.keys {
		if s, ok := key.(string); ok && s == k {
			return d.vals[i], true
		}
	}
	return nil, false
}

// Tuple is a Python tuple. A Python list is a *[]any.
type Tuple []any

// pyGlobal is a class or function a pickle names.
type pyGlobal struct{ module, name string }

func (g pyGlobal) String() string { return g.module + "." + g.name }

// Persistent is an object a pickle names by its writer's persistent id
// (BINPERSID), as torch.save names a tensor's storage.
type Persistent struct{ ID any }

// Global returns the name ("module.name") of a class or function a
// pickle names, and false for any other value.
func Global(v any) (string, bool) {
	g, ok := v.(pyGlobal)
	return g.String(), ok
}

// Call returns the function ("module.name") and the arguments of a call
// Load left uncalled (a REDUCE of what it does not know), and false for
// any other value.
func Call(v any) (string, Tuple, bool) {
	o, ok := v.(*pyObject)
	if !ok {
		return "", nil, false
	}
	a, _ := o.args.(Tuple)
	return o.class.String(), a, true
}

// pyObject is an instance of a class unpickle does not know.
type pyObject struct {
	class pyGlobal
	args  any
	state any
}

// Span is a byte string left in the file: Length bytes at Offset.
type Span struct{ Offset, Length int64 }

// DType is a numpy dtype.
type DType struct {
	Code  string // "f4", "u1", ...
	Order byte   // '<', '>', '|' (or '=' before BUILD)
}

// Descr is the dtype's descr string ("<f4"): a native byte order ('=')
// is little endian on the machines that wrote the data sets.
func (d DType) Descr() string {
	code := strings.TrimLeft(d.Code, "<>=|")
	order := d.Order
	if order == '=' {
		order = '<'
	}
	if len(d.Code) > 0 && strings.ContainsRune("<>|", rune(d.Code[0])) {
		order = d.Code[0]
	}
	if order == '|' || strings.HasSuffix(code, "1") {
		return "|" + code
	}
	return string(order) + code
}

// Array is a numpy array: its dtype, shape, order and data (the bytes,
// or a Span of the file).
type Array struct {
	DType   DType
	Shape   []int
	Fortran bool
	Data    any // []byte, Span or []any (an object array)
}

// The numpy functions whose pickles unpickle reads.
var (
	npReconstruct = map[string]bool{"numpy.core.multiarray._reconstruct": true, "numpy._core.multiarray._reconstruct": true}
	npFromBuffer  = map[string]bool{"numpy.core.numeric._frombuffer": true, "numpy._core.numeric._frombuffer": true}
	npDTypeClass  = map[string]bool{"numpy.dtype": true}
	codecsEncode  = map[string]bool{"_codecs.encode": true}
)

// lazyBytes is the size from which a byte string stays in the file.
const lazyBytes = 1 << 12

// maxPickleItems bounds the items one pickle may build.
const maxPickleItems = 1 << 24

var errPickle = errors.New("not a pickle unpickle reads")

// unpickler is the pickle machine.
type unpickler struct {
	f     io.ReadSeeker
	r     *bufio.Reader
	off   int64 // bytes consumed
	size  int64 // the file's size
	stack []any
	marks []int
	memo  map[int64]any
	items int
}

// Load reads one pickle from f, size bytes from its start: Python's
// dicts ([*Dict]), lists (*[]any), tuples ([Tuple]), strings, bytes
// ([]byte, or a [Span] of f when large), numbers (int64, *big.Int,
// float64), booleans and nil, and numpy arrays ([*Array]) and dtypes.
func Load(f io.ReadSeeker, size int64) (any, error) {
	u := &unpickler{f: f, r: bufio.NewReaderSize(f, 1<<16), size: size, memo: map[int64]any{}}
	v, err := u.run()
	if err != nil {
		return nil, fmt.Errorf("%w: at byte %d: %w", errPickle, u.off, err)
	}
	return v, nil
}

func (u *unpickler) byte() (byte, error) {
	b, err := u.r.ReadByte()
	if err == nil {
		u.off++
	}
	return b, err
}

func (u *unpickler) read(n int64) ([]byte, error) {
	if n < 0 || n > u.size-u.off {
		return nil, fmt.Errorf("a %d-byte item past the end of the file", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(u.r, b)
	u.off += n
	return b, err
}

func (u *unpickler) line() (string, error) {
	s, err := u.r.ReadString('\n')
	u.off += int64(len(s))
	if len(s) > 1<<12 {
		return "", errors.New("a text line of more than 4096 bytes")
	}
	return strings.TrimSuffix(s, "\n"), err
}

func (u *unpickler) uint(n int) (uint64, error) {
	b, err := u.read(int64(n))
	if err != nil {
		return 0, err
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

// bytesOf reads a byte string of n bytes, or leaves a large one in the
// file.
func (u *unpickler) bytesOf(n int64) (any, error) {
	if n < lazyBytes {
		return u.read(n)
	}
	if n > u.size-u.off {
		return nil, fmt.Errorf("a %d-byte item past the end of the file", n)
	}
	s := Span{Offset: u.off, Length: n}
	u.off += n
	if _, err := u.f.Seek(u.off, io.SeekStart); err != nil {
		return nil, err
	}
	u.r.Reset(u.f)
	return s, nil
}

func (u *unpickler) push(v any) error {
	u.items++
	if u.items > maxPickleItems {
		return errors.New("too many items")
	}
	u.stack = append(u.stack, v)
	return nil
}

func (u *unpickler) pop() (any, error) {
	if len(u.stack) == 0 || len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1] {
		return nil, errors.New("stack underflow")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

// popMark pops the items above the last mark.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, errors.New("no mark")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	if m > len(u.stack) { // TUPLE1..3 and SETITEM took items below the mark
		return nil, errors.New("stack underflow below a mark")
	}
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items, nil
}

func (u *unpickler) top() (any, error) {
	if len(u.stack) == 0 {
		return nil, errors.New("stack underflow")
	}
	return u.stack[len(u.stack)-1], nil
}

// sizeOf is the width in bytes of the integer that follows opcode op:
// the value of BININT1/2/4, or the length of a string, byte string or
// long.
func sizeOf(op byte) int {
	switch op {
	case 'K', 0x8c, 'U', 'C', 0x8a: // BININT1, SHORT_BINUNICODE, SHORT_BINSTRING, SHORT_BINBYTES, LONG1
		return 1
	case 'M': // BININT2
		return 2
	case 'J', 'X', 'T', 'B', 0x8b: // BININT, BINUNICODE, BINSTRING, BINBYTES, LONG4
		return 4
	}
	return 8 // BINUNICODE8, BINBYTES8, BYTEARRAY8
}

// run executes opcodes until STOP.
func (u *unpickler) run() (any, error) {
	for {
		op, err := u.byte()
		if err != nil {
			return nil, fmt.Errorf("no STOP: %w", err)
		}
		if done, err := u.step(op); err != nil || done {
			if err != nil {
				return nil, fmt.Errorf("opcode 0x%02x: %w", op, err)
			}
			return u.pop()
		}
	}
}

// step executes one opcode; done at STOP.
func (u *unpickler) step(op byte) (done bool, err error) {
	switch op {
	case '.': // STOP
		return true, nil
	case 0x80: // PROTO
		v, err := u.byte()
		if err == nil && (v < 2 || v > 5) {
			err = fmt.Errorf("protocol %d", v)
		}
		return false, err
	case 0x95: // FRAME: a length, then the frame's opcodes
		_, err = u.uint(8)
	case '(': // MARK
		u.marks = append(u.marks, len(u.stack))
	case '0': // POP
		_, err = u.pop()
	case '1': // POP_MARK
		_, err = u.popMark()
	case '2': // DUP
		var v any
		if v, err = u.top(); err == nil {
			err = u.push(v)
		}
	case 'N':
		err = u.push(nil)
	case 0x88:
		err = u.push(true)
	case 0x89:
		err = u.push(false)
	case 'J', 'K', 'M': // BININT, BININT1, BININT2
		n := sizeOf(op)
		var v uint64
		if v, err = u.uint(n); err == nil {
			if n == 4 {
				err = u.push(int64(int32(uint32(v))))
			} else {
				err = u.push(int64(v))
			}
		}
	case 0x8a, 0x8b: // LONG1, LONG4
		err = u.long(op)
	case 'I', 'L': // INT, LONG (text)
		var s string
		if s, err = u.line(); err == nil {
			err = u.textInt(strings.TrimSuffix(s, "L"))
		}
	case 'G': // BINFLOAT, big endian
		var b []byte
		if b, err = u.read(8); err == nil {
			err = u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case 0x8c, 'X', 0x8d: // SHORT_BINUNICODE, BINUNICODE, BINUNICODE8
		var n uint64
		if n, err = u.uint(sizeOf(op)); err == nil {
			var b []byte
			if b, err = u.read(int64(n)); err == nil {
				err = u.push(string(b))
			}
		}
	case 'U', 'T': // SHORT_BINSTRING, BINSTRING (protocol 2's str)
		var n uint64
		if n, err = u.uint(sizeOf(op)); err == nil {
			var b []byte
			if b, err = u.read(int64(n)); err == nil {
				err = u.push(string(b))
			}
		}
	case 'C', 'B', 0x8e, 0x96: // SHORT_BINBYTES, BINBYTES, BINBYTES8, BYTEARRAY8
		var n uint64
		if n, err = u.uint(sizeOf(op)); err == nil {
			var v any
			if v, err = u.bytesOf(int64(n)); err == nil {
				err = u.push(v)
			}
		}
	case '}':
		err = u.push(&Dict{})
	case ']':
		err = u.push(&[]any{})
	case ')':
		err = u.push(Tuple{})
	case 0x8f: // EMPTY_SET
		err = u.push(&[]any{})
	case 't': // TUPLE
		var items []any
		if items, err = u.popMark(); err == nil {
			err = u.push(Tuple(items))
		}
	case 0x85, 0x86, 0x87: // TUPLE1..3
		n := int(op - 0x84)
		if len(u.stack) < n {
			return false, errors.New("stack underflow")
		}
		t := append(Tuple(nil), u.stack[len(u.stack)-n:]...)
		u.stack = u.stack[:len(u.stack)-n]
		err = u.push(t)
	case 'a', 'e', 0x90: // APPEND, APPENDS, ADDITEMS
		err = u.appendItems(op)
	case 's', 'u': // SETITEM, SETITEMS
		err = u.setItems(op)
	case 'q', 'r', 0x94, 'p': // BINPUT, LONG_BINPUT, MEMOIZE, PUT
		err = u.put(op)
	case 'h', 'j', 'g': // BINGET, LONG_BINGET, GET
		err = u.get(op)
	case 'c': // GLOBAL
		var mod, name string
		if mod, err = u.line(); err == nil {
			if name, err = u.line(); err == nil {
				err = u.push(pyGlobal{mod, name})
			}
		}
	case 0x93: // STACK_GLOBAL
		var name, mod any
		if name, err = u.pop(); err == nil {
			if mod, err = u.pop(); err == nil {
				ms, ok1 := mod.(string)
				ns, ok2 := name.(string)
				if !ok1 || !ok2 {
					return false, errors.New("STACK_GLOBAL of non-strings")
				}
				err = u.push(pyGlobal{ms, ns})
			}
		}
	case 'R', 0x81: // REDUCE, NEWOBJ
		err = u.reduce()
	case 'Q': // BINPERSID: the object the writer's persistent_id named
		var id any
		if id, err = u.pop(); err == nil {
			err = u.push(Persistent{ID: id})
		}
	case 'b': // BUILD
		err = u.build()
	default:
		return false, fmt.Errorf("unsupported opcode")
	}
	return false, err
}

func (u *unpickler) long(op byte) error {
	n, err := u.uint(sizeOf(op))
	if err != nil {
		return err
	}
	if n > 1<<16 {
		return fmt.Errorf("a %d-byte integer", n)
	}
	b, err := u.read(int64(n))
	if err != nil {
		return err
	}
	// Little-endian two's complement.
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	v := new(big.Int).SetBytes(be)
	if len(b) > 0 && b[len(b)-1]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if v.IsInt64() {
		return u.push(v.Int64())
	}
	return u.push(v)
}

func (u *unpickler) textInt(s string) error {
	switch s {
	case "00":
		return u.push(false)
	case "01":
		return u.push(true)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("integer %q", s)
	}
	return u.push(v)
}

func (u *unpickler) appendItems(op byte) error {
	var items []any
	if op == 'a' {
		v, err := u.pop()
		if err != nil {
			return err
		}
		items = []any{v}
	} else {
		var err error
		if items, err = u.popMark(); err != nil {
			return err
		}
	}
	t, err := u.top()
	if err != nil {
		return err
	}
	l, ok := t.(*[]any)
	if !ok {
		return fmt.Errorf("append to %T", t)
	}
	*l = append(*l, items...)
	return nil
}

func (u *unpickler) setItems(op byte) error {
	var items []any
	if op == 's' {
		if len(u.stack) < 2 {
			return errors.New("stack underflow")
		}
		items = append(items, u.stack[len(u.stack)-2:]...)
		u.stack = u.stack[:len(u.stack)-2]
	} else {
		var err error
		if items, err = u.popMark(); err != nil {
			return err
		}
	}
	if len(items)%2 != 0 {
		return errors.New("odd number of dict items")
	}
	t, err := u.top()
	if err != nil {
		return err
	}
	d, ok := t.(*Dict)
	if !ok {
		return fmt.Errorf("set item of %T", t)
	}
	for i := 0; i < len(items); i += 2 {
		d.keys, d.vals = append(d.keys, items[i]), append(d.vals, items[i+1])
	}
	return nil
}

func (u *unpickler) put(op byte) error {
	var k int64
	switch op {
	case 'q':
		v, err := u.uint(1)
		if err != nil {
			return err
		}
		k = int64(v)
	case 'r':
		v, err := u.uint(4)
		if err != nil {
			return err
		}
		k = int64(v)
	case 'p':
		s, err := u.line()
		if err != nil {
			return err
		}
		if k, err = strconv.ParseInt(s, 10, 64); err != nil {
			return fmt.Errorf("memo key %q", s)
		}
	default: // MEMOIZE
		k = int64(len(u.memo))
	}
	v, err := u.top()
	if err != nil {
		return err
	}
	u.memo[k] = v
	return nil
}

func (u *unpickler) get(op byte) error {
	var k int64
	switch op {
	case 'h':
		v, err := u.uint(1)
		if err != nil {
			return err
		}
		k = int64(v)
	case 'j':
		v, err := u.uint(4)
		if err != nil {
			return err
		}
		k = int64(v)
	default:
		s, err := u.line()
		if err != nil {
			return err
		}
		if k, err = strconv.ParseInt(s, 10, 64); err != nil {
			return fmt.Errorf("memo key %q", s)
		}
	}
	v, ok := u.memo[k]
	if !ok {
		return fmt.Errorf("memo %d unset", k)
	}
	return u.push(v)
}

// reduce calls a callable the pickle names with arguments: numpy's array
// and dtype constructors and codecs.encode are understood, anything else
// becomes a pyObject.
func (u *unpickler) reduce() error {
	args, err := u.pop()
	if err != nil {
		return err
	}
	f, err := u.pop()
	if err != nil {
		return err
	}
	g, ok := f.(pyGlobal)
	if !ok {
		return fmt.Errorf("call of %T", f)
	}
	a, _ := args.(Tuple)
	name := g.String()
	switch {
	case npReconstruct[name]:
		return u.push(&Array{})
	case npDTypeClass[name]:
		if len(a) == 0 {
			return errors.New("numpy.dtype without arguments")
		}
		code, ok := a[0].(string)
		if !ok {
			return fmt.Errorf("numpy.dtype(%v)", a[0])
		}
		return u.push(&DType{Code: code, Order: '='})
	case npFromBuffer[name]:
		return u.fromBuffer(a)
	case codecsEncode[name]:
		if len(a) != 2 {
			return errors.New("codecs.encode of other than (text, 'latin1')")
		}
		s, _ := a[0].(string)
		b := make([]byte, 0, len(s))
		for _, r := range s {
			if r > 0xff {
				return errors.New("codecs.encode: a character beyond latin1")
			}
			b = append(b, byte(r))
		}
		return u.push(b)
	}
	return u.push(&pyObject{class: g, args: args})
}

// fromBuffer is numpy's protocol-5 _frombuffer(buffer, dtype, shape,
// order).
func (u *unpickler) fromBuffer(a Tuple) error {
	if len(a) != 4 {
		return errors.New("_frombuffer needs 4 arguments")
	}
	dt, ok := a[1].(*DType)
	if !ok {
		return fmt.Errorf("_frombuffer dtype %T", a[1])
	}
	shape, err := intTuple(a[2])
	if err != nil {
		return err
	}
	order, _ := a[3].(string)
	return u.push(&Array{DType: *dt, Shape: shape, Fortran: order == "F", Data: a[0]})
}

// build sets an object's state: a numpy dtype's byte order, a numpy
// array's shape, dtype and data.
func (u *unpickler) build() error {
	state, err := u.pop()
	if err != nil {
		return err
	}
	obj, err := u.top()
	if err != nil {
		return err
	}
	switch o := obj.(type) {
	case *DType:
		t, ok := state.(Tuple)
		if !ok || len(t) < 2 {
			return errors.New("numpy dtype state")
		}
		if s, ok := t[1].(string); ok && len(s) == 1 {
			o.Order = s[0]
		}
		return nil
	case *Array:
		t, ok := state.(Tuple)
		if !ok || len(t) != 5 {
			return errors.New("numpy array state: want (version, shape, dtype, fortran, data)")
		}
		if o.Shape, err = intTuple(t[1]); err != nil {
			return err
		}
		dt, ok := t[2].(*DType)
		if !ok {
			return fmt.Errorf("numpy array dtype %T", t[2])
		}
		o.DType = *dt
		o.Fortran, _ = t[3].(bool)
		switch d := t[4].(type) {
		case []byte, Span:
			o.Data = d
		case string: // protocol 2 under Python 2: latin-1 text
			o.Data = []byte(d)
		case *[]any:
			o.Data = *d
		default:
			return fmt.Errorf("numpy array data %T", t[4])
		}
		return nil
	case *pyObject:
		o.state = state
		return nil
	case *Dict:
		if d, ok := state.(*Dict); ok {
			o.keys, o.vals = append(o.keys, d.keys...), append(o.vals, d.vals...)
			return nil
		}
	}
	return fmt.Errorf("BUILD of %T", obj)
}

// intTuple reads a tuple of non-negative integers (a shape).
func intTuple(v any) ([]int, error) {
	t, ok := v.(Tuple)
	if !ok {
		return nil, fmt.Errorf("shape %T", v)
	}
	out := make([]int, len(t))
	for i, x := range t {
		n, ok := x.(int64)
		if !ok || n < 0 || n > math.MaxInt32 {
			return nil, fmt.Errorf("shape %v", v)
		}
		out[i] = int(n)
	}
	return out, nil
}
