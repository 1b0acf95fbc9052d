package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Version is the onnx plugin's version.
const Version = "0.1.0"

// Backend serves ONNX models through one of its engines. Create it with
// [New] or [NewWithConfig].
type Backend struct {
	engines     map[string]engine.Engine
	setup       Config
	maxInFlight int

	cfg   config
	slots chan *slot
	all   []*slot
	// sampleBytes is the byte size of one sample of the model's input.
	sampleBytes int
	in          engine.TensorDesc
	resp        responder
	loaded      bool
	closeOnce   sync.Once
}

var (
	_ sdk.Backend = (*Backend)(nil)
	_ sdk.Warmer  = (*Backend)(nil)
)

// slot is one session with the buffers of the run in flight on it.
type slot struct {
	sess engine.Session
	in   []engine.Tensor
	out  []engine.Tensor
	ok   []sdk.Sample
	resp []byte
}

// Config is what a plugin's main chooses beyond the engines. The zero
// value is the onnx plugin's: named "onnx", the go engine by default.
type Config struct {
	// Name is the plugin's name in Info; "" means "onnx".
	Name string
	// Description starts Info's description (the engines and the default
	// follow); "" means "ONNX models on CPU".
	Description string
	// Engine serves models whose options name no engine; "" means "go".
	Engine string
	// Fallback serves them instead when Engine cannot run on this machine
	// (its Load fails with [engine.ErrUnavailable]: ONNX Runtime's library
	// is missing); Load logs a warning that says why. "" means no
	// fallback: Load fails. A model whose options name the engine never
	// falls back.
	Fallback string
}

// withDefaults fills in the zero fields.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "onnx"
	}
	if c.Description == "" {
		c.Description = "ONNX models on CPU"
	}
	if c.Engine == "" {
		c.Engine = "go"
	}
	return c
}

// New returns a backend over the given engines with the zero [Config]:
// the go engine serves models whose options name no engine.
func New(engines ...engine.Engine) *Backend {
	b := &Backend{engines: map[string]engine.Engine{}, setup: Config{}.withDefaults(), maxInFlight: runtime.GOMAXPROCS(0)}
	for _, e := range engines {
		b.engines[e.Name()] = e
	}
	return b
}

// NewWithConfig returns a backend over the given engines configured by
// cfg. It fails when cfg's engine or fallback is not among them.
func NewWithConfig(cfg Config, engines ...engine.Engine) (*Backend, error) {
	b := New(engines...)
	b.setup = cfg.withDefaults()
	for _, name := range []string{b.setup.Engine, b.setup.Fallback} {
		if _, ok := b.engines[name]; name != "" && !ok {
			return nil, fmt.Errorf("onnx: engine %q: this build has engines %s", name, strings.Join(b.engineNames(), ", "))
		}
	}
	return b, nil
}

