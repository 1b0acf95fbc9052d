package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/host/internal/wasmguard"
)

// guardBudget is the number of loop iterations between two calls of the
// guard's tick: rare enough to cost nothing measurable, often enough that
// a stopped guest or a pending garbage collection waits microseconds.
const guardBudget = 1 << 16

// maxIssueRecords bounds the records of one issue call when the plugin
// sets no max batch.
const maxIssueRecords = 1024

// wasmBackend runs a WASM plugin as a pool of instances, one worker
// goroutine each, fed from one queue of chunks.
type wasmBackend struct {
	name  string
	cfg   Config
	guard Guard
	ctx   context.Context // base of every call; never canceled
	epoch time.Time       // origin of the instances' call clocks

	rt    wazero.Runtime
	cache wazero.CompilationCache
	insts []*wasmInstance
	info  Info
	// chunkMax is the most records one issue call carries.
	chunkMax   int
	limitBytes uint64

	st      *state
	handler atomic.Pointer[handlerRef]

	mu      sync.Mutex
	cond    *sync.Cond
	queue   ring[*chunk]
	free    []*chunk
	closing bool

	workers   sync.WaitGroup
	stopWatch chan struct{}
	watchDone chan struct{}
	closeOnce sync.Once
	closeErr  error
}

type handlerRef struct{ h Handler }

var discard Handler = HandlerFuncs{}

// chunk is the part of one query that one issue call carries.
type chunk struct {
	recs []abi.IssueRecord
}

var _ Backend = (*wasmBackend)(nil)

// OpenWASM opens a WASM plugin from its module bytes, e.g. one embedded in
// the binary with go:embed. name is used in logs and errors. Open calls it
// for WASM plugins found on disk.
//
// It compiles the module (through Config.CompilationCacheDir when set),
// checks every export and import against the ABI, instantiates
// Config.Instances instances (running _initialize), checks the ABI version
// and calls Info.
//
// # Errors
//
// A [*PluginError] wrapping [ErrProtocol] (not a valid plugin),
// [ErrVersionMismatch], [ErrTrap] (a trap during start-up), or the status
// error of a failed Info.
func OpenWASM(ctx context.Context, name string, module []byte, cfg Config) (Backend, error) {
	return openWASM(ctx, name, module, 0, cfg)
}

func openWASMPlugin(ctx context.Context, p Plugin, cfg Config) (Backend, error) {
	module, err := os.ReadFile(p.Entry)
	if err != nil {
		return nil, &PluginError{Plugin: p.Name, Op: "open", Err: err}
	}
	if p.SHA256 != nil {
		if sum := sha256.Sum256(module); !bytes.Equal(sum[:], p.SHA256) {
			return nil, &PluginError{Plugin: p.Name, Op: "open", Err: fmt.Errorf("%w: %s has sha256 %x, its manifest says %x",
				ErrChecksum, p.Entry, sum, p.SHA256)}
		}
	}
	return openWASM(ctx, p.Name, module, p.MemoryLimitMiB, cfg)
}

