package goengine

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// attrs reads a node's attributes with type checks. The first problem is
// kept in err and later reads return defaults; done reports it, or any
// attribute the operator never read (an attribute the engine does not
// implement must fail the load, never be ignored).
type attrs struct {
	n    *onnxpb.Node
	read map[string]bool
	err  error
}

func newAttrs(n *onnxpb.Node) *attrs {
	a := &attrs{n: n, read: map[string]bool{}}
	for i := range n.Attrs {
		at := &n.Attrs[i]
		switch {
		case at.RefAttrName != "":
			a.fail(unsupported("attribute %q refers to a function attribute", at.Name))
		default:
			if _, dup := a.read[at.Name]; dup {
				a.fail(invalid("attribute %q given twice", at.Name))
			}
		}
		a.read[at.Name] = false
	}
	return a
}

func (a *attrs) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

func (a *attrs) get(name string, want onnxpb.AttrType) *onnxpb.Attr {
	at, ok := a.n.Attr(name)
	if !ok {
		return nil
	}
	a.read[name] = true
	if at.Type != want {
		a.fail(invalid("attribute %q is %v, want %v", name, at.Type, want))
		return nil
	}
	return at
}

func (a *attrs) has(name string) bool {
	_, ok := a.n.Attr(name)
	return ok
}

func (a *attrs) int(name string, def int64) int64 {
	if at := a.get(name, onnxpb.AttrInt); at != nil {
		return at.I
	}
	return def
}

func (a *attrs) float(name string, def float32) float32 {
	if at := a.get(name, onnxpb.AttrFloat); at != nil {
		return at.F
	}
	return def
}

func (a *attrs) str(name, def string) string {
	if at := a.get(name, onnxpb.AttrString); at != nil {
		return string(at.S)
	}
	return def
}

// ints returns an INTS attribute converted to int, or def when absent.
func (a *attrs) ints(name string, def []int) []int {
	at := a.get(name, onnxpb.AttrInts)
	if at == nil {
		return def
	}
	out := make([]int, len(at.Ints))
	for i, v := range at.Ints {
		if v < -1<<31 || v > 1<<31-1 {
			a.fail(invalid("attribute %q value %d out of range", name, v))
			return def
		}
		out[i] = int(v)
	}
	return out
}

func (a *attrs) floats(name string) []float32 {
	if at := a.get(name, onnxpb.AttrFloats); at != nil {
		return at.Floats
	}
	return nil
}

func (a *attrs) tensor(name string) *onnxpb.Tensor {
	if at := a.get(name, onnxpb.AttrTensor); at != nil {
		if at.T == nil {
			a.fail(invalid("attribute %q has no tensor", name))
		}
		return at.T
	}
	return nil
}

// done returns the first error, or an unsupported error naming an
// attribute nobody read.
func (a *attrs) done() error {
	if a.err != nil {
		return a.err
	}
	for i := range a.n.Attrs {
		if name := a.n.Attrs[i].Name; !a.read[name] {
			return unsupported("attribute %q", name)
		}
	}
	return nil
}
