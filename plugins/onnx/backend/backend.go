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

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Version is the onnx plugin's version.
const Version = "0.1.0"

// Backend serves ONNX models through one of its engines. Create it with
// [New].
type Backend struct {
	engines     map[string]engine.Engine
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

// New returns a backend over the given engines; the first is the
// default when it is called "go" or when no "go" engine is given.
func New(engines ...engine.Engine) *Backend {
	b := &Backend{engines: map[string]engine.Engine{}, maxInFlight: runtime.GOMAXPROCS(0)}
	for _, e := range engines {
		b.engines[e.Name()] = e
	}
	return b
}

// Info implements sdk.Backend. MaxInFlight is the number of CPUs; how
// many Infer calls really run at once is the instances option (others
// wait for a free session).
func (b *Backend) Info() sdk.Info {
	names := make([]string, 0, len(b.engines))
	for n := range b.engines {
		names = append(names, n)
	}
	sort.Strings(names)
	return sdk.Info{
		Name:        "onnx",
		Version:     Version,
		Description: "ONNX models on CPU (engines: " + strings.Join(names, ", ") + ")",
		MaxInFlight: b.maxInFlight,
	}
}

// Load implements sdk.Backend: it reads the model (Bytes, else Path),
// loads one session per instance and checks that the model has one input
// whose first dimension is the batch.
func (b *Backend) Load(ctx context.Context, m sdk.Model) error {
	if b.loaded {
		return errors.New("onnx: model already loaded")
	}
	cfg, err := parseOptions(m.Options, b.maxInFlight)
	if err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	eng, ok := b.engines[cfg.engine]
	if !ok {
		return fmt.Errorf("onnx: option %s=%q: this build has engines %v", OptEngine, cfg.engine, b.Info().Description)
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