func openWASM(ctx context.Context, name string, module []byte, manifestMiB int, cfg Config) (_ Backend, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	mib := cmp(cfg.MemoryLimitMiB, manifestMiB, DefaultMemoryLimitMiB)
	b := &wasmBackend{
		name: name, cfg: cfg, guard: cfg.Guard, ctx: context.WithoutCancel(ctx), epoch: time.Now(),
		limitBytes: uint64(mib) << 20, st: newState(),
		stopWatch: make(chan struct{}), watchDone: make(chan struct{}),
	}
	b.cond = sync.NewCond(&b.mu)
	b.handler.Store(&handlerRef{discard})
	fail := func(op string, err error) error {
		var pe *PluginError
		if errors.As(err, &pe) {
			return err
		}
		return &PluginError{Plugin: name, Op: op, Err: err}
	}

	if b.guard == GuardLoops {
		res, err := wasmguard.Instrument(module, wasmguard.Config{ImportModule: guardModule, ImportName: guardTick, Budget: guardBudget})
		switch {
		case errors.Is(err, wasmguard.ErrUnsupported):
			cfg.Logger.Warn("the loop guard cannot rewrite this module; using the strict guard (slower)", "plugin", name, "err", err)
			b.guard = GuardStrict
		case err != nil:
			return nil, fail("open", fmt.Errorf("%w: not a valid WASM module: %v", ErrProtocol, err))
		default:
			module = res.Module
		}
	}

	rc := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(uint32(mib) * 16).
		WithCloseOnContextDone(b.guard == GuardStrict)
	if cfg.CompilationCacheDir != "" {
		b.cache, err = wazero.NewCompilationCacheWithDir(cfg.CompilationCacheDir)
		if err != nil {
			return nil, fail("open", fmt.Errorf("compilation cache %s: %w", cfg.CompilationCacheDir, err))
		}
		rc = rc.WithCompilationCache(b.cache)
	}
	b.rt = wazero.NewRuntimeWithConfig(b.ctx, rc)
	defer func() {
		if err != nil {
			b.release()
		}
	}()
	if _, err := wasi_snapshot_preview1.Instantiate(b.ctx, b.rt); err != nil {
		return nil, fail("open", err)
	}
	if err := b.instantiateHostModules(); err != nil {
		return nil, fail("open", err)
	}
	start := time.Now()
	cm, err := b.rt.CompileModule(b.ctx, module)
	if err != nil {
		if strings.Contains(err.Error(), "over limit") {
			return nil, fail("open", fmt.Errorf("%w: the module's minimum memory is over the %d MiB cap: %v", ErrMemoryLimit, mib, err))
		}
		return nil, fail("open", fmt.Errorf("%w: compile: %v", ErrProtocol, err))
	}
	cfg.Logger.Debug("compiled WASM plugin", "plugin", name, "took", time.Since(start), "guard", b.guard)
	if err := checkModule(name, cm, b.guard == GuardLoops); err != nil {
		return nil, err
	}
	for i := range cfg.Instances {
		in, err := b.newInstance(i, cm)
		if err != nil {
			return nil, fail("open", err)
		}
		b.insts = append(b.insts, in)
	}
	if err := b.negotiate(); err != nil {
		return nil, fail("info", err)
	}
	for _, in := range b.insts {
		if err := in.allocIssueBuffer(b.chunkMax); err != nil {
			return nil, fail("open", err)
		}
	}
	for _, in := range b.insts {
		b.workers.Add(1)
		go b.work(in)
	}
	go b.watch()
	return b, nil
}

// cmp returns the first non-zero value.
func cmp(vs ...int) int {
	for _, v := range vs {
		if v != 0 {
			return v
		}
	}
	return 0
}

// instantiateHostModules provides the ABI's imports and the guard's tick.
func (b *wasmBackend) instantiateHostModules() error {
	i32 := api.ValueTypeI32
	hb := b.rt.NewHostModuleBuilder(abi.HostModule)
	hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostReply), []api.ValueType{i32, i32}, nil).Export(abi.ImportReply)
	hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostComplete), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export(abi.ImportComplete)
	hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostFirstToken), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export(abi.ImportFirstToken)
	hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostLog), []api.ValueType{i32, i32, i32}, nil).Export(abi.ImportLog)
	if _, err := hb.Instantiate(b.ctx); err != nil {
		return err
	}
	if err := instantiateNN(b.ctx, b.rt, nnHostOf); err != nil {
		return err
	}
	if b.guard != GuardLoops {
		return nil
	}
	_, err := b.rt.NewHostModuleBuilder(guardModule).NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(hostTick), nil, nil).Export(guardTick).Instantiate(b.ctx)
	return err
}

// negotiate calls Info on the first instance and sizes the issue calls.
func (b *wasmBackend) negotiate() error {
	var resp backendv1.InfoResponse
	code, err := b.insts[0].control(opInfo, &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor}, &resp)
	if err != nil {
		return err
	}
	if err := statusErr(responseCode(code, resp.GetStatus()), resp.GetStatus().GetMessage()); err != nil {
		return err
	}
	if resp.GetAbiMajor() != abi.Major {
		return versionMismatch(b.name, int(resp.GetAbiMajor()))
	}
	info, err := infoFrom(&resp, TransportWASM, len(b.insts))
	if err != nil {
		return err
	}
	b.info = info
	b.chunkMax = maxIssueRecords
	if b.info.MaxBatch > 0 {
		b.chunkMax = min(b.info.MaxBatch, 1<<16)
	}
	return nil
}

