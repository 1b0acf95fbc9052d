package trt

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// bertPlan is a BERT-shaped engine: three int32 inputs [batch, sequence]
// whose sequence length varies from 4 to 64 in two profiles, and two
// float32 outputs [batch, sequence] (the fake's kernel writes the bytes of
// input_ids and input_mask there).
var bertPlan = fakePlan("profiles 2",
	"input input_ids int32 -1x-1 max=8x64 min=1x4",
	"input input_mask int32 -1x-1 max=8x64 min=1x4",
	"input segment_ids int32 -1x-1 max=8x64 min=1x4",
	"output start_logits float32 -1x-1",
	"output end_logits float32 -1x-1")

// bertInputs is the data set's schema for bertPlan, in another order than
// the engine's: tensors are matched by name.
var bertInputs = []sdk.TensorSpec{
	{Name: "segment_ids", DType: abi.Int32, Shape: []int{abi.Varies}},
	{Name: "input_ids", DType: abi.Int32, Shape: []int{abi.Varies}},
	{Name: "input_mask", DType: abi.Int32, Shape: []int{abi.Varies}},
}

// bertSample returns sample index's tensors at sequence length n, its
// bytes, and the output the fake engine gives it: its input_ids, then its
// input_mask, each n elements of four bytes.
func bertSample(index uint64, n int) (sdk.LoadedSample, []byte) {
	tensor := func(name string, base int) []byte {
		b := make([]byte, 4*n)
		for j := range n {
			binary.LittleEndian.PutUint32(b[4*j:], uint32(int(index)*1000+base+j))
		}
		return b
	}
	seg, ids, mask := tensor("segment_ids", 700), tensor("input_ids", 0), tensor("input_mask", 300)
	data := append(append(append([]byte(nil), seg...), ids...), mask...)
	s := sdk.LoadedSample{Index: index, Data: data}
	for i, spec := range bertInputs {
		s.Tensors = append(s.Tensors, sdk.Tensor{Name: spec.Name, DType: spec.DType, Shape: []int{n},
			Data: data[i*4*n : (i+1)*4*n]})
	}
	return s, append(append([]byte(nil), ids...), mask...)
}

// bertLength is sample i's sequence length: four lengths, interleaved.
func bertLength(i uint64) int { return []int{5, 17, 33, 64}[i%4] }

// bertSamples returns n samples of bertLength and their expected outputs.
func bertSamples(n int) ([]sdk.LoadedSample, map[uint64][]byte) {
	var samples []sdk.LoadedSample
	want := map[uint64][]byte{}
	for i := range uint64(n) {
		s, out := bertSample(i, bertLength(i))
		samples = append(samples, s)
		want[acceltest.IDBase+i] = out
	}
	return samples, want
}

// bertQuery is a query of the loaded samples, each with its tensors as the
// SDK passes them.
func bertQuery(samples []sdk.LoadedSample) sdk.Query {
	var q sdk.Query
	for _, s := range samples {
		q.Samples = append(q.Samples, sdk.Sample{ID: acceltest.IDBase + s.Index, Index: s.Index, Data: s.Data,
			Tensors: s.Tensors, WantOutput: true})
	}
	return q
}

// TestVariableShapesOffline: an Offline query of samples of four sequence
// lengths runs in batches of one length each, at most batch_size, every
// sample answered with its own output, whether its samples are loaded
// (pinned host memory, or the devices) or sent with the query.
func TestVariableShapesOffline(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts map[string]string
		load bool
	}{
		{name: "samples in pinned host memory", load: true},
		{name: "samples on the devices", opts: map[string]string{"start_from_device": "true"}, load: true},
		{name: "samples sent with the query"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 2, 1<<26)
			b, err := New(f.config())
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.Close() })
			require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: bertPlan, Options: tt.opts, Inputs: bertInputs,
				Run: sdk.Run{Scenario: sdk.ScenarioOffline}}))
			require.NoError(t, b.Warmup(t.Context()))
			const n = 40
			samples, want := bertSamples(n)
			if tt.load {
				require.NoError(t, b.LoadSamples(t.Context(), samples))
			}
			before := len(f.batches())
			rec := acceltest.NewRecorder()
			q := bertQuery(samples)
			if !tt.load {
				for i := range q.Samples {
					q.Samples[i].Data = append([]byte(nil), q.Samples[i].Data...)
				}
			}
			require.NoError(t, b.Infer(t.Context(), q, rec))
			out, failed, _ := rec.Results()
			require.Empty(t, failed)
			assert.Equal(t, want, out, "each sample's own output, of its own length")
			// 10 samples of each length: batches of 5 and 5, one length each.
			assert.Equal(t, []int{5, 5, 5, 5, 5, 5, 5, 5}, f.batches()[before:])
		})
	}
}

