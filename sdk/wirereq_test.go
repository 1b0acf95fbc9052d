package sdk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// wire builds protobuf bytes by hand, for inputs proto.Marshal never
// writes.
type wire []byte

func (w wire) bytes(num protowire.Number, v []byte) wire {
	return protowire.AppendBytes(protowire.AppendTag(w, num, protowire.BytesType), v)
}

func (w wire) varint(num protowire.Number, v uint64) wire {
	return protowire.AppendVarint(protowire.AppendTag(w, num, protowire.VarintType), v)
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	badUTF8 := []byte{0xff, 0xfe}
	tests := []struct {
		name    string
		in      []byte
		samples bool // LoadSamplesRequest, else LoadRequest
		wantErr string
	}{
		{name: "truncated tag", in: []byte{0x80}, wantErr: "unexpected EOF"},
		{name: "field number zero", in: []byte{0x02, 0x00}, wantErr: "invalid field number"},
		{name: "truncated length", in: []byte{0x12, 0x05, 'a'}, wantErr: "field 2: unexpected EOF"},
		{name: "truncated varint", in: []byte{0x08, 0x80}, wantErr: "field 1: unexpected EOF"},
		{name: "model path not UTF-8", in: wire(nil).bytes(1, badUTF8), wantErr: "model_path is not UTF-8"},
		{name: "option key not UTF-8", in: wire(nil).bytes(3, wire(nil).bytes(1, badUTF8)), wantErr: "an option is not UTF-8"},
		{name: "option value not UTF-8", in: wire(nil).bytes(3, wire(nil).bytes(1, []byte("k")).bytes(2, badUTF8)), wantErr: "an option is not UTF-8"},
		{name: "malformed option entry", in: wire(nil).bytes(3, []byte{0x0a, 0x09}), wantErr: "field 1: unexpected EOF"},
		{name: "arena path not UTF-8", samples: true, in: wire(nil).bytes(1, wire(nil).bytes(1, badUTF8)), wantErr: "arena path is not UTF-8"},
		{name: "malformed arena", samples: true, in: wire(nil).bytes(1, []byte{0x10}), wantErr: "field 2: unexpected EOF"},
		{name: "malformed sample", samples: true, in: wire(nil).bytes(2, []byte{0x22, 0x03}), wantErr: "field 4: unexpected EOF"},
		{name: "truncated samples", samples: true, in: []byte{0x12, 0x01}, wantErr: "field 2: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var err error
			if tt.samples {
				_, err = decodeLoadSamplesRequest(tt.in)
			} else {
				_, err = decodeLoadRequest(tt.in)
			}
			require.ErrorIs(t, err, errWire)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestDecodeLoadRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []byte
		want wireModel
	}{
		{name: "empty", in: nil, want: wireModel{}},
		{name: "all fields", in: mustMarshal(t, &backendv1.LoadRequest{ModelPath: "m.onnx", ModelBytes: []byte{1, 2},
			Options: map[string]string{"threads": "4", "": "empty key"}}),
			want: wireModel{path: "m.onnx", bytes: []byte{1, 2}, options: map[string]string{"threads": "4", "": "empty key"}}},
		// Unknown fields and known fields of another wire type are
		// skipped, as proto.Unmarshal does.
		{name: "unknown and mistyped fields", in: wire(nil).varint(1, 5).bytes(9, []byte("x")).bytes(1, []byte("p")),
			want: wireModel{path: "p"}},
		{name: "run", in: mustMarshal(t, &backendv1.LoadRequest{Run: &backendv1.RunConfig{Benchmark: "bert-99", Scenario: "Server"}}),
			want: wireModel{run: &backendv1.RunConfig{Benchmark: "bert-99", Scenario: "Server"}}},
		{name: "last option wins", in: wire(nil).bytes(3, wire(nil).bytes(1, []byte("k")).bytes(2, []byte("a"))).
			bytes(3, wire(nil).bytes(1, []byte("k")).bytes(2, []byte("b"))),
			want: wireModel{options: map[string]string{"k": "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeLoadRequest(tt.in)
			require.NoError(t, err)
			assert.True(t, proto.Equal(tt.want.run, got.run), "run %v", got.run)
			tt.want.run, got.run = nil, nil
			assert.Equal(t, tt.want, got)
			checkLoadRequest(t, tt.in)
		})
	}
}

func TestDecodeLoadSamplesRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []byte
		want wireSamples
	}{
		{name: "empty", in: nil, want: wireSamples{}},
		{name: "arena", in: mustMarshal(t, &backendv1.LoadSamplesRequest{Arena: &backendv1.Arena{Path: "/dev/shm/a", Size: 10},
			Samples: []*backendv1.SampleRef{{Index: 1, Offset: 2, Length: 3}, {Index: 4}}}),
			want: wireSamples{hasArena: true, arenaPath: "/dev/shm/a", arenaSize: 10,
				samples: []wireSampleRef{{index: 1, offset: 2, length: 3}, {index: 4}}}},
		{name: "inline data", in: mustMarshal(t, &backendv1.LoadSamplesRequest{Samples: []*backendv1.SampleRef{{Index: 7, Data: []byte("abc")}}}),
			want: wireSamples{samples: []wireSampleRef{{index: 7, data: []byte("abc")}}}},
		// An empty arena message still says there is an arena.
		{name: "empty arena", in: wire(nil).bytes(1, nil), want: wireSamples{hasArena: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeLoadSamplesRequest(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			checkLoadSamplesRequest(t, tt.in)
		})
	}
}

func TestDecodeAliasesRequest(t *testing.T) {
	t.Parallel()
	in := mustMarshal(t, &backendv1.LoadSamplesRequest{Samples: []*backendv1.SampleRef{{Index: 7, Data: []byte("abc")}}})
	got, err := decodeLoadSamplesRequest(in)
	require.NoError(t, err)
	in[len(in)-1] = 'z'
	assert.Equal(t, []byte("abz"), got.samples[0].data, "data aliases the request: no copy")
	assert.Equal(t, len(got.samples[0].data), cap(got.samples[0].data), "an append cannot overwrite the request")
}

func mustMarshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	return b
}

