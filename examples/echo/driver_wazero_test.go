package echo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// wasm drives the echo module in wazero, the way the host does: one
// instance, control calls through alloc/reply/free, issue calls on a
// buffer allocated once, completions through the complete import.
type wasm struct {
	*collector
	ctx      context.Context // carries the driver to the host functions
	mod      api.Module
	issuePtr uint32
	issueCap int
	reply    []byte
	replied  bool
	inFlight map[uint64]bool
	mu       sync.Mutex
	logs     []string
	errOut   lockedBuffer
}

var _ driver = (*wasm)(nil)

// One runtime and one compiled module serve every wasm driver of the test
// binary: the host functions find their driver in the call's context.
var (
	wasmOnce     sync.Once
	wasmRuntime  wazero.Runtime
	wasmCompiled wazero.CompiledModule
	wasmErr      error
)

// wasmLimitMiB caps each instance's memory.
const wasmLimitMiB = 32

type driverKey struct{}

func driverOf(ctx context.Context) *wasm { return ctx.Value(driverKey{}).(*wasm) }

func compileEcho(t *testing.T) (wazero.Runtime, wazero.CompiledModule) {
	_, module := built(t)
	wasmOnce.Do(func() {
		ctx := context.Background()
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithMemoryLimitPages(wasmLimitMiB*16))
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		i32 := api.ValueTypeI32
		hb := rt.NewHostModuleBuilder(abi.HostModule)
		hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
			driverOf(ctx).hostReply(m, s)
		}), []api.ValueType{i32, i32}, nil).Export(abi.ImportReply)
		hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
			s[0] = uint64(driverOf(ctx).hostComplete(m, uint32(s[0]), uint32(s[1]), false))
		}), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export(abi.ImportComplete)
		hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
			s[0] = uint64(driverOf(ctx).hostComplete(m, uint32(s[0]), uint32(s[1]), true))
		}), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export(abi.ImportFirstToken)
		hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
			driverOf(ctx).hostLog(m, s)
		}), []api.ValueType{i32, i32, i32}, nil).Export(abi.ImportLog)
		if _, wasmErr = hb.Instantiate(ctx); wasmErr != nil {
			return
		}
		data, err := os.ReadFile(module)
		if err != nil {
			wasmErr = err
			return
		}
		wasmRuntime = rt
		wasmCompiled, wasmErr = rt.CompileModule(ctx, data)
	})
	require.NoError(t, wasmErr, "compile the echo module")
	return wasmRuntime, wasmCompiled
}

// newWasm instantiates the echo module with the given environment (which
// the host never gives; the test configures echo through it).
func newWasm(t *testing.T, env ...string) *wasm {
	rt, cm := compileEcho(t)
	d := &wasm{collector: newCollector(), inFlight: map[uint64]bool{}}
	d.ctx = context.WithValue(context.WithoutCancel(t.Context()), driverKey{}, d)
	mc := wazero.NewModuleConfig().WithName(t.Name()).WithStartFunctions("_initialize").
		WithStdout(t.Output()).WithStderr(io.MultiWriter(t.Output(), &d.errOut))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		mc = mc.WithEnv(k, v)
	}
	var err error
	d.mod, err = rt.InstantiateModule(d.ctx, cm, mc)
	require.NoError(t, err)
	t.Cleanup(func() { d.mod.Close(d.ctx) })
	v, err := d.mod.ExportedFunction(abi.ExportABIVersion).Call(d.ctx)
	require.NoError(t, err)
	major, _ := abi.UnpackVersion(uint32(v[0]))
	require.EqualValues(t, abi.Major, major)
	return d
}

func (d *wasm) hostReply(m api.Module, s []uint64) {
	b, ok := m.Memory().Read(uint32(s[0]), uint32(s[1]))
	if !ok {
		d.event("host: reply outside guest memory", true)
		return
	}
	d.reply, d.replied = append(d.reply[:0], b...), true
}

// hostComplete reads completion records from guest memory; like the host,
// it refuses an id that is not in flight and fails the run.
func (d *wasm) hostComplete(m api.Module, ptr, count uint32, first bool) abi.Code {
	recs, ok := m.Memory().Read(ptr, count*abi.WasmCompletionRecordSize)
	if !ok {
		d.event("host: completion records outside guest memory", true)
		return abi.InvalidArgument
	}
	code := abi.OK
	for i := range int(count) {
		r := abi.WasmCompletionRecordAt(recs, i)
		data, ok := m.Memory().Read(r.DataPtr, r.DataLen)
		if !ok {
			d.event(fmt.Sprintf("host: data of sample id %d outside guest memory", r.ID), true)
			return abi.InvalidArgument
		}
		d.mu.Lock()
		open := d.inFlight[r.ID]
		if open && !first {
			delete(d.inFlight, r.ID)
		}
		d.mu.Unlock()
		switch {
		case !open:
			d.event(fmt.Sprintf("host: completion for sample id %d, which is not in flight", r.ID), true)
			code = abi.InvalidArgument
		case first:
			d.firstToken(r.ID)
		default:
			d.complete(r.ID, r.Status, data, r.NTokens)
		}
	}
	return code
}

