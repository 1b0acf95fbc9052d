package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// session is the Session stream of the timed run.
type session struct {
	stream   backendv1grpc.Backend_SessionClient
	ctx      context.Context
	cancel   context.CancelFunc
	recvDone chan struct{}
}

// sendItem is one message for the sender: a query's packed records, a
// flush, a doorbell, a ring offer, or the end of the host's side.
type sendItem struct {
	samples   []byte
	flush     bool
	doorbell  bool
	msg       *backendv1.HostMessage
	closeSend bool
}

// ensureSession opens the Session stream once.
func (b *processBackend) ensureSession() error {
	if b.sessionOpen.Load() {
		return nil
	}
	b.sessionMu.Lock()
	defer b.sessionMu.Unlock()
	if b.session != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(b.ctx)
	stream, err := b.rpc.Session(ctx)
	if err != nil {
		cancel()
		return b.rpcError(opIssue, err)
	}
	s := &session{stream: stream, ctx: ctx, cancel: cancel, recvDone: make(chan struct{})}
	if b.ringOffered() {
		b.offerRing()
	}
	b.session = s
	b.bg.Add(1)
	go b.receive(s)
	b.sessionOpen.Store(true)
	return nil
}

// issueChunk is the most issue records one Session message carries. A
// larger query goes as several messages: the plugin starts on the first
// while the host packs the next, and the buffers, reused, stay small
// (96 KiB) instead of one of 24 MiB per million-sample Offline query.
const issueChunk = 4096

// Issue records the samples as in flight, packs them and sends them; it
// never waits for the plugin to answer.
func (b *processBackend) Issue(ctx context.Context, samples []abi.IssueRecord) error {
	if err := b.st.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(samples) == 0 {
		return nil
	}
	if err := b.ensureSession(); err != nil {
		return err
	}
	if err := b.admit(samples); err != nil {
		return err
	}
	// Accepted: from here every sample completes through the handler. If
	// the backend fails while the rest is being sent, fatal fails all of
	// the samples in flight, these included, and Issue stops sending.
	for len(samples) > 0 {
		n := min(len(samples), b.chunk)
		if b.network != nil {
			n = b.network.fit(samples[:n], min(networkChunkBytes, b.cfg.MaxMessageBytes/2))
		}
		b.mu.Lock()
		if b.st.Err() != nil {
			b.mu.Unlock()
			return nil
		}
		var buf []byte
		if k := len(b.free); k > 0 {
			buf, b.free = b.free[k-1][:0], b.free[:k-1]
		}
		buf = slices.Grow(buf, n*abi.IssueRecordSize)
		for _, r := range samples[:n] {
			buf = abi.AppendIssueRecord(buf, r)
		}
		buf, err := b.pushRing(buf)
		if err != nil {
			b.mu.Unlock()
			b.fatal(&PluginError{Plugin: b.name, Op: "issue", Err: err})
			return nil
		}
		switch {
		case b.network != nil && len(buf) > 0:
			msg, err := b.network.issueMessage(samples[:n], buf)
			if err != nil {
				b.mu.Unlock()
				b.fatal(&PluginError{Plugin: b.name, Op: "issue", Err: err})
				return nil
			}
			b.sendq.push(sendItem{msg: msg})
		case len(buf) > 0:
			b.sendq.push(sendItem{samples: buf})
		default:
			b.free = append(b.free, buf)
		}
		b.mu.Unlock()
		b.kickSend(b.session)
		samples = samples[n:]
	}
	return nil
}

// admit puts every sample of one Issue in flight, or none: an id already
// in flight refuses the call.
func (b *processBackend) admit(samples []abi.IssueRecord) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.st.Err(); err != nil {
		return err
	}
	if b.closing {
		return ErrClosed
	}
	if b.inflight.len() == 0 {
		b.lastProgress.Store(int64(time.Since(b.epoch)))
	}
	for i, r := range samples {
		if !b.inflight.add(r.ID) {
			for _, r := range samples[:i] {
				b.inflight.remove(r.ID)
			}
			return fmt.Errorf("%w: sample id %d is already in flight", ErrInvalidArgument, r.ID)
		}
	}
	if b.inflightN.Swap(int64(b.inflight.len())) == 0 && b.ring != nil {
		b.ring.ring() // the completion poller waits while nothing is in flight
	}
	return nil
}