// TestVariableShapesServer: in Server the SDK batches one-sample queries of
// mixed lengths across queries; each call runs in batches of one length,
// and every sample gets its own output.
func TestVariableShapesServer(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<26)
	f.setDelay(int64(2*time.Millisecond), 0)
	b, err := New(f.config())
	require.NoError(t, err)
	srv := sdk.NewServer(b, sdk.ServerConfig{})
	t.Cleanup(func() { srv.Close() })
	info := srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
	require.Equal(t, abi.OK, abi.Code(info.GetStatus().GetCode()), info.GetStatus().GetMessage())
	req := &backendv1.LoadRequest{ModelBytes: bertPlan, Run: &backendv1.RunConfig{Scenario: string(sdk.ScenarioServer),
		Settings: &backendv1.TestSettings{TargetLatencyNs: uint64(100 * time.Millisecond), SamplesPerQuery: 1}}}
	for _, in := range bertInputs {
		req.Inputs = append(req.Inputs, &backendv1.TensorSpec{Name: in.Name, Dtype: string(in.DType), Shape: []int64{abi.Varies}})
	}
	load := srv.Load(t.Context(), req)
	require.Equal(t, abi.OK, abi.Code(load.GetStatus().GetCode()), load.GetStatus().GetMessage())
	const queries = 48
	samples, want := bertSamples(queries)
	ls := srv.LoadSamples(t.Context(), samples, nil)
	require.Equal(t, abi.OK, abi.Code(ls.GetStatus().GetCode()), ls.GetStatus().GetMessage())

	out := &shapedLog{codes: map[uint64]abi.Code{}, outputs: map[uint64][]byte{}}
	sess, err := srv.OpenSession(t.Context(), out)
	require.NoError(t, err)
	for i := range uint64(queries) {
		require.NoError(t, sess.Issue(abi.AppendIssueRecord(nil, abi.IssueRecord{ID: acceltest.IDBase + i, Index: i, Flags: abi.FlagWantOutput})))
	}
	sess.End()
	out.mu.Lock()
	defer out.mu.Unlock()
	require.Len(t, out.codes, queries)
	for id, w := range want {
		if assert.Equal(t, abi.OK, out.codes[id], "sample id %d: %s", id, out.outputs[id]) {
			assert.Equal(t, w, out.outputs[id], "sample id %d", id)
		}
	}
	ran := f.batches()
	assert.Less(t, len(ran), queries, "one-sample queries issued while the lanes were busy ran together")
}

// shapedLog is an sdk.SessionOutput that keeps each sample's last answer.
type shapedLog struct {
	mu      sync.Mutex
	codes   map[uint64]abi.Code
	outputs map[uint64][]byte
}

func (l *shapedLog) Complete(id uint64, code abi.Code, data []byte, _ int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.codes[id] = code
	l.outputs[id] = append([]byte(nil), data...)
}

func (l *shapedLog) FirstToken(uint64, []byte)    {}
func (l *shapedLog) Flushed(abi.Code, string)     {}
func (l *shapedLog) Violation(id uint64, _ error) { l.Complete(id, abi.Internal, nil, 0) }

// TestVariableShapeErrors: a sample the engine cannot take fails alone,
// with an error naming the sample and the tensor; the rest of its query
// runs.
func TestVariableShapeErrors(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<26)
	b, err := New(f.config())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: bertPlan, Inputs: bertInputs}))
	good, wantGood := bertSample(0, 12)
	long, _ := bertSample(1, 65)
	short, _ := bertSample(2, 3)
	bad, _ := bertSample(3, 8)
	bad.Tensors[2].Shape = []int{9} // input_mask's bytes are 8 elements
	q := bertQuery([]sdk.LoadedSample{good, long, short, bad})
	rec := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), q, rec))
	out, failed, _ := rec.Results()
	assert.Equal(t, map[uint64][]byte{acceltest.IDBase: wantGood}, out)
	require.Len(t, failed, 3)
	assert.EqualError(t, failed[acceltest.IDBase+1], `tensorrt: sample 1001 (index 1): tensor "input_ids" has shape [65], `+
		`outside engine input "input_ids"'s optimization profile (min [4], max [64])`)
	assert.ErrorContains(t, failed[acceltest.IDBase+2], `sample 1002 (index 2): tensor "input_ids" has shape [3], outside`)
	assert.EqualError(t, failed[acceltest.IDBase+3], `tensorrt: sample 1003 (index 3): tensor "input_mask" has 32 bytes, its shape [9] takes 36`)
}

