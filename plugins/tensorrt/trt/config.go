package trt

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
)

// Residency says whether LoadSamples copies samples into device memory
// (MLPerf's "start from device") or Infer stages them from host memory.
type Residency int

const (
	// ResidencyAuto keeps samples on every device when they fit in the
	// device memory budget, and on the host otherwise.
	ResidencyAuto Residency = iota
	// ResidencyDevice requires samples on every device; LoadSamples fails
	// when they do not fit.
	ResidencyDevice
	// ResidencyHost always stages samples from host memory.
	ResidencyHost
)

var residencyNames = map[string]Residency{"auto": ResidencyAuto, "device": ResidencyDevice, "host": ResidencyHost}

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
	// Devices selects CUDA device ordinals; nil selects every device found.
	Devices []int
	// Streams is the number of CUDA streams per device, each with its own
	// execution context and buffers.
	Streams int
	// BatchSize caps the samples of one enqueue; 0 uses the largest batch
	// the engine's optimization profile allows.
	BatchSize int
	// Residency places the samples LoadSamples receives.
	Residency Residency
	// DeviceMemoryFraction is the share of a device's free memory that
	// samples may take under ResidencyAuto, in (0, 1].
	DeviceMemoryFraction float64
	// BatchCopies gathers device-resident samples with one
	// cudaMemcpyBatchAsync per batch when the runtime has it (CUDA 12.8+)
	// instead of one cudaMemcpyAsync per sample. Off by default: on an
	// H100 with CUDA 13.0 it was no faster (docs/tensorrt.md).
	BatchCopies bool
	// Timeout is the device watchdog: a batch still running after Timeout
	// marks its device failed (ErrDeviceTimeout). 0 waits indefinitely.
	// Set it well above the slowest batch; the wait then polls the event.
	Timeout time.Duration
	// CudartPaths and ShimPaths are the library paths or sonames tried, in
	// order, for libcudart and the TensorRT shim.
	CudartPaths, ShimPaths []string
}

// DefaultConfig returns two streams on every device, full profile batches,
// automatic sample residency and the default library search paths.
func DefaultConfig() Config {
	return Config{
		Streams:              2,
		Residency:            ResidencyAuto,
		DeviceMemoryFraction: 0.8,
		CudartPaths:          slices.Clone(DefaultCudartPaths),
		ShimPaths:            slices.Clone(DefaultShimPaths),
	}
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	var errs []error
	if c.Streams < 1 {
		errs = append(errs, fmt.Errorf("streams must be at least 1, got %d", c.Streams))
	}
	if c.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("batch_size must not be negative, got %d", c.BatchSize))
	}
	if c.Residency < ResidencyAuto || c.Residency > ResidencyHost {
		errs = append(errs, fmt.Errorf("invalid residency %d", c.Residency))
	}
	if !(c.DeviceMemoryFraction > 0 && c.DeviceMemoryFraction <= 1) {
		errs = append(errs, fmt.Errorf("device_memory_fraction must be in (0, 1], got %v", c.DeviceMemoryFraction))
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
	return errors.Join(errs...)
}

// options are the plugin options WithOptions accepts.
var options = []accel.Option[Config]{
	accel.StringOption("engine", "plan file path", func(c *Config) *string { return &c.Engine }),
	accel.DevicesOption("devices", `"all", or CUDA ordinals and ranges, e.g. "0,2-3"`,
		func(c *Config) *[]int { return &c.Devices }),
	accel.IntOption("streams", "CUDA streams per device", func(c *Config) *int { return &c.Streams }),
	accel.IntOption("batch_size", "samples per enqueue (0: the profile maximum)",
		func(c *Config) *int { return &c.BatchSize }),
	{Name: "samples_on_device", Help: "auto, device or host", Set: func(c *Config, v string) error {
		r, ok := residencyNames[v]
		if !ok {
			return fmt.Errorf("want auto, device or host, got %q", v)
		}
		c.Residency = r
		return nil
	}},
	accel.FloatOption("device_memory_fraction", "share of free device memory for samples",
		func(c *Config) *float64 { return &c.DeviceMemoryFraction }),
	accel.BoolOption("batch_copies", "gather resident samples with cudaMemcpyBatchAsync",
		func(c *Config) *bool { return &c.BatchCopies }),
	accel.DurationOption("timeout", `device watchdog per batch, a Go duration, e.g. "30s"`,
		func(c *Config) *time.Duration { return &c.Timeout }),
	accel.PathsOption("cudart", "libcudart paths, colon-separated", func(c *Config) *[]string { return &c.CudartPaths }),
	accel.PathsOption("shim", "TensorRT shim paths, colon-separated", func(c *Config) *[]string { return &c.ShimPaths }),
}

// WithOptions returns a copy of c with the plugin options applied, as the
// host passes them in sdk.Model.Options ("--set tensorrt.streams=4").
//
// # Options
//
//   - engine: plan file path
//   - devices: "all", or CUDA ordinals and ranges, e.g. "0,2-3"
//   - streams: CUDA streams per device
//   - batch_size: samples per enqueue (0: the profile maximum)
//   - samples_on_device: auto, device or host
//   - device_memory_fraction: share of free device memory for samples
//   - batch_copies: gather resident samples with cudaMemcpyBatchAsync (false)
//   - timeout: device watchdog per batch, a Go duration, e.g. "30s"
//   - cudart, shim: library paths, colon-separated to try several
//
// # Errors
//
// Unknown keys and malformed values are reported together.
func (c Config) WithOptions(opts map[string]string) (Config, error) {
	out := c
	out.Devices = slices.Clone(c.Devices)
	out.CudartPaths = slices.Clone(c.CudartPaths)
	out.ShimPaths = slices.Clone(c.ShimPaths)
	if err := accel.ApplyOptions(&out, options, opts); err != nil {
		return c, err
	}
	return out, out.Validate()
}
