package host

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
)

// The WAT echo's fault modes, selected by the first sample index of an
// issue call (testdata/wasm/echo.wat).
const (
	modeTrap uint64 = 0xFA000000 + iota + 1
	modeLoop
	modeOOM
	modeUnknownID
	modeDuplicate
	modeForget
	modeFailOdd
	modeExit
	modePanic
	modeFirstTokens
	modeOutOfBounds
	modeLog
)

func openEcho(t *testing.T, cfg Config) Backend {
	t.Helper()
	if cfg.Instances == 0 {
		cfg.Instances = 2
	}
	b, err := OpenWASM(t.Context(), "watecho", fixture(t, "echo.wasm"), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestWASMEcho(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := openEcho(t, Config{})
	assert.Equal(t, Info{Name: "watecho", Version: "0.1.0", Description: "hand-written WAT echo", ABIMajor: 1,
		Capabilities: abi.CapFlush | abi.CapWarmup | abi.CapFirstToken, MaxBatch: 64, MaxInFlight: 1,
		Transport: TransportWASM, Instances: 2}, b.Info())
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Load(ctx, Model{Bytes: []byte("model"), Options: map[string]string{"k": "v"}}))
	require.NoError(t, b.LoadSamples(ctx, []Sample{{Index: 0, Data: []byte("a")}, {Index: 1, Data: []byte("b")}}))
	require.NoError(t, b.Warmup(ctx))

	// One sample, a query over one max batch, and an Offline-size one.
	sizes := []int{1, 100, 5000}
	id := uint64(1)
	total := 0
	for _, n := range sizes {
		require.NoError(t, b.Issue(ctx, records(id, id*10, n)))
		id += uint64(n)
		total += n
	}
	require.NoError(t, b.Flush(ctx))
	rec.wait(t, total)
	assert.Empty(t, rec.dups)
	id = 1
	for _, n := range sizes {
		for i := range n {
			c, ok := rec.get(id + uint64(i))
			require.True(t, ok)
			assert.Equal(t, Completion{ID: id + uint64(i), Status: abi.OK, Data: le64(id*10 + uint64(i))}, c)
		}
		id += uint64(n)
	}
	require.NoError(t, b.UnloadSamples(ctx, []uint64{0, 1}))
	require.NoError(t, b.Err())
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "Close is idempotent")
	require.ErrorIs(t, b.Err(), ErrClosed)
	require.ErrorIs(t, b.Issue(ctx, records(1, 1, 1)), ErrClosed)
	require.ErrorIs(t, b.Load(ctx, Model{}), ErrClosed)
}

func TestWASMLoadFailureIsNotFatal(t *testing.T) {
	t.Parallel()
	b := openEcho(t, Config{})
	err := b.Load(t.Context(), Model{Bytes: []byte("fail: no such graph")})
	require.ErrorIs(t, err, ErrInvalidArgument)
	assert.EqualError(t, err, `plugin "watecho": load: INVALID_ARGUMENT: model rejected`)
	require.NoError(t, b.Err())
	require.NoError(t, b.Load(t.Context(), Model{Bytes: []byte("good")}))
}

func TestWASMModelFromPath(t *testing.T) {
	t.Parallel()
	b := openEcho(t, Config{})
	path := filepath.Join(t.TempDir(), "model.onnx")
	require.NoError(t, os.WriteFile(path, []byte("fail: from disk"), 0o644))
	require.ErrorIs(t, b.Load(t.Context(), Model{Path: path}), ErrInvalidArgument, "the host read the file and sent its bytes")
	assert.ErrorContains(t, b.Load(t.Context(), Model{Path: path + ".missing"}), "no such file")
}

