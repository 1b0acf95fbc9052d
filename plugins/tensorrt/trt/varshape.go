package trt

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// An engine whose inputs vary beyond the batch (BERT's sequence length)
// runs each batch with the whole input shapes its samples have. Samples
// of different shapes never share a batch: the scheduler groups a query's
// samples by shape (see compareShapes) and cuts each group into batches,
// so every sample runs at its own shape and gets exactly the output a
// batch of one would give it. Padding samples to the batch's longest
// would change the output of a model that does not mask the padding, and
// every output would need cutting back (RATIONALE.md).

// checkVarShape refuses what a varying engine cannot run with: CUDA graphs
// (one graph per batch size, not per shape), the gather kernel (rows of
// one size) and several engines (one range of shapes sizes the buffers).
func (m *model) checkVarShape(variants int) error {
	if !m.layout.varShape {
		return nil
	}
	var errs []error
	if m.cfg.Graphs {
		errs = append(errs, errors.New("cuda_graphs: not for an engine whose inputs vary beyond the batch"))
	}
	if m.cfg.Gather == GatherKernel {
		errs = append(errs, errors.New("gather=kernel: not for an engine whose inputs vary beyond the batch"))
	}
	if variants > 1 {
		errs = append(errs, errors.New("engines: one engine only when the inputs vary beyond the batch"))
	}
	return errors.Join(errs...)
}

// bindInputs matches the engine's inputs with the data set's tensors (the
// host's schema): by name, or in order when no name matches and the counts
// agree. An engine whose inputs vary beyond the batch needs the schema:
// a sample's shapes come from its tensors. Without one (an older host) a
// sample is the engine's inputs' rows back to back, as for any engine.
func (m *model) bindInputs(schema []sdk.TensorSpec) error {
	if len(schema) == 0 {
		if m.layout.varShape {
			return errors.New("tensorrt: the engine's inputs vary beyond the batch, and the host declared no data set tensors " +
				"to take each sample's shapes from (a host older than ABI v1.2, or a data set without a schema)")
		}
		return nil
	}
	if !m.layout.varShape {
		return nil
	}
	names := make([]string, len(schema))
	for i, s := range schema {
		names[i] = s.Name
	}
	byName := slices.ContainsFunc(m.layout.inputs, func(t tensorInfo) bool { return slices.Contains(names, t.name) })
	if !byName && len(schema) != len(m.layout.inputs) {
		return fmt.Errorf("tensorrt: the engine's inputs %v are not the data set's tensors %v", inputNames(m.layout), names)
	}
	m.src = make([]int, len(m.layout.inputs))
	for k, t := range m.layout.inputs {
		src := k
		if byName {
			if src = slices.Index(names, t.name); src < 0 {
				return fmt.Errorf("tensorrt: engine input %q: the data set has no tensor of that name (its tensors: %v)", t.name, names)
			}
		}
		spec := schema[src]
		if string(spec.DType) != dataTypes[t.dtype].name {
			return fmt.Errorf("tensorrt: engine input %q is %s, data set tensor %q %s", t.name, dataTypes[t.dtype].name, spec.Name, spec.DType)
		}
		if len(spec.Shape) != len(t.dims)-1 {
			return fmt.Errorf("tensorrt: engine input %q has shape %v, data set tensor %q %v: want the engine's shape less the batch",
				t.name, t.dims, spec.Name, spec.Shape)
		}
		m.src[k] = src
	}
	return nil
}

func inputNames(l *layout) []string {
	out := make([]string, len(l.inputs))
	for i, t := range l.inputs {
		out[i] = t.name
	}
	return out
}

// compareShapes orders samples by the shapes of the engine's inputs:
// samples that compare equal may share a batch.
func (m *model) compareShapes(a, b *sdk.Sample) int {
	for _, src := range m.src {
		if c := slices.Compare(shapeOf(a, src), shapeOf(b, src)); c != 0 {
			return c
		}
	}
	return 0
}

// shapeOf returns the shape of tensor src of s, nil when s has none.
func shapeOf(s *sdk.Sample, src int) []int {
	if src >= len(s.Tensors) {
		return nil
	}
	return s.Tensors[src].Shape
}

