package host

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
)

// Fault modes of testdata/goguest, by the first sample index of a call.
const (
	goPanic    uint64 = 0xFB000001
	goDeadlock uint64 = 0xFB000002
	goOOM      uint64 = 0xFB000003
	goLoop     uint64 = 0xFB000004
)

func openGoGuest(t *testing.T, cfg Config) Backend {
	t.Helper()
	cfg.Instances = max(cfg.Instances, 1)
	cfg.CompilationCacheDir = wasmCache()
	b, err := OpenWASM(t.Context(), "goguest", goGuestModule(t), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestGoGuestEcho(t *testing.T) {
	t.Parallel()
	for _, guard := range []Guard{GuardLoops, GuardStrict} {
		t.Run(string(guard), func(t *testing.T) {
			t.Parallel()
			b := openGoGuest(t, Config{Guard: guard, Instances: 2})
			assert.Equal(t, "goguest", b.Info().Name)
			rec := newRecorder()
			b.SetHandler(rec)
			require.NoError(t, b.Load(t.Context(), Model{Bytes: []byte("m")}))
			require.NoError(t, b.Issue(t.Context(), records(1, 100, 3000)))
			rec.wait(t, 3000)
			for id := uint64(1); id <= 3000; id++ {
				c, ok := rec.get(id)
				require.True(t, ok)
				require.Equal(t, le64(99+id), c.Data)
			}
			require.NoError(t, b.Close())
		})
	}
}

// TestGoGuestFaults: what the Go runtime does when a guest fails, and the
// error the host makes of it.
func TestGoGuestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mode    uint64
		cfg     Config
		wantErr error
		msg     []string
	}{
		{name: "panic", mode: goPanic, wantErr: ErrTrap,
			msg: []string{`plugin "goguest": issue (instance 0): trapped: wasm error: unreachable (in main.issue); last output: panic: boom from Go`}},
		{name: "deadlock", mode: goDeadlock, wantErr: ErrTrap,
			msg: []string{"trapped: wasm error: unreachable (in mlperf_v1_issue); last output: fatal error: all goroutines are asleep - deadlock!"}},
		{name: "out of memory at the cap", mode: goOOM, cfg: Config{MemoryLimitMiB: 64}, wantErr: ErrMemoryLimit,
			msg: []string{"exceeded its memory limit: wasm error: unreachable (in main.issue) (memory ", " MiB of a 64 MiB cap); last output: fatal error: out of memory"}},
		{name: "endless loop", mode: goLoop, cfg: Config{CallTimeout: 500 * time.Millisecond}, wantErr: ErrHang,
			msg: []string{"did not return in time", "past the 500ms deadline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := openGoGuest(t, tt.cfg)
			rec := newRecorder()
			b.SetHandler(rec)
			require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: 1, Index: tt.mode}, {ID: 2, Index: 5}}))
			waitDone(t, b)
			rec.wait(t, 2)
			assertFailed(t, b, rec, "goguest", tt.wantErr, tt.msg)
		})
	}
}

// TestWASMLimitsFollowLoad: the SDK's echo example as a WASM guest; its
// Load options shrink MaxBatch, Info reports it after Load, and queries
// are cut to it.
func TestWASMLimitsFollowLoad(t *testing.T) {
	t.Parallel()
	module, err := echoGuest()
	require.NoError(t, err, "build the echo guest")
	b, err := OpenWASM(t.Context(), "echo", module, Config{Instances: 2, CompilationCacheDir: wasmCache()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	assert.Equal(t, 256, b.Info().MaxBatch)
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Load(t.Context(), Model{Bytes: []byte("m"), Options: map[string]string{"max_batch": "16", "max_in_flight": "3"}}))
	assert.Equal(t, 16, b.Info().MaxBatch)
	assert.Equal(t, 3, b.Info().MaxInFlight)
	require.NoError(t, b.LoadSamples(t.Context(), []Sample{{Index: 0, Data: []byte("x")}}))
	recs := make([]abi.IssueRecord, 100)
	for i := range recs {
		recs[i] = abi.IssueRecord{ID: uint64(i), Index: 0, Flags: abi.FlagWantOutput}
	}
	require.NoError(t, b.Issue(t.Context(), recs))
	rec.wait(t, 100)
	c, _ := rec.get(99)
	assert.Equal(t, "x", string(c.Data))
	assert.LessOrEqual(t, b.(*wasmBackend).chunkMax, 16)
}