// TestWASMSampleFaults covers guest behaviors that fail samples without
// ending the backend.
//
// The fault mode applies to one issue call, so these run one instance.
func TestWASMSampleFaults(t *testing.T) {
	t.Parallel()
	one := Config{Instances: 1}
	t.Run("forgotten sample", func(t *testing.T) {
		t.Parallel()
		b := openEcho(t, one)
		rec := newRecorder()
		b.SetHandler(rec)
		require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: 1, Index: modeForget}, {ID: 2, Index: 7}, {ID: 3, Index: 8}}))
		rec.wait(t, 3)
		c, _ := rec.get(3)
		assert.Equal(t, abi.Internal, c.Status)
		assert.Equal(t, `plugin "watecho" returned from issue without completing sample id 3`, string(c.Data))
		c, _ = rec.get(2)
		assert.Equal(t, abi.OK, c.Status)
		require.NoError(t, b.Err())
	})
	t.Run("failed samples", func(t *testing.T) {
		t.Parallel()
		b := openEcho(t, one)
		rec := newRecorder()
		b.SetHandler(rec)
		require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: 1, Index: modeFailOdd}, {ID: 2, Index: 8}}))
		rec.wait(t, 2)
		c, _ := rec.get(1)
		assert.Equal(t, abi.Internal, c.Status, "the mode index is odd")
		require.ErrorIs(t, c.Err(), ErrInternal)
		assert.EqualError(t, c.Err(), "INTERNAL: bad sample")
		c, _ = rec.get(2)
		require.NoError(t, c.Err())
		require.NoError(t, b.Err())
	})
	t.Run("first tokens", func(t *testing.T) {
		t.Parallel()
		b := openEcho(t, one)
		rec := newRecorder()
		b.SetHandler(rec)
		require.NoError(t, b.Issue(t.Context(), records(1, modeFirstTokens, 3)))
		rec.wait(t, 3)
		for id := uint64(1); id <= 3; id++ {
			c, _ := rec.get(id)
			assert.Equal(t, int64(5), c.NTokens)
			f, ok := rec.first[id]
			require.True(t, ok)
			assert.Equal(t, c.Data, f.Data)
		}
		assert.Empty(t, rec.early)
	})
	t.Run("guest log lines", func(t *testing.T) {
		t.Parallel()
		sink := &logSink{}
		b := openEcho(t, Config{Logger: slog.New(sink), Instances: 1})
		rec := newRecorder()
		b.SetHandler(rec)
		require.NoError(t, b.Issue(t.Context(), records(1, modeLog, 1)))
		rec.wait(t, 1)
		assert.Contains(t, sink.messages(slog.LevelDebug), "debug line")
		assert.Contains(t, sink.messages(slog.LevelInfo), "info line")
		assert.Equal(t, []string{"warn line"}, sink.messages(slog.LevelWarn))
		assert.Equal(t, []string{"error line"}, sink.messages(slog.LevelError))
	})
}

// TestWASMFatalFaults covers every way a guest ends the run: each gives a
// clear error naming the plugin and what it did, every sample issued
// completes exactly once, and the host goes on.
func TestWASMFatalFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     Config
		mode    uint64
		wantErr error
		msg     []string
	}{
		{name: "trap", mode: modeTrap, wantErr: ErrTrap,
			msg: []string{`plugin "watecho": issue (instance `, "): trapped: wasm error: unreachable"}},
		{name: "exit", mode: modeExit, wantErr: ErrTrap, msg: []string{"trapped: exited with code 3"}},
		{name: "panic with its last words", mode: modePanic, wantErr: ErrTrap,
			msg: []string{"trapped: exited with code 2; last output: panic: boom"}},
		{name: "memory past the cap", mode: modeOOM, cfg: Config{MemoryLimitMiB: 8}, wantErr: ErrMemoryLimit,
			msg: []string{"exceeded its memory limit: exited with code 2 (memory ", " MiB of a 8 MiB cap); last output: fatal error: out of memory"}},
		{name: "unknown id", mode: modeUnknownID, wantErr: ErrProtocol,
			msg: []string{"broke the plugin ABI: completed sample id 1000001, which is not in flight"}},
		{name: "duplicate id", mode: modeDuplicate, wantErr: ErrProtocol, msg: []string{"completed sample id 1 twice"}},
		{name: "records out of bounds", mode: modeOutOfBounds, wantErr: ErrProtocol,
			msg: []string{"complete: 1 records at 0xfffffff0 are outside guest memory"}},
		{name: "endless loop, loop guard", mode: modeLoop, cfg: Config{CallTimeout: 300 * time.Millisecond}, wantErr: ErrHang,
			msg: []string{"did not return in time: the call has been running for", "past the 300ms deadline", "stops it at its next loop iteration"}},
		{name: "endless loop, strict guard", mode: modeLoop, cfg: Config{CallTimeout: 300 * time.Millisecond, Guard: GuardStrict},
			wantErr: ErrHang, msg: []string{"the host closes it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := openEcho(t, tt.cfg)
			rec := newRecorder()
			b.SetHandler(rec)
			require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: 1, Index: tt.mode}, {ID: 2, Index: 2}}))
			waitDone(t, b)
			rec.wait(t, 2)
			assertFailed(t, b, rec, "watecho", tt.wantErr, tt.msg)
		})
	}
}

func TestWASMOpenErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fixture string
		module  []byte
		cfg     Config
		wantErr error
		msg     string
	}{
		{name: "version in abi_version", fixture: "badversion.wasm", wantErr: ErrVersionMismatch,
			msg: `plugin "p": handshake: speaks another ABI version: plugin speaks ABI v2, this mlperf-host speaks v1: upgrade mlperf-host or install a v1 build of the plugin`},
		{name: "v2 export names", fixture: "v2.wasm", wantErr: ErrVersionMismatch, msg: "plugin speaks ABI v2"},
		{name: "wrong signature", fixture: "badsig.wasm", wantErr: ErrProtocol,
			msg: `plugin "p": open: broke the plugin ABI: export mlperf_v1_close has signature (i64, i32) -> i32, want (i32, i32) -> i32`},
		{name: "missing export", fixture: "noclose.wasm", wantErr: ErrProtocol, msg: "it does not export mlperf_v1_close (i32, i32) -> i32"},
		{name: "command, not reactor", fixture: "command.wasm", wantErr: ErrProtocol, msg: "it is a WASI command (exports _start), not a reactor"},
		{name: "unknown imports", fixture: "extraimport.wasm", wantErr: ErrProtocol,
			msg: "it imports mlperf_host_v1.teleport, which ABI v1.4 does not have; it imports env.now: a plugin may import only wasi_snapshot_preview1, mlperf_host_v1 and wasi_ephemeral_nn"},
		{name: "memory larger than the cap", fixture: "bigmemory.wasm", cfg: Config{MemoryLimitMiB: 16}, wantErr: ErrMemoryLimit,
			msg: `plugin "p": open: exceeded its memory limit: the module's minimum memory is over the 16 MiB cap`},
		{name: "not wasm", module: []byte("\x00asm\x01\x00\x00\x00\x99"), wantErr: ErrProtocol, msg: "not a valid WASM module"},
		{name: "not wasm, no guard", module: []byte("\x00asm\x01\x00\x00\x00\x99"), cfg: Config{Guard: GuardOff}, wantErr: ErrProtocol, msg: "compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			module := tt.module
			if tt.fixture != "" {
				module = fixture(t, tt.fixture)
			}
			tt.cfg.Instances = 1
			b, err := OpenWASM(t.Context(), "p", module, tt.cfg)
			require.ErrorIs(t, err, tt.wantErr)
			assert.Nil(t, b)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	require.NoError(t, Config{}.Validate())
	err := Config{CallTimeout: -1, Instances: -2, MemoryLimitMiB: 9999, Guard: "maybe", MaxMessageBytes: -1}.Validate()
	for _, m := range []string{"CallTimeout is negative", "Instances -2", "MemoryLimitMiB 9999", `Guard "maybe"`, "MaxMessageBytes is negative"} {
		assert.ErrorContains(t, err, m)
	}
	_, err = OpenWASM(t.Context(), "p", nil, Config{Instances: -1})
	assert.ErrorContains(t, err, "Instances -1")
}

func TestWASMIssueFromHandler(t *testing.T) {
	t.Parallel()
	runChain(t, openEcho(t, Config{}), 200)
}

func TestTrapSummary(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{name: "plain", in: "wasm error: unreachable", want: "wasm error: unreachable"},
		{name: "user frame", in: "wasm error: unreachable\nwasm stack trace:\n\t.runtime.abort(i32) i32\n\t.main.issue(i32) i32\n\t.mlperf_v1_issue(i32,i32) i32",
			want: "wasm error: unreachable (in main.issue)"},
		{name: "named module", in: "wasm error: integer divide by zero\nwasm stack trace:\n\tonnx.conv2d(i32) i32", want: "wasm error: integer divide by zero (in conv2d)"},
		{name: "runtime only", in: "wasm error: unreachable\nwasm stack trace:\n\t.runtime.abort(i32) i32", want: "wasm error: unreachable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, trapSummary(tt.in))
		})
	}
}
