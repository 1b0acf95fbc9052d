package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// callOp names the call an instance is running, for the watchdog and
// error messages.
type callOp int32

const (
	opIdle callOp = iota
	opInit
	opInfo
	opLoad
	opLoadSamples
	opUnloadSamples
	opWarmup
	opIssue
	opFlush
	opClose
	opMembers // a subprocess plugin's Members call (no WASM export)
)

var opNames = [...]string{"idle", "start", "info", "load", "load samples", "unload samples", "warmup", "issue", "flush", "close", "members"}

func (o callOp) String() string { return opNames[o] }

var opExports = [...]string{
	opInfo: abi.ExportInfo, opLoad: abi.ExportLoad, opLoadSamples: abi.ExportLoadSamples,
	opUnloadSamples: abi.ExportUnloadSamples, opWarmup: abi.ExportWarmup, opClose: abi.ExportClose,
}

// wasmInstance is one instance of the module. Only one goroutine calls
// into it at a time: its worker, or a control call while no sample is in
// flight. The watchdog reads its call clock and, holding mu, may abandon it.
type wasmInstance struct {
	b   *wasmBackend
	idx int
	ctx context.Context // carries the instance to the host functions
	log *slog.Logger
	mod api.Module
	mem api.Memory

	alloc, free, issue, flush api.Function
	calls                     map[callOp]api.Function
	stack                     []uint64

	issuePtr uint32

	// Call clock: start of the call in progress (ns since b.epoch, 0 when
	// idle) and what it is.
	callStart atomic.Int64
	callOp    atomic.Int32
	// abort asks the guard's tick to stop the guest.
	abort atomic.Bool
	dead  bool // owned by the calling goroutine

	flushPending atomic.Bool

	// busy is held for every call into the guest after start-up: by the
	// worker for an issue call, by a control call otherwise. A control
	// call thus waits for an issue call that already delivered its last
	// completion but has not returned yet.
	busy sync.Mutex

	reply    []byte
	replied  bool
	protoErr error // first ABI violation seen during the call

	mu        sync.Mutex // guards tracker, batch and abandoned
	tracker   callTracker
	batch     []Completion
	abandoned bool

	stdout, stderr *lineLogger
	// nn serves the instance's wasi_ephemeral_nn calls (wasinn.go).
	nn *nnHost
}

type instanceKey struct{}

func instanceOf(ctx context.Context) *wasmInstance {
	in, _ := ctx.Value(instanceKey{}).(*wasmInstance)
	return in
}

// newInstance instantiates the module (running _initialize) and checks
// its ABI version.
func (b *wasmBackend) newInstance(i int, cm wazero.CompiledModule) (*wasmInstance, error) {
	in := &wasmInstance{b: b, idx: i, log: b.logger(i), stack: make([]uint64, 2), calls: map[callOp]api.Function{}}
	in.ctx = context.WithValue(b.ctx, instanceKey{}, in)
	in.nn = b.newNNHost(in)
	in.stdout = newLineLogger(b.ctx, in.log, slog.LevelInfo, "stdout")
	in.stderr = newLineLogger(b.ctx, in.log, slog.LevelInfo, "stderr")
	mc := wazero.NewModuleConfig().
		WithName(fmt.Sprintf("%s#%d", b.name, i)).
		WithStartFunctions("_initialize").
		WithStdout(in.stdout).WithStderr(in.stderr).
		WithSysNanotime().WithSysWalltime()
	in.begin(opInit)
	mod, err := b.rt.InstantiateModule(in.ctx, cm, mc)
	in.end()
	if err != nil {
		return nil, in.classify(opInit, err)
	}
	in.mod, in.mem = mod, mod.Memory()
	in.alloc = mod.ExportedFunction(abi.ExportAlloc)
	in.free = mod.ExportedFunction(abi.ExportFree)
	in.issue = mod.ExportedFunction(abi.ExportIssue)
	in.flush = mod.ExportedFunction(abi.ExportFlush)
	for op, name := range opExports {
		if name != "" {
			if f := mod.ExportedFunction(name); f != nil {
				in.calls[callOp(op)] = f
			}
		}
	}
	v, err := in.call(opInit, mod.ExportedFunction(abi.ExportABIVersion))
	if err != nil {
		return nil, err
	}
	if major, _ := abi.UnpackVersion(uint32(v)); major != abi.Major {
		return nil, versionMismatch(b.name, int(major))
	}
	return in, nil
}

