package trt

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
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

// optionKeys lists the plugin options WithOptions accepts.
var optionKeys = []string{
	"engine", "devices", "streams", "batch_size", "samples_on_device",
	"device_memory_fraction", "batch_copies", "timeout", "cudart", "shim",
}

// WithOptions returns a copy of c with the plugin options applied, as the
// host passes them in sdk.Model.Options ("--set tensorrt.streams=4").
//
// # Options
//
//   - engine: plan file path
//   - devices: "all" or comma-separated CUDA ordinals, e.g. "0,2"
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
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		if err := out.apply(k, strings.TrimSpace(opts[k])); err != nil {
			errs = append(errs, fmt.Errorf("option %s: %w", k, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return out, out.Validate()
}

// apply sets one option on c, which is a private copy.
func (c *Config) apply(key, v string) error {
	var err error
	switch key {
	case "engine":
		c.Engine = v
	case "devices":
		c.Devices, err = ParseDevices(v)
	case "streams":
		c.Streams, err = strconv.Atoi(v)
	case "batch_size":
		c.BatchSize, err = strconv.Atoi(v)
	case "samples_on_device":
		r, ok := residencyNames[v]
		if !ok {
			return fmt.Errorf("want auto, device or host, got %q", v)
		}
		c.Residency = r
	case "device_memory_fraction":
		c.DeviceMemoryFraction, err = strconv.ParseFloat(v, 64)
	case "batch_copies":
		c.BatchCopies, err = strconv.ParseBool(v)
	case "timeout":
		c.Timeout, err = time.ParseDuration(v)
	case "cudart":
		c.CudartPaths = splitPaths(v)
	case "shim":
		c.ShimPaths = splitPaths(v)
	default:
		return fmt.Errorf("unknown option; valid options are %s", strings.Join(optionKeys, ", "))
	}
	return err
}

func splitPaths(v string) []string {
	var out []string
	for p := range strings.SplitSeq(v, ":") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseDevices parses a device list: "all" (or empty) selects every device
// and returns nil; otherwise comma-separated non-negative ordinals without
// repeats, e.g. "0,2,3".
func ParseDevices(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return nil, nil
	}
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("device %q: %w", f, err)
		}
		if n < 0 {
			return nil, fmt.Errorf("device %d is negative", n)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("device %d listed twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}