// checkSample reports why sample s cannot run on the engine: a missing
// tensor, a shape the engine's input does not take (outside its
// optimization profile's range) or bytes that are not its shape's.
func (m *model) checkSample(s *sdk.Sample) error {
	for k, src := range m.src {
		in := &m.layout.inputs[k]
		if src >= len(s.Tensors) {
			return fmt.Errorf("tensorrt: sample %d (index %d) has no tensor for engine input %q", s.ID, s.Index, in.name)
		}
		t := &s.Tensors[src]
		if len(t.Shape) != len(in.dims)-1 {
			return fmt.Errorf("tensorrt: sample %d (index %d): tensor %q has shape %v, engine input %q takes %v",
				s.ID, s.Index, t.Name, t.Shape, in.name, in.dims[1:])
		}
		elems := int64(1)
		for d, n := range t.Shape {
			lo, hi := in.dims[d+1], in.dims[d+1]
			if in.varies && lo < 0 {
				lo, hi = in.lo[d], in.hi[d]
			}
			if int64(n) < lo || int64(n) > hi {
				return fmt.Errorf("tensorrt: sample %d (index %d): tensor %q has shape %v, outside engine input %q's "+
					"optimization profile (min %v, max %v)", s.ID, s.Index, t.Name, t.Shape, in.name, profileBound(in, in.lo), profileBound(in, in.hi))
			}
			elems *= int64(n)
		}
		if want := elems * int64(in.bits) / 8; int64(len(t.Data)) != want {
			return fmt.Errorf("tensorrt: sample %d (index %d): tensor %q has %d bytes, its shape %v takes %d",
				s.ID, s.Index, t.Name, len(t.Data), t.Shape, want)
		}
	}
	return nil
}

// profileBound returns an input's dimensions after the batch with its
// dynamic ones at bound (lo or hi).
func profileBound(in *tensorInfo, bound []int64) []int64 {
	out := slices.Clone(in.dims[1:])
	for d := range out {
		if out[d] < 0 {
			out[d] = bound[d]
		}
	}
	return out
}

// stageShaped queues the copies of a batch of an engine whose inputs vary:
// each sample's tensors from its arena (or, sent with the query, through
// the lane's pinned buffers), at the rows of the batch's shape, which its
// first sample that runs sets. A sample that cannot run, or whose shape
// is not the batch's, fails here.
func (l *lane) stageShaped(b *accel.Batch) (want bool, err error) {
	l.copies = l.copies[:0]
	m := l.m
	first := -1
	for i := range b.Samples {
		s := &b.Samples[i]
		want = want || s.WantOutput
		err := m.checkSample(s)
		if err == nil && first >= 0 && m.compareShapes(&b.Samples[first], s) != 0 {
			err = fmt.Errorf("tensorrt: sample %d (index %d): its shapes differ from its batch's", s.ID, s.Index)
		}
		if err != nil {
			l.failed[i] = true
			b.Fail(s.ID, err)
			continue
		}
		if first < 0 {
			first = i
			for k, src := range m.src {
				for d, n := range s.Tensors[src].Shape {
					l.shape[k][d] = int64(n)
				}
			}
		}
		p, loaded := m.samples.place(s.Index)
		for k, src := range m.src {
			buf := &l.in[k]
			t := &s.Tensors[src]
			size := uintptr(len(t.Data))
			dst := buf.dev + uintptr(i)*size
			if loaded {
				l.addCopy(dst, p.a.packed(l.dev.slot, p.pos, tensorOffset(s, src)), size, p.a)
			} else {
				copy(native.Bytes(buf.host, m.rowsCap*buf.t.sampleBytes)[i*int(size):], t.Data)
				l.addCopy(dst, buf.hostAddr()+uintptr(i)*size, size, nil)
			}
		}
	}
	if first < 0 {
		return want, nil
	}
	return want, l.gather()
}

// tensorOffset returns where tensor src starts in sample s's bytes: the
// tensors lie back to back, in the schema's order.
func tensorOffset(s *sdk.Sample, src int) int {
	off := 0
	for _, t := range s.Tensors[:src] {
		off += len(t.Data)
	}
	return off
}