// begin and end time a call for the watchdog.
func (in *wasmInstance) begin(op callOp) {
	in.callOp.Store(int32(op))
	in.callStart.Store(max(1, int64(time.Since(in.b.epoch))))
}

func (in *wasmInstance) end() { in.callStart.Store(0) }

// call runs an export taking the arguments already in in.stack and
// returns its first result.
func (in *wasmInstance) call(op callOp, f api.Function) (uint64, error) {
	if in.dead {
		return 0, in.b.deadErr(op)
	}
	in.begin(op)
	err := f.CallWithStack(in.ctx, in.stack)
	in.end()
	if err != nil {
		return 0, in.trapped(op, err)
	}
	return in.stack[0], nil
}

// allocIssueBuffer allocates the buffer issue calls reuse.
func (in *wasmInstance) allocIssueBuffer(records int) error {
	ptr, err := in.allocate(opInit, uint64(records)*abi.IssueRecordSize)
	in.issuePtr = ptr
	return err
}

// allocate gets a guest buffer of size bytes.
func (in *wasmInstance) allocate(op callOp, size uint64) (uint32, error) {
	if size > math.MaxInt32 {
		return 0, fmt.Errorf("%w: %d bytes do not fit in a 32-bit WASM memory", ErrResourceExhausted, size)
	}
	in.stack[0] = size
	ptr, err := in.call(op, in.alloc)
	if err != nil {
		return 0, err
	}
	if uint32(ptr) == 0 {
		return 0, &PluginError{Plugin: in.b.name, Op: op.String(), Err: fmt.Errorf(
			"%w: the guest could not allocate %d bytes (its memory cap is %d MiB)", ErrResourceExhausted, size, in.b.limitBytes>>20)}
	}
	return uint32(ptr), nil
}

// control runs a control call with a protobuf request.
func (in *wasmInstance) control(op callOp, req, resp proto.Message) (abi.Code, error) {
	b, err := proto.Marshal(req)
	if err != nil {
		return 0, err
	}
	return in.controlBytes(op, b, resp, false)
}

// controlBytes copies req into a guest buffer, calls the export and
// decodes the reply. With keep, the buffer becomes the guest's on success.
func (in *wasmInstance) controlBytes(op callOp, req []byte, resp proto.Message, keep bool) (abi.Code, error) {
	f := in.calls[op]
	if f == nil {
		return 0, errNoCall
	}
	ptr, err := in.allocate(op, uint64(max(len(req), 1)))
	if err != nil {
		return 0, err
	}
	if !in.mem.Write(ptr, req) {
		return 0, in.violation(op, fmt.Errorf("alloc returned 0x%x, not a buffer of %d bytes in guest memory", ptr, len(req)))
	}
	in.reply, in.replied = in.reply[:0], false
	in.stack[0], in.stack[1] = uint64(ptr), uint64(len(req))
	res, err := in.call(op, f)
	if err != nil {
		return 0, err
	}
	code := abi.Code(uint32(res))
	if !keep || code != abi.OK {
		in.stack[0] = uint64(ptr)
		if _, err := in.call(op, in.free); err != nil {
			return 0, err
		}
	}
	if in.replied {
		if err := proto.Unmarshal(in.reply, resp); err != nil {
			return 0, in.violation(op, fmt.Errorf("malformed %s reply: %v", op, err))
		}
	}
	return code, nil
}

// outcome turns a control call's result into an error naming the plugin.
func (in *wasmInstance) outcome(op callOp, code abi.Code, st *backendv1.Status, err error) error {
	if err != nil {
		var pe *PluginError
		if errors.As(err, &pe) {
			return err
		}
		return &PluginError{Plugin: in.b.name, Op: op.String(), Err: err}
	}
	msg := st.GetMessage()
	if err := statusErr(responseCode(code, st), msg); err != nil {
		return &PluginError{Plugin: in.b.name, Op: op.String(), Err: err}
	}
	return nil
}

// violation records an ABI violation: it ends the backend.
func (in *wasmInstance) violation(op callOp, err error) error {
	pe := &PluginError{Plugin: in.b.name, Op: fmt.Sprintf("%s (instance %d)", op, in.idx), Err: fmt.Errorf("%w: %v", ErrProtocol, err)}
	in.b.fatal(pe)
	return pe
}

