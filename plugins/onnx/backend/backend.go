package backend

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
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
	// feeds fill the model's inputs from a batch's samples.
	feeds feeds
	// resp answers plain batches; seg and gen run the segmentation and
	// token modes instead (response=segmentation, tokens).
	resp      responder
	seg       *segmenter
	gen       *generator
	loaded    bool
	closeOnce sync.Once
	// decoder is a two-graph model's decoder while Load runs (nil: one
	// graph).
	decoder []byte
	// modelDir is the model file's directory while Load runs, where its
	// external data lies ("": the model came as bytes).
	modelDir string
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
	// enc is the encoder inputs of an encoder-decoder's generation.
	enc []engine.Tensor
	// dec is the decoder's session of a model of two graphs (an encoder
	// and a decoder with a key-value cache, modeldir.go); sess is the
	// encoder's.
	dec  *slot
	ok   []sdk.Sample
	rows []int
	resp []byte
	// ran is the batch in progress, here because the responder (an
	// interface) would move it to the heap each batch.
	ran ran
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
	// QuietFallback logs the fallback at info level rather than as a
	// warning: for a default engine that is often unavailable by design
	// (the WASM build's wasinn, on a host without a wasi-nn engine).
	QuietFallback bool
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
	benchmarkDefaults(&cfg, m.Run.Benchmark, m.Options)
	if _, ok := b.engines[cfg.engine]; !ok {
		return fmt.Errorf("onnx: option %s=%q: this build has engines %s", OptEngine, cfg.engine, strings.Join(b.engineNames(), ", "))
	}
	data := m.Bytes
	if data == nil {
		if m.Path == "" {
			return errors.New("onnx: no model: neither bytes nor a path")
		}
		if data, b.decoder, b.modelDir, err = readModel(m.Path); err != nil {
			return fmt.Errorf("onnx: read model: %w", err)
		}
		defer func() { b.decoder, b.modelDir = nil, "" }()
	}
	err = b.loadSessions(ctx, cfg, data)
	if fb := b.setup.Fallback; err != nil && !cfg.engineSet && fb != "" && errors.Is(err, engine.ErrUnavailable) {
		log := sdk.Logger(ctx).Warn
		if b.setup.QuietFallback {
			log = sdk.Logger(ctx).Info
		}
		log(fmt.Sprintf("%s: the %s engine is unavailable; the %s engine runs the model instead "+
			"(--set %s.%s=%s makes this an error): %v", b.setup.Name, cfg.engine, fb, b.setup.Name, OptEngine, cfg.engine, err))
		cfg.engine = fb
		err = b.loadSessions(ctx, cfg, data)
	}
	if errors.Is(err, engine.ErrUnavailable) {
		return &unavailableError{err: err}
	}
	if m.Bytes != nil && errors.Is(err, onnxpb.ErrExternalData) {
		return fmt.Errorf("%w (the plugin got the model's bytes, not its path, so it cannot open the data file beside it: "+
			"a WASM plugin always does; a native one, such as onnx-ort, reads the model from its path)", err)
	}
	if err != nil {
		return err
	}
	if err := b.prepare(ctx, m, data); err != nil {
		b.closeSessions()
		return fmt.Errorf("onnx: %w", err)
	}
	b.loaded = true
	sdk.Logger(ctx).Info(fmt.Sprintf("%s: the %s engine runs the model", b.setup.Name, b.cfg.engine))
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
	opts := engine.Options{Threads: cfg.threads, MaxBatch: cfg.batch, ModelDir: b.modelDir, Extra: cfg.extra}
	if cfg.anyShape {
		opts.MaxBatch = 0
	}
	b.cfg = cfg
	b.slots = make(chan *slot, cfg.instances)
	for range cfg.instances {
		s, err := eng.Load(ctx, data, opts)
		if err != nil {
			b.closeSessions()
			return fmt.Errorf("onnx: load model with the %s engine: %w%s", cfg.engine, err, b.otherEngineHint(cfg, err))
		}
		sl := newSlot(s)
		b.all = append(b.all, sl)
		b.slots <- sl
		if b.decoder != nil {
			d, err := eng.Load(ctx, b.decoder, opts)
			if err != nil {
				b.closeSessions()
				return fmt.Errorf("onnx: load the decoder with the %s engine: %w%s", cfg.engine, err, b.otherEngineHint(cfg, err))
			}
			sl.dec = newSlot(d)
		}
	}
	return nil
}

// Infer implements sdk.Backend: it runs the query's samples on a free
// session, in batches of at most the batch option (samples of one shape
// together), and completes each sample with the response option's
// answer; in the segmentation and tokens modes it runs each sample by
// itself, window by window or token by token.
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
	switch {
	case b.seg != nil:
		return b.eachSample(ctx, sl, q.Samples, c, b.seg.run)
	case b.gen != nil:
		return b.eachSample(ctx, sl, q.Samples, c, b.gen.run)
	}
	samples := q.Samples
	for len(samples) > 0 {
		n := 1
		for n < len(samples) && n < b.cfg.batch && b.feeds.sameShapes(&samples[0], &samples[n]) {
			n++
		}
		if err := b.runBatch(ctx, sl, samples[:n], c); err != nil {
			return err
		}
		samples = samples[n:]
	}
	return nil
}