func (d *wasm) hostLog(m api.Module, s []uint64) {
	b, _ := m.Memory().Read(uint32(s[1]), uint32(s[2]))
	line := string(b)
	if slog.Level(int32(uint32(s[0]))) >= slog.LevelError {
		d.event(line, false)
	}
	d.mu.Lock()
	d.logs = append(d.logs, line)
	d.mu.Unlock()
}

// call calls an export; a trap or an exit ends the run.
func (d *wasm) call(t *testing.T, name string, args ...uint64) (uint64, error) {
	res, err := d.mod.ExportedFunction(name).Call(d.ctx, args...)
	if err != nil {
		var exit *sys.ExitError
		if errors.As(err, &exit) {
			d.event(fmt.Sprintf("host: the guest exited with code %d", exit.ExitCode()), true)
		} else {
			d.event("host: the guest trapped: "+err.Error(), true)
		}
		return 0, err
	}
	if len(res) == 0 {
		return 0, nil
	}
	return res[0], nil
}

// control runs a control call and decodes its reply into resp.
func (d *wasm) control(t *testing.T, export string, req, resp proto.Message, keep bool) abi.Code {
	b, err := proto.Marshal(req)
	require.NoError(t, err)
	ptr, err := d.call(t, abi.ExportAlloc, uint64(max(len(b), 1)))
	require.NoError(t, err)
	require.True(t, d.mod.Memory().Write(uint32(ptr), b))
	d.replied = false
	res, err := d.call(t, export, ptr, uint64(len(b)))
	require.NoError(t, err, "%s", export)
	code := abi.Code(uint32(res))
	if !keep || code != abi.OK {
		_, err := d.call(t, abi.ExportFree, ptr)
		require.NoError(t, err)
	}
	if d.replied {
		require.NoError(t, proto.Unmarshal(d.reply, resp))
	}
	return code
}

func (d *wasm) Info(t *testing.T) *backendv1.InfoResponse {
	var resp backendv1.InfoResponse
	d.control(t, abi.ExportInfo, &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor}, &resp, false)
	d.issueCap = int(resp.GetMaxBatch())
	return &resp
}

func (d *wasm) Load(t *testing.T, req *backendv1.LoadRequest) *backendv1.Status {
	var resp backendv1.LoadResponse
	d.control(t, abi.ExportLoad, req, &resp, false)
	return resp.GetStatus()
}

func (d *wasm) LoadSamples(t *testing.T, samples []sdk.LoadedSample) *backendv1.Status {
	req := &backendv1.LoadSamplesRequest{}
	for _, s := range samples {
		req.Samples = append(req.Samples, &backendv1.SampleRef{Index: s.Index, Length: uint64(len(s.Data)), Data: s.Data})
	}
	var resp backendv1.LoadSamplesResponse
	d.control(t, abi.ExportLoadSamples, req, &resp, true)
	return resp.GetStatus()
}

func (d *wasm) Warmup(t *testing.T) *backendv1.Status {
	var resp backendv1.WarmupResponse
	d.control(t, abi.ExportWarmup, &backendv1.WarmupRequest{}, &resp, false)
	return resp.GetStatus()
}

// Issue runs each query in issue calls of at most MaxBatch records, as the
// host does.
func (d *wasm) Issue(t *testing.T, queries ...[]abi.IssueRecord) []completion {
	if d.issuePtr == 0 {
		d.issueCap = max(d.issueCap, 1)
		ptr, err := d.call(t, abi.ExportAlloc, uint64(d.issueCap*abi.IssueRecordSize))
		require.NoError(t, err)
		d.issuePtr = uint32(ptr)
	}
	for _, q := range queries {
		for off := 0; off < len(q) && !d.isDead(); off += d.issueCap {
			chunk := q[off:min(off+d.issueCap, len(q))]
			d.mu.Lock()
			for _, r := range chunk {
				d.inFlight[r.ID] = true
			}
			d.mu.Unlock()
			require.True(t, d.mod.Memory().Write(d.issuePtr, pack(chunk)))
			code, err := d.call(t, abi.ExportIssue, uint64(d.issuePtr), uint64(len(chunk)))
			if err == nil && abi.Code(uint32(code)) != abi.OK {
				d.event(fmt.Sprintf("host: issue returned %s", abi.Code(uint32(code))), false)
			}
		}
	}
	return d.wait(t, idsOf(queries))
}

func (d *wasm) isDead() bool {
	d.collector.mu.Lock()
	defer d.collector.mu.Unlock()
	return d.dead
}

func (d *wasm) Flush(t *testing.T) *backendv1.Status {
	if d.isDead() {
		return &backendv1.Status{Code: uint32(abi.Aborted), Message: "the guest is dead"}
	}
	code, err := d.call(t, abi.ExportFlush)
	if err != nil {
		return &backendv1.Status{Code: uint32(abi.Aborted), Message: err.Error()}
	}
	return &backendv1.Status{Code: uint32(code)}
}

func (d *wasm) UnloadSamples(t *testing.T, indices []uint64) *backendv1.Status {
	var resp backendv1.UnloadSamplesResponse
	d.control(t, abi.ExportUnloadSamples, &backendv1.UnloadSamplesRequest{Indices: indices}, &resp, false)
	return resp.GetStatus()
}

func (d *wasm) Close(t *testing.T) *backendv1.Status {
	var resp backendv1.CloseResponse
	d.control(t, abi.ExportClose, &backendv1.CloseRequest{}, &resp, false)
	return resp.GetStatus()
}
