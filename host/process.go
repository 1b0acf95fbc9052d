package host

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// processBackend runs a plugin as a go-plugin subprocess (or talks to one
// already running) over gRPC. Control operations are unary RPCs; the timed
// run uses one Session stream: issuers send, one receiver goroutine reads.
type processBackend struct {
	name string
	cfg  Config
	// transport is what Info says: TransportProcess, or TransportRemote.
	transport Transport
	ctx       context.Context // never canceled; every goroutine's base
	epoch     time.Time

	client *plugin.Client
	rpc    backendv1grpc.BackendClient
	proc   *procRunner     // nil when reattached
	attach *attachedRunner // nil when started here
	pid    int
	// tail keeps the plugin's last lines of stderr (read from the pipe, or
	// forwarded by go-plugin's stdio stream after the plugin redirected
	// os.Stderr); stdout has what it printed after the handshake.
	tail, stdout *lineLogger
	// stderrDone is closed when the plugin's stderr reaches EOF.
	stderrDone chan struct{}
	info       Info
	arena      bool
	arenas     []string
	// network, in the Network division, keeps the samples here: each
	// query carries its samples' bytes (remote_network.go).
	network *networkSamples

	st      *state
	handler atomic.Pointer[handlerRef]

	sessionMu   sync.Mutex
	session     *session
	sessionOpen atomic.Bool
	ring        *hostRing // set with session, when the rings were offered

	mu           sync.Mutex // guards the fields below
	inflight     idSet
	inflightN    atomic.Int64 // inflight.len(), for the ring's poller
	chunk        int          // issue records per Session message: issueChunk, smaller in tests
	sendq        ring[sendItem]
	free         [][]byte
	flushWaiters ring[chan error]
	closing      bool
	sending      bool          // a goroutine is sending the queue (kickSend)
	out          outMsg        // owned by the sending goroutine
	drained      chan struct{} // closed when closing and nothing is in flight
	lastProgress atomic.Int64  // ns since epoch of the last completion (or first issue)

	stop      chan struct{}
	noPing    bool           // the plugin answered Unimplemented; owned by monitor
	bg        sync.WaitGroup // monitor, stderr reader, session goroutines
	closeOnce sync.Once
	closeErr  error
}

var _ Backend = (*processBackend)(nil)

func (b *processBackend) dialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(b.cfg.MaxMessageBytes), grpc.MaxCallSendMsgSize(b.cfg.MaxMessageBytes)),
		// Larger flow-control windows keep batched completions streaming.
		grpc.WithInitialWindowSize(4 << 20), grpc.WithInitialConnWindowSize(16 << 20),
	}
}

func newProcessBackend(ctx context.Context, name string, cfg Config) *processBackend {
	b := &processBackend{
		name: name, cfg: cfg, ctx: context.WithoutCancel(ctx), epoch: time.Now(), st: newState(),
		chunk: issueChunk, drained: make(chan struct{}), stderrDone: make(chan struct{}), stop: make(chan struct{}),
		out: newOutMsg(),
	}
	plog := cfg.Logger.With("plugin", name)
	b.tail = newLineLogger(b.ctx, plog, slog.LevelInfo, "stderr")
	b.stdout = newLineLogger(b.ctx, plog, slog.LevelInfo, "stdout")
	b.handler.Store(&handlerRef{discard})
	return b
}

// negotiate calls Info.
func (b *processBackend) negotiate(ctx context.Context) error {
	var hostCaps abi.HostCapability
	if sharedArenaSupported && !b.cfg.DisableSharedArena {
		hostCaps |= abi.HostCapSharedArena
	}
	if sharedRingSupported && !b.cfg.DisableSharedRing {
		hostCaps |= abi.HostCapSharedRing
	}
	rctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	resp, err := b.rpc.Info(rctx, &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor, HostCapabilities: uint64(hostCaps)})
	if err != nil {
		return b.rpcError(opInfo, err)
	}
	if err := statusErr(abi.Code(resp.GetStatus().GetCode()), resp.GetStatus().GetMessage()); err != nil {
		return &PluginError{Plugin: b.name, Op: "info", Err: err}
	}
	if resp.GetAbiMajor() != abi.Major {
		return versionMismatch(b.name, int(resp.GetAbiMajor()))
	}
	t := b.transport
	if t == "" {
		t = TransportProcess
	}
	info, err := infoFrom(resp, t, 1)
	if err != nil {
		return &PluginError{Plugin: b.name, Op: "info", Err: err}
	}
	b.info = info
	b.arena = hostCaps.Has(abi.HostCapSharedArena) && b.info.Capabilities.Has(abi.CapSharedArena)
	return nil
}

