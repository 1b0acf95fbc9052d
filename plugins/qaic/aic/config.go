package aic

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

// Config configures the Cloud AI 100 backend. Start from [DefaultConfig];
// a Config is a value and its methods never modify it.
type Config struct {
	// QPC is the compiled program used when the host's Model carries
	// neither a path nor bytes: a programqpc.bin file or the directory
	// holding one, or one per scenario (DIR/Server/programqpc.bin).
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
	// many samples. 0 reads it from the program: its input buffers' size
	// over the data set's tensors (1 when the host declares none).
	BatchSize int
	// BatchTimeout is how long the SDK's batcher lets the oldest issued
	// sample wait for a fuller batch (as KILT's KILT_MAX_WAIT_ABS);
	// negative chooses per scenario (accel.BatchTimeout): a fifth of the
	// latency bound in Server, 0 elsewhere.
	BatchTimeout time.Duration
	// QueueThreads is numThreadsPerQueue of each activation's queue.
	QueueThreads int
	// WaitTimeout bounds the wait for one batch; a batch still running
	// after it fails its device. It is passed to
	// qaicExecObjWaitForCompletion in microseconds.
	WaitTimeout time.Duration
	// Completion chooses how the plugin learns a batch is done: by
	// waiting in qaicExecObjWaitForCompletion (one blocked OS thread per
	// batch in flight) or by the runtime's event callback.
	Completion Completion
	// EventType is the value of QAIC_EVENT_DEVICE_COMPLETE that
	// completion=callback passes to qaicCreateEvent. QAicApi.h is not
	// public: set your SDK's value.
	EventType uint32
	// ProbeDevices, when above 0, is how many QIDs discovery probes, from
	// 0. At 0 (the default) discovery asks about every QID the runtime
	// gives: one per PCI function the qaic kernel driver holds (an Ultra
	// card has four), and as many derived-device QIDs from 100.
	ProbeDevices int
	// NUMA places work near each card's CPUs (as KILT does): a card's
	// activations are brought up from its node's CPUs, so that the
	// runtime's queue threads run there; an exec object's batch is filled
	// and waited for on them; and LoadSamples keeps one copy of the
	// samples per node, written from the node's CPUs so that it lands in
	// the node's memory. Cards in no node, or a nil NUMA, are not placed.
	NUMA []accel.NUMANode
	// SysfsRoot is where discovery counts the qaic driver's devices
	// (SysfsRoot/bus/pci/drivers/qaic); "/sys" by default.
	SysfsRoot string
	// LibraryPaths are tried in order for libQAic.so.
	LibraryPaths []string
}

// DefaultConfig returns one activation with two exec objects per device,
// the program's batch size, batching across queries in Server only, four
// queue threads, a 60 s wait and the SDK's library path.
func DefaultConfig() Config {
	return Config{
		Activations:  1,
		SetSize:      2,
		BatchTimeout: -1,
		QueueThreads: 4,
		WaitTimeout:  60 * time.Second,
		SysfsRoot:    "/sys",
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
	positive("queue_threads", c.QueueThreads)
	if c.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("batch_size must not be negative, got %d", c.BatchSize))
	}
	if c.Completion != CompletionWait && c.Completion != CompletionCallback {
		errs = append(errs, fmt.Errorf("invalid completion %d", c.Completion))
	}
	if c.ProbeDevices < 0 {
		errs = append(errs, fmt.Errorf("probe_devices must not be negative, got %d", c.ProbeDevices))
	}
	if c.WaitTimeout < time.Microsecond || c.WaitTimeout > maxWaitTimeout {
		errs = append(errs, fmt.Errorf("wait_timeout must be between 1µs and %v, got %v", maxWaitTimeout, c.WaitTimeout))
	}
	if len(c.LibraryPaths) == 0 {
		errs = append(errs, errors.New("no libQAic path to try"))
	}
	return errors.Join(errs...)
}

// Completion is how the plugin waits for a batch.
type Completion int

const (
	// CompletionWait blocks in qaicExecObjWaitForCompletion.
	CompletionWait Completion = iota
	// CompletionCallback sleeps until the runtime's event callback.
	CompletionCallback
)

var completionNames = map[string]Completion{"wait": CompletionWait, "callback": CompletionCallback}

