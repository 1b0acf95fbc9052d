package echo

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Version is the echo backend's version.
const Version = "0.1.0"

// Config sizes the backend. The zero value takes the defaults.
type Config struct {
	// MaxBatch is the most samples per Infer call; 0 means DefaultMaxBatch.
	MaxBatch int
	// MaxInFlight is how many Infer calls may run at once; 0 means
	// DefaultMaxInFlight.
	MaxInFlight int
	// FirstTokens makes the backend report each sample's first byte as
	// its first token, as an LLM backend would.
	FirstTokens bool
	// BatchTimeout batches samples of several queries into one Infer
	// call (sdk.Info.BatchTimeout); 0 does not.
	BatchTimeout time.Duration
}

// Defaults of Config's zero fields.
const (
	DefaultMaxBatch    = 256
	DefaultMaxInFlight = 2
)

// BadModel is the model content Load rejects with abi.InvalidArgument:
// the "bad model" of conformance tests.
var BadModel = []byte("fail")

// Backend is the echo backend. Create it with [New].
type Backend struct {
	cfg    Config
	loaded bool
	run    sdk.Run // what Load said the run is
	fault  fault
	after  uint64
	served atomic.Uint64 // samples seen by Infer, for fault_after
	// service is the least time one Infer call takes (service_time).
	service time.Duration

	// Counters the tests read.
	loadedSamples atomic.Int64
	flushes       atomic.Int64
	warmups       atomic.Int64

	hog     [][]byte // the grow fault's memory
	growMiB uint64   // its bound; 0 means none
	spin    uint64   // the loop fault's work
	// closeFault is close_fault: "", "hang" or "fail".
	closeFault string
}

var (
	_ sdk.Backend      = (*Backend)(nil)
	_ sdk.SampleLoader = (*Backend)(nil)
	_ sdk.Flusher      = (*Backend)(nil)
	_ sdk.Warmer       = (*Backend)(nil)

	_ sdk.SubmissionReporter = (*Backend)(nil)
)

// New returns an echo backend.
func New(cfg Config) *Backend {
	if cfg.MaxBatch == 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	return &Backend{cfg: cfg}
}

// Info implements sdk.Backend.
func (b *Backend) Info() sdk.Info {
	return sdk.Info{
		Name: "echo", Version: Version,
		Description: "null backend: completes each sample with its own bytes",
		MaxBatch:    b.cfg.MaxBatch, MaxInFlight: b.cfg.MaxInFlight, FirstTokens: b.cfg.FirstTokens,
		BatchTimeout: b.cfg.BatchTimeout, Options: options,
	}
}

// options is echo's option schema: the SDK checks Load's options against
// it and the host prints it (`mlperf-host plugins describe echo`).
var options = []sdk.Option{
	{Name: OptFault, Type: abi.OptionEnum, Allowed: Faults(), Default: "none", Doc: "misbehave on purpose, for failure tests"},
	{Name: OptFaultAfter, Type: abi.OptionUint, Default: "0", Doc: "samples served normally before the fault strikes"},
	{Name: OptGrowLimitMiB, Type: abi.OptionUint, Doc: "bound of the grow fault in MiB (none: grow until stopped)"},
	{Name: OptMaxBatch, Type: abi.OptionUint, Doc: "samples per Infer call (replaces MLPERF_ECHO_MAX_BATCH)"},
	{Name: OptMaxInFlight, Type: abi.OptionUint, Doc: "Infer calls at once (replaces MLPERF_ECHO_MAX_IN_FLIGHT)"},
	{Name: OptBatchTimeout, Type: abi.OptionDuration, Doc: "batch samples of several queries, each waiting at most this long (0: do not)"},
	{Name: OptServiceTime, Type: abi.OptionDuration, Doc: "least time one Infer call takes, e.g. 1ms (bounds the plugin's speed)"},
	{Name: OptCloseFault, Type: abi.OptionEnum, Allowed: []string{"hang", "fail"}, Doc: "make Close misbehave, for failure tests"},
}

// optionNames returns the names of echo's options, in schema order.
func optionNames() []string {
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.Name
	}
	return names
}

// SubmissionFacts implements sdk.SubmissionReporter: what a real backend
// would say of its software stack.
func (b *Backend) SubmissionFacts() sdk.SubmissionFacts {
	return sdk.SubmissionFacts{Framework: "mlperf-host echo " + Version, InputDataTypes: "any", WeightDataTypes: "none",
		WeightTransformations: "none"}
}

// The options Load takes.
const (
	// OptFault picks a fault from [Faults].
	OptFault = "fault"
	// OptFaultAfter is how many samples Infer serves before the fault
	// strikes (default 0: at the first call).
	OptFaultAfter = "fault_after"
	// OptGrowLimitMiB bounds the "grow" fault (default 0: no bound); past
	// it the call stalls instead.
	OptGrowLimitMiB = "grow_limit_mib"
	// OptMaxBatch and OptMaxInFlight replace the construction Config's
	// limits: Info reports them after Load, as a real backend's stream
	// count or batch size option would change its own.
	OptMaxBatch    = "max_batch"
	OptMaxInFlight = "max_in_flight"
	// OptServiceTime (a Go duration, e.g. "1ms") is the least time one
	// Infer call takes, as a real backend's kernel time would be. With
	// max_batch and max_in_flight it bounds the backend's speed: a run's
	// length then has a floor however idle the machine, which the tests
	// of minimum durations need.
	OptServiceTime = "service_time"
	// OptCloseFault makes Close misbehave: "hang" (never return) or
	// "fail" (return an error).
	OptCloseFault = "close_fault"
	// OptBatchTimeout replaces Config.BatchTimeout.
	OptBatchTimeout = "batch_timeout"
)

