package trt

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Residency says where LoadSamples copies the samples: into pinned host
// memory, which the rules require by default, or into device memory
// (MLPerf's "start from device", allowed only for systems whose network
// writes straight into accelerator memory).
type Residency int

const (
	// ResidencyHost copies samples into pinned host memory, from which
	// lanes copy each batch to the device: the default.
	ResidencyHost Residency = iota
	// ResidencyDevice copies samples to every device; LoadSamples fails
	// when they do not fit (start_from_device=true).
	ResidencyDevice
	// ResidencyAuto puts samples on every device when they fit in the
	// device memory budget, in pinned host memory otherwise
	// (start_from_device=auto).
	ResidencyAuto
)

var residencyNames = map[string]Residency{"false": ResidencyHost, "true": ResidencyDevice, "auto": ResidencyAuto}

// String returns the option value that selects r.
func (r Residency) String() string {
	for k, v := range residencyNames {
		if v == r {
			return k
		}
	}
	return fmt.Sprintf("Residency(%d)", int(r))
}

// Config configures the TensorRT backend. The zero value is not valid;
// start from [DefaultConfig]. A Config is a value: methods never modify it.
type Config struct {
	// Engine is the serialized engine (plan file) used when the host's
	// Model carries neither a path nor bytes.
	Engine string
	// Engines are more plans of the same model, built for other batch
	// sizes: each batch runs on the smallest engine that takes it.
	Engines []string
	// Devices selects CUDA device ordinals; nil selects every device found.
	Devices []int
	// Streams is the number of CUDA streams per device, each with its own
	// execution context and buffers.
	Streams int
	// BatchSize caps the samples of one enqueue; 0 uses the largest batch
	// the engine's optimization profile allows.
	BatchSize int
	// BatchTimeout is how long the SDK's batcher lets the oldest issued
	// sample wait for a fuller batch (batching across queries, as
	// NVIDIA's harness does in Server); negative chooses per scenario (see
	// accel.BatchTimeout): a fifth of the latency bound in Server, 0
	// elsewhere.
	BatchTimeout time.Duration
	// Residency places the samples LoadSamples receives.
	Residency Residency
	// EndOnDevice skips copying outputs to host memory for batches in
	// which no sample wants its bytes (MLPerf's "end on device", allowed
	// for 3D-UNet only). Off, every batch's outputs reach host memory.
	EndOnDevice bool
	// DeviceMemoryFraction is the share of a device's free memory that
	// samples may take under ResidencyAuto, in (0, 1].
	DeviceMemoryFraction float64
	// BatchCopies gathers device-resident samples with one
	// cudaMemcpyBatchAsync per batch when the runtime has it (CUDA 12.8+)
	// instead of one cudaMemcpyAsync per sample. Off by default: on an
	// H100 with CUDA 13.0 it was no faster (docs/tensorrt.md).
	BatchCopies bool
	// Gather chooses how a batch that is not one contiguous run of loaded
	// samples reaches the device: GatherCopies (one copy per sample and
	// input, or one batched copy with BatchCopies) or GatherKernel (one
	// launch of the gather kernel per input, through the CUDA driver).
	Gather Gather
	// Graphs captures the engine's launch once per lane and batch size as
	// a CUDA graph and replays it, which costs the CPU less per batch.
	Graphs bool
	// InferenceStreams is the number of streams per device the engines
	// run on, shared by the lanes; 0 runs each lane's engine on its own
	// stream, with its copies. With separate streams a lane's copies and
	// another lane's engine overlap, and at most InferenceStreams engines
	// run on a device at once.
	InferenceStreams int
	// SpinWait waits for a batch by polling its event instead of sleeping
	// in cudaEventSynchronize: less latency, one busy CPU per waiting lane.
	SpinWait bool
	// Build says when the model is an ONNX model that Load builds into an
	// engine (untimed): BuildAuto for a *.onnx file, BuildAlways, or
	// BuildNever (the model is a plan).
	Build Build
	// Precision, BuildBatch, BuildProfiles, WorkspaceBytes and
	// CalibrationCache are the build's (see BuildOptions; 0 takes
	// batch_size, or 64, and one profile per stream).
	Precision        Precision
	BuildBatch       int
	BuildProfiles    int
	WorkspaceBytes   uint64
	CalibrationCache string
	// BuildShapes are the profile ranges of the inputs whose dimensions
	// after the batch are dynamic (build_shapes).
	BuildShapes []ShapeRange
	// EngineCache is the directory built engines are kept in, keyed by
	// model hash, GPU architecture, TensorRT version and build options;
	// "" builds at every Load.
	EngineCache string
	// StockPlugins registers TensorRT's stock plugin layers before the
	// engine is deserialized (initLibNvInferPlugins).
	StockPlugins bool
	// PluginLibraries are plugin libraries loaded into TensorRT's plugin
	// registry before the engine is deserialized.
	PluginLibraries []string
	// NUMA places work near each device's CPUs: a lane's thread runs on the
	// CPUs of its device's node while it runs a batch, and LoadSamples
	// keeps one pinned copy of the samples per node, written from that
	// node's CPUs so that it lands in the node's memory. Devices in no
	// node, or a nil NUMA, are not placed.
	NUMA []accel.NUMANode
	// Timeout is the device watchdog: a batch still running after Timeout
	// marks its device failed (ErrDeviceTimeout). 0 waits indefinitely.
	// Set it well above the slowest batch; the wait then polls the event.
	Timeout time.Duration
	// CudartPaths, ShimPaths and DriverPaths are the library paths or
	// sonames tried, in order, for libcudart, the TensorRT shim and the
	// CUDA driver (libcuda, only for GatherKernel); NVMLPaths for NVML,
	// which lists MIG instances.
	CudartPaths, ShimPaths, DriverPaths, NVMLPaths []string
	// SysfsRoot is where discovery reads each GPU's NUMA node and PCIe
	// link (SysfsRoot/bus/pci/devices); "/sys" by default.
	SysfsRoot string
}

