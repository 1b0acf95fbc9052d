package torchpt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// The values the tensor's pickle builds besides numbers, strings and
// tuples.
type (
	// global is a class or function the pickle names.
	global struct{ module, name string }
	// storage is a persistent id's storage: ('storage', class, key,
	// location, numel).
	storage struct {
		class, key, location string
		numel                int64
	}
	// tensorView is _rebuild_tensor_v2(storage, offset, size, stride,
	// requires_grad, backward_hooks).
	tensorView struct {
		storage       storage
		offset        int64
		shape, stride []int
	}
	// orderedDict is collections.OrderedDict(), the backward hooks.
	orderedDict struct{}
	mark        struct{}
)

// contiguous reports whether the view's elements are its storage's in C
// order from its offset on.
func (t tensorView) contiguous() bool {
	if len(t.stride) != len(t.shape) {
		return false
	}
	want := 1
	for i := len(t.shape) - 1; i >= 0; i-- {
		if t.shape[i] != 1 && t.stride[i] != want {
			return false
		}
		want *= t.shape[i]
	}
	return true
}

// describe names a pickled value's kind for an error.
func describe(v any) string {
	switch v := v.(type) {
	case global:
		return v.module + "." + v.name
	case []any:
		return fmt.Sprintf("a %d-tuple", len(v))
	case nil:
		return "None"
	}
	return fmt.Sprintf("a %T", v)
}

// maxItems bounds the values one pickle may push.
const maxItems = 1 << 16

// unpickle runs the opcodes torch.save's protocol-2 pickle of a tensor
// uses (and the protocol-4 framing and memo opcodes, which a newer
// pickler may write) and returns the value at STOP.
func unpickle(b []byte) (any, error) {
	u := unpickler{b: b, memo: map[uint64]any{}}
	for {
		if u.pos >= len(b) {
			return nil, errors.New("no STOP opcode")
		}
		op := b[u.pos]
		u.pos++
		if op == '.' {
			if len(u.stack) != 1 {
				return nil, fmt.Errorf("at STOP: %d values on the stack, want 1", len(u.stack))
			}
			return u.stack[0], nil
		}
		if err := u.step(op); err != nil {
			return nil, fmt.Errorf("opcode 0x%02x at byte %d: %w", op, u.pos-1, err)
		}
		if len(u.stack) > maxItems {
			return nil, errors.New("too many values")
		}
	}
}

type unpickler struct {
	b     []byte
	pos   int
	stack []any
	memo  map[uint64]any
}

func (u *unpickler) take(n uint64) ([]byte, error) {
	if n > uint64(len(u.b)-u.pos) {
		return nil, fmt.Errorf("a %d-byte argument past the pickle's end", n)
	}
	v := u.b[u.pos : u.pos+int(n)]
	u.pos += int(n)
	return v, nil
}

func (u *unpickler) uint(n int) (uint64, error) {
	b, err := u.take(uint64(n))
	if err != nil {
		return 0, err
	}
	var le [8]byte
	copy(le[:], b)
	return binary.LittleEndian.Uint64(le[:]), nil
}

func (u *unpickler) line() (string, error) {
	i := strings.IndexByte(string(u.b[u.pos:min(len(u.b), u.pos+256)]), '\n')
	if i < 0 {
		return "", errors.New("no line end within 256 bytes")
	}
	s := string(u.b[u.pos : u.pos+i])
	u.pos += i + 1
	return s, nil
}