// Load implements sdk.Backend. Any model is accepted except [BadModel].
func (b *Backend) Load(ctx context.Context, m sdk.Model) error {
	if b.loaded {
		return sdk.Errorf(abi.FailedPrecondition, "echo: model already loaded")
	}
	if bytes.Equal(m.Bytes, BadModel) {
		return sdk.Errorf(abi.InvalidArgument, "echo: model rejected (its content is %q)", BadModel)
	}
	for k, v := range m.Options {
		switch k {
		case OptFault:
			f, ok := faultByName[v]
			if !ok {
				return sdk.Errorf(abi.InvalidArgument, "echo: option %s=%q: want one of %v", k, v, Faults())
			}
			b.fault = f
		case OptFaultAfter:
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return sdk.Errorf(abi.InvalidArgument, "echo: option %s=%q: want a number of samples", k, v)
			}
			b.after = n
		case OptGrowLimitMiB:
			if _, err := strconv.ParseUint(v, 10, 32); err != nil {
				return sdk.Errorf(abi.InvalidArgument, "echo: option %s=%q: want a number of MiB", k, v)
			}
		case OptMaxBatch, OptMaxInFlight:
			n, err := strconv.ParseUint(v, 10, 31)
			if err != nil || n == 0 {
				return sdk.Errorf(abi.InvalidArgument, "echo: option %s=%q: want a positive number", k, v)
			}
			if k == OptMaxBatch {
				b.cfg.MaxBatch = int(n)
			} else {
				b.cfg.MaxInFlight = int(n)
			}
		case OptServiceTime, OptBatchTimeout:
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return sdk.Errorf(abi.InvalidArgument, "echo: option %s=%q: want a duration such as 1ms", k, v)
			}
			if k == OptServiceTime {
				b.service = d
			} else {
				b.cfg.BatchTimeout = d
			}
		case OptCloseFault:
			if v != "hang" && v != "fail" {
				return sdk.Errorf(abi.InvalidArgument, "echo: option %s=%q: want hang or fail", k, v)
			}
			b.closeFault = v
		default:
			return sdk.Errorf(abi.InvalidArgument, "echo: unknown option %q (known: %s)", k, strings.Join(optionNames(), ", "))
		}
	}
	if b.fault == faultGrow {
		b.growLimit(m.Options[OptGrowLimitMiB])
	}
	b.run = m.Run
	sdk.Logger(ctx).Info("echo loaded", "model_bytes", len(m.Bytes), "model_path", m.Path, "fault", b.fault.String(),
		"benchmark", m.Run.Benchmark, "scenario", m.Run.Scenario, "mode", m.Run.Mode)
	b.loaded = true
	return nil
}

// LoadSamples implements sdk.SampleLoader: echo needs nothing beyond the
// bytes the SDK hands Infer; it counts them.
func (b *Backend) LoadSamples(_ context.Context, samples []sdk.LoadedSample) error {
	b.loadedSamples.Add(int64(len(samples)))
	return nil
}

// UnloadSamples implements sdk.SampleLoader.
func (b *Backend) UnloadSamples(_ context.Context, indices []uint64) error {
	b.loadedSamples.Add(-int64(len(indices)))
	return nil
}

// Flush implements sdk.Flusher: echo holds nothing back.
func (b *Backend) Flush(context.Context) error {
	b.flushes.Add(1)
	return nil
}

// Warmup implements sdk.Warmer.
func (b *Backend) Warmup(ctx context.Context) error {
	b.warmups.Add(1)
	sdk.Logger(ctx).Debug("echo warm-up: nothing to warm")
	return nil
}

// Infer implements sdk.Backend: each sample completes with its bytes when
// its output is wanted, else with none.
func (b *Backend) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	if !b.loaded {
		return sdk.Errorf(abi.FailedPrecondition, "echo: Infer before Load")
	}
	if b.fault != faultNone && b.served.Add(uint64(len(q.Samples)))-uint64(len(q.Samples)) >= b.after {
		return b.misbehave(ctx, q, c)
	}
	if b.service > 0 {
		t := time.NewTimer(b.service)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	b.serve(q, c)
	return nil
}

// serve completes every sample normally.
func (b *Backend) serve(q sdk.Query, c sdk.Completer) {
	for _, s := range q.Samples {
		var out []byte
		switch {
		case !s.WantOutput:
		case len(s.Tensors) > 1:
			out = EncodeTensors(nil, s.Tensors)
		default:
			out = s.Data
		}
		if b.cfg.FirstTokens && len(out) > 0 {
			c.FirstToken(s.ID, out[:1])
		}
		c.Complete(s.ID, out, int64(len(out)))
	}
}

// Close implements sdk.Backend.
func (b *Backend) Close() error {
	b.hog = nil
	return b.closeMisbehave()
}

// Run returns what Load was told the run is.
func (b *Backend) Run() sdk.Run { return b.run }

// Counters returns how many samples are loaded, and how many flushes and
// warm-ups the backend saw.
func (b *Backend) Counters() (loadedSamples, flushes, warmups int64) {
	return b.loadedSamples.Load(), b.flushes.Load(), b.warmups.Load()
}

// wasm reports whether this is a WASM build: a stall there is a deadlock
// the Go runtime reports, so it spins instead.
var wasm = runtime.GOOS == "wasip1"

// sampleIDs formats a query's ids for messages.
func sampleIDs(q sdk.Query) string {
	if len(q.Samples) == 1 {
		return fmt.Sprintf("sample id %d", q.Samples[0].ID)
	}
	return fmt.Sprintf("%d samples", len(q.Samples))
}
