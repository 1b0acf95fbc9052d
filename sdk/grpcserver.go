//go:build !wasip1

package sdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// MaxMessageBytes caps one gRPC message either way, as the host's default
// does.
const MaxMessageBytes = 256 << 20

// grpcBackend is the gRPC service of a subprocess plugin over a [Server].
type grpcBackend struct {
	backendv1grpc.UnimplementedBackendServer
	srv        *Server
	maxMessage int
}

var _ backendv1grpc.BackendServer = (*grpcBackend)(nil)

func newGRPCBackend(srv *Server) *grpcBackend {
	return &grpcBackend{srv: srv, maxMessage: MaxMessageBytes}
}

func (g *grpcBackend) Info(_ context.Context, req *backendv1.InfoRequest) (*backendv1.InfoResponse, error) {
	return g.srv.Info(req), nil
}

func (g *grpcBackend) Load(ctx context.Context, req *backendv1.LoadRequest) (*backendv1.LoadResponse, error) {
	return g.srv.Load(ctx, req), nil
}

// LoadSamples resolves the samples' bytes: inline data as it arrived (the
// request owns it), or ranges of the host's shared arena, mapped
// read-only: zero copies either way.
func (g *grpcBackend) LoadSamples(ctx context.Context, req *backendv1.LoadSamplesRequest) (*backendv1.LoadSamplesResponse, error) {
	samples, release, err := resolveSamples(req, g.srv.cfg.SharedMemoryDir)
	if err != nil {
		return &backendv1.LoadSamplesResponse{Status: status(err)}, nil
	}
	return g.srv.LoadSamples(ctx, samples, release), nil
}

// resolveSamples turns a request into samples and the function that
// releases the memory they live in; an arena must lie in shmDir.
func resolveSamples(req *backendv1.LoadSamplesRequest, shmDir string) ([]LoadedSample, func(), error) {
	var arena []byte
	var release func()
	if a := req.GetArena(); a != nil {
		var err error
		if arena, release, err = mapArena(shmDir, a.GetPath(), a.GetSize()); err != nil {
			return nil, nil, Errorf(abi.InvalidArgument, "%v", err)
		}
	}
	samples := make([]LoadedSample, len(req.GetSamples()))
	for i, r := range req.GetSamples() {
		switch off, n := r.GetOffset(), r.GetLength(); {
		case r.GetData() != nil:
			samples[i] = LoadedSample{Index: r.GetIndex(), Data: r.GetData()}
		case arena != nil && off <= uint64(len(arena)) && n <= uint64(len(arena))-off:
			samples[i] = LoadedSample{Index: r.GetIndex(), Data: arena[off : off+n : off+n]}
		case arena != nil:
			if release != nil {
				release()
			}
			return nil, nil, Errorf(abi.InvalidArgument, "sample index %d: bytes [%d, %d+%d) are outside the %d-byte arena",
				r.GetIndex(), off, off, n, len(arena))
		case n != 0:
			return nil, nil, Errorf(abi.InvalidArgument, "sample index %d: %d bytes but neither data nor an arena", r.GetIndex(), n)
		default:
			samples[i] = LoadedSample{Index: r.GetIndex(), Data: []byte{}}
		}
		samples[i].refs = refsFrom(r.GetTensors())
	}
	return samples, release, nil
}

func (g *grpcBackend) UnloadSamples(ctx context.Context, req *backendv1.UnloadSamplesRequest) (*backendv1.UnloadSamplesResponse, error) {
	return g.srv.UnloadSamples(ctx, req), nil
}

func (g *grpcBackend) Warmup(ctx context.Context, _ *backendv1.WarmupRequest) (*backendv1.WarmupResponse, error) {
	return g.srv.Warmup(ctx), nil
}

func (g *grpcBackend) Ping(_ context.Context, req *backendv1.PingRequest) (*backendv1.PingResponse, error) {
	return &backendv1.PingResponse{Nonce: req.GetNonce()}, nil
}

func (g *grpcBackend) Members(context.Context, *backendv1.MembersRequest) (*backendv1.MembersResponse, error) {
	return g.srv.Members(), nil
}

func (g *grpcBackend) Close(context.Context, *backendv1.CloseRequest) (*backendv1.CloseResponse, error) {
	return g.srv.Close(), nil
}

// Session runs the timed part of a run: a receiver goroutine hands the
// host's queries to the session's workers, a sender goroutine sends the
// completions, and Session returns once both ended, or at once when the
// host stopped reading. When the host closes its side, every query still in the
// plugin completes first; when the stream breaks, the Infer calls in
// progress see their context canceled.
func (g *grpcBackend) Session(stream backendv1grpc.Backend_SessionServer) error {
	out := newOutbox(g.maxMessage, g.srv.cfg.MaxUnreadBytes)
	// A host that stops reading fails the session: its Infer calls see
	// their context end with the cause.
	ctx, fail := context.WithCancelCause(stream.Context())
	defer fail(nil)
	out.unread.onFull = func(err error) {
		g.srv.log.Error("session failed: its host stopped reading", "err", err)
		out.event(outEvent{code: CodeOf(err), message: err.Error()})
		fail(err)
	}
	sess, err := g.srv.OpenSession(ctx, out)
	if err != nil {
		return stream.Send(&backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Error{Error: &backendv1.SessionError{Status: status(err)}}})
	}
	sendCtx, stopSend := context.WithCancel(ctx)
	defer stopSend()
	sent := make(chan error, 1)
	go func() { sent <- out.run(sendCtx, stream) }()

	rx := &sessionReceiver{g: g, sess: sess, out: out}
	ended := make(chan error, 1)
	go func() { ended <- rx.run(stream, sent) }()
	select {
	case err := <-ended:
		if full := out.unread.failed(); full != nil {
			return full
		}
		return err
	case <-out.unread.full:
		// The host stopped reading: the session fails now, not at the
		// host's next message, which may never come. The receiver may
		// sit in a RecvMsg the host never answers and the sender in a
		// Send the host never reads; both fail as gRPC ends the stream
		// once this handler returned, and run then ends the session and
		// unmaps its rings.
		return out.unread.failed()
	}
}