func (u *unpickler) pop() (any, error) {
	if len(u.stack) == 0 {
		return nil, errors.New("stack underflow")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	if _, ok := v.(mark); ok {
		return nil, errors.New("a mark where a value was wanted")
	}
	return v, nil
}

// popN pops n values, oldest first.
func (u *unpickler) popN(n int) ([]any, error) {
	out := make([]any, n)
	for i := n - 1; i >= 0; i-- {
		v, err := u.pop()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// popMark pops the values above the last mark, oldest first.
func (u *unpickler) popMark() ([]any, error) {
	for i := len(u.stack) - 1; i >= 0; i-- {
		if _, ok := u.stack[i].(mark); ok {
			items := append([]any{}, u.stack[i+1:]...)
			u.stack = u.stack[:i]
			return items, nil
		}
	}
	return nil, errors.New("no mark")
}

func (u *unpickler) str(n uint64, err error) error {
	if err != nil {
		return err
	}
	b, err := u.take(n)
	if err == nil {
		u.stack = append(u.stack, string(b))
	}
	return err
}

func (u *unpickler) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		v, err := u.uint(1)
		if err == nil && (v < 2 || v > 5) {
			err = fmt.Errorf("protocol %d", v)
		}
		return err
	case 0x95: // FRAME
		_, err := u.uint(8)
		return err
	case '(': // MARK
		u.stack = append(u.stack, mark{})
	case 'N':
		u.stack = append(u.stack, nil)
	case 0x88, 0x89: // NEWTRUE, NEWFALSE
		u.stack = append(u.stack, op == 0x88)
	case 'K', 'M': // BININT1, BININT2
		v, err := u.uint(map[byte]int{'K': 1, 'M': 2}[op])
		if err != nil {
			return err
		}
		u.stack = append(u.stack, int64(v))
	case 'J': // BININT
		v, err := u.uint(4)
		if err != nil {
			return err
		}
		u.stack = append(u.stack, int64(int32(uint32(v))))
	case 0x8a: // LONG1
		n, err := u.uint(1)
		if err != nil {
			return err
		}
		b, err := u.take(n)
		if err != nil {
			return err
		}
		return u.long(b)
	case 'X': // BINUNICODE
		n, err := u.uint(4)
		return u.str(n, err)
	case 0x8c: // SHORT_BINUNICODE
		n, err := u.uint(1)
		return u.str(n, err)
	case 'c': // GLOBAL
		mod, err := u.line()
		name := ""
		if err == nil {
			name, err = u.line()
		}
		if err != nil {
			return err
		}
		u.stack = append(u.stack, global{mod, name})
	case 0x93: // STACK_GLOBAL
		v, err := u.popN(2)
		if err != nil {
			return err
		}
		mod, ok1 := v[0].(string)
		name, ok2 := v[1].(string)
		if !ok1 || !ok2 {
			return errors.New("STACK_GLOBAL of other than two strings")
		}
		u.stack = append(u.stack, global{mod, name})
	case ')': // EMPTY_TUPLE
		u.stack = append(u.stack, []any{})
	case 't': // TUPLE
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.stack = append(u.stack, items)
	case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
		items, err := u.popN(int(op - 0x84))
		if err != nil {
			return err
		}
		u.stack = append(u.stack, items)
	case 'q', 'r', 0x94: // BINPUT, LONG_BINPUT, MEMOIZE
		var k uint64
		var err error
		switch op {
		case 'q':
			k, err = u.uint(1)
		case 'r':
			k, err = u.uint(4)
		default:
			k = uint64(len(u.memo))
		}
		if err != nil {
			return err
		}
		if len(u.stack) == 0 {
			return errors.New("memo of an empty stack")
		}
		u.memo[k] = u.stack[len(u.stack)-1]
	case 'h', 'j': // BINGET, LONG_BINGET
		k, err := u.uint(map[byte]int{'h': 1, 'j': 4}[op])
		if err != nil {
			return err
		}
		v, ok := u.memo[k]
		if !ok {
			return fmt.Errorf("memo %d unset", k)
		}
		u.stack = append(u.stack, v)
	case 'Q': // BINPERSID
		pid, err := u.pop()
		if err != nil {
			return err
		}
		s, err := persistentStorage(pid)
		if err != nil {
			return err
		}
		u.stack = append(u.stack, s)
	case 'R': // REDUCE
		v, err := u.popN(2)
		if err != nil {
			return err
		}
		r, err := call(v[0], v[1])
		if err != nil {
			return err
		}
		u.stack = append(u.stack, r)
	default:
		return errors.New("not an opcode of a torch.save tensor")
	}
	return nil
}

// long pushes LONG1's little-endian two's-complement integer, of at
// most 8 bytes: sign-extended to 64 bits.
func (u *unpickler) long(b []byte) error {
	if len(b) > 8 {
		return errors.New("an integer of more than 64 bits")
	}
	var le [8]byte
	copy(le[:], b)
	if len(b) > 0 && b[len(b)-1]&0x80 != 0 {
		for i := len(b); i < 8; i++ {
			le[i] = 0xff
		}
	}
	u.stack = append(u.stack, int64(binary.LittleEndian.Uint64(le[:])))
	return nil
}

// persistentStorage is torch.load's persistent_load of a storage.
func persistentStorage(pid any) (storage, error) {
	t, ok := pid.([]any)
	if !ok || len(t) != 5 || t[0] != "storage" {
		return storage{}, fmt.Errorf("persistent id %s, want ('storage', class, key, location, numel)", describe(pid))
	}
	class, ok := t[1].(global)
	if !ok || class.module != "torch" || !strings.HasSuffix(class.name, "Storage") {
		return storage{}, fmt.Errorf("persistent id of %s, want a torch storage class", describe(t[1]))
	}
	key, ok1 := t[2].(string)
	loc, ok2 := t[3].(string)
	n, ok3 := t[4].(int64)
	if !ok1 || !ok2 || !ok3 || n < 0 || strings.ContainsAny(key, "/\\") {
		return storage{}, errors.New("persistent id: want a key, a location and an element count")
	}
	return storage{class: class.name, key: key, location: loc, numel: n}, nil
}

// call is REDUCE of the two callables a tensor's pickle calls.
func call(f, args any) (any, error) {
	g, ok := f.(global)
	a, ok2 := args.([]any)
	if !ok || !ok2 {
		return nil, fmt.Errorf("REDUCE of %s", describe(f))
	}
	switch g {
	case global{"collections", "OrderedDict"}:
		if len(a) != 0 {
			return nil, errors.New("collections.OrderedDict with arguments")
		}
		return orderedDict{}, nil
	case global{"torch._utils", "_rebuild_tensor_v2"}:
		return rebuild(a)
	}
	return nil, fmt.Errorf("a call of %s.%s, which a tensor's pickle does not make", g.module, g.name)
}

// rebuild is _rebuild_tensor_v2's view of its storage.
func rebuild(a []any) (tensorView, error) {
	if len(a) < 4 {
		return tensorView{}, errors.New("_rebuild_tensor_v2 wants storage, offset, size and stride")
	}
	s, ok := a[0].(storage)
	off, ok2 := a[1].(int64)
	if !ok || !ok2 || off < 0 {
		return tensorView{}, errors.New("_rebuild_tensor_v2 wants a storage and an offset")
	}
	shape, err := ints(a[2])
	if err != nil {
		return tensorView{}, fmt.Errorf("size: %w", err)
	}
	stride, err := ints(a[3])
	if err != nil {
		return tensorView{}, fmt.Errorf("stride: %w", err)
	}
	return tensorView{storage: s, offset: off, shape: shape, stride: stride}, nil
}

func ints(v any) ([]int, error) {
	t, ok := v.([]any)
	if !ok || len(t) > 16 {
		return nil, errors.New("want a tuple of at most 16 integers")
	}
	out := make([]int, len(t))
	for i, x := range t {
		n, ok := x.(int64)
		if !ok || n < 0 || n > MaxElements {
			return nil, fmt.Errorf("item %d: want an integer in [0, %d]", i, MaxElements)
		}
		out[i] = int(n)
	}
	return out, nil
}
