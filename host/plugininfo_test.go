package host

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// attr returns the value of key in the first record logged with msg:
// an attribute (a subprocess's hclog line), or "key=value" in the text (a
// WASM guest's log line, formatted by the guest).
func (s *logSink) attr(msg, key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.recs {
		if text, ok := strings.CutPrefix(r.Message, msg+" "); ok {
			for _, f := range strings.Fields(text) {
				if v, ok := strings.CutPrefix(f, key+"="); ok {
					return v
				}
			}
		}
		if r.Message != msg {
			continue
		}
		var v string
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == key {
				v = a.Value.String()
				return false
			}
			return true
		})
		return v
	}
	return ""
}

// TestLoadRunOptionsAndFacts: through both transports, the SDK's echo
// example declares its option schema, learns the run at Load, rejects a
// misspelt option naming the close match, and reports its submission
// facts after Load (ABI v1.2).
func TestLoadRunOptionsAndFacts(t *testing.T) {
	t.Parallel()
	open := map[string]func(t *testing.T, cfg Config) Backend{
		"process": func(t *testing.T, cfg Config) Backend {
			b, err := Open(t.Context(), echoPlugin(t), cfg)
			require.NoError(t, err)
			return b
		},
		"wasm": func(t *testing.T, cfg Config) Backend {
			module, err := echoGuest()
			require.NoError(t, err, "build the echo guest")
			cfg.Instances, cfg.CompilationCacheDir = 1, wasmCache()
			b, err := OpenWASM(t.Context(), "echo", module, cfg)
			require.NoError(t, err)
			return b
		},
	}
	for name, open := range open {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sink := &logSink{}
			b := open(t, Config{Logger: slog.New(sink)})
			t.Cleanup(func() { _ = b.Close() })
			info := b.Info()
			assert.Equal(t, abi.Minor, info.ABIMinor)
			var names []string
			for _, o := range info.Options {
				names = append(names, o.Name)
			}
			assert.Contains(t, names, "max_batch")
			assert.Nil(t, info.Facts, "no facts before Load")
			require.NoError(t, info.CheckOptions(map[string]string{"max_batch": "8"}))

			err := b.Load(t.Context(), Model{Bytes: []byte("m"), Options: map[string]string{"max_bach": "8"}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), `unknown option "max_bach" (did you mean max_batch?)`)
			var se *StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, abi.InvalidArgument, se.Code)

			run := &Run{Benchmark: "resnet50", Scenario: "Server", Mode: "PerformanceOnly", Settings: TestSettings{TargetQPS: 100}}
			require.NoError(t, b.Load(t.Context(), Model{Bytes: []byte("m"), Options: map[string]string{"max_batch": "8"}, Run: run}))
			assert.Equal(t, 8, b.Info().MaxBatch)
			require.NotNil(t, b.Info().Facts)
			assert.Equal(t, "mlperf-host echo 0.1.0", b.Info().Facts.Framework)
			// A subprocess's log comes through its stderr, after Load
			// may have returned.
			assert.Eventually(t, func() bool { return sink.attr("echo loaded", "scenario") != "" }, 10*time.Second, time.Millisecond,
				"the plugin logged its load")
			assert.Equal(t, "Server", sink.attr("echo loaded", "scenario"), "the plugin learnt the scenario")
			assert.Equal(t, "resnet50", sink.attr("echo loaded", "benchmark"))
		})
	}
}