// responseCode is the outcome of a control call: the code the export
// returned, unless its reply says otherwise.
func responseCode(returned abi.Code, st *backendv1.Status) abi.Code {
	if returned != abi.OK {
		return returned
	}
	return abi.Code(st.GetCode())
}

func (b *wasmBackend) Info() Info { return b.info }

func (b *wasmBackend) SetHandler(h Handler) {
	if h == nil {
		h = discard
	}
	b.handler.Store(&handlerRef{h})
}

func (b *wasmBackend) Done() <-chan struct{} { return b.st.Done() }

func (b *wasmBackend) Err() error { return b.st.Err() }

// ready returns the error that stops every call: the backend's end, or
// the caller's context.
func (b *wasmBackend) ready(ctx context.Context) error {
	if err := b.st.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

func (b *wasmBackend) Load(ctx context.Context, m Model) error {
	if err := b.ready(ctx); err != nil {
		return err
	}
	model := m.Bytes
	if model == nil && m.Path != "" {
		var err error
		if model, err = os.ReadFile(m.Path); err != nil {
			return fmt.Errorf("load model %q: %w", m.Path, err)
		}
	}
	lr := loadRequest(m)
	lr.ModelBytes = model
	req, err := proto.Marshal(lr)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	var mu sync.Mutex
	var limits *backendv1.LoadResponse
	err = b.eachInstance(ctx, opLoad, func(in *wasmInstance) error {
		var resp backendv1.LoadResponse
		code, err := in.controlBytes(opLoad, req, &resp, false)
		if err := in.outcome(opLoad, code, resp.GetStatus(), err); err != nil {
			return err
		}
		mu.Lock()
		limits = &resp // every instance runs the same module with the same options
		mu.Unlock()
		return nil
	})
	if err == nil && limits != nil {
		if err := b.info.afterLoad(limits); err != nil {
			return &PluginError{Plugin: b.name, Op: "load", Err: err}
		}
		if b.info.MaxBatch > 0 {
			// The instances' issue buffers were sized at Open: shrink only.
			b.chunkMax = min(b.chunkMax, b.info.MaxBatch)
		}
	}
	return err
}

func (b *wasmBackend) LoadSamples(ctx context.Context, samples []Sample) error {
	if err := b.ready(ctx); err != nil {
		return err
	}
	refs := make([]*backendv1.SampleRef, len(samples))
	for i, s := range samples {
		refs[i] = sampleRef(s)
		refs[i].Data = s.Data
	}
	req, err := proto.Marshal(&backendv1.LoadSamplesRequest{Samples: refs})
	if err != nil {
		return fmt.Errorf("load samples: %w", err)
	}
	return b.eachInstance(ctx, opLoadSamples, func(in *wasmInstance) error {
		var resp backendv1.LoadSamplesResponse
		code, err := in.controlBytes(opLoadSamples, req, &resp, true)
		return in.outcome(opLoadSamples, code, resp.GetStatus(), err)
	})
}

func (b *wasmBackend) UnloadSamples(ctx context.Context, indices []uint64) error {
	if err := b.ready(ctx); err != nil {
		return err
	}
	return b.eachInstance(ctx, opUnloadSamples, func(in *wasmInstance) error {
		var resp backendv1.UnloadSamplesResponse
		code, err := in.control(opUnloadSamples, &backendv1.UnloadSamplesRequest{Indices: indices}, &resp)
		return in.outcome(opUnloadSamples, code, resp.GetStatus(), err)
	})
}

func (b *wasmBackend) Warmup(ctx context.Context) error {
	if err := b.ready(ctx); err != nil {
		return err
	}
	if !b.info.Capabilities.Has(abi.CapWarmup) {
		return nil
	}
	return b.eachInstance(ctx, opWarmup, func(in *wasmInstance) error {
		var resp backendv1.WarmupResponse
		code, err := in.control(opWarmup, &backendv1.WarmupRequest{}, &resp)
		if errors.Is(err, errNoCall) {
			return nil
		}
		return in.outcome(opWarmup, code, resp.GetStatus(), err)
	})
}

// eachInstance runs a control call on every instance at once and returns
// the first error. A trap or a hang also ends the backend.
func (b *wasmBackend) eachInstance(ctx context.Context, op callOp, call func(*wasmInstance) error) error {
	defer b.stopOnCancel(ctx, op)()
	errs := make([]error, len(b.insts))
	var wg sync.WaitGroup
	for i, in := range b.insts {
		wg.Go(func() {
			in.busy.Lock()
			defer in.busy.Unlock()
			errs[i] = call(in)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// Instances answer alike; report one.
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
	}
	if err := b.st.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// fatal ends the backend with err (the first error wins), fails every
// queued sample and wakes the workers.
func (b *wasmBackend) fatal(err error) {
	if !b.st.fail(err) {
		return
	}
	b.cfg.Logger.Error("plugin failed", "plugin", b.name, "err", err)
	b.mu.Lock()
	var failed []*chunk
	for {
		c, ok := b.queue.pop()
		if !ok {
			break
		}
		failed = append(failed, c)
	}
	b.mu.Unlock()
	b.cond.Broadcast()
	for _, c := range failed {
		b.failIDs(idsOf(c.recs), abi.Aborted, err.Error())
		b.recycle(c)
	}
}

func idsOf(recs []abi.IssueRecord) []uint64 {
	ids := make([]uint64, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	return ids
}

// failIDs completes ids with a non-OK status.
func (b *wasmBackend) failIDs(ids []uint64, code abi.Code, msg string) {
	deliverFailures(b.handler.Load().h, ids, code, msg)
}

// deliverFailures hands failed completions to h in batches.
func deliverFailures(h Handler, ids []uint64, code abi.Code, msg string) {
	const batchSize = 256
	data := []byte(msg)
	batch := make([]Completion, 0, min(len(ids), batchSize))
	for i, id := range ids {
		batch = append(batch, Completion{ID: id, Status: code, Data: data})
		if len(batch) == batchSize || i == len(ids)-1 {
			h.Complete(batch)
			batch = batch[:0]
		}
	}
}

// release frees the runtime and the cache; the instances go with the
// runtime.
func (b *wasmBackend) release() {
	for _, in := range b.insts {
		in.nn.close()
	}
	if b.rt != nil {
		_ = b.rt.Close(b.ctx)
	}
	if b.cache != nil {
		_ = b.cache.Close(b.ctx)
	}
}

func (b *wasmBackend) Close() error {
	b.closeOnce.Do(func() { b.closeErr = b.close() })
	return b.closeErr
}

func (b *wasmBackend) close() error {
	b.mu.Lock()
	b.closing = true
	b.mu.Unlock()
	b.cond.Broadcast()
	drained := make(chan struct{})
	go func() { b.workers.Wait(); close(drained) }()
	timer := time.NewTimer(b.cfg.CloseTimeout)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
		b.fatal(&PluginError{Plugin: b.name, Op: "close", Err: fmt.Errorf("%w: samples still in flight after %v",
			ErrHang, b.cfg.CloseTimeout)})
	}
	var closeErr error
	if b.st.Err() == nil {
		ctx, cancel := context.WithTimeout(b.ctx, b.cfg.CloseTimeout)
		closeErr = b.eachInstance(ctx, opClose, func(in *wasmInstance) error {
			var resp backendv1.CloseResponse
			code, err := in.control(opClose, &backendv1.CloseRequest{}, &resp)
			return in.outcome(opClose, code, resp.GetStatus(), err)
		})
		if ctx.Err() != nil {
			closeErr = closeHang(b.name, b.cfg.CloseTimeout, "stopped it")
		}
		cancel()
	}
	close(b.stopWatch)
	<-b.watchDone
	for _, in := range b.insts {
		in.flushLogs()
	}
	b.release()
	b.st.fail(ErrClosed)
	return closeErr
}

// logger returns the logger for one instance.
func (b *wasmBackend) logger(i int) *slog.Logger {
	return b.cfg.Logger.With("plugin", b.name, "instance", i)
}
