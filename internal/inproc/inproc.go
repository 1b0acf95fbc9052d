package inproc

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// backend serves an sdk.Backend through an sdk.Server in this process:
// the SDK's own session with no transport between it and the host.
type backend struct {
	srv    *sdk.Server
	info   host.Info
	inputs []host.TensorSpec // the model's, for the samples' tensors
	ctx    context.Context   // the session's; canceled by Close

	cancel  context.CancelFunc
	handler atomic.Pointer[handlerRef]

	// mu serializes what the SDK's session takes from one goroutine
	// (Issue, Flush, End) and guards the fields below.
	mu      sync.Mutex
	sess    *sdk.Session
	records []byte       // Issue's packing buffer
	flushes []chan error // the answers awaited, in the order of the flushes

	done   chan struct{}
	errMu  sync.Mutex
	err    error
	closer sync.Once
	closeE error
}

type handlerRef struct{ h host.Handler }

var _ host.Backend = (*backend)(nil)

// Open serves b in-process through an [sdk.Server].
func Open(ctx context.Context, b sdk.Backend) (host.Backend, error) {
	srv := sdk.NewServer(b, sdk.ServerConfig{ModelPath: true})
	r := srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major})
	if err := statusErr(r.GetStatus()); err != nil {
		srv.Close()
		return nil, &host.PluginError{Plugin: r.GetName(), Op: "info", Err: err}
	}
	info, err := host.InfoFromResponse(r, host.TransportInProcess, 1)
	if err != nil {
		srv.Close()
		return nil, &host.PluginError{Plugin: r.GetName(), Op: "info", Err: err}
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a := &backend{srv: srv, info: info, ctx: sctx, cancel: cancel, done: make(chan struct{})}
	a.handler.Store(&handlerRef{host.HandlerFuncs{}})
	return a, nil
}

// statusErr returns nil for OK, else the status as a *host.StatusError.
func statusErr(s *backendv1.Status) error {
	if c := abi.Code(s.GetCode()); c != abi.OK {
		return &host.StatusError{Code: c, Message: s.GetMessage()}
	}
	return nil
}

func (a *backend) Info() host.Info { return a.info }

func (a *backend) SetHandler(h host.Handler) {
	if h == nil {
		h = host.HandlerFuncs{}
	}
	a.handler.Store(&handlerRef{h})
}

func (a *backend) Done() <-chan struct{} { return a.done }

func (a *backend) Err() error {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	return a.err
}

// fail ends the backend with err unless it ended before.
func (a *backend) fail(err error) {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	if a.err == nil {
		a.err = err
		close(a.done)
	}
}

// control runs one control call of the server and turns its status into
// an error naming the plugin.
func (a *backend) control(ctx context.Context, op string, call func() *backendv1.Status) error {
	if err := a.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := statusErr(call()); err != nil {
		return &host.PluginError{Plugin: a.info.Name, Op: op, Err: err}
	}
	return nil
}

func (a *backend) Load(ctx context.Context, m host.Model) error {
	var r *backendv1.LoadResponse
	err := a.control(ctx, "load", func() *backendv1.Status {
		r = a.srv.Load(ctx, host.NewLoadRequest(m))
		return r.GetStatus()
	})
	if err == nil {
		// Load's options may set the limits (sdk.Backend.Info).
		if err := a.info.ApplyLoadResponse(r); err != nil {
			return &host.PluginError{Plugin: a.info.Name, Op: "load", Err: err}
		}
		a.inputs = m.Inputs
	}
	return err
}

// LoadSamples copies the samples into one buffer the server keeps until
// they are unloaded.
func (a *backend) LoadSamples(ctx context.Context, samples []host.Sample) error {
	size := 0
	for _, s := range samples {
		size += len(s.Data)
	}
	buf := make([]byte, 0, size)
	loaded := make([]sdk.LoadedSample, len(samples))
	for i, s := range samples {
		off := len(buf)
		buf = append(buf, s.Data...)
		loaded[i] = sdk.LoadedSample{Index: s.Index, Data: buf[off:len(buf):len(buf)]}
		for k, t := range s.Tensors {
			if k >= len(a.inputs) || t.Offset < 0 || t.Length < 0 || t.Offset+t.Length > len(s.Data) {
				return fmt.Errorf("load samples: sample index %d: tensor %d is not one of the model's inputs, or outside the sample", s.Index, k)
			}
			d := loaded[i].Data[t.Offset : t.Offset+t.Length : t.Offset+t.Length]
			loaded[i].Tensors = append(loaded[i].Tensors, sdk.Tensor{Name: a.inputs[k].Name, DType: a.inputs[k].DType, Shape: t.Shape, Data: d})
		}
	}
	return a.control(ctx, "load samples", func() *backendv1.Status { return a.srv.LoadSamples(ctx, loaded, nil).GetStatus() })
}