// run receives the host's messages until it closes its side or the
// stream breaks, then ends the session (aborts it on an error), waits for
// the sender and unmaps the rings. It returns the receive error, else the
// sender's.
func (rx *sessionReceiver) run(stream backendv1grpc.Backend_SessionServer, sent <-chan error) error {
	recvErr := rx.receive(stream)
	if err := rx.detach(); recvErr == nil {
		recvErr = err
	}
	if recvErr != nil {
		rx.sess.Abort()
	} else {
		rx.sess.End()
	}
	rx.out.close()
	sendErr := <-sent
	if rx.ring != nil {
		// Nobody uses the rings any more: the poller stopped, the sender
		// returned.
		rx.ring.unmap()
	}
	if sendErr != nil && recvErr == nil {
		return sendErr
	}
	return recvErr
}

// sessionReceiver is the receive side of one session. Whoever hands
// queries or a flush to the session holds mu: the receive loop, and the
// ring's poller once the host attached its shared rings.
type sessionReceiver struct {
	g    *grpcBackend
	sess *Session
	out  *outbox
	mu   sync.Mutex
	ring *sessionRing
}

// receive reads the host's messages until it closes its side (nil) or the
// stream breaks.
func (rx *sessionReceiver) receive(stream backendv1grpc.Backend_SessionServer) error {
	var msg backendv1.HostMessage
	for {
		if err := stream.RecvMsg(&msg); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := rx.out.unread.failed(); err != nil {
			return err
		}
		switch k := msg.GetKind().(type) {
		case *backendv1.HostMessage_Issue:
			rx.mu.Lock()
			err := rx.issue(k.Issue.GetSamples())
			rx.mu.Unlock()
			if err != nil {
				return err
			}
		case *backendv1.HostMessage_Flush:
			if err := rx.flush(); err != nil {
				return err
			}
		case *backendv1.HostMessage_RingAttach:
			rx.attach(k.RingAttach)
		case *backendv1.HostMessage_Doorbell:
			if rx.ring != nil {
				rx.ring.ring()
			}
		default:
			// A message of a later minor version: not for this plugin.
			rx.g.srv.log.Debug("ignoring an unknown session message")
		}
	}
}

// issue hands one query to the session; rx.mu is held.
func (rx *sessionReceiver) issue(records []byte) error {
	if err := rx.sess.Issue(records); err != nil {
		rx.out.event(outEvent{code: abi.InvalidArgument, message: fmt.Sprintf("host sent a bad query: %v", err)})
		return err
	}
	return nil
}

// flush hands the session a flush after every record the host put in the
// issue ring before it sent the flush.
func (rx *sessionReceiver) flush() error {
	rx.mu.Lock()
	defer rx.mu.Unlock()
	if rx.ring != nil {
		if _, err := rx.ring.issue.Drain(ringDrainMax, rx.issue); err != nil {
			return fmt.Errorf("issue ring: %w", err)
		}
	}
	return rx.sess.Flush()
}

// maxRingSpin bounds the polling time a host may ask for.
const maxRingSpin = 10 * time.Millisecond

// attach maps the host's shared rings and starts consuming the issue
// ring; it answers RingAttached either way, and a session whose rings
// could not be attached goes on with messages.
func (rx *sessionReceiver) attach(req *backendv1.RingAttach) {
	answer := func(err error) {
		e := outEvent{attached: true}
		if err != nil {
			e.code, e.message = CodeOf(err), err.Error()
			rx.g.srv.log.Warn("cannot attach the host's shared rings; using messages", "err", err)
		}
		rx.out.event(e)
	}
	switch {
	case !rx.g.srv.cfg.SharedRing:
		answer(Errorf(abi.Unimplemented, "this plugin does not map shared rings"))
		return
	case rx.ring != nil:
		answer(Errorf(abi.FailedPrecondition, "the session's rings are already attached"))
		return
	}
	r, err := attachRing(req, rx.g.srv.cfg.SharedMemoryDir)
	if err != nil {
		answer(Errorf(abi.FailedPrecondition, "%v", err))
		return
	}
	rx.ring = r
	if !rx.g.srv.info.FirstTokens {
		rx.out.ring.Store(r.completion)
	}
	r.start(&rx.mu, min(time.Duration(req.GetSpinNs()), maxRingSpin), rx.issue)
	answer(nil)
}

// detach stops the ring's poller, then hands the session what the host
// put in the issue ring and the poller did not take.
func (rx *sessionReceiver) detach() error {
	if rx.ring == nil {
		return nil
	}
	if err := rx.ring.halt(); err != nil {
		return fmt.Errorf("issue ring: %w", err)
	}
	rx.mu.Lock()
	defer rx.mu.Unlock()
	if _, err := rx.ring.issue.Drain(ringDrainMax, rx.issue); err != nil {
		return fmt.Errorf("issue ring: %w", err)
	}
	return nil
}