// checkLoadRequest checks that decodeLoadRequest agrees with
// proto.Unmarshal on b: whatever it accepts is decoded the same.
func checkLoadRequest(t testing.TB, b []byte) {
	t.Helper()
	var ref backendv1.LoadRequest
	if proto.Unmarshal(b, &ref) != nil {
		return
	}
	got, err := decodeLoadRequest(b)
	require.NoError(t, err, "proto.Unmarshal accepts %x", b)
	assert.Equal(t, ref.GetModelPath(), got.path)
	assert.Equal(t, string(ref.GetModelBytes()), string(got.bytes))
	assert.Len(t, got.options, len(ref.GetOptions()))
	for k, v := range ref.GetOptions() {
		assert.Equal(t, v, got.options[k], "option %q", k)
	}
	assert.True(t, proto.Equal(ref.GetRun(), got.run), "run %v, decoded %v", ref.GetRun(), got.run)
	require.Len(t, got.inputs, len(ref.GetInputs()))
	for i, in := range ref.GetInputs() {
		assert.True(t, proto.Equal(in, got.inputs[i]), "input %d", i)
	}
}

// checkLoadSamplesRequest is checkLoadRequest for LoadSamplesRequest.
func checkLoadSamplesRequest(t testing.TB, b []byte) {
	t.Helper()
	var ref backendv1.LoadSamplesRequest
	if proto.Unmarshal(b, &ref) != nil {
		return
	}
	got, err := decodeLoadSamplesRequest(b)
	require.NoError(t, err, "proto.Unmarshal accepts %x", b)
	assert.Equal(t, ref.GetArena() != nil, got.hasArena)
	assert.Equal(t, ref.GetArena().GetPath(), got.arenaPath)
	assert.Equal(t, ref.GetArena().GetSize(), got.arenaSize)
	require.Len(t, got.samples, len(ref.GetSamples()))
	for i, s := range ref.GetSamples() {
		g := got.samples[i]
		assert.Equal(t, [3]uint64{s.GetIndex(), s.GetOffset(), s.GetLength()}, [3]uint64{g.index, g.offset, g.length}, "sample %d", i)
		assert.Equal(t, string(s.GetData()), string(g.data), "sample %d", i)
		assert.Equal(t, refsFrom(s.GetTensors()), g.tensors, "sample %d", i)
	}
}

func FuzzDecodeLoadRequest(f *testing.F) {
	f.Add(mustMarshal(f, &backendv1.LoadRequest{ModelPath: "m", ModelBytes: []byte{1}, Options: map[string]string{"a": "b"}}))
	f.Add([]byte(wire(nil).varint(1, 5).bytes(3, wire(nil).bytes(1, []byte{0xff}))))
	f.Add(mustMarshal(f, &backendv1.LoadRequest{Run: &backendv1.RunConfig{Scenario: "Server", Settings: &backendv1.TestSettings{TargetQps: 5}},
		Inputs: []*backendv1.TensorSpec{{Name: "input_ids", Dtype: "int32", Shape: []int64{-1}}}}))
	f.Fuzz(func(t *testing.T, b []byte) { checkLoadRequest(t, b) })
}

func FuzzDecodeLoadSamplesRequest(f *testing.F) {
	f.Add(mustMarshal(f, &backendv1.LoadSamplesRequest{Arena: &backendv1.Arena{Path: "p", Size: 9},
		Samples: []*backendv1.SampleRef{{Index: 1, Offset: 2, Length: 3}, {Index: 2, Data: []byte("x")}}}))
	f.Add([]byte(wire(nil).bytes(1, nil).bytes(2, []byte{0x22, 0x03})))
	f.Add(mustMarshal(f, &backendv1.LoadSamplesRequest{Samples: []*backendv1.SampleRef{{Index: 1, Data: []byte("abcd"),
		Tensors: []*backendv1.TensorRef{{Tensor: 0, Shape: []int64{2}, Offset: 0, Length: 2}, {Tensor: 1, Shape: []int64{2}, Offset: 2, Length: 2}}}}}))
	f.Fuzz(func(t *testing.T, b []byte) { checkLoadSamplesRequest(t, b) })
}