// run issues one chunk and fails whatever the guest left uncompleted.
func (in *wasmInstance) run(c *chunk) {
	n := len(c.recs)
	in.mu.Lock()
	in.tracker.reset(c.recs)
	in.mu.Unlock()
	view, ok := in.mem.Read(in.issuePtr, uint32(n*abi.IssueRecordSize))
	if !ok {
		in.b.fatal(&PluginError{Plugin: in.b.name, Op: "issue", Err: fmt.Errorf("%w: issue buffer outside guest memory", ErrProtocol)})
		in.failLeft(abi.Aborted, in.b.st.Err().Error())
		return
	}
	for i, r := range c.recs {
		abi.PutIssueRecord(view[i*abi.IssueRecordSize:], r)
	}
	in.stack[0], in.stack[1] = uint64(in.issuePtr), uint64(n)
	in.protoErr = nil
	res, err := in.call(opIssue, in.issue)
	switch {
	case err != nil:
		in.failLeft(abi.Aborted, err.Error())
	case in.protoErr != nil:
		in.failLeft(abi.Aborted, in.protoErr.Error())
	default:
		in.failLeftOver(abi.Code(uint32(res)))
	}
}

// failLeftOver fails the samples an issue call returned without
// completing: with the code it returned, or INTERNAL.
func (in *wasmInstance) failLeftOver(code abi.Code) {
	in.mu.Lock()
	left := in.tracker.takeLeft()
	in.mu.Unlock()
	if len(left) == 0 {
		return
	}
	if code == abi.OK || !code.Known() {
		code = abi.Internal
	}
	in.log.Warn("issue returned without completing every sample", "left", len(left))
	h := in.b.handler.Load().h
	for _, id := range left {
		deliverFailures(h, []uint64{id}, code, fmt.Sprintf("plugin %q returned from issue without completing sample id %d", in.b.name, id))
	}
}

// failLeft fails the samples of the call in progress not completed yet.
func (in *wasmInstance) failLeft(code abi.Code, msg string) {
	in.mu.Lock()
	left := in.tracker.takeLeft()
	in.mu.Unlock()
	in.b.failIDs(left, code, msg)
}

// trapped handles an error from a call into the guest: the instance is
// dead, and unless the watchdog already did, the backend fails with an
// error naming the plugin, the call and what the guest did.
func (in *wasmInstance) trapped(op callOp, err error) error {
	in.dead = true
	if in.abort.Load() {
		// The watchdog stopped it and reported the hang.
		_ = in.mod.Close(in.b.ctx)
		return in.b.st.Err()
	}
	pe := in.classify(op, err)
	in.b.fatal(pe)
	if in.mod != nil {
		_ = in.mod.Close(in.b.ctx)
	}
	return pe
}

// classify describes a trap: an exit (a Go guest's fatal error or panic),
// memory at its cap, or a WASM trap, with the guest's last output.
func (in *wasmInstance) classify(op callOp, err error) *PluginError {
	words := lastWords(in.stdout, in.stderr)
	kind := ErrTrap
	var exit *sys.ExitError
	what := trapSummary(err.Error())
	if errors.As(err, &exit) {
		what = fmt.Sprintf("exited with code %d", exit.ExitCode())
	} else {
		in.log.Error("guest trapped", "op", op.String(), "trap", err.Error())
	}
	used := uint64(0)
	if in.mem != nil {
		used = uint64(in.mem.Size())
	}
	if strings.Contains(words, "out of memory") || used+(4<<20) > in.b.limitBytes ||
		strings.Contains(what, "memory") && strings.Contains(what, "limit") {
		kind = ErrMemoryLimit
		what = fmt.Sprintf("%s (memory %d MiB of a %d MiB cap)", what, used>>20, in.b.limitBytes>>20)
	}
	return &PluginError{Plugin: in.b.name, Op: fmt.Sprintf("%s (instance %d)", op, in.idx),
		Err: fmt.Errorf("%w: %s%s", kind, what, words)}
}

// trapSummary shortens wazero's trap message, "wasm error: unreachable"
// followed by a stack trace, to its first line and the innermost function
// that is not the language runtime's: "wasm error: unreachable (in
// main.issue)". The whole trace goes to the log.
func trapSummary(msg string) string {
	first, trace, ok := strings.Cut(msg, "\nwasm stack trace:\n")
	if !ok {
		return msg
	}
	for _, line := range strings.Split(trace, "\n") {
		frame := strings.TrimSpace(line)
		if _, f, ok := strings.Cut(frame, "."); ok { // "<module>.<function>(<params>) <results>"
			frame = f
		}
		frame, _, _ = strings.Cut(frame, "(")
		if frame != "" && !strings.HasPrefix(frame, "runtime.") && !strings.HasPrefix(frame, "wasm_pc_f_loop") {
			return first + " (in " + frame + ")"
		}
	}
	return first
}