// Flush sends a flush after the queries issued before it and waits for
// the plugin's answer.
func (b *processBackend) Flush(ctx context.Context) error {
	if err := b.st.Err(); err != nil {
		return err
	}
	if !b.info.Capabilities.Has(abi.CapFlush) {
		return nil
	}
	if err := b.ensureSession(); err != nil {
		return err
	}
	done := make(chan error, 1)
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		return ErrClosed
	}
	if err := b.st.Err(); err != nil {
		b.mu.Unlock()
		return err
	}
	b.flushWaiters.push(done)
	b.sendq.push(sendItem{flush: true})
	b.mu.Unlock()
	b.kickSend(b.session)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("flush: %w", ctx.Err())
	}
}

// kickSend sends every queued message, in order, unless another goroutine
// is already doing so (it then sends these too). Whoever issues thus
// sends: one goroutine hop less than a sender goroutine, which is most of
// a Server query's latency on a small machine. A Send blocks only when the
// plugin stops reading; the stall detector then ends the session, which
// unblocks it.
func (b *processBackend) kickSend(s *session) {
	b.mu.Lock()
	if b.sending {
		b.mu.Unlock()
		return
	}
	b.sending = true
	for {
		it, ok := b.sendq.pop()
		if !ok {
			break
		}
		b.mu.Unlock()
		err := b.sendOne(s, it)
		b.mu.Lock()
		if it.samples != nil {
			b.free = append(b.free, it.samples)
		}
		if err != nil {
			// The receiver learns why the stream ended; what is queued
			// fails with the backend.
			break
		}
	}
	b.sending = false
	b.mu.Unlock()
}

// sendOne writes one message. It reuses one message value, owned by the
// goroutine that holds the sending token: SendMsg marshals before
// returning, and the host installs no stats handler that could keep it.
func (b *processBackend) sendOne(s *session, it sendItem) error {
	switch {
	case it.closeSend:
		return s.stream.CloseSend()
	case it.msg != nil:
		return s.stream.Send(it.msg)
	case it.flush:
		b.out.msg.Kind = b.out.flush
	case it.doorbell:
		b.out.msg.Kind = b.out.doorbell
	default:
		b.out.issue.Issue.Samples = it.samples
		b.out.msg.Kind = b.out.issue
	}
	err := s.stream.Send(b.out.msg)
	b.out.issue.Issue.Samples = nil
	return err
}

// outMsg is the reused outgoing message.
type outMsg struct {
	msg      *backendv1.HostMessage
	issue    *backendv1.HostMessage_Issue
	flush    *backendv1.HostMessage_Flush
	doorbell *backendv1.HostMessage_Doorbell
}

func newOutMsg() outMsg {
	return outMsg{
		msg:      &backendv1.HostMessage{},
		issue:    &backendv1.HostMessage_Issue{Issue: &backendv1.Issue{}},
		flush:    &backendv1.HostMessage_Flush{Flush: &backendv1.Flush{}},
		doorbell: &backendv1.HostMessage_Doorbell{Doorbell: &backendv1.Doorbell{}},
	}
}

// receive reads the plugin's messages until the stream ends.
func (b *processBackend) receive(s *session) {
	defer b.bg.Done()
	defer close(s.recvDone)
	var msg backendv1.PluginMessage
	batch := make([]Completion, 0, 256)
	for {
		if err := s.stream.RecvMsg(&msg); err != nil {
			b.sessionEnded(s, err)
			return
		}
		switch k := msg.GetKind().(type) {
		case *backendv1.PluginMessage_Completions:
			batch = b.deliver(k.Completions.GetRecords(), k.Completions.GetData(), false, batch)
		case *backendv1.PluginMessage_FirstTokens:
			batch = b.deliver(k.FirstTokens.GetRecords(), k.FirstTokens.GetData(), true, batch)
		case *backendv1.PluginMessage_Error:
			st := k.Error.GetStatus()
			b.fatal(&PluginError{Plugin: b.name, Op: "session", Err: fmt.Errorf("plugin reported a fatal error: %w",
				statusErr(abi.Code(max(st.GetCode(), uint32(abi.Unknown))), st.GetMessage()))})
		case *backendv1.PluginMessage_Flushed:
			b.drainRing()
			b.flushDone(k.Flushed.GetStatus())
		case *backendv1.PluginMessage_RingAttached:
			b.ringAttached(k.RingAttached.GetStatus())
		case *backendv1.PluginMessage_Doorbell:
			if r := b.ring; r != nil {
				r.ring()
			}
		default:
			// A message of a later minor version: not for this host.
			b.cfg.Logger.Debug("ignoring unknown session message", "plugin", b.name)
		}
	}
}

