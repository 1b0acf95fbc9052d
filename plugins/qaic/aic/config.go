package aic

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config configures the Cloud AI 100 backend. Start from [DefaultConfig];
// a Config is a value and its methods never modify it.
type Config struct {
	// QPC is the compiled program used when the host's Model carries
	// neither a path nor bytes: a programqpc.bin file or the directory
	// holding one.
	QPC string
	// Devices selects QIDs; nil selects every device found.
	Devices []int
	// Activations is the number of copies of the program activated on
	// each device, each on its own NSP cores with its own queue.
	Activations int
	// SetSize is the number of exec objects per activation: how many
	// batches one activation holds in flight.
	SetSize int
	// BatchSize is the QPC's compiled batch size: its buffers hold this
	// many samples.
	BatchSize int
	// QueueThreads is numThreadsPerQueue of each activation's queue.
	QueueThreads int
	// WaitTimeout bounds the wait for one batch; a batch still running
	// after it fails its device. It is passed to
	// qaicExecObjWaitForCompletion in microseconds.
	WaitTimeout time.Duration
	// ProbeDevices is how many QIDs discovery probes, from 0.
	ProbeDevices int
	// LibraryPaths are tried in order for libQAic.so.
	LibraryPaths []string
}

// DefaultConfig returns one activation with two exec objects per device,
// batch size 1, four queue threads, a 60 s wait and the SDK's library path.
func DefaultConfig() Config {
	return Config{
		Activations:  1,
		SetSize:      2,
		BatchSize:    1,
		QueueThreads: 4,
		WaitTimeout:  60 * time.Second,
		ProbeDevices: 32,
		LibraryPaths: slices.Clone(DefaultLibraryPaths),
	}
}

// maxWaitTimeout is the largest wait the runtime's uint32 microseconds hold.
const maxWaitTimeout = time.Duration(1<<32-1) * time.Microsecond

// Validate reports every invalid field.
func (c Config) Validate() error {
	var errs []error
	positive := func(name string, v int) {
		if v < 1 {
			errs = append(errs, fmt.Errorf("%s must be at least 1, got %d", name, v))
		}
	}
	positive("activations", c.Activations)
	positive("set_size", c.SetSize)
	positive("batch_size", c.BatchSize)
	positive("queue_threads", c.QueueThreads)
	positive("probe_devices", c.ProbeDevices)
	if c.WaitTimeout < time.Microsecond || c.WaitTimeout > maxWaitTimeout {
		errs = append(errs, fmt.Errorf("wait_timeout must be between 1µs and %v, got %v", maxWaitTimeout, c.WaitTimeout))
	}
	if len(c.LibraryPaths) == 0 {
		errs = append(errs, errors.New("no libQAic path to try"))
	}
	return errors.Join(errs...)
}

// setters apply one plugin option to a private copy of a Config.
var setters = map[string]func(c *Config, v string) error{
	"qpc":           func(c *Config, v string) error { c.QPC = v; return nil },
	"devices":       func(c *Config, v string) (err error) { c.Devices, err = ParseDevices(v); return err },
	"activations":   intSetter(func(c *Config) *int { return &c.Activations }),
	"set_size":      intSetter(func(c *Config) *int { return &c.SetSize }),
	"batch_size":    intSetter(func(c *Config) *int { return &c.BatchSize }),
	"queue_threads": intSetter(func(c *Config) *int { return &c.QueueThreads }),
	"probe_devices": intSetter(func(c *Config) *int { return &c.ProbeDevices }),
	"wait_timeout": func(c *Config, v string) (err error) {
		c.WaitTimeout, err = time.ParseDuration(v)
		return err
	},
	"library": func(c *Config, v string) error {
		c.LibraryPaths = c.LibraryPaths[:0]
		for _, p := range strings.Split(v, ":") {
			if p = strings.TrimSpace(p); p != "" {
				c.LibraryPaths = append(c.LibraryPaths, p)
			}
		}
		return nil
	},
}

func intSetter(field func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) (err error) {
		*field(c), err = strconv.Atoi(v)
		return err
	}
}

// WithOptions returns a copy of c with the plugin options applied, as the
// host passes them in sdk.Model.Options ("--set qaic.activations=3").
//
// # Options
//
//   - qpc: programqpc.bin path, or its directory
//   - devices: "all", or QIDs and ranges, e.g. "0,2-5"
//   - activations: program activations per device
//   - set_size: exec objects per activation
//   - batch_size: the QPC's compiled batch size
//   - queue_threads: worker threads of each queue
//   - wait_timeout: Go duration, e.g. "60s"
//   - probe_devices: QIDs probed by discovery
//   - library: libQAic.so paths, colon-separated
//
// # Errors
//
// Unknown keys and malformed values are reported together.
func (c Config) WithOptions(opts map[string]string) (Config, error) {
	out := c
	out.Devices = slices.Clone(c.Devices)
	out.LibraryPaths = slices.Clone(c.LibraryPaths)
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		set, ok := setters[k]
		if !ok {
			errs = append(errs, fmt.Errorf("option %s: unknown; valid options are %s", k,
				strings.Join(slices.Sorted(maps.Keys(setters)), ", ")))
			continue
		}
		if err := set(&out, strings.TrimSpace(opts[k])); err != nil {
			errs = append(errs, fmt.Errorf("option %s: %w", k, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return out, out.Validate()
}

// maxQID bounds device numbers and range sizes in a device list.
const maxQID = 1 << 16

// ParseDevices parses a device list: "all" (or empty) selects every device
// and returns nil; otherwise comma-separated QIDs and inclusive ranges,
// e.g. "0,2-5", in the order written and without repeats.
func ParseDevices(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return nil, nil
	}
	seen := map[int]bool{}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, err := parseRange(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		for d := lo; d <= hi; d++ {
			if seen[d] {
				return nil, fmt.Errorf("device %d listed twice", d)
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	return out, nil
}

// parseRange parses "3" or "2-5".
func parseRange(part string) (lo, hi int, err error) {
	first, last, isRange := strings.Cut(part, "-")
	if lo, err = parseQID(first); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return lo, lo, nil
	}
	if hi, err = parseQID(last); err != nil {
		return 0, 0, err
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("device range %q runs backwards", part)
	}
	return lo, hi, nil
}

func parseQID(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("device %q: not a number", s)
	}
	if n < 0 || n >= maxQID {
		return 0, fmt.Errorf("device %d outside [0, %d)", n, maxQID)
	}
	return n, nil
}