func (in *wasmInstance) flushLogs() {
	in.stdout.Flush()
	in.stderr.Flush()
}

// The host functions. wazero passes the context of the export call, which
// carries the instance.

func hostReply(ctx context.Context, mod api.Module, stack []uint64) {
	in := instanceOf(ctx)
	ptr, n := uint32(stack[0]), uint32(stack[1])
	b, ok := mod.Memory().Read(ptr, n)
	if !ok {
		in.protoErr = in.violation(callOp(in.callOp.Load()), fmt.Errorf("reply of %d bytes at 0x%x is outside guest memory", n, ptr))
		return
	}
	in.reply = append(in.reply[:0], b...)
	in.replied = true
}

func hostComplete(ctx context.Context, mod api.Module, stack []uint64) {
	stack[0] = uint64(instanceOf(ctx).complete(mod, uint32(stack[0]), uint32(stack[1]), false))
}

func hostFirstToken(ctx context.Context, mod api.Module, stack []uint64) {
	stack[0] = uint64(instanceOf(ctx).complete(mod, uint32(stack[0]), uint32(stack[1]), true))
}

func hostLog(ctx context.Context, mod api.Module, stack []uint64) {
	in := instanceOf(ctx)
	level, ptr, n := int32(uint32(stack[0])), uint32(stack[1]), uint32(stack[2])
	b, ok := mod.Memory().Read(ptr, n)
	if !ok {
		in.log.Warn("log line outside guest memory", "ptr", ptr, "len", n)
		return
	}
	in.log.Log(in.b.ctx, slog.Level(level), string(b))
}

// errStopped is what the guard's tick panics with to stop a guest.
var errStopped = errors.New("stopped by the host's watchdog")

func hostTick(ctx context.Context, _ api.Module, _ []uint64) {
	if in := instanceOf(ctx); in != nil && in.abort.Load() {
		panic(errStopped)
	}
}

// complete delivers completion (or first-token) records from guest memory
// to the handler. The data is handed over in place: the guest is paused
// and its memory cannot move until this returns.
func (in *wasmInstance) complete(mod api.Module, ptr, count uint32, first bool) abi.Code {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.abandoned {
		return abi.Aborted
	}
	what := "complete"
	if first {
		what = "first_token"
	}
	size := uint64(count) * abi.WasmCompletionRecordSize
	mem := mod.Memory()
	recs, ok := mem.Read(ptr, uint32(min(size, math.MaxUint32)))
	if !ok || size > math.MaxUint32 {
		in.noteViolation(fmt.Errorf("%s: %d records at 0x%x are outside guest memory", what, count, ptr))
		return abi.InvalidArgument
	}
	code := abi.OK
	batch := in.batch[:0]
	for i := range int(count) {
		r := abi.WasmCompletionRecordAt(recs, i)
		data, ok := mem.Read(r.DataPtr, r.DataLen)
		if !ok {
			in.noteViolation(fmt.Errorf("%s: data of sample id %d (%d bytes at 0x%x) is outside guest memory", what, r.ID, r.DataLen, r.DataPtr))
			code = abi.InvalidArgument
			continue
		}
		if first {
			if !in.tracker.pending(r.ID) {
				in.noteViolation(fmt.Errorf("first_token: sample id %d is not in flight", r.ID))
				code = abi.InvalidArgument
				continue
			}
		} else {
			switch in.tracker.complete(r.ID) {
			case unknownID:
				in.noteViolation(fmt.Errorf("completed sample id %d, which is not in flight", r.ID))
				code = abi.InvalidArgument
				continue
			case duplicateID:
				in.noteViolation(fmt.Errorf("completed sample id %d twice", r.ID))
				code = abi.InvalidArgument
				continue
			}
		}
		status := r.Status
		if !status.Known() {
			status = abi.Internal
		}
		batch = append(batch, Completion{ID: r.ID, Status: status, Data: data, NTokens: r.NTokens})
	}
	if len(batch) > 0 {
		if h := in.b.handler.Load().h; first {
			h.FirstTokens(batch)
		} else {
			h.Complete(batch)
		}
	}
	clear(batch) // drop references to guest memory
	in.batch = batch[:0]
	return code
}

// noteViolation records the first ABI violation of the call in progress
// and ends the backend.
func (in *wasmInstance) noteViolation(err error) {
	if in.protoErr == nil {
		in.protoErr = in.violation(opIssue, err)
	}
}
