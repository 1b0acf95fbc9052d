package host

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/mlperf-host/mlperf-host/host/manifest"
)

// Guard is how the host protects itself from a WASM guest that never
// returns. See RATIONALE.md, "Why instrument WASM loops?".
type Guard string

// The guards.
const (
	// GuardLoops (the default) rewrites the module so that every loop
	// counts down a budget and calls into the host when it runs out (every
	// 2^16 iterations). The host then lets the Go scheduler and GC run, and
	// stops the guest if its call passed Config.CallTimeout. Cost: a few
	// instructions per loop iteration.
	GuardLoops Guard = "loops"
	// GuardStrict uses wazero's WithCloseOnContextDone: the compiled code
	// checks for cancellation at every loop iteration by calling into Go.
	// Measured 2.4-50x slower on loops; for conformance runs of untrusted
	// plugins.
	GuardStrict Guard = "strict"
	// GuardOff runs the module as is. A guest that loops forever then
	// cannot be stopped, and freezes the whole process at the next garbage
	// collection; the watchdog still reports it if it runs first. For
	// measuring the guard's cost only.
	GuardOff Guard = "off"
)

// Defaults of Config's zero fields.
const (
	DefaultCallTimeout    = 5 * time.Minute
	DefaultStartTimeout   = time.Minute
	DefaultStallTimeout   = time.Minute
	DefaultHealthInterval = 5 * time.Second
	DefaultCloseTimeout   = 10 * time.Second
	// DefaultMemoryLimitMiB caps each WASM instance when neither the
	// Config nor the manifest says.
	DefaultMemoryLimitMiB = 1024
	// DefaultMaxMessageBytes caps one gRPC message either way.
	DefaultMaxMessageBytes = 256 << 20
	// DefaultRingSpin is how long each side polls its empty shared ring
	// before it sleeps: long enough to cover the plugin's turnaround of a
	// one-sample query, short enough that an idle run does not keep two
	// cores busy.
	DefaultRingSpin = 200 * time.Microsecond
)

// Config is how the host runs a plugin. The zero value is ready to use;
// zero fields take the defaults above. A Config is never modified by the
// host.
type Config struct {
	// Logger receives the plugin's log lines (the WASM log import and
	// stdout/stderr, a subprocess's hclog stderr) with the attribute
	// plugin=<name>, and the host's own diagnostics. nil discards them.
	Logger *slog.Logger

	// CallTimeout bounds one call into a WASM guest (a control call, or one
	// issue call of up to MaxBatch samples) and each control RPC to a
	// subprocess. Past it the run fails with [ErrHang].
	CallTimeout time.Duration
	// CloseTimeout bounds how long Close waits for samples in flight and
	// for the plugin to shut down.
	CloseTimeout time.Duration

	// CompilationCacheDir keeps compiled WASM modules across runs (wazero's
	// disk cache). Empty: compile in memory every time.
	CompilationCacheDir string
	// Instances is the size of the WASM instance pool; 0 means
	// runtime.GOMAXPROCS(0).
	Instances int
	// MemoryLimitMiB caps each WASM instance's memory. 0: the manifest's
	// memory_limit_mib, else DefaultMemoryLimitMiB.
	MemoryLimitMiB int
	// Guard is the hang protection of WASM guests; "" means GuardLoops.
	Guard Guard

	// StartTimeout bounds the start and handshake of a subprocess.
	StartTimeout time.Duration
	// StallTimeout: when samples are in flight in a subprocess and none
	// completes for this long, the run fails with [ErrStalled].
	StallTimeout time.Duration
	// HealthInterval is how often the host pings a subprocess; negative
	// disables the pings.
	HealthInterval time.Duration
	// SharedMemoryDir is where sample arenas for subprocesses are created;
	// "" means /dev/shm when it exists, else os.TempDir().
	SharedMemoryDir string
	// MaxMessageBytes caps one gRPC message either way.
	MaxMessageBytes int
	// DisableSharedArena sends samples inline even when both sides could
	// share memory.
	DisableSharedArena bool
	// DisableSharedRing keeps a session's issue records and completions
	// in gRPC messages even when both sides could share rings (ABI v1.1).
	DisableSharedRing bool
	// SharedRingFirstTokens offers the shared rings to a plugin that
	// reports first tokens too; without it such a plugin's session goes
	// by messages alone. Its completions go by messages in any case
	// (they must follow their first tokens), its requests last
	// milliseconds to minutes, and polling its issue ring after each one
	// takes cores from its own requests: on a 2-core machine TTFT as the
	// LoadGen records it was a third shorter without the rings
	// (BENCHMARKS.md).
	SharedRingFirstTokens bool
	// RingSpin is how long the host and the plugin poll an empty shared
	// ring before they sleep until the other side rings; 0 means
	// DefaultRingSpin, negative never polls (every record waits for its
	// doorbell).
	RingSpin time.Duration
	// DisablePIDNamespace starts a subprocess plugin as a plain process
	// group even where Linux would run it in a PID namespace of its own
	// (see [ProcessTree]): for a plugin that must share its PID namespace
	// with processes it did not start.
	DisablePIDNamespace bool
	// treeWays, when set, replaces the ways the system's tries (tests).
	treeWays []treeWay
	// Env is added to a subprocess's environment (which also inherits the
	// host's).
	Env []string
	// NN is the inference engine behind the wasi_ephemeral_nn import of
	// WASM plugins (see [NNModule]); nil fails their calls with
	// unsupported_operation.
	NN NN
}

// Validate reports every field out of range, joined.
func (c Config) Validate() error {
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"CallTimeout", c.CallTimeout}, {"CloseTimeout", c.CloseTimeout},
		{"StartTimeout", c.StartTimeout}, {"StallTimeout", c.StallTimeout},
	} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("host config: %s is negative (%v)", d.name, d.v))
		}
	}
	if c.Instances < 0 || c.Instances > 1024 {
		errs = append(errs, fmt.Errorf("host config: Instances %d: want 0 (one per CPU) to 1024", c.Instances))
	}
	if c.MemoryLimitMiB < 0 || c.MemoryLimitMiB > manifest.MaxMemoryLimitMiB {
		errs = append(errs, fmt.Errorf("host config: MemoryLimitMiB %d: want 0 (default) to %d", c.MemoryLimitMiB, manifest.MaxMemoryLimitMiB))
	}
	switch c.Guard {
	case "", GuardLoops, GuardStrict, GuardOff:
	default:
		errs = append(errs, fmt.Errorf("host config: Guard %q: want %q, %q or %q", c.Guard, GuardLoops, GuardStrict, GuardOff))
	}
	if c.MaxMessageBytes < 0 {
		errs = append(errs, fmt.Errorf("host config: MaxMessageBytes is negative (%d)", c.MaxMessageBytes))
	}
	return errors.Join(errs...)
}

// withDefaults returns a copy of c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.CallTimeout, DefaultCallTimeout)
	def(&c.CloseTimeout, DefaultCloseTimeout)
	def(&c.StartTimeout, DefaultStartTimeout)
	def(&c.StallTimeout, DefaultStallTimeout)
	def(&c.HealthInterval, DefaultHealthInterval)
	def(&c.RingSpin, DefaultRingSpin)
	if c.Instances == 0 {
		c.Instances = runtime.GOMAXPROCS(0)
	}
	if c.Guard == "" {
		c.Guard = GuardLoops
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	return c
}