func (a *backend) UnloadSamples(ctx context.Context, indices []uint64) error {
	return a.control(ctx, "unload samples", func() *backendv1.Status {
		return a.srv.UnloadSamples(ctx, &backendv1.UnloadSamplesRequest{Indices: indices}).GetStatus()
	})
}

func (a *backend) Warmup(ctx context.Context) error {
	return a.control(ctx, "warmup", func() *backendv1.Status { return a.srv.Warmup(ctx).GetStatus() })
}

// session returns the open session, opening it at the first call; a.mu
// is held.
func (a *backend) session() (*sdk.Session, error) {
	if a.sess != nil {
		return a.sess, nil
	}
	s, err := a.srv.OpenSession(a.ctx, output{a})
	if err != nil {
		return nil, &host.PluginError{Plugin: a.info.Name, Op: "session", Err: err}
	}
	a.sess = s
	return s, nil
}

// Issue hands the query to the SDK's session, which splits it into Infer
// calls of at most MaxBatch samples on MaxInFlight workers.
func (a *backend) Issue(ctx context.Context, samples []abi.IssueRecord) error {
	if err := a.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.session()
	if err != nil {
		return err
	}
	a.records = a.records[:0]
	for _, r := range samples {
		a.records = abi.AppendIssueRecord(a.records, r)
	}
	if err := s.Issue(a.records); err != nil {
		return &host.PluginError{Plugin: a.info.Name, Op: "issue", Err: err}
	}
	return nil
}

// Flush queues a flush behind the queries issued before it and waits for
// its answer: the backend's Flush, once they have completed.
func (a *backend) Flush(ctx context.Context) error {
	if err := a.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	answer := make(chan error, 1)
	s, err := a.session()
	if err == nil {
		if err = s.Flush(); err == nil {
			a.flushes = append(a.flushes, answer)
		}
	}
	a.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case err := <-answer:
		if err != nil {
			return &host.PluginError{Plugin: a.info.Name, Op: "flush", Err: err}
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends the session (every sample issued completes), then closes the
// server and the backend.
func (a *backend) Close() error {
	a.closer.Do(func() {
		a.mu.Lock()
		s := a.sess
		a.mu.Unlock()
		if s != nil {
			s.End()
		}
		a.cancel()
		a.closeE = statusErr(a.srv.Close().GetStatus())
		if a.closeE != nil {
			a.closeE = &host.PluginError{Plugin: a.info.Name, Op: "close", Err: a.closeE}
		}
		a.fail(host.ErrClosed)
	})
	return a.closeE
}

// output delivers the session's results to the handler, one completion
// per call as the session reports them.
type output struct{ a *backend }

// batches are one-completion batches for the handler: a batch escapes to
// the heap through the Handler interface, so workers reuse them.
var batches = sync.Pool{New: func() any { return new([1]host.Completion) }}

func (o output) deliver(c host.Completion, first bool) {
	b := batches.Get().(*[1]host.Completion)
	b[0] = c
	if h := o.a.handler.Load().h; first {
		h.FirstTokens(b[:])
	} else {
		h.Complete(b[:])
	}
	b[0] = host.Completion{}
	batches.Put(b)
}

func (o output) Complete(id uint64, code abi.Code, data []byte, nTokens int64) {
	o.deliver(host.Completion{ID: id, Status: code, Data: data, NTokens: nTokens}, false)
}

func (o output) FirstToken(id uint64, data []byte) {
	o.deliver(host.Completion{ID: id, Data: data}, true)
}

// Flushed answers the oldest flush: the session answers them in order.
func (o output) Flushed(code abi.Code, message string) {
	o.a.mu.Lock()
	var answer chan error
	if len(o.a.flushes) > 0 {
		answer, o.a.flushes = o.a.flushes[0], o.a.flushes[1:]
	}
	o.a.mu.Unlock()
	if answer != nil {
		answer <- statusErr(&backendv1.Status{Code: uint32(code), Message: message})
	}
}

// Violation ends the backend: its results can no longer be trusted. Every
// sample issued still completes once (the SDK sees to it).
func (o output) Violation(_ uint64, err error) {
	o.a.fail(&host.PluginError{Plugin: o.a.info.Name, Op: "issue", Err: fmt.Errorf("%w: %w", host.ErrProtocol, err)})
}