// DefaultConfig returns two streams on every device, full profile batches,
// batching across queries in Server only, samples in pinned host memory,
// outputs always copied back, and the default library search paths.
func DefaultConfig() Config {
	return Config{
		Streams:              2,
		BatchTimeout:         -1,
		Residency:            ResidencyHost,
		DeviceMemoryFraction: 0.8,
		CudartPaths:          slices.Clone(DefaultCudartPaths),
		ShimPaths:            slices.Clone(DefaultShimPaths),
		DriverPaths:          slices.Clone(DefaultDriverPaths),
		NVMLPaths:            slices.Clone(DefaultNVMLPaths),
		Precision:            PrecisionFP16,
		StockPlugins:         true,
		SysfsRoot:            "/sys",
	}
}

// Build says whether Load builds the model.
type Build int

const (
	// BuildAuto builds a model from a file named *.onnx.
	BuildAuto Build = iota
	// BuildAlways builds the model, wherever it comes from.
	BuildAlways
	// BuildNever takes the model as a plan.
	BuildNever
)

var buildNames = map[string]Build{"auto": BuildAuto, "true": BuildAlways, "false": BuildNever}

// Gather is how a lane brings scattered samples to the device.
type Gather int

const (
	// GatherCopies issues one copy per sample and input.
	GatherCopies Gather = iota
	// GatherKernel launches the gather kernel once per input.
	GatherKernel
)

var gatherNames = map[string]Gather{"copies": GatherCopies, "kernel": GatherKernel}

// Validate reports every invalid field.
func (c Config) Validate() error {
	var errs []error
	if c.Streams < 1 {
		errs = append(errs, fmt.Errorf("streams must be at least 1, got %d", c.Streams))
	}
	if c.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("batch_size must not be negative, got %d", c.BatchSize))
	}
	if c.Residency < ResidencyHost || c.Residency > ResidencyAuto {
		errs = append(errs, fmt.Errorf("invalid residency %d", c.Residency))
	}
	if !(c.DeviceMemoryFraction > 0 && c.DeviceMemoryFraction <= 1) {
		errs = append(errs, fmt.Errorf("device_memory_fraction must be in (0, 1], got %v", c.DeviceMemoryFraction))
	}
	if c.Gather != GatherCopies && c.Gather != GatherKernel {
		errs = append(errs, fmt.Errorf("invalid gather %d", c.Gather))
	}
	if c.Build < BuildAuto || c.Build > BuildNever {
		errs = append(errs, fmt.Errorf("invalid build %d", c.Build))
	}
	if c.Precision < PrecisionFP32 || c.Precision > PrecisionINT8 {
		errs = append(errs, fmt.Errorf("invalid precision %d", c.Precision))
	}
	if c.Precision == PrecisionINT8 && c.CalibrationCache == "" {
		errs = append(errs, errors.New("precision=int8 needs calibration_cache"))
	}
	if c.BuildBatch < 0 || c.BuildProfiles < 0 {
		errs = append(errs, fmt.Errorf("build_batch and build_profiles must not be negative, got %d and %d",
			c.BuildBatch, c.BuildProfiles))
	}
	if c.InferenceStreams < 0 {
		errs = append(errs, fmt.Errorf("inference_streams must not be negative, got %d", c.InferenceStreams))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout must not be negative, got %v", c.Timeout))
	}
	for _, d := range c.Devices {
		if d < 0 {
			errs = append(errs, fmt.Errorf("device ordinal %d is negative", d))
		}
	}
	if len(c.CudartPaths) == 0 {
		errs = append(errs, errors.New("no libcudart path to try"))
	}
	if len(c.ShimPaths) == 0 {
		errs = append(errs, errors.New("no shim path to try"))
	}
	if c.Gather == GatherKernel && len(c.DriverPaths) == 0 {
		errs = append(errs, errors.New("no libcuda path to try for gather=kernel"))
	}
	return errors.Join(errs...)
}