// rpcError turns a failed control RPC into the backend's error: when the
// plugin died, its exit is the error.
func (b *processBackend) rpcError(op callOp, err error) error {
	if e := b.st.Err(); e != nil {
		return e
	}
	if status.Code(err) == codes.Unavailable && b.proc != nil {
		select {
		case <-b.proc.exited:
			b.crashed()
			return b.st.Err()
		case <-time.After(time.Second):
		}
	}
	if status.Code(err) == codes.DeadlineExceeded {
		return &PluginError{Plugin: b.name, Op: op.String(), Err: fmt.Errorf("%w: no answer within %v", ErrHang, b.cfg.CallTimeout)}
	}
	return &PluginError{Plugin: b.name, Op: op.String(), Err: fmt.Errorf("rpc: %w", err)}
}

// unary runs one control RPC with the call deadline and maps its status.
func unary[T interface{ GetStatus() *backendv1.Status }](ctx context.Context, b *processBackend, op callOp, call func(context.Context) (T, error)) error {
	if err := b.st.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	resp, err := call(rctx)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", op, ctx.Err())
		}
		return b.rpcError(op, err)
	}
	st := resp.GetStatus()
	if err := statusErr(abi.Code(st.GetCode()), st.GetMessage()); err != nil {
		return &PluginError{Plugin: b.name, Op: op.String(), Err: err}
	}
	return nil
}

func (b *processBackend) Info() Info { return b.info }

func (b *processBackend) SetHandler(h Handler) {
	if h == nil {
		h = discard
	}
	b.handler.Store(&handlerRef{h})
}

func (b *processBackend) Done() <-chan struct{} { return b.st.Done() }
func (b *processBackend) Err() error            { return b.st.Err() }

func (b *processBackend) Load(ctx context.Context, m Model) error {
	req := loadRequest(m)
	switch {
	case m.Bytes != nil:
		req.ModelBytes = m.Bytes
	case m.Path != "" && b.info.Capabilities.Has(abi.CapModelPath):
		req.ModelPath = m.Path
		// A served plugin's paths are of its machine: a relative one
		// resolves in its server's model directory.
		if abs, err := filepath.Abs(m.Path); err == nil && b.transport != TransportRemote {
			req.ModelPath = abs
		}
	case m.Path != "":
		data, err := os.ReadFile(m.Path)
		if err != nil {
			return fmt.Errorf("load model %q: %w", m.Path, err)
		}
		req.ModelBytes = data
	}
	if n := len(req.ModelBytes); n > b.cfg.MaxMessageBytes-1024 {
		return &PluginError{Plugin: b.name, Op: "load", Err: fmt.Errorf(
			"the model's %d bytes do not fit in one %d-byte message: give the plugin the MODEL_PATH capability, or raise Config.MaxMessageBytes",
			n, b.cfg.MaxMessageBytes)}
	}
	var resp *backendv1.LoadResponse
	err := unary(ctx, b, opLoad, func(ctx context.Context) (*backendv1.LoadResponse, error) {
		var err error
		resp, err = b.rpc.Load(ctx, req)
		return resp, err
	})
	if err == nil {
		if err := b.info.afterLoad(resp); err != nil {
			return &PluginError{Plugin: b.name, Op: "load", Err: err}
		}
	}
	return err
}