// eachSample runs f on every sample that fits the model; a sample that
// does not fails alone.
func (b *Backend) eachSample(ctx context.Context, sl *slot, samples []sdk.Sample, c sdk.Completer,
	f func(context.Context, *slot, *sdk.Sample, sdk.Completer) error,
) error {
	for i := range samples {
		s := &samples[i]
		if _, err := b.feeds.check(s); err != nil {
			c.Fail(s.ID, fmt.Errorf("onnx: %w", err))
			continue
		}
		if err := f(ctx, sl, s, c); err != nil {
			return err
		}
	}
	return nil
}

// runBatch runs one batch; samples with bad data fail alone.
func (b *Backend) runBatch(ctx context.Context, sl *slot, samples []sdk.Sample, c sdk.Completer) error {
	ok, rows := sl.ok[:0], sl.rows[:0]
	defer func() { sl.ok, sl.rows = ok[:0], rows[:0] }()
	total := 0
	for i := range samples {
		s := &samples[i]
		n, err := b.feeds.check(s)
		if err != nil {
			c.Fail(s.ID, fmt.Errorf("onnx: %w", err))
			continue
		}
		ok, rows = append(ok, *s), append(rows, total)
		total += n
	}
	if len(ok) == 0 {
		return nil
	}
	rows = append(rows, total)
	if err := b.feeds.fill(sl.in, ok); err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	if err := sl.sess.Run(ctx, sl.in, sl.out); err != nil {
		return fmt.Errorf("onnx: run batch of %d: %w", len(ok), err)
	}
	r := &sl.ran
	*r = ran{samples: ok, ins: sl.in, outs: sl.out}
	defer func() { *r = ran{} }() // drop references to the samples
	if b.feeds.layout == concatRows {
		r.rowStart = rows
		for _, o := range sl.out {
			if len(o.Shape) == 0 || o.Shape[0] != int64(total) {
				return fmt.Errorf("onnx: output %s has shape %v for %d rows: a model fed rows must answer one per row", o.Name, o.Shape, total)
			}
		}
	}
	resp := sl.resp
	defer func() { sl.resp = resp }()
	for i, s := range ok {
		if !s.WantOutput {
			c.Complete(s.ID, nil, 0)
			continue
		}
		var err error
		if resp, err = b.resp.appendResponse(resp[:0], r, i); err != nil {
			c.Fail(s.ID, fmt.Errorf("onnx: sample %d: %w", s.Index, err))
			continue
		}
		c.Complete(s.ID, resp, 0)
	}
	return nil
}

// Warmup implements sdk.Warmer: one run of a batch of zeros on every
// session (free dimensions the batch option, or 1 past the batch), so
// that plans and buffers exist before the timed run.
func (b *Backend) Warmup(ctx context.Context) error {
	if !b.loaded {
		return errors.New("onnx: Warmup before Load")
	}
	for _, sl := range b.all {
		if b.gen != nil && b.gen.kv != nil && sl.dec == nil {
			if err := b.gen.kv.warmCache(ctx, sl); err != nil {
				return fmt.Errorf("onnx: warm-up: %w", err)
			}
			continue
		}
		// Every model input, those fed from the data set and an
		// encoder-decoder's token ids alike.
		ins := make([]engine.Tensor, len(sl.sess.Inputs()))
		for i, desc := range sl.sess.Inputs() {
			t := engine.Tensor{Name: desc.Name, DType: desc.DType}
			for k, d := range desc.Shape {
				switch {
				case d >= 0:
					t.Shape = append(t.Shape, d)
				case k == 0 && b.seg == nil && b.gen == nil:
					t.Shape = append(t.Shape, int64(b.cfg.batch))
				default:
					t.Shape = append(t.Shape, 1)
				}
			}
			t.Data = make([]byte, engine.Elements(t.Shape)*desc.DType.Size())
			ins[i] = t
		}
		if err := sl.sess.Run(ctx, ins, sl.out); err != nil {
			return fmt.Errorf("onnx: warm-up: %w", err)
		}
		if sl.dec != nil {
			if err := b.gen.kv.warmCache(ctx, sl); err != nil {
				return fmt.Errorf("onnx: warm-up: %w", err)
			}
		}
	}
	return nil
}

// newSlot returns a slot for session s with its run's tensors.
func newSlot(s engine.Session) *slot {
	return &slot{sess: s, in: make([]engine.Tensor, len(s.Inputs())), out: make([]engine.Tensor, len(s.Outputs())),
		enc: make([]engine.Tensor, len(s.Inputs()))}
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
		if sl.dec != nil {
			errs = append(errs, sl.dec.sess.Close())
		}
	}
	b.all = nil
	return errors.Join(errs...)
}
