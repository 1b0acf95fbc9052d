package host

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// OptionSpec is one option a plugin's Load accepts (ABI v1.2): its option
// schema, as Info answered it.
type OptionSpec struct {
	Name string
	// Type is an abi.OptionType; "" reads as a string.
	Type abi.OptionType
	// Default is what the plugin uses when the option is not set; "" for
	// none.
	Default string
	// Allowed are an enum's values.
	Allowed []string
	// Doc is one line saying what the option does.
	Doc string
}

// CheckOptions checks opts against the plugin's option schema, when it
// declared one: every name known (an unknown one is named with its close
// matches), every value of its type. Errors are [*abi.OptionError]
// values, joined.
func (i Info) CheckOptions(opts map[string]string) error {
	if len(i.Options) == 0 {
		return nil
	}
	schema := make([]*backendv1.OptionSpec, len(i.Options))
	for k, o := range i.Options {
		schema[k] = &backendv1.OptionSpec{Name: o.Name, Type: string(o.Type), DefaultValue: o.Default, Allowed: o.Allowed, Doc: o.Doc}
	}
	return abi.CheckOptions(schema, opts)
}

// Run says what a model is loaded for (ABI v1.2): a plugin may pick its
// engine, batch size or batching deadline from it. Plugins of older
// minors never see it.
type Run struct {
	// Benchmark is the mlperf.conf model name, e.g. "resnet50".
	Benchmark string
	// Scenario is "SingleStream", "MultiStream", "Server" or "Offline";
	// Mode "PerformanceOnly", "AccuracyOnly", "SubmissionRun" or
	// "FindPeakPerformance".
	Scenario, Mode string
	Settings       TestSettings
}

// TestSettings are the effective LoadGen settings a plugin is told at
// Load; the ABI's TestSettings message says what each means.
type TestSettings struct {
	TargetQPS               float64
	TargetLatency           time.Duration
	TargetLatencyPercentile float64
	SamplesPerQuery         uint64
	PerformanceSampleCount  uint64
	TotalSampleCount        uint64
	MinDuration             time.Duration
	MaxDuration             time.Duration
	MinQueryCount           uint64
	MaxQueryCount           uint64
	MaxAsyncQueries         uint64
	UseTokenLatencies       bool
	TTFTLatency             time.Duration
	TPOTLatency             time.Duration
}

// SubmissionFacts is what a plugin reported at Load about the system it
// runs the model on (ABI v1.2), for the submission's system description
// and measurements.json. Empty fields were not reported. The ABI's
// SubmissionFacts message says what each holds.
type SubmissionFacts struct {
	Framework             string
	InputDataTypes        string
	WeightDataTypes       string
	WeightTransformations string
	// DevicesUsed are the Info.Devices (by ID) the model runs on.
	DevicesUsed                     []int
	AcceleratorModelName            string
	AcceleratorMemoryCapacity       string
	AcceleratorMemoryConfiguration  string
	AcceleratorOnChipMemories       string
	AcceleratorInterconnect         string
	AcceleratorInterconnectTopology string
	AcceleratorHostInterconnect     string
	AcceleratorFrequency            string
}

// maxPluginText bounds every free-text field a plugin hands the host
// (device strings, submission facts): they end up in logs and files.
const maxPluginText = 1024

// checkText rejects a plugin's string that is not UTF-8 or is too long.
func checkText(field, s string) error {
	if len(s) > maxPluginText {
		return fmt.Errorf("%w: %s has %d bytes, at most %d", ErrProtocol, field, len(s), maxPluginText)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s is not UTF-8", ErrProtocol, field)
	}
	return nil
}

