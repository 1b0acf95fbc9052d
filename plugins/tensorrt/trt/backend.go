package trt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Version is the plugin's own version, reported in Info.
const Version = "0.1.0"

// Backend serves serialized TensorRT engines on CUDA GPUs. It implements
// sdk.Backend, sdk.SampleLoader and sdk.Warmer; the calls other than New
// and Load are the accelerator core's (see the package documentation for
// what Infer and LoadSamples do here).
type Backend struct {
	*accel.Backend[*model]
	cfg Config
	// cuda is the runtime New bound, nil when it was missing.
	cuda *cudart
	// mig maps a CUDA ordinal to the MIG instance it is, when this
	// process was given one; listed are the other MIG instances, as Info
	// lists them.
	mig    map[int]migInstance
	listed []sdk.Device
}

var (
	_ sdk.Backend            = (*Backend)(nil)
	_ sdk.SampleLoader       = (*Backend)(nil)
	_ sdk.Warmer             = (*Backend)(nil)
	_ sdk.SubmissionReporter = (*Backend)(nil)
)

// New returns a backend on the CUDA devices libcudart lists, loaded from
// the first of cfg.CudartPaths that loads. Without a CUDA runtime the
// backend still starts: its Info lists no GPU and says why, and Load
// fails naming the library.
//
// # Errors
//
// Only an invalid cfg is an error.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("tensorrt: config: %w", err)
	}
	b := &Backend{cfg: cfg}
	info := sdk.Info{Name: plugin, Version: Version, Description: "NVIDIA TensorRT engines on CUDA GPUs",
		Options: cfg.Schema()}
	var devices []sdk.Device
	uuids := map[int][16]byte{}
	cuda, err := loadCudart(cfg.CudartPaths)
	if err == nil {
		b.cuda = cuda
		devices, uuids, err = discover(cuda, cfg.SysfsRoot)
	}
	instances, migErr := listMIG(cfg.NVMLPaths)
	devices, listed, mig := withMIG(devices, uuids, instances, cfg.SysfsRoot)
	b.mig, b.listed = mig, listed
	info = accel.Discovered(info, devices, err, cfg.Devices, cfg.Streams)
	info.Devices = append(info.Devices, listed...)
	if migErr != nil {
		info.Description += " (MIG instances unknown: " + migErr.Error() + ")"
	}
	b.Backend = accel.NewBackend[*model](info, sentinels)
	return b, nil
}

// listMIG lists the MIG instances NVML sees; none without NVML (a machine
// without the NVIDIA driver has neither NVML nor MIG).
func listMIG(paths []string) ([]migInstance, error) {
	n, err := loadNVML(paths)
	if errors.Is(err, accel.ErrRuntimeMissing) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return n.migInstances()
}

// discover lists CUDA devices without creating a context on them, each
// with where it is: PCI address, UUID and, from sysfs under root, its
// NUMA node. uuids holds each device's UUID bytes.
func discover(cuda cudaAPI, root string) (out []sdk.Device, uuids map[int][16]byte, err error) {
	uuids = map[int][16]byte{}
	n, err := cuda.DeviceCount()
	if err != nil {
		return nil, uuids, err
	}
	rtv, _ := cuda.RuntimeVersion()
	drv, _ := cuda.DriverVersion()
	for d := range n {
		p, err := cuda.DeviceProperties(d)
		if err != nil {
			return out, uuids, fmt.Errorf("device %d: %w", d, err)
		}
		major, _ := cuda.DeviceAttribute(attrComputeCapMajor, d)
		minor, _ := cuda.DeviceAttribute(attrComputeCapMinor, d)
		sms, _ := cuda.DeviceAttribute(attrMultiProcessorCount, d)
		dev := sdk.Device{ID: d, Name: p.name, Kind: "gpu", MemoryBytes: p.totalMemory,
			Driver: fmt.Sprintf("CUDA runtime %s, driver %s, sm_%d%d, %d SMs", cudaVersion(rtv), cudaVersion(drv), major, minor, sms)}
		if pci, err := cuda.PCIBusID(d); err == nil && pci != "" {
			accel.ReadPCI(root, pci).Fill(&dev)
		}
		if p.uuid != [16]byte{} {
			dev.UUID = uuidString(p.uuid)
			uuids[d] = p.uuid
		}
		out = append(out, dev)
	}
	return out, uuids, nil
}

// cudaVersion formats 12040 as "12.4".
func cudaVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// Load deserializes the engine on every selected device and builds the
// streams. The engine is the file the "engine" option names when it is
// set, else the file m.Path names, else m.Bytes: the option wins because
// a host may send a benchmark's bundled model as m.Bytes.
//
// # Errors
//
// A missing libcudart or shim gives a [*LibraryError] (errors.Is
// [ErrRuntimeMissing]) that names the library and how to install it.
func (b *Backend) Load(ctx context.Context, m sdk.Model) error {
	return b.Backend.Load(func() (*model, accel.Limits, error) {
		model, err := b.load(ctx, m)
		if err != nil {
			return nil, accel.Limits{}, err
		}
		// One Infer call is one lane's batch: the SDK cuts queries, and
		// batches samples across queries in Server.
		lim := accel.Limits{MaxInFlight: len(model.lanes), MaxBatch: model.batch,
			BatchTimeout: accel.BatchTimeout(model.cfg.BatchTimeout, m.Run)}
		sdk.Logger(ctx).Info("tensorrt loaded", "scenario", m.Run.Scenario, "devices", len(model.devices),
			"streams", model.cfg.Streams, "batch_size", lim.MaxBatch, "batch_timeout", lim.BatchTimeout)
		return model, lim, nil
	})
}

