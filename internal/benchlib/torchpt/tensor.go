package torchpt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// rebuildTensor is the call a tensor's pickle makes.
const rebuildTensor = "torch._utils._rebuild_tensor_v2"

// storage is a persistent id's storage: ('storage', torch.<Type>Storage,
// key, location, numel).
type storage struct {
	class, key string
	numel      int64
}

// tensorView is _rebuild_tensor_v2(storage, offset, size, stride,
// requires_grad, backward_hooks): a view of a storage.
type tensorView struct {
	storage       storage
	offset        int64
	shape, stride []int
}

// contiguous reports whether the view's elements are its storage's in C
// order from its offset on.
func (t tensorView) contiguous() bool {
	want := 1
	for i := len(t.shape) - 1; i >= 0; i-- {
		if t.shape[i] != 1 && t.stride[i] != want {
			return false
		}
		want *= t.shape[i]
	}
	return true
}

// viewOf reads the tensor of an unpickled data.pkl: package pickle
// leaves torch's rebuild call uncalled and its storage a persistent id.
func viewOf(v any) (tensorView, error) {
	fn, a, ok := pickle.Call(v)
	if !ok || fn != rebuildTensor || len(a) < 4 {
		return tensorView{}, fmt.Errorf("a pickle of %T %s, want one tensor (%s)", v, fn, rebuildTensor)
	}
	p, ok := a[0].(pickle.Persistent)
	id, _ := p.ID.(pickle.Tuple)
	if !ok || len(id) != 5 || id[0] != "storage" {
		return tensorView{}, errors.New("a tensor whose storage is not ('storage', class, key, location, numel)")
	}
	class, _ := pickle.Global(id[1])
	key, ok1 := id[2].(string)
	_, ok2 := id[3].(string)
	n, ok3 := id[4].(int64)
	if !strings.HasPrefix(class, "torch.") || !ok1 || !ok2 || !ok3 || n < 0 || key == "" || strings.ContainsAny(key, `/\`) || key == ".." {
		return tensorView{}, fmt.Errorf("storage %v: want a torch storage class, a key, a location and an element count", id)
	}
	off, ok := a[1].(int64)
	if !ok || off < 0 {
		return tensorView{}, fmt.Errorf("storage offset %v", a[1])
	}
	shape, err := ints(a[2])
	if err != nil {
		return tensorView{}, fmt.Errorf("size: %w", err)
	}
	if tooMany(shape) {
		return tensorView{}, fmt.Errorf("size %v: over %d elements", shape, MaxElements)
	}
	stride, err := ints(a[3])
	if err != nil || len(stride) != len(shape) {
		return tensorView{}, fmt.Errorf("stride %v of size %v", a[3], a[2])
	}
	return tensorView{storage: storage{class: strings.TrimPrefix(class, "torch."), key: key, numel: n}, offset: off, shape: shape, stride: stride}, nil
}

// tooMany reports whether shape's sizes, zeros aside, multiply to over
// MaxElements: each is at most MaxElements, so the product checked after
// each factor never overflows.
func tooMany(shape []int) bool {
	n := 1
	for _, d := range shape {
		if n *= max(d, 1); n > MaxElements {
			return true
		}
	}
	return false
}

func ints(v any) ([]int, error) {
	t, ok := v.(pickle.Tuple)
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