// options are the plugin options WithOptions accepts, in the order
// `plugins describe` lists them.
var options = []accel.Option[Config]{
	accel.PathOption("engine", "plan file (or ONNX model to build); wins over the host's model",
		func(c *Config) *string { return &c.Engine }),
	accel.PathsOption("engines", "more plans of the model for other batch sizes, colon-separated: "+
		"each batch runs on the smallest engine that takes it", func(c *Config) *[]string { return &c.Engines }),
	accel.DevicesOption("devices", `"all", or CUDA ordinals and ranges, e.g. "0,2-3"`,
		func(c *Config) *[]int { return &c.Devices }),
	accel.UintOption("streams", "CUDA streams per device, each with its own execution context and buffers",
		func(c *Config) *int { return &c.Streams }),
	accel.UintOption("batch_size", "samples per enqueue (0: the profile maximum); set it per scenario: tensorrt.Server.batch_size",
		func(c *Config) *int { return &c.BatchSize }),
	accel.DurationOption("batch_timeout", "longest a sample waits for a fuller batch across queries "+
		"(default: a fifth of the latency bound in Server, 0 elsewhere)", func(c *Config) *time.Duration { return &c.BatchTimeout }),
	accel.EnumOption("start_from_device", "samples in device memory: true, auto (when they fit) or false (pinned host memory)",
		residencyNames, func(c *Config) *Residency { return &c.Residency }),
	accel.BoolOption("end_on_device", "skip copying outputs no sample wants to host memory (3D-UNet only)",
		func(c *Config) *bool { return &c.EndOnDevice }),
	accel.FloatOption("device_memory_fraction", "share of free device memory for samples (start_from_device=auto)",
		func(c *Config) *float64 { return &c.DeviceMemoryFraction }),
	accel.BoolOption("batch_copies", "gather resident samples with cudaMemcpyBatchAsync (CUDA 12.8+)",
		func(c *Config) *bool { return &c.BatchCopies }),
	accel.EnumOption("gather", "scattered samples: copies (one per sample) or kernel (one launch per input)",
		gatherNames, func(c *Config) *Gather { return &c.Gather }),
	accel.BoolOption("cuda_graphs", "replay each lane's engine launch as a CUDA graph per batch size",
		func(c *Config) *bool { return &c.Graphs }),
	accel.UintOption("inference_streams", "engine streams per device shared by the lanes (0: each lane's own)",
		func(c *Config) *int { return &c.InferenceStreams }),
	accel.BoolOption("spin_wait", "poll for batch completion instead of sleeping", func(c *Config) *bool { return &c.SpinWait }),
	accel.EnumOption("build", "build the model from ONNX: auto (a *.onnx file), true or false", buildNames,
		func(c *Config) *Build { return &c.Build }),
	accel.EnumOption("precision", "build precision", precisionNames, func(c *Config) *Precision { return &c.Precision }),
	accel.UintOption("build_batch", "largest batch of the built engine (0: batch_size, or 64)",
		func(c *Config) *int { return &c.BuildBatch }),
	accel.UintOption("build_profiles", "optimization profiles of the built engine (0: one per stream)",
		func(c *Config) *int { return &c.BuildProfiles }),
	{Name: "workspace", Help: "builder workspace in bytes (0: TensorRT's default)", Type: abi.OptionUint,
		Set: func(c *Config, v string) (err error) {
			c.WorkspaceBytes, err = strconv.ParseUint(v, 10, 64)
			return err
		}, Get: func(c *Config) string { return strconv.FormatUint(c.WorkspaceBytes, 10) }},
	accel.PathOption("calibration_cache", "INT8 calibration cache file", func(c *Config) *string { return &c.CalibrationCache }),
	{Name: "build_shapes", Help: "profile ranges of inputs dynamic beyond the batch, NAME:MIN/OPT/MAX without the batch, " +
		`comma-separated, e.g. "input_ids:1/384/384"`, Type: abi.OptionString,
		Set: func(c *Config, v string) (err error) {
			c.BuildShapes, err = ParseShapeRanges(v)
			return err
		}, Get: func(c *Config) string { return FormatShapeRanges(c.BuildShapes) }},
	accel.PathOption("engine_cache", "directory of built engines (empty: no cache)",
		func(c *Config) *string { return &c.EngineCache }),
	accel.BoolOption("stock_plugins", "register TensorRT's stock plugins (initLibNvInferPlugins)",
		func(c *Config) *bool { return &c.StockPlugins }),
	accel.PathsOption("plugins", "TensorRT plugin libraries to load, colon-separated",
		func(c *Config) *[]string { return &c.PluginLibraries }),
	accel.NUMAOption("numa_config", `devices and their CPUs per NUMA node, e.g. "0-3:0-27,56-83&4-7:28-55,84-111"`,
		func(c *Config) *[]accel.NUMANode { return &c.NUMA }),
	accel.DurationOption("timeout", "device watchdog per batch (0: wait forever)",
		func(c *Config) *time.Duration { return &c.Timeout }),
	accel.PathsOption("cudart", "libcudart paths, colon-separated", func(c *Config) *[]string { return &c.CudartPaths }),
	accel.PathsOption("shim", "TensorRT shim paths, colon-separated", func(c *Config) *[]string { return &c.ShimPaths }),
	accel.PathsOption("cuda_driver", "libcuda paths, colon-separated (gather=kernel)",
		func(c *Config) *[]string { return &c.DriverPaths }),
	accel.PathsOption("nvml", "NVML paths, colon-separated (lists MIG instances)",
		func(c *Config) *[]string { return &c.NVMLPaths }),
}