// load builds the model.
func (b *Backend) load(ctx context.Context, m sdk.Model) (*model, error) {
	cfg, err := b.cfg.WithOptions(m.Options)
	if err != nil {
		return nil, sdk.Errorf(abi.InvalidArgument, "tensorrt: %v", err)
	}
	path, plan, err := readModel(m, cfg)
	if err != nil {
		return nil, err
	}
	cuda, err := b.cudaFor(cfg)
	if err != nil {
		return nil, err
	}
	trt, err := loadShim(cfg.ShimPaths)
	if err != nil {
		return nil, err
	}
	ordinals, err := ordinals(cuda, cfg)
	if err != nil {
		return nil, withMIGHint(err, cfg.Devices, b.listed)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tensorrt: load: %w", err)
	}
	if err := registerPlugins(trt, cfg); err != nil {
		return nil, err
	}
	if isONNX(cfg, path) {
		if plan, err = buildEngine(cuda, trt, cfg, plan, ordinals); err != nil {
			return nil, fmt.Errorf("tensorrt: build the engine from %s: %w", modelName(path), err)
		}
	}
	var drv driverAPI
	if cfg.Gather == GatherKernel {
		d, err := loadDriver(cfg.DriverPaths)
		if err != nil {
			return nil, err
		}
		drv = d
	}
	plans, err := withEngines(plan, cfg.Engines)
	if err != nil {
		return nil, err
	}
	model, err := newModel(cuda, trt, drv, cfg, plans, ordinals)
	if err != nil {
		return nil, fmt.Errorf("tensorrt: load engine: %w", err)
	}
	if err := model.bindInputs(m.Inputs); err != nil {
		return nil, errors.Join(err, model.Stop())
	}
	model.built = isONNX(cfg, path)
	model.facts = submissionFacts(cuda, trt, cfg, model.layout, model.built, ordinals, b.mig)
	return model, nil
}

// readModel returns the model's bytes and the file they came from ("" for
// bytes the host sent): the engine option's file, the model's file, or the
// model's bytes. The model is a plan, or an ONNX model to build.
func readModel(m sdk.Model, cfg Config) (string, []byte, error) {
	path, data := accel.ModelSource(m, cfg.Engine)
	if path == "" && len(data) == 0 {
		return "", nil, errors.New("tensorrt: no engine: pass a plan file (or an ONNX model to build) as the model " +
			"or set the engine option")
	}
	if path == "" {
		return "", data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("tensorrt: read engine %q: %w", path, err)
	}
	return path, data, nil
}

// withEngines returns plan and the plans of the engines option.
func withEngines(plan []byte, engines []string) ([][]byte, error) {
	plans := [][]byte{plan}
	for _, path := range engines {
		p, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("tensorrt: read engine %q: %w", path, err)
		}
		plans = append(plans, p)
	}
	return plans, nil
}

func modelName(path string) string {
	if path == "" {
		return "the model the host sent"
	}
	return path
}

// registerPlugins registers the plugin layers engines need before one is
// built or deserialized: TensorRT's stock plugins and the libraries the
// plugins option lists.
func registerPlugins(trt trtAPI, cfg Config) error {
	if cfg.StockPlugins {
		if err := trt.InitPlugins(); err != nil {
			return fmt.Errorf("tensorrt: %w", err)
		}
	}
	for _, p := range cfg.PluginLibraries {
		if err := trt.LoadPluginLibrary(p); err != nil {
			return fmt.Errorf("tensorrt: %w", err)
		}
	}
	return nil
}

// cudaFor returns the CUDA runtime for cfg's library paths.
func (b *Backend) cudaFor(cfg Config) (*cudart, error) {
	if b.cuda != nil && slices.Equal(cfg.CudartPaths, b.cfg.CudartPaths) {
		return b.cuda, nil
	}
	return loadCudart(cfg.CudartPaths)
}

// ordinals returns the devices Load uses.
func ordinals(cuda cudaAPI, cfg Config) ([]int, error) {
	n, err := cuda.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDevice, err)
	}
	var found []int
	for d := range n {
		found = append(found, d)
	}
	for _, d := range cfg.Devices {
		if !slices.Contains(found, d) {
			return nil, fmt.Errorf("%w: device %d selected, but %d found", ErrNoDevice, d, n)
		}
	}
	out := accel.SelectDevices(cfg.Devices, found)
	if len(out) == 0 {
		return nil, ErrNoDevice
	}
	return out, nil
}
