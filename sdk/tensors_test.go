//go:build !wasip1

package sdk

import (
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

var bertInputs = []*backendv1.TensorSpec{
	{Name: "input_ids", Dtype: "int32", Shape: []int64{-1}},
	{Name: "input_mask", Dtype: "int32", Shape: []int64{-1}},
	{Name: "segment_ids", Dtype: "int32", Shape: []int64{-1}},
}

// bertSample is a sample of length l: three int32 tensors back to back,
// and their references.
func bertSample(index uint64, l int) ([]byte, []*backendv1.TensorRef) {
	var data []byte
	var refs []*backendv1.TensorRef
	for k := range 3 {
		refs = append(refs, &backendv1.TensorRef{Tensor: uint32(k), Shape: []int64{int64(l)}, Offset: uint64(len(data)), Length: uint64(4 * l)})
		for j := range l {
			data = binary.LittleEndian.AppendUint32(data, uint32(int(index)*1000+100*k+j))
		}
	}
	return data, refs
}

// tensorBackend records the tensors Load and Infer see and weighs each
// sample by its sequence length.
type tensorBackend struct {
	nullBackend
	mu      sync.Mutex
	inputs  []TensorSpec
	seen    map[uint64][]Tensor
	batches [][]uint64
}

func (b *tensorBackend) Info() Info { return Info{Name: "tensors", MaxBatch: 10, MaxInFlight: 1} }

func (b *tensorBackend) Load(_ context.Context, m Model) error { b.inputs = m.Inputs; return nil }

func (b *tensorBackend) Units(s LoadedSample) int {
	t, _ := s.Tensor("input_ids")
	return t.Shape[0]
}

func (b *tensorBackend) Infer(_ context.Context, q Query, c Completer) error {
	b.mu.Lock()
	var ids []uint64
	for _, s := range q.Samples {
		if b.seen == nil {
			b.seen = map[uint64][]Tensor{}
		}
		b.seen[s.ID] = slices.Clone(s.Tensors)
		ids = append(ids, s.ID)
	}
	b.batches = append(b.batches, ids)
	b.mu.Unlock()
	for _, s := range q.Samples {
		c.Complete(s.ID, nil, 0)
	}
	return nil
}

var _ BatchSizer = (*tensorBackend)(nil)

func TestTensorsReachInfer(t *testing.T) {
	t.Parallel()
	b := &tensorBackend{}
	srv := NewServer(b, ServerConfig{})
	requireStatus(t, abi.OK, srv.Load(t.Context(), &backendv1.LoadRequest{Inputs: bertInputs}).GetStatus())
	require.Len(t, b.inputs, 3)
	assert.Equal(t, TensorSpec{Name: "input_mask", DType: abi.Int32, Shape: []int{-1}}, b.inputs[1])

	// Through the gRPC transport's decoding, lengths 3, 4, 5, 6.
	req := &backendv1.LoadSamplesRequest{}
	for i := range uint64(4) {
		data, refs := bertSample(i, 3+int(i))
		req.Samples = append(req.Samples, &backendv1.SampleRef{Index: i, Data: data, Length: uint64(len(data)), Tensors: refs})
	}
	samples, _, err := resolveSamples(req, "")
	require.NoError(t, err)
	requireStatus(t, abi.OK, srv.LoadSamples(t.Context(), samples, nil).GetStatus())

	a := newAnswers()
	s, err := srv.OpenSession(t.Context(), a)
	require.NoError(t, err)
	var recs []byte
	for i := range uint64(4) {
		recs = abi.AppendIssueRecord(recs, abi.IssueRecord{ID: 10 + i, Index: i})
	}
	require.NoError(t, s.Issue(recs))
	s.End()
	a.eachOnceFrom(t, 10, 4)
	for i := range uint64(4) {
		ts := b.seen[10+i]
		require.Len(t, ts, 3)
		for k, name := range []string{"input_ids", "input_mask", "segment_ids"} {
			assert.Equal(t, name, ts[k].Name)
			assert.Equal(t, []int{3 + int(i)}, ts[k].Shape)
			assert.Equal(t, uint32(int(i)*1000+100*k), binary.LittleEndian.Uint32(ts[k].Data), "tensor %s of sample %d", name, i)
		}
	}
	// Batches of at most 10 units (tokens): 3+4, 5, 6.
	assert.Equal(t, [][]uint64{{10, 11}, {12}, {13}}, b.batches)
}

func TestTensorsRejected(t *testing.T) {
	t.Parallel()
	data, refs := bertSample(0, 4)
	tests := []struct {
		name   string
		inputs []*backendv1.TensorSpec
		refs   func() []*backendv1.TensorRef
		want   string
	}{
		{name: "bad dtype", inputs: []*backendv1.TensorSpec{{Name: "x", Dtype: "int3"}}, want: `dtype "int3"`},
		{name: "twice", inputs: []*backendv1.TensorSpec{{Name: "x", Dtype: "int8"}, {Name: "x", Dtype: "int8"}}, want: "declared twice"},
		{name: "too few tensors", inputs: bertInputs, refs: func() []*backendv1.TensorRef { return refs[:2] }, want: "2 tensors, the inputs declare 3"},
		{name: "out of the sample", inputs: bertInputs, want: "outside the sample's 48", refs: func() []*backendv1.TensorRef {
			r := cloneRefs(refs)
			r[2].Offset = 40
			return r
		}},
		{name: "length and shape disagree", inputs: bertInputs, want: "has 16 bytes, want 20", refs: func() []*backendv1.TensorRef {
			r := cloneRefs(refs)
			r[1].Shape = []int64{5}
			return r
		}},
		{name: "order", inputs: bertInputs, want: "want the inputs' order", refs: func() []*backendv1.TensorRef {
			r := cloneRefs(refs)
			r[0].Tensor, r[1].Tensor = 1, 0
			return r
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := NewServer(&tensorBackend{}, ServerConfig{})
			st := srv.Load(t.Context(), &backendv1.LoadRequest{Inputs: tt.inputs}).GetStatus()
			if tt.refs == nil {
				requireStatus(t, abi.InvalidArgument, st)
				assert.Contains(t, st.GetMessage(), tt.want)
				return
			}
			requireStatus(t, abi.OK, st)
			samples, _, err := resolveSamples(&backendv1.LoadSamplesRequest{Samples: []*backendv1.SampleRef{
				{Index: 7, Data: data, Length: uint64(len(data)), Tensors: tt.refs()}}}, "")
			require.NoError(t, err)
			st = srv.LoadSamples(t.Context(), samples, nil).GetStatus()
			requireStatus(t, abi.InvalidArgument, st)
			assert.Contains(t, st.GetMessage(), "sample index 7: ")
			assert.Contains(t, st.GetMessage(), tt.want)
		})
	}
}

func cloneRefs(rs []*backendv1.TensorRef) []*backendv1.TensorRef {
	out := make([]*backendv1.TensorRef, len(rs))
	for i, r := range rs {
		out[i] = proto.CloneOf(r)
	}
	return out
}

func requireStatus(t *testing.T, want abi.Code, st *backendv1.Status) {
	t.Helper()
	require.Equal(t, want.String(), abi.Code(st.GetCode()).String(), st.GetMessage())
}

// eachOnceFrom checks that ids from..from+n-1 were answered exactly once.
func (a *answers) eachOnceFrom(t *testing.T, from uint64, n int) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	assert.Empty(t, a.bugs)
	assert.Len(t, a.codes, n)
	for id := from; id < from+uint64(n); id++ {
		assert.Len(t, a.codes[id], 1, "sample id %d", id)
	}
}

// FuzzResolveTensors feeds the tensor references a host hands a plugin:
// no input makes the SDK panic, and every tensor it accepts lies inside
// the sample, as long as its shape needs.
func FuzzResolveTensors(f *testing.F) {
	data, _ := bertSample(0, 3)
	f.Add(data, uint32(0), int64(3), uint64(0), uint64(12), int64(-1))
	f.Add(data, uint32(0), int64(1<<40), uint64(0), uint64(12), int64(-1))
	f.Add(data[:5], uint32(0), int64(3), uint64(4), uint64(12), int64(3))
	f.Fuzz(func(t *testing.T, data []byte, tensor uint32, dim int64, off, length uint64, specDim int64) {
		inputs, err := inputsFrom([]*backendv1.TensorSpec{{Name: "x", Dtype: "int32", Shape: []int64{specDim}}})
		if err != nil {
			return
		}
		ts, err := resolveTensors(inputs, []tensorRef{{tensor: tensor, shape: []int64{dim}, offset: off, length: length}}, data)
		if err != nil {
			return
		}
		require.Len(t, ts, 1)
		require.Len(t, ts[0].Data, ts[0].Elements()*4)
		require.LessOrEqual(t, off+length, uint64(len(data)))
	})
}