// TestVariableShapeSchema: Load matches the engine's inputs with the data
// set's tensors and refuses a schema the engine cannot take.
func TestVariableShapeSchema(t *testing.T) {
	t.Parallel()
	spec := func(name string, dt abi.DType, shape ...int) sdk.TensorSpec {
		return sdk.TensorSpec{Name: name, DType: dt, Shape: shape}
	}
	tests := []struct {
		name   string
		inputs []sdk.TensorSpec
		want   string
	}{
		{name: "a tensor missing", inputs: bertInputs[:2], want: `engine input "input_mask": the data set has no tensor of that name`},
		{name: "another dtype", inputs: []sdk.TensorSpec{spec("input_ids", abi.Int64, -1), bertInputs[0], bertInputs[2]},
			want: `engine input "input_ids" is int32, data set tensor "input_ids" int64`},
		{name: "another rank", inputs: []sdk.TensorSpec{spec("input_ids", abi.Int32, -1, 2), bertInputs[0], bertInputs[2]},
			want: `engine input "input_ids" has shape [-1 -1], data set tensor "input_ids" [-1 2]`},
		{name: "other names, other count", inputs: []sdk.TensorSpec{spec("a", abi.Int32, -1)},
			want: "the engine's inputs [input_ids input_mask segment_ids] are not the data set's tensors [a]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<26)
			b, err := New(f.config())
			require.NoError(t, err)
			err = b.Load(t.Context(), sdk.Model{Bytes: bertPlan, Inputs: tt.inputs})
			require.ErrorContains(t, err, tt.want)
			require.NoError(t, b.Close())
			assert.Equal(t, liveObjects{}, f.live(), "a failed Load leaves nothing behind")
		})
	}
}

// TestFakeRefusesShapesOutsideProfile: the fake shim, like TensorRT's
// setInputShape, refuses a shape outside the context's profile, and
// reports an output's shape only once the inputs it follows are set.
func TestFakeRefusesShapesOutsideProfile(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<20)
	cuda, err := loadCudart([]string{f.cudartPath})
	require.NoError(t, err)
	api, err := loadShim([]string{f.shimPath})
	require.NoError(t, err)
	require.NoError(t, cuda.SetDevice(0))
	rt, err := api.RuntimeCreate()
	require.NoError(t, err)
	defer api.RuntimeDestroy(rt)
	eng, err := api.Deserialize(rt, bertPlan)
	require.NoError(t, err)
	defer api.EngineDestroy(eng)
	ctx, err := api.ContextCreate(eng)
	require.NoError(t, err)
	defer api.ContextDestroy(ctx)
	errBuf := make([]byte, errBufBytes)
	ids, out := []byte("input_ids\x00"), []byte("start_logits\x00")
	var d [maxDims]int64
	_, err = api.TensorShape(ctx, out, &d)
	require.Error(t, err, "no input shape set yet")
	require.ErrorContains(t, api.SetInputShape(ctx, ids, []int64{2, 65}, errBuf), "input_ids dimension 1 is 65, outside the profile's [4,64]")
	require.ErrorContains(t, api.SetInputShape(ctx, ids, []int64{2, 3}, errBuf), "outside the profile's [4,64]")
	require.ErrorContains(t, api.SetInputShape(ctx, ids, []int64{9, 8}, errBuf), "batch 9 outside profile [1,8]")
	require.NoError(t, api.SetInputShape(ctx, ids, []int64{2, 64}, errBuf))
	rank, err := api.TensorShape(ctx, out, &d)
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 64}, d[:rank], "the output follows input_ids")
}

// TestBuildVariableShapes: the build takes the ranges of the inputs that
// vary beyond the batch from build_shapes, keeps the engine under a key
// that names them, and the engine runs samples of any length in range.
func TestBuildVariableShapes(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<26)
	onnx := fakeONNX("input input_ids int32 -1", "input input_mask int32 -1", "input segment_ids int32 -1",
		"output start_logits float32 -1", "output end_logits float32 -1")
	cache := t.TempDir()
	load := func(shapes string) (*Backend, error) {
		b, err := New(f.config())
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		return b, b.Load(t.Context(), sdk.Model{Bytes: onnx, Inputs: bertInputs, Options: map[string]string{
			"build": "true", "batch_size": "8", "engine_cache": cache, "build_shapes": shapes}})
	}
	b, err := load("input_ids:4/32/64,input_mask:4/32/64,segment_ids:4/32/64")
	require.NoError(t, err)
	samples, want := bertSamples(8)
	require.NoError(t, b.LoadSamples(t.Context(), samples))
	rec := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), bertQuery(samples), rec))
	out, failed, _ := rec.Results()
	require.Empty(t, failed)
	assert.Equal(t, want, out)

	_, err = load("input_ids:4/32/32,input_mask:4/32/32,segment_ids:4/32/32")
	require.NoError(t, err)
	assert.Equal(t, int64(2), f.builds(), "other ranges, another engine")
	_, err = load("input_ids:4/32/64,input_mask:4/32/64,segment_ids:4/32/64")
	require.NoError(t, err)
	assert.Equal(t, int64(2), f.builds(), "the same ranges: the cached engine")
}
