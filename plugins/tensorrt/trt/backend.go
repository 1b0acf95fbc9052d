package trt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Version is the plugin's own version, reported in Info.
const Version = "0.1.0"

// Backend serves serialized TensorRT engines on CUDA GPUs. It implements
// sdk.Backend, sdk.SampleLoader and sdk.Warmer.
type Backend struct {
	cfg  Config
	info sdk.Info
	// found lists the CUDA ordinals discovered by New.
	found []int

	mu     sync.Mutex
	cuda   *cudart
	m      *model
	closed bool
}

var (
	_ sdk.Backend      = (*Backend)(nil)
	_ sdk.SampleLoader = (*Backend)(nil)
	_ sdk.Warmer       = (*Backend)(nil)
)

// New returns a backend that discovers CUDA devices through libcudart, as
// found on cfg.CudartPaths. A missing CUDA runtime is not an error here:
// Info then lists no devices and Load reports the missing library.
//
// # Errors
//
// New fails only when cfg is invalid.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("tensorrt: config: %w", err)
	}
	b := &Backend{cfg: cfg}
	b.info = sdk.Info{
		Name:        "tensorrt",
		Version:     Version,
		Description: "NVIDIA TensorRT engines on CUDA GPUs",
		MaxInFlight: cfg.Streams,
	}
	cuda, err := loadCudart(cfg.CudartPaths)
	if err != nil {
		b.info.Description += " (unavailable: " + err.Error() + ")"
		return b, nil
	}
	b.cuda = cuda
	devices, err := discover(cuda)
	if err != nil {
		b.info.Description += " (no devices: " + err.Error() + ")"
	}
	b.info.Devices = devices
	for _, d := range devices {
		b.found = append(b.found, d.ID)
	}
	b.info.MaxInFlight = cfg.Streams * max(1, len(selectDevices(cfg.Devices, b.found)))
	return b, nil
}

// discover lists CUDA devices without creating a context on them.
func discover(cuda cudaAPI) ([]sdk.Device, error) {
	n, err := cuda.DeviceCount()
	if err != nil {
		return nil, err
	}
	rtv, _ := cuda.RuntimeVersion()
	drv, _ := cuda.DriverVersion()
	var out []sdk.Device
	for d := range n {
		name, mem, err := cuda.DeviceProperties(d)
		if err != nil {
			return out, fmt.Errorf("device %d: %w", d, err)
		}
		major, _ := cuda.DeviceAttribute(attrComputeCapMajor, d)
		minor, _ := cuda.DeviceAttribute(attrComputeCapMinor, d)
		sms, _ := cuda.DeviceAttribute(attrMultiProcessorCount, d)
		out = append(out, sdk.Device{
			ID:          d,
			Name:        name,
			Kind:        "gpu",
			MemoryBytes: mem,
			Driver: fmt.Sprintf("CUDA runtime %s, driver %s, sm_%d%d, %d SMs",
				cudaVersion(rtv), cudaVersion(drv), major, minor, sms),
		})
	}
	return out, nil
}

// cudaVersion formats 12040 as "12.4".
func cudaVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// selectDevices returns the wanted ordinals that exist, or all found.
func selectDevices(want, found []int) []int {
	if want == nil {
		return found
	}
	var out []int
	for _, d := range want {
		if slices.Contains(found, d) {
			out = append(out, d)
		}
	}
	return out
}

// Info describes the backend and the devices New found. MaxInFlight is
// streams × selected devices: from the construction Config until Load,
// then from the options Load applied (the SDK asks again after Load and
// the host follows).
func (b *Backend) Info() sdk.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.info
}

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
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	if b.m != nil {
		return ErrLoaded
	}
	cfg, err := b.cfg.WithOptions(m.Options)
	if err != nil {
		return sdk.Errorf(abi.InvalidArgument, "tensorrt: %v", err)
	}
	plan, err := readPlan(m, cfg)
	if err != nil {
		return err
	}
	cuda, err := b.cudaFor(cfg)
	if err != nil {
		return err
	}
	trt, err := loadShim(cfg.ShimPaths)
	if err != nil {
		return err
	}
	ordinals, err := b.ordinals(cuda, cfg)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tensorrt: load: %w", err)
	}
	model, err := newModel(cuda, trt, cfg, plan, ordinals)
	if err != nil {
		return fmt.Errorf("tensorrt: load engine: %w", err)
	}
	b.m = model
	b.info.MaxInFlight = cfg.Streams * len(ordinals)
	return nil
}

// readPlan returns the serialized engine: the engine option's file, the
// model's file, or the model's bytes.
func readPlan(m sdk.Model, cfg Config) ([]byte, error) {
	path := cfg.Engine
	if path == "" {
		path = m.Path
	}
	if path == "" && len(m.Bytes) > 0 {
		return m.Bytes, nil
	}
	if path == "" {
		return nil, errors.New("tensorrt: no engine: pass a plan file as the model or set the engine option")
	}
	plan, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tensorrt: read engine %q: %w", path, err)
	}
	return plan, nil
}

// cudaFor returns the CUDA runtime for cfg's library paths.
func (b *Backend) cudaFor(cfg Config) (*cudart, error) {
	if b.cuda != nil && slices.Equal(cfg.CudartPaths, b.cfg.CudartPaths) {
		return b.cuda, nil
	}
	return loadCudart(cfg.CudartPaths)
}

// ordinals returns the devices Load uses.
func (b *Backend) ordinals(cuda cudaAPI, cfg Config) ([]int, error) {
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
	out := selectDevices(cfg.Devices, found)
	if len(out) == 0 {
		return nil, ErrNoDevice
	}
	return out, nil
}

// loaded returns the model, or why there is none.
func (b *Backend) loaded() (*model, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if b.m == nil {
		return nil, ErrNotLoaded
	}
	return b.m, nil
}

// LoadSamples keeps the samples' bytes and copies them to every device
// when they fit (see [Residency]). Each sample holds every input of one
// batch row, concatenated in the engine's input order.
func (b *Backend) LoadSamples(ctx context.Context, samples []sdk.LoadedSample) error {
	m, err := b.loaded()
	if err != nil {
		return err
	}
	return m.exclusive(ctx, func() error { return m.loadSamples(ctx, samples) })
}

// UnloadSamples forgets samples and frees their device memory.
func (b *Backend) UnloadSamples(ctx context.Context, indices []uint64) error {
	m, err := b.loaded()
	if err != nil {
		return err
	}
	return m.exclusive(ctx, func() error { return m.unloadSamples(indices) })
}

// Warmup runs one full batch through every stream.
func (b *Backend) Warmup(ctx context.Context) error {
	m, err := b.loaded()
	if err != nil {
		return err
	}
	return m.warmup(ctx)
}

// Infer runs q's samples in batches across the streams of every device and
// completes each sample as its batch finishes. A sample's output is the
// engine's outputs for its batch row, concatenated in engine order; it is
// nil unless the sample wants output.
func (b *Backend) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	m, err := b.loaded()
	if err != nil {
		return err
	}
	return m.infer(ctx, q, c)
}

// Close waits for in-flight work and frees every device resource. It is
// safe to call more than once.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if b.m == nil {
		return nil
	}
	err := b.m.stop()
	b.m = nil
	return err
}