// engineNames returns the engines' names, sorted.
func (b *Backend) engineNames() []string {
	names := make([]string, 0, len(b.engines))
	for n := range b.engines {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Info implements sdk.Backend. MaxInFlight is the number of CPUs; how
// many Infer calls really run at once is the instances option (others
// wait for a free session).
func (b *Backend) Info() sdk.Info {
	desc := b.setup.Description + " (engines: " + strings.Join(b.engineNames(), ", ")
	if len(b.engines) > 1 || b.setup.Engine != "go" {
		desc += "; default " + b.setup.Engine
		if b.setup.Fallback != "" {
			desc += ", " + b.setup.Fallback + " when " + b.setup.Engine + " is unavailable"
		}
	}
	return sdk.Info{
		Name:        b.setup.Name,
		Version:     Version,
		Description: desc + ")",
		MaxInFlight: b.maxInFlight,
		Options:     b.optionSchema(),
	}
}

// Load implements sdk.Backend: it reads the model (Bytes, else Path),
// loads one session per instance and checks that the model has one input
// whose first dimension is the batch. When the default engine is
// unavailable and the options name no engine, the fallback engine
// ([Config]) loads the model and a warning says why.
func (b *Backend) Load(ctx context.Context, m sdk.Model) error {
	if b.loaded {
		return errors.New("onnx: model already loaded")
	}
	cfg, err := parseOptions(m.Options, b.maxInFlight, b.setup.Engine)
	if err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	if _, ok := b.engines[cfg.engine]; !ok {
		return fmt.Errorf("onnx: option %s=%q: this build has engines %s", OptEngine, cfg.engine, strings.Join(b.engineNames(), ", "))
	}
	data := m.Bytes
	if data == nil {
		if m.Path == "" {
			return errors.New("onnx: no model: neither bytes nor a path")
		}
		if data, err = os.ReadFile(m.Path); err != nil {
			return fmt.Errorf("onnx: read model: %w", err)
		}
	}
	err = b.loadSessions(ctx, cfg, data)
	if fb := b.setup.Fallback; err != nil && !cfg.engineSet && fb != "" && errors.Is(err, engine.ErrUnavailable) {
		sdk.Logger(ctx).Warn(fmt.Sprintf("%s: the %s engine is unavailable; the %s engine runs the model instead "+
			"(--set %s.%s=%s makes this an error): %v", b.setup.Name, cfg.engine, fb, b.setup.Name, OptEngine, cfg.engine, err))
		cfg.engine = fb
		err = b.loadSessions(ctx, cfg, data)
	}
	if errors.Is(err, engine.ErrUnavailable) {
		return &unavailableError{err: err}
	}
	if err != nil {
		return err
	}
	if err := b.checkIO(b.all[0].sess); err != nil {
		b.closeSessions()
		return err
	}
	if b.resp, err = newResponder(cfg, b.all[0].sess.Outputs()); err != nil {
		b.closeSessions()
		return fmt.Errorf("onnx: %w", err)
	}
	b.loaded = true
	return nil
}

// unavailableError is an engine that cannot run on this machine: the
// host sees [abi.FailedPrecondition] (the user can install what is
// missing) rather than an internal error.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return e.err.Error() }

func (e *unavailableError) Unwrap() error { return e.err }

// As makes errors.As(err, **sdk.StatusError) give the code.
func (e *unavailableError) As(target any) bool {
	p, ok := target.(**sdk.StatusError)
	if ok {
		*p = &sdk.StatusError{Code: abi.FailedPrecondition, Message: e.err.Error()}
	}
	return ok
}

// loadSessions loads one session per instance with cfg's engine; on
// failure it closes those it made.
func (b *Backend) loadSessions(ctx context.Context, cfg config, data []byte) error {
	eng := b.engines[cfg.engine]
	opts := engine.Options{Threads: cfg.threads, MaxBatch: cfg.batch, Extra: cfg.extra}
	b.cfg = cfg
	b.slots = make(chan *slot, cfg.instances)
	for range cfg.instances {
		s, err := eng.Load(ctx, data, opts)
		if err != nil {
			b.closeSessions()
			return fmt.Errorf("onnx: load model with the %s engine: %w", cfg.engine, err)
		}
		sl := &slot{sess: s, in: make([]engine.Tensor, 1), out: make([]engine.Tensor, len(s.Outputs()))}
		b.all = append(b.all, sl)
		b.slots <- sl
	}
	return nil
}

// checkIO requires one input whose only free dimension is the first.
func (b *Backend) checkIO(s engine.Session) error {
	ins := s.Inputs()
	if len(ins) != 1 {
		return fmt.Errorf("onnx: model has %d inputs; the backend serves single-input models", len(ins))
	}
	in := ins[0]
	if len(in.Shape) == 0 || in.Shape[0] >= 0 && in.Shape[0] != 1 {
		return fmt.Errorf("onnx: input %v: the first dimension must be the batch", in)
	}
	size := in.DType.Size()
	for _, d := range in.Shape[1:] {
		if d < 0 {
			return fmt.Errorf("onnx: input %v: only the batch dimension may be free", in)
		}
		size *= int(d)
	}
	if in.Shape[0] == 1 {
		b.cfg.batch = 1 // a model exported for batch 1 only
	}
	b.in, b.sampleBytes = in, size
	return nil
}

// Infer implements sdk.Backend: it runs the query's samples in batches of
// at most the batch option on a free session, and completes each sample
// with its slice of every output, concatenated in output order, or with
// its class (the response option).
func (b *Backend) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	if !b.loaded {
		return errors.New("onnx: Infer before Load")
	}
	var sl *slot
	select {
	case sl = <-b.slots:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { b.slots <- sl }()
	samples := q.Samples
	for len(samples) > 0 {
		n := min(len(samples), b.cfg.batch)
		if err := b.runBatch(ctx, sl, samples[:n], c); err != nil {
			return err
		}
		samples = samples[n:]
	}
	return nil
}

// runBatch runs one batch; samples with bad data fail alone.
func (b *Backend) runBatch(ctx context.Context, sl *slot, samples []sdk.Sample, c sdk.Completer) error {
	in := &sl.in[0]
	in.Name, in.DType = b.in.Name, b.in.DType
	in.Data = in.Data[:0]
	ok := sl.ok[:0]
	defer func() { sl.ok = ok[:0] }()
	for _, s := range samples {
		if len(s.Data) != b.sampleBytes {
			c.Fail(s.ID, fmt.Errorf("onnx: sample %d has %d bytes, input %v wants %d", s.Index, len(s.Data), b.in, b.sampleBytes))
			continue
		}
		in.Data = append(in.Data, s.Data...)
		ok = append(ok, s)
	}
	if len(ok) == 0 {
		return nil
	}
	in.Shape = append(in.Shape[:0], int64(len(ok)))
	in.Shape = append(in.Shape, b.in.Shape[1:]...)
	if err := sl.sess.Run(ctx, sl.in, sl.out); err != nil {
		return fmt.Errorf("onnx: run batch of %d: %w", len(ok), err)
	}
	resp := sl.resp
	defer func() { sl.resp = resp }()
	for i, s := range ok {
		if !s.WantOutput {
			c.Complete(s.ID, nil, 0)
			continue
		}
		var err error
		if resp, err = b.resp.appendResponse(resp[:0], sl.out, i, len(ok)); err != nil {
			c.Fail(s.ID, fmt.Errorf("onnx: sample %d: %w", s.Index, err))
			continue
		}
		c.Complete(s.ID, resp, 0)
	}
	return nil
}

// Warmup implements sdk.Warmer: one run of a full batch of zeros on every
// session, so that plans and buffers exist before the timed run.
func (b *Backend) Warmup(ctx context.Context) error {
	if !b.loaded {
		return errors.New("onnx: Warmup before Load")
	}
	for _, sl := range b.all {
		in := engine.Tensor{Name: b.in.Name, DType: b.in.DType, Shape: slices.Concat([]int64{int64(b.cfg.batch)}, b.in.Shape[1:]),
			Data: make([]byte, b.cfg.batch*b.sampleBytes)}
		if err := sl.sess.Run(ctx, []engine.Tensor{in}, sl.out); err != nil {
			return fmt.Errorf("onnx: warm-up: %w", err)
		}
	}
	return nil
}

// Close implements sdk.Backend. It is idempotent.
func (b *Backend) Close() error {
	var err error
	b.closeOnce.Do(func() { err = b.closeSessions() })
	return err
}

func (b *Backend) closeSessions() error {
	var errs []error
	for _, sl := range b.all {
		errs = append(errs, sl.sess.Close())
	}
	b.all = nil
	return errors.Join(errs...)
}