func (b *processBackend) LoadSamples(ctx context.Context, samples []Sample) error {
	if err := b.st.Err(); err != nil {
		return err
	}
	if b.network != nil {
		b.network.load(samples)
		return nil
	}
	if b.arena {
		req, path, err := writeArena(sharedMemoryDir(b.cfg.SharedMemoryDir), samples)
		if err != nil {
			return err
		}
		b.arenas = append(b.arenas, path)
		return unary(ctx, b, opLoadSamples, func(ctx context.Context) (*backendv1.LoadSamplesResponse, error) {
			return b.rpc.LoadSamples(ctx, req)
		})
	}
	for _, req := range inlineRequests(samples, min(4<<20, b.cfg.MaxMessageBytes/2)) {
		err := unary(ctx, b, opLoadSamples, func(ctx context.Context) (*backendv1.LoadSamplesResponse, error) {
			return b.rpc.LoadSamples(ctx, req)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *processBackend) UnloadSamples(ctx context.Context, indices []uint64) error {
	if b.network != nil {
		// The plugin has what the queries carried: it lets those go too.
		b.network.unload(indices)
	}
	return unary(ctx, b, opUnloadSamples, func(ctx context.Context) (*backendv1.UnloadSamplesResponse, error) {
		return b.rpc.UnloadSamples(ctx, &backendv1.UnloadSamplesRequest{Indices: indices})
	})
}

func (b *processBackend) Warmup(ctx context.Context) error {
	if !b.info.Capabilities.Has(abi.CapWarmup) {
		return b.st.Err()
	}
	return unary(ctx, b, opWarmup, func(ctx context.Context) (*backendv1.WarmupResponse, error) {
		return b.rpc.Warmup(ctx, &backendv1.WarmupRequest{})
	})
}

// awaitLastWords gives the stderr reader a moment to read what a dying
// plugin wrote last.
func (b *processBackend) awaitLastWords() {
	select {
	case <-b.stderrDone:
	case <-time.After(time.Second):
	}
}

// crashed reports the plugin's exit, with its status and last words.
func (b *processBackend) crashed() {
	b.awaitLastWords()
	b.fatal(&PluginError{Plugin: b.name, Op: "process", Err: fmt.Errorf("%w: pid %d %s%s",
		ErrCrashed, b.pid, exitStatus(b.proc.exitErr), lastWords(b.stdout, b.tail))})
}

// monitor watches the plugin: its exit, stalls and health pings.
func (b *processBackend) monitor() {
	defer b.bg.Done()
	var exited <-chan struct{}
	if b.proc != nil {
		exited = b.proc.exited
	}
	period := min(max(b.cfg.StallTimeout/4, time.Millisecond), time.Second)
	tick := time.NewTicker(period)
	defer tick.Stop()
	lastPing := time.Now()
	for {
		select {
		case <-b.stop:
			return
		case <-exited:
			b.mu.Lock()
			closing := b.closing
			b.mu.Unlock()
			if !closing || b.hasInflight() {
				b.crashed()
			}
			exited = nil
		case <-tick.C:
			b.checkStall()
			if b.cfg.HealthInterval > 0 && !b.noPing && time.Since(lastPing) >= b.cfg.HealthInterval {
				lastPing = time.Now()
				b.ping()
			}
			if b.attach != nil && b.pid > 0 && !processAlive(b.pid) && b.st.Err() == nil {
				b.fatal(&PluginError{Plugin: b.name, Op: "process", Err: fmt.Errorf("%w: pid %d is gone", ErrCrashed, b.pid)})
			}
		}
	}
}

// ping checks that the plugin still answers.
func (b *processBackend) ping() {
	if b.st.Err() != nil {
		return
	}
	timeout := min(b.cfg.HealthInterval, b.cfg.CallTimeout)
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	start := time.Now()
	_, err := b.rpc.Ping(ctx, &backendv1.PingRequest{Nonce: uint64(start.UnixNano())})
	switch {
	case err == nil:
		b.cfg.Logger.Debug("plugin ping", "plugin", b.name, "rtt", time.Since(start))
	case status.Code(err) == codes.DeadlineExceeded:
		b.fatal(&PluginError{Plugin: b.name, Op: "health check", Err: fmt.Errorf("%w: no answer to a ping within %v%s",
			ErrHang, timeout, lastWords(b.stdout, b.tail))})
		b.killProcess()
	case status.Code(err) == codes.Unimplemented:
		b.cfg.Logger.Info("plugin does not implement Ping: health checks off", "plugin", b.name)
		b.noPing = true
	}
}

// killProcess stops a plugin the host started.
func (b *processBackend) killProcess() {
	if b.proc != nil && b.proc.cmd.Process != nil {
		_ = b.proc.Kill(b.ctx)
	}
}