// infoFrom converts and checks an InfoResponse: everything a plugin says
// of itself that the host keeps, prints or acts on.
func infoFrom(r *backendv1.InfoResponse, t Transport, instances int) (Info, error) {
	info := Info{
		Name: r.GetName(), Version: r.GetVersion(), Description: r.GetDescription(),
		ABIMajor: int(r.GetAbiMajor()), ABIMinor: int(r.GetAbiMinor()),
		Capabilities: abi.Capability(r.GetCapabilities()), MaxBatch: int(r.GetMaxBatch()),
		MaxInFlight: max(1, int(r.GetMaxInFlight())), Transport: t, Instances: instances,
	}
	if len(r.GetDevices()) > maxDevices {
		return Info{}, fmt.Errorf("%w: %d devices, at most %d", ErrProtocol, len(r.GetDevices()), maxDevices)
	}
	for k, d := range r.GetDevices() {
		dev := Device{ID: int(d.GetId()), Name: d.GetName(), Kind: d.GetKind(), MemoryBytes: d.GetMemoryBytes(),
			Driver: d.GetDriver(), NUMANode: -1, PCIBusID: d.GetPciBusId(), UUID: d.GetUuid()}
		if d.NumaNode != nil {
			if d.GetNumaNode() < 0 {
				return Info{}, fmt.Errorf("%w: device %d: NUMA node %d", ErrProtocol, k, d.GetNumaNode())
			}
			dev.NUMANode = int(d.GetNumaNode())
		}
		for _, f := range []struct{ name, v string }{{"name", dev.Name}, {"kind", dev.Kind}, {"driver", dev.Driver},
			{"PCI bus id", dev.PCIBusID}, {"UUID", dev.UUID}} {
			if err := checkText(fmt.Sprintf("device %d's %s", k, f.name), f.v); err != nil {
				return Info{}, err
			}
		}
		info.Devices = append(info.Devices, dev)
	}
	if err := abi.CheckOptionSchema(r.GetOptions()); err != nil {
		return Info{}, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	for _, o := range r.GetOptions() {
		info.Options = append(info.Options, OptionSpec{Name: o.GetName(), Type: abi.OptionType(o.GetType()),
			Default: o.GetDefaultValue(), Allowed: slices.Clone(o.GetAllowed()), Doc: o.GetDoc()})
	}
	return info, nil
}

// maxDevices bounds the devices a plugin may list.
const maxDevices = 4096

// afterLoad takes the limits a v1.1 plugin answered Load with (0 keeps
// Info's) and the submission facts of a v1.2 one.
func (i *Info) afterLoad(r *backendv1.LoadResponse) error {
	facts, err := factsFrom(r.GetFacts(), i.Devices)
	if err != nil {
		return err
	}
	if n := r.GetMaxBatch(); n > 0 {
		i.MaxBatch = int(n)
	}
	if n := r.GetMaxInFlight(); n > 0 {
		i.MaxInFlight = int(n)
	}
	i.Facts = facts
	return nil
}

// factsFrom converts and checks a plugin's submission facts: text that is
// UTF-8 and bounded, devices that the plugin listed, each once. nil in,
// nil out.
func factsFrom(f *backendv1.SubmissionFacts, devices []Device) (*SubmissionFacts, error) {
	if f == nil {
		return nil, nil
	}
	out := &SubmissionFacts{
		Framework: f.GetFramework(), InputDataTypes: f.GetInputDataTypes(), WeightDataTypes: f.GetWeightDataTypes(),
		WeightTransformations: f.GetWeightTransformations(), AcceleratorModelName: f.GetAcceleratorModelName(),
		AcceleratorMemoryCapacity: f.GetAcceleratorMemoryCapacity(), AcceleratorMemoryConfiguration: f.GetAcceleratorMemoryConfiguration(),
		AcceleratorOnChipMemories: f.GetAcceleratorOnChipMemories(), AcceleratorInterconnect: f.GetAcceleratorInterconnect(),
		AcceleratorInterconnectTopology: f.GetAcceleratorInterconnectTopology(), AcceleratorHostInterconnect: f.GetAcceleratorHostInterconnect(),
		AcceleratorFrequency: f.GetAcceleratorFrequency(),
	}
	for _, t := range []struct{ name, v string }{
		{"framework", out.Framework}, {"input_data_types", out.InputDataTypes}, {"weight_data_types", out.WeightDataTypes},
		{"weight_transformations", out.WeightTransformations}, {"accelerator_model_name", out.AcceleratorModelName},
		{"accelerator_memory_capacity", out.AcceleratorMemoryCapacity}, {"accelerator_memory_configuration", out.AcceleratorMemoryConfiguration},
		{"accelerator_on-chip_memories", out.AcceleratorOnChipMemories}, {"accelerator_interconnect", out.AcceleratorInterconnect},
		{"accelerator_interconnect_topology", out.AcceleratorInterconnectTopology},
		{"accelerator_host_interconnect", out.AcceleratorHostInterconnect}, {"accelerator_frequency", out.AcceleratorFrequency},
	} {
		if err := checkText("submission fact "+t.name, t.v); err != nil {
			return nil, err
		}
	}
	if len(f.GetDevicesUsed()) > len(devices) {
		return nil, fmt.Errorf("%w: submission facts: %d devices used, the plugin listed %d", ErrProtocol, len(f.GetDevicesUsed()), len(devices))
	}
	for _, id := range f.GetDevicesUsed() {
		if !slices.ContainsFunc(devices, func(d Device) bool { return d.ID == int(id) }) {
			return nil, fmt.Errorf("%w: submission facts: device %d is used but not among the plugin's devices", ErrProtocol, id)
		}
		if slices.Contains(out.DevicesUsed, int(id)) {
			return nil, fmt.Errorf("%w: submission facts: device %d is used twice", ErrProtocol, id)
		}
		out.DevicesUsed = append(out.DevicesUsed, int(id))
	}
	return out, nil
}

// loadRequest is the LoadRequest of m, without the model's bytes.
func loadRequest(m Model) *backendv1.LoadRequest {
	req := &backendv1.LoadRequest{Options: m.Options}
	for _, t := range m.Inputs {
		in := &backendv1.TensorSpec{Name: t.Name, Dtype: string(t.DType)}
		for _, d := range t.Shape {
			in.Shape = append(in.Shape, int64(d))
		}
		req.Inputs = append(req.Inputs, in)
	}
	if r := m.Run; r != nil {
		s := r.Settings
		req.Run = &backendv1.RunConfig{Benchmark: r.Benchmark, Scenario: r.Scenario, Mode: r.Mode, Settings: &backendv1.TestSettings{
			TargetQps: s.TargetQPS, TargetLatencyNs: nanos(s.TargetLatency), TargetLatencyPercentile: s.TargetLatencyPercentile,
			SamplesPerQuery: s.SamplesPerQuery, PerformanceSampleCount: s.PerformanceSampleCount, TotalSampleCount: s.TotalSampleCount,
			MinDurationNs: nanos(s.MinDuration), MaxDurationNs: nanos(s.MaxDuration), MinQueryCount: s.MinQueryCount,
			MaxQueryCount: s.MaxQueryCount, MaxAsyncQueries: s.MaxAsyncQueries, UseTokenLatencies: s.UseTokenLatencies,
			TtftLatencyNs: nanos(s.TTFTLatency), TpotLatencyNs: nanos(s.TPOTLatency),
		}}
	}
	return req
}

func nanos(d time.Duration) uint64 { return uint64(max(d, 0)) }

// InfoFromResponse converts and checks an InfoResponse as the transports
// do: for a host.Backend of another transport (an in-process server).
func InfoFromResponse(r *backendv1.InfoResponse, t Transport, instances int) (Info, error) {
	return infoFrom(r, t, instances)
}

// ApplyLoadResponse updates an Info with what a successful Load answered
// (the limits, the submission facts), checked as the transports check it.
func (i *Info) ApplyLoadResponse(r *backendv1.LoadResponse) error { return i.afterLoad(r) }

// NewLoadRequest is the LoadRequest the transports send for m: its path
// and bytes as given, its options, run and inputs.
func NewLoadRequest(m Model) *backendv1.LoadRequest {
	req := loadRequest(m)
	req.ModelPath, req.ModelBytes = m.Path, m.Bytes
	return req
}

// sampleRef is the SampleRef of s without its bytes or place.
func sampleRef(s Sample) *backendv1.SampleRef {
	r := &backendv1.SampleRef{Index: s.Index, Length: uint64(len(s.Data))}
	for k, t := range s.Tensors {
		tr := &backendv1.TensorRef{Tensor: uint32(k), Offset: uint64(t.Offset), Length: uint64(t.Length)}
		for _, d := range t.Shape {
			tr.Shape = append(tr.Shape, int64(d))
		}
		r.Tensors = append(r.Tensors, tr)
	}
	return r
}