// options are the plugin options WithOptions accepts, in the order
// `plugins describe` lists them.
var options = []accel.Option[Config]{
	accel.PathOption("qpc", "programqpc.bin, its directory, or a directory of one per scenario (DIR/Server/programqpc.bin)",
		func(c *Config) *string { return &c.QPC }),
	accel.DevicesOption("devices", `"all", or QIDs and ranges, e.g. "0,2-5"`, func(c *Config) *[]int { return &c.Devices }),
	accel.UintOption("activations", "program activations per device, each on its own cores with its own queue",
		func(c *Config) *int { return &c.Activations }),
	accel.UintOption("set_size", "exec objects per activation: batches it holds in flight", func(c *Config) *int { return &c.SetSize }),
	accel.UintOption("batch_size", "the QPC's compiled batch size (0: read from the program and the data set's tensors)",
		func(c *Config) *int { return &c.BatchSize }),
	accel.DurationOption("batch_timeout", "longest a sample waits for a fuller batch across queries "+
		"(default: a fifth of the latency bound in Server, 0 elsewhere)", func(c *Config) *time.Duration { return &c.BatchTimeout }),
	accel.UintOption("queue_threads", "worker threads of each queue (numThreadsPerQueue)",
		func(c *Config) *int { return &c.QueueThreads }),
	accel.DurationOption("wait_timeout", "longest wait for one batch; a batch running longer fails its card",
		func(c *Config) *time.Duration { return &c.WaitTimeout }),
	accel.EnumOption("completion", "wait (in qaicExecObjWaitForCompletion) or callback (the runtime's event callback)",
		completionNames, func(c *Config) *Completion { return &c.Completion }),
	{Name: "event_type", Help: "QAIC_EVENT_DEVICE_COMPLETE's value in your SDK, for completion=callback", Type: abi.OptionUint,
		Set: func(c *Config, v string) error {
			n, err := strconv.ParseUint(v, 0, 32)
			c.EventType = uint32(n)
			return err
		}, Get: func(c *Config) string { return strconv.FormatUint(uint64(c.EventType), 10) }},
	accel.NUMAOption("numa_config", `QIDs and their CPUs per NUMA node, e.g. "0-31:0-47,96-143&32-63:48-95,144-191"`,
		func(c *Config) *[]accel.NUMANode { return &c.NUMA }),
	accel.UintOption("probe_devices", "QIDs probed by discovery from 0 (0: every QID the runtime numbers)",
		func(c *Config) *int { return &c.ProbeDevices }),
	accel.PathsOption("library", "libQAic.so paths, colon-separated", func(c *Config) *[]string { return &c.LibraryPaths }),
}

// Schema declares every option with c's value as its default (the
// sdk.Info option schema): what Load applies when the option is not set.
func (c Config) Schema() []sdk.Option { return accel.Schema(options, c) }

// WithOptions returns a copy of c with the plugin options applied, as the
// host passes them in sdk.Model.Options ("--set qaic.activations=3").
//
// # Options
//
//   - qpc: programqpc.bin path, or its directory
//   - devices: "all", or QIDs and ranges, e.g. "0,2-5"
//   - activations: program activations per device
//   - set_size: exec objects per activation
//   - batch_size: the QPC's compiled batch size (0: read from the program)
//   - batch_timeout: longest a sample waits for a fuller batch across
//     queries (unset: a fifth of the latency bound in Server, 0 elsewhere)
//   - queue_threads: worker threads of each queue
//   - wait_timeout: Go duration, e.g. "60s"
//   - completion: wait (default) or callback
//   - event_type: QAIC_EVENT_DEVICE_COMPLETE's value, for callback (0)
//   - numa_config: QIDs and CPUs per NUMA node, "0-31:0-47&32-63:48-95"
//   - probe_devices: QIDs probed from 0 (0: every QID the runtime numbers)
//   - library: libQAic.so paths, colon-separated
//
// # Errors
//
// Unknown keys and malformed values are reported together.
func (c Config) WithOptions(opts map[string]string) (Config, error) {
	out := c
	out.Devices = slices.Clone(c.Devices)
	out.LibraryPaths = slices.Clone(c.LibraryPaths)
	out.NUMA = slices.Clone(c.NUMA)
	if err := accel.ApplyOptions(&out, options, opts); err != nil {
		return c, err
	}
	return out, out.Validate()
}