// deliver validates completions (a Completions message's records and
// data, or records from the completion ring) and hands them to the
// handler.
func (b *processBackend) deliver(records, data []byte, first bool, batch []Completion) []Completion {
	what := "completions"
	if first {
		what = "first tokens"
	}
	cs, err := abi.ParseCompletions(records, data)
	if err != nil {
		b.fatal(&PluginError{Plugin: b.name, Op: "session", Err: fmt.Errorf("%w: %s message: %v", ErrProtocol, what, err)})
		return batch
	}
	var bad error
	batch = batch[:0]
	b.mu.Lock()
	for comp := range cs.All {
		var ok bool
		if first {
			ok = b.inflight.has(comp.ID)
		} else {
			ok = b.inflight.remove(comp.ID)
		}
		if !ok {
			if bad == nil {
				bad = fmt.Errorf("%w: %s for sample id %d, which is not in flight (never issued, or completed before)", ErrProtocol, what, comp.ID)
			}
			continue
		}
		st := comp.Status
		if !st.Known() {
			st = abi.Internal
		}
		batch = append(batch, Completion{ID: comp.ID, Status: st, Data: comp.Data, NTokens: comp.NTokens})
	}
	if !first && len(batch) > 0 {
		b.lastProgress.Store(int64(time.Since(b.epoch)))
		b.inflightN.Store(int64(b.inflight.len()))
		b.noteDrained()
	}
	b.mu.Unlock()
	if len(batch) > 0 {
		if h := b.handler.Load().h; first {
			h.FirstTokens(batch)
		} else {
			h.Complete(batch)
		}
	}
	clear(batch)
	if bad != nil {
		b.fatal(&PluginError{Plugin: b.name, Op: "session", Err: bad})
	}
	return batch[:0]
}

// noteDrained closes drained once Close waits and nothing is in flight;
// b.mu is held.
func (b *processBackend) noteDrained() {
	if b.closing && b.inflight.len() == 0 {
		select {
		case <-b.drained:
		default:
			close(b.drained)
		}
	}
}

func (b *processBackend) hasInflight() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.inflight.len() > 0
}

// flushDone answers the oldest waiting Flush.
func (b *processBackend) flushDone(st *backendv1.Status) {
	b.mu.Lock()
	w, ok := b.flushWaiters.pop()
	b.mu.Unlock()
	if !ok {
		b.cfg.Logger.Warn("plugin answered a flush that was not sent", "plugin", b.name)
		return
	}
	var err error
	if e := statusErr(abi.Code(st.GetCode()), st.GetMessage()); e != nil {
		err = &PluginError{Plugin: b.name, Op: "flush", Err: e}
	}
	w <- err
}

// sessionEnded decides what the end of the stream means: the normal end
// after Close, the plugin's death, or a broken protocol.
func (b *processBackend) sessionEnded(s *session, err error) {
	b.drainRing()
	b.mu.Lock()
	closing := b.closing
	b.mu.Unlock()
	if b.st.Err() != nil || (closing && errors.Is(err, io.EOF) && !b.hasInflight()) {
		return
	}
	if b.proc != nil {
		select {
		case <-b.proc.exited:
			b.crashed()
			return
		case <-time.After(time.Second):
		}
	}
	switch {
	case errors.Is(err, io.EOF):
		err = fmt.Errorf("%w: the plugin ended the session with samples in flight or before the host did", ErrProtocol)
	case status.Code(err) == codes.Canceled && s.ctx.Err() != nil:
		return
	default:
		err = fmt.Errorf("%w: the session broke: %v", ErrCrashed, err)
	}
	b.fatal(&PluginError{Plugin: b.name, Op: "session", Err: fmt.Errorf("%w%s", err, lastWords(b.stdout, b.tail))})
}

// fatal ends the backend with err (the first error wins): every sample in
// flight fails with it, waiting flushes return it, the session stops.
func (b *processBackend) fatal(err error) {
	if !b.st.fail(err) {
		return
	}
	b.cfg.Logger.Error("plugin failed", "plugin", b.name, "err", err)
	b.mu.Lock()
	ids := b.inflight.drain(nil)
	b.inflightN.Store(0)
	var waiters []chan error
	for {
		w, ok := b.flushWaiters.pop()
		if !ok {
			break
		}
		waiters = append(waiters, w)
	}
	if b.closing {
		b.noteDrained()
	}
	b.mu.Unlock()
	deliverFailures(b.handler.Load().h, ids, abi.Aborted, err.Error())
	for _, w := range waiters {
		w <- err
	}
	b.sessionMu.Lock()
	if b.session != nil {
		b.session.cancel()
	}
	if b.ring != nil {
		b.ring.stop()
	}
	b.sessionMu.Unlock()
}