// Schema declares every option with c's value as its default (the
// sdk.Info option schema): what Load applies when the option is not set.
func (c Config) Schema() []sdk.Option { return accel.Schema(options, c) }

// WithOptions returns a copy of c with the plugin options applied, as the
// host passes them in sdk.Model.Options ("--set tensorrt.streams=4").
//
// # Options
//
//   - engine: plan file path
//   - engines: more plans of the model for other batch sizes
//   - devices: "all", or CUDA ordinals and ranges, e.g. "0,2-3"
//   - streams: CUDA streams per device
//   - batch_size: samples per enqueue (0: the profile maximum)
//   - batch_timeout: longest a sample waits for a fuller batch across
//     queries (unset: a fifth of the latency bound in Server, 0 elsewhere)
//   - start_from_device: false (samples in pinned host memory), true
//     (on every device) or auto (on the devices when they fit)
//   - end_on_device: skip the output copy when no sample wants it
//   - device_memory_fraction: share of free device memory for samples
//   - batch_copies: gather resident samples with cudaMemcpyBatchAsync (false)
//   - gather: copies (default) or kernel, for batches not one contiguous run
//   - cuda_graphs: replay engine launches as CUDA graphs (false)
//   - inference_streams: engine streams per device (0: each lane's own)
//   - spin_wait: poll for completion instead of sleeping (false)
//   - build: auto (build a *.onnx model), true or false
//   - precision, build_batch, build_profiles, workspace, calibration_cache:
//     the build's (fp16, batch_size or 64, one per stream, TensorRT's, none)
//   - build_shapes: the build's profile ranges of inputs dynamic beyond the
//     batch, "input_ids:1/384/384,input_mask:1/384/384"
//   - engine_cache: directory of built engines, keyed by model, GPU, TensorRT
//     version and options
//   - stock_plugins: register TensorRT's stock plugins (true)
//   - plugins: TensorRT plugin libraries, colon-separated
//   - numa_config: devices and CPUs per NUMA node, "0-3:0-27&4-7:28-55"
//   - timeout: device watchdog per batch, a Go duration, e.g. "30s"
//   - cudart, shim, cuda_driver, nvml: library paths, colon-separated to
//     try several
//
// # Errors
//
// Unknown keys and malformed values are reported together.
func (c Config) WithOptions(opts map[string]string) (Config, error) {
	out := c
	out.Devices = slices.Clone(c.Devices)
	out.Engines = slices.Clone(c.Engines)
	out.CudartPaths = slices.Clone(c.CudartPaths)
	out.ShimPaths = slices.Clone(c.ShimPaths)
	out.DriverPaths = slices.Clone(c.DriverPaths)
	out.NVMLPaths = slices.Clone(c.NVMLPaths)
	out.PluginLibraries = slices.Clone(c.PluginLibraries)
	out.NUMA = slices.Clone(c.NUMA)
	out.BuildShapes = slices.Clone(c.BuildShapes)
	if err := accel.ApplyOptions(&out, options, opts); err != nil {
		return c, err
	}
	return out, out.Validate()
}
