package pickle

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// TorchStorage is a storage that a torch.save pickle names by persistent
// id, ('storage', torch.<Type>Storage, key, location, numel): its
// elements are the archive's entry data/<key>.
type TorchStorage struct {
	// Type is the storage class ("FloatStorage", "HalfStorage", ...).
	Type string
	// Key names its entry; Location is the device it was saved from.
	Key, Location string
	// Numel is its element count.
	Numel int64
}

// TorchTensor is torch._utils._rebuild_tensor_v2(storage, storage_offset,
// size, stride, requires_grad, backward_hooks): a view of a storage.
type TorchTensor struct {
	Storage TorchStorage
	// Offset is the view's first element in the storage.
	Offset int64
	Shape  []int
	Stride []int
}

// Contiguous reports whether the view's elements are its storage's
// from Offset on, in C order.
func (t *TorchTensor) Contiguous() bool {
	if len(t.Stride) != len(t.Shape) {
		return false
	}
	want := 1
	for i := len(t.Shape) - 1; i >= 0; i-- {
		if t.Shape[i] != 1 && t.Stride[i] != want {
			return false
		}
		want *= t.Shape[i]
	}
	return true
}

// Elements is the view's element count.
func (t *TorchTensor) Elements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// torchRebuild is the function a torch.save pickle rebuilds a tensor
// with.
const torchRebuild = "torch._utils._rebuild_tensor_v2"

// TorchTensorOf reads what Load returns for a torch.save archive's
// data.pkl of one tensor: the uncalled _rebuild_tensor_v2(storage,
// storage_offset, size, stride, ...) whose storage is the persistent id
// ('storage', torch.<Type>Storage, key, location, numel).
//
// # Errors
//
// Says what v is instead: another call or value, a persistent id of
// another form, a negative offset, a size and a stride of different
// lengths.
func TorchTensorOf(v any) (*TorchTensor, error) {
	fn, a, ok := Call(v)
	if !ok || fn != torchRebuild || len(a) < 4 {
		return nil, fmt.Errorf("want one tensor (%s), got %T %s", torchRebuild, v, fn)
	}
	p, ok := a[0].(Persistent)
	if !ok {
		return nil, fmt.Errorf("_rebuild_tensor_v2 of %T, want a persistent storage id", a[0])
	}
	s, err := torchStorage(p.ID)
	if err != nil {
		return nil, err
	}
	off, ok := a[1].(int64)
	if !ok || off < 0 {
		return nil, fmt.Errorf("_rebuild_tensor_v2 storage offset %v", a[1])
	}
	shape, err := intTuple(a[2])
	if err != nil {
		return nil, err
	}
	stride, err := intTuple(a[3])
	if err != nil {
		return nil, fmt.Errorf("stride: %w", err)
	}
	if len(stride) != len(shape) {
		return nil, fmt.Errorf("_rebuild_tensor_v2 of size %v and stride %v", shape, stride)
	}
	return &TorchTensor{Storage: s, Offset: off, Shape: shape, Stride: stride}, nil
}

// torchStorage reads a storage's persistent id.
func torchStorage(pid any) (TorchStorage, error) {
	t, ok := pid.(Tuple)
	if !ok || len(t) != 5 || t[0] != "storage" {
		return TorchStorage{}, fmt.Errorf("persistent id %v: want ('storage', class, key, location, numel)", pid)
	}
	class, ok := Global(t[1])
	if !ok || !strings.HasPrefix(class, "torch.") || !strings.HasSuffix(class, "Storage") {
		return TorchStorage{}, fmt.Errorf("persistent id of %v: want a torch storage class", t[1])
	}
	key, ok1 := t[2].(string)
	loc, ok2 := t[3].(string)
	n, ok3 := t[4].(int64)
	if !ok1 || !ok2 || !ok3 || n < 0 || key == "" || key == ".." || strings.Contains(key, "/") {
		return TorchStorage{}, fmt.Errorf("persistent id %v: want a plain string key and location and a count", pid)
	}
	return TorchStorage{Type: strings.TrimPrefix(class, "torch."), Key: key, Location: loc, Numel: n}, nil
}

// TorchTensor appends a contiguous tensor of storage class class
// ("FloatStorage") and shape, its storage data/<key>, as torch.save
// writes it: protocol 2's text globals and a memo entry for every
// object (EncodeProtocol2 then writes the pickle).
func (p *Writer) TorchTensor(class, key string, shape []int) {
	memo := 0
	put := func() {
		p.Op('q', byte(memo))
		memo++
	}
	str := func(s string) {
		p.Op('X')
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(len(s)))
		p.b = append(p.b, s...)
		put()
	}
	global := func(module, name string) {
		p.Op('c')
		p.b = append(p.b, module+"\n"+name+"\n"...)
		put()
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	global("torch._utils", "_rebuild_tensor_v2")
	p.Op('(', '(')
	str("storage")
	global("torch", class)
	str(key)
	str("cpu")
	p.Int(n)
	p.Op('t')
	put()
	p.Op('Q')
	p.Int(0)
	p.Op('(')
	for _, d := range shape {
		p.Int(d)
	}
	p.Op('t')
	put()
	p.Op('(')
	stride := 1
	strides := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = stride
		stride *= shape[i]
	}
	for _, s := range strides {
		p.Int(s)
	}
	p.Op('t')
	put()
	p.Op(0x89)
	global("collections", "OrderedDict")
	p.Op(')', 'R')
	put()
	p.Op('t')
	put()
	p.Op('R')
	put()
}