// checkStall fails the run when samples are in flight and none completed
// within the stall deadline.
func (b *processBackend) checkStall() {
	b.mu.Lock()
	n := b.inflight.len()
	b.mu.Unlock()
	if n == 0 || b.st.Err() != nil {
		return
	}
	idle := time.Since(b.epoch) - time.Duration(b.lastProgress.Load())
	if idle <= b.cfg.StallTimeout {
		return
	}
	b.fatal(&PluginError{Plugin: b.name, Op: "session", Err: fmt.Errorf("%w: %d samples in flight and none completed for %v (deadline %v)%s",
		ErrStalled, n, idle.Round(time.Millisecond), b.cfg.StallTimeout, lastWords(b.stdout, b.tail))})
	b.killProcess()
}

func (b *processBackend) Close() error {
	b.closeOnce.Do(func() { b.closeErr = b.close() })
	return b.closeErr
}

func (b *processBackend) close() error {
	b.mu.Lock()
	b.closing = true
	b.noteDrained()
	b.mu.Unlock()
	timer := time.NewTimer(b.cfg.CloseTimeout)
	defer timer.Stop()
	select {
	case <-b.drained:
	case <-b.st.Done():
	case <-timer.C:
		b.fatal(&PluginError{Plugin: b.name, Op: "close", Err: fmt.Errorf("%w: samples still in flight after %v", ErrHang, b.cfg.CloseTimeout)})
	}
	b.sessionMu.Lock()
	s := b.session
	b.sessionMu.Unlock()
	if s != nil {
		if b.st.Err() == nil {
			b.mu.Lock()
			b.sendq.push(sendItem{closeSend: true})
			b.mu.Unlock()
			b.kickSend(s)
			end := time.NewTimer(b.cfg.CloseTimeout)
			select {
			case <-s.recvDone:
			case <-end.C:
				b.cfg.Logger.Warn("plugin did not end the session", "plugin", b.name)
			}
			end.Stop()
		}
		s.cancel()
	}
	var closeErr error
	if b.st.Err() == nil && b.attach == nil {
		ctx, cancel := context.WithTimeout(b.ctx, b.cfg.CloseTimeout)
		closeErr = unary(ctx, b, opClose, func(ctx context.Context) (*backendv1.CloseResponse, error) {
			return b.rpc.Close(ctx, &backendv1.CloseRequest{})
		})
		// gRPC may report the deadline (the server's own timer) a moment
		// before this context's timer fires: either way it is the close
		// timeout that ran out.
		if ctx.Err() != nil || errors.Is(closeErr, ErrHang) {
			closeErr = closeHang(b.name, b.cfg.CloseTimeout, "killed it")
		}
		cancel()
	}
	close(b.stop)
	if b.ring != nil {
		b.ring.stop()
	}
	if b.attach != nil {
		b.detach()
	} else {
		b.shutdown()
	}
	b.bg.Wait()
	if b.ring != nil {
		if err := b.ring.release(b.cfg.Logger, b.name); err != nil {
			b.cfg.Logger.Warn("releasing the shared rings", "path", b.ring.path, "err", err)
		}
	}
	for _, p := range b.arenas {
		if err := removeFile(p); err != nil {
			b.cfg.Logger.Warn("removing sample arena", "path", p, "err", err)
		}
	}
	b.st.fail(ErrClosed)
	return closeErr
}

// shutdown stops a plugin the host started: go-plugin's graceful shutdown,
// then SIGKILL to the process group. A helper that left the group and
// keeps the plugin's stdout or stderr open would keep go-plugin's and the
// host's readers waiting forever: after CloseTimeout the host closes its
// ends of the pipes.
func (b *processBackend) shutdown() {
	killed := make(chan struct{})
	go func() {
		b.client.Kill()
		killGroup(b.pid)
		close(killed)
	}()
	timer := time.NewTimer(b.cfg.CloseTimeout)
	defer timer.Stop()
	select {
	case <-killed:
		select {
		case <-b.stderrDone:
			return
		case <-timer.C:
		}
	case <-timer.C:
	}
	b.cfg.Logger.Warn("plugin output still open after the plugin ended; closing it", "plugin", b.name)
	for _, c := range []io.Closer{b.proc.stdout, b.proc.stderr} {
		if c != nil {
			_ = c.Close()
		}
	}
	<-killed
}
