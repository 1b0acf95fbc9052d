//go:build !wasip1

package sdk

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// describedBackend declares an option schema, devices with their topology
// and reports submission facts; it keeps what Load got.
type describedBackend struct {
	nullBackend
	facts SubmissionFacts
	got   Model
}

func (d *describedBackend) Info() Info {
	return Info{Name: "described", MaxBatch: 8, Options: []Option{
		{Name: "batch_size", Type: abi.OptionUint, Default: "64"},
		{Name: "precision", Type: abi.OptionEnum, Allowed: []string{"fp16", "int8"}},
		{Name: "batch_timeout", Type: abi.OptionDuration},
	}, Devices: []Device{
		{ID: 0, Name: "gpu0", NUMANode: 1, HasNUMANode: true, PCIBusID: "0000:3b:00.0", UUID: "GPU-0"},
		{ID: 1, Name: "gpu1"},
	}}
}

func (d *describedBackend) Load(_ context.Context, m Model) error { d.got = m; return nil }

func (d *describedBackend) SubmissionFacts() SubmissionFacts { return d.facts }

func TestInfoDescribesOptionsAndTopology(t *testing.T) {
	t.Parallel()
	r := NewServer(&describedBackend{}, ServerConfig{}).Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major})
	require.Equal(t, uint32(abi.OK), r.GetStatus().GetCode(), r.GetStatus().GetMessage())
	require.Len(t, r.GetOptions(), 3)
	assert.Equal(t, "64", r.GetOptions()[0].GetDefaultValue())
	assert.Equal(t, []string{"fp16", "int8"}, r.GetOptions()[1].GetAllowed())
	d := r.GetDevices()
	require.Len(t, d, 2)
	assert.Equal(t, int32(1), d[0].GetNumaNode())
	assert.Equal(t, "0000:3b:00.0", d[0].GetPciBusId())
	assert.Equal(t, "GPU-0", d[0].GetUuid())
	assert.Nil(t, d[1].NumaNode, "no NUMA node unless HasNUMANode")

	bad := &schemaBackend{opts: []Option{{Name: "x", Type: "number"}}}
	r = NewServer(bad, ServerConfig{}).Info(&backendv1.InfoRequest{})
	assert.Equal(t, uint32(abi.Internal), r.GetStatus().GetCode())
	assert.Contains(t, r.GetStatus().GetMessage(), `type "number"`)
}

type schemaBackend struct {
	nullBackend
	opts []Option
}

func (s *schemaBackend) Info() Info { return Info{Name: "schema", Options: s.opts} }

func TestLoadChecksOptionsAndTellsTheRun(t *testing.T) {
	t.Parallel()
	b := &describedBackend{facts: SubmissionFacts{Framework: "TensorRT 10.3, CUDA 12.6", InputDataTypes: "int8", DevicesUsed: []int{1}}}
	srv := NewServer(b, ServerConfig{})
	resp := srv.Load(t.Context(), &backendv1.LoadRequest{Options: map[string]string{"batch_sise": "8", "precision": "fp8"}})
	assert.Equal(t, uint32(abi.InvalidArgument), resp.GetStatus().GetCode())
	assert.Contains(t, resp.GetStatus().GetMessage(), `unknown option "batch_sise" (did you mean batch_size?)`)
	assert.Contains(t, resp.GetStatus().GetMessage(), `option precision="fp8": want one of fp16, int8`)
	assert.Empty(t, b.got.Options, "Load is not called with bad options")

	resp = srv.Load(t.Context(), &backendv1.LoadRequest{Options: map[string]string{"precision": "int8"},
		Run: &backendv1.RunConfig{Benchmark: "resnet50", Scenario: "Server", Mode: "PerformanceOnly",
			Settings: &backendv1.TestSettings{TargetQps: 1000, TargetLatencyNs: 15e6, SamplesPerQuery: 1}}})
	require.Equal(t, uint32(abi.OK), resp.GetStatus().GetCode(), resp.GetStatus().GetMessage())
	assert.Equal(t, map[string]string{"precision": "int8", "batch_size": "64"}, b.got.Options, "defaults filled in")
	assert.Equal(t, Run{Benchmark: "resnet50", Scenario: ScenarioServer, Mode: PerformanceOnly,
		Settings: TestSettings{TargetQPS: 1000, TargetLatency: 15 * time.Millisecond, SamplesPerQuery: 1}}, b.got.Run)
	assert.Equal(t, "TensorRT 10.3, CUDA 12.6", resp.GetFacts().GetFramework())
	assert.Equal(t, []int32{1}, resp.GetFacts().GetDevicesUsed())
}

func TestLoadRejectsFactsOfUnknownDevices(t *testing.T) {
	t.Parallel()
	for _, used := range [][]int{{5}, {0, 0}} {
		b := &describedBackend{facts: SubmissionFacts{DevicesUsed: used}}
		resp := NewServer(b, ServerConfig{}).Load(t.Context(), &backendv1.LoadRequest{})
		assert.Equal(t, uint32(abi.Internal), resp.GetStatus().GetCode(), "%v", used)
		assert.Contains(t, resp.GetStatus().GetMessage(), "SubmissionFacts: device")
	}
}

func TestModelLoadRequestRoundTrip(t *testing.T) {
	t.Parallel()
	m := Model{Path: "m.plan", Options: map[string]string{"a": "b"},
		Run:    Run{Benchmark: "bert-99", Scenario: ScenarioServer, Mode: AccuracyOnly, Settings: TestSettings{TargetQPS: 5, TargetLatency: time.Second, MinQueryCount: 3}},
		Inputs: []TensorSpec{{Name: "input_ids", DType: abi.Int32, Shape: []int{-1}}}}
	req := m.LoadRequest()
	assert.Equal(t, m.Run, runFrom(req.GetRun()))
	in, err := inputsFrom(req.GetInputs())
	require.NoError(t, err)
	assert.Equal(t, m.Inputs, in)
	assert.Nil(t, Model{}.LoadRequest().GetRun(), "no run, none sent")
}

// TestInfoPathOptionForOlderHosts: an option of type path is declared so
// to a host of ABI v1.3, and as a string to a host of an older minor,
// whose schema check knows no path type.
func TestInfoPathOptionForOlderHosts(t *testing.T) {
	t.Parallel()
	srv := NewServer(&schemaBackend{opts: []Option{{Name: "library", Type: abi.OptionPath}, {Name: "n", Type: abi.OptionUint}}}, ServerConfig{})
	for _, tc := range []struct {
		name  string
		minor uint32
		want  abi.OptionType
	}{
		{name: "v1.3", minor: 3, want: abi.OptionPath},
		{name: "v1.2", minor: 2, want: abi.OptionString},
		{name: "v1.0", minor: 0, want: abi.OptionString},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: tc.minor})
			require.Equal(t, uint32(abi.OK), r.GetStatus().GetCode(), r.GetStatus().GetMessage())
			require.NoError(t, abi.CheckOptionSchema(r.GetOptions()))
			assert.Equal(t, string(tc.want), r.GetOptions()[0].GetType())
			assert.Equal(t, string(abi.OptionUint), r.GetOptions()[1].GetType(), "other types as they are")
		})
	}
}