func TestInfoFromChecksWhatThePluginSays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(r *backendv1.InfoResponse)
		want   string
	}{
		{name: "negative NUMA node", want: "device 0: NUMA node -2", mutate: func(r *backendv1.InfoResponse) {
			r.Devices[0].NumaNode = proto.Int32(-2)
		}},
		{name: "long UUID", want: "device 0's UUID has 2000 bytes", mutate: func(r *backendv1.InfoResponse) {
			r.Devices[0].Uuid = strings.Repeat("u", 2000)
		}},
		{name: "not UTF-8", want: "device 0's PCI bus id is not UTF-8", mutate: func(r *backendv1.InfoResponse) {
			r.Devices[0].PciBusId = "\xff"
		}},
		{name: "bad schema", want: "declared twice", mutate: func(r *backendv1.InfoResponse) {
			r.Options = []*backendv1.OptionSpec{{Name: "a"}, {Name: "a"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &backendv1.InfoResponse{Name: "p", AbiMajor: 1, AbiMinor: 2, Devices: []*backendv1.Device{{Id: 0, Name: "gpu"}}}
			tt.mutate(r)
			_, err := infoFrom(r, TransportProcess, 1)
			require.ErrorIs(t, err, ErrProtocol)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	info, err := infoFrom(&backendv1.InfoResponse{Devices: []*backendv1.Device{
		{Id: 3, NumaNode: proto.Int32(1), PciBusId: "0000:3b:00.0", Uuid: "GPU-1"}, {Id: 4}}}, TransportProcess, 1)
	require.NoError(t, err)
	assert.Equal(t, Device{ID: 3, NUMANode: 1, PCIBusID: "0000:3b:00.0", UUID: "GPU-1"}, info.Devices[0])
	assert.Equal(t, -1, info.Devices[1].NUMANode, "unknown")
}

func TestFactsFrom(t *testing.T) {
	t.Parallel()
	devs := []Device{{ID: 0}, {ID: 7}}
	f, err := factsFrom(&backendv1.SubmissionFacts{Framework: "TensorRT 10.3", DevicesUsed: []int32{7}}, devs)
	require.NoError(t, err)
	assert.Equal(t, &SubmissionFacts{Framework: "TensorRT 10.3", DevicesUsed: []int{7}}, f)
	for _, tt := range []struct {
		f    *backendv1.SubmissionFacts
		want string
	}{
		{&backendv1.SubmissionFacts{DevicesUsed: []int32{3}}, "device 3 is used but not among the plugin's devices"},
		{&backendv1.SubmissionFacts{DevicesUsed: []int32{0, 0}}, "device 0 is used twice"},
		{&backendv1.SubmissionFacts{AcceleratorFrequency: strings.Repeat("x", 5000)}, "accelerator_frequency has 5000 bytes"},
	} {
		_, err := factsFrom(tt.f, devs)
		require.ErrorIs(t, err, ErrProtocol)
		assert.Contains(t, err.Error(), tt.want)
	}
}

// FuzzInfoAndFacts feeds arbitrary Info and Load answers: the host never
// panics, and what it accepts stays in the ABI's bounds.
func FuzzInfoAndFacts(f *testing.F) {
	info, _ := proto.Marshal(&backendv1.InfoResponse{Name: "p", Devices: []*backendv1.Device{{Id: 1, NumaNode: proto.Int32(0), Uuid: "u"}},
		Options: []*backendv1.OptionSpec{{Name: "a", Type: "enum", Allowed: []string{"x"}, DefaultValue: "x"}}})
	load, _ := proto.Marshal(&backendv1.LoadResponse{Facts: &backendv1.SubmissionFacts{Framework: "f", DevicesUsed: []int32{1}}})
	f.Add(info, load)
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, infoBytes, loadBytes []byte) {
		var ir backendv1.InfoResponse
		if proto.Unmarshal(infoBytes, &ir) != nil {
			return
		}
		info, err := infoFrom(&ir, TransportProcess, 1)
		if err != nil {
			require.ErrorIs(t, err, ErrProtocol)
			return
		}
		require.LessOrEqual(t, len(info.Devices), maxDevices)
		for _, d := range info.Devices {
			require.GreaterOrEqual(t, d.NUMANode, -1)
			require.LessOrEqual(t, len(d.UUID)+len(d.PCIBusID), 2*maxPluginText)
		}
		require.NoError(t, abi.CheckOptionSchema(ir.GetOptions()))
		var lr backendv1.LoadResponse
		if proto.Unmarshal(loadBytes, &lr) != nil {
			return
		}
		if err := info.afterLoad(&lr); err != nil {
			require.ErrorIs(t, err, ErrProtocol)
			return
		}
		if info.Facts != nil {
			require.LessOrEqual(t, len(info.Facts.DevicesUsed), len(info.Devices))
		}
	})
}
