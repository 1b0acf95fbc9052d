package host

import (
	"bufio"
	"encoding/hex"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host/manifest"
)

// fakePlugin returns the test binary as a process plugin.
func fakeProcess(t testing.TB) Plugin {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	return Plugin{Name: "fake", Kind: manifest.KindProcess, Entry: exe}
}

func openFake(t *testing.T, mode string, cfg Config) Backend {
	t.Helper()
	cfg.Env = append(cfg.Env, fakePluginEnv+"="+mode)
	b, err := Open(t.Context(), fakeProcess(t), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestProcessEcho(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{fakeEcho, fakeInline} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			shm := t.TempDir()
			b := openFake(t, mode, Config{SharedMemoryDir: shm})
			info := b.Info()
			assert.Equal(t, "fake", info.Name)
			assert.Equal(t, TransportProcess, info.Transport)
			assert.Equal(t, 2, info.MaxInFlight)
			assert.Equal(t, []Device{{Name: "fake accelerator", Kind: "gpu", MemoryBytes: 1 << 30, NUMANode: -1}}, info.Devices)
			rec := newRecorder()
			b.SetHandler(rec)
			require.NoError(t, b.Load(ctx, Model{Bytes: []byte("model")}))
			samples := []Sample{{Index: 3, Data: []byte("three")}, {Index: 4, Data: []byte("four")}, {Index: 5, Data: nil}}
			require.NoError(t, b.LoadSamples(ctx, samples))
			arenas, _ := filepath.Glob(filepath.Join(shm, "mlperf-host-arena-*"))
			if mode == fakeEcho {
				assert.Len(t, arenas, 1, "both sides share memory: the samples went through an arena")
			} else {
				assert.Empty(t, arenas)
			}
			require.NoError(t, b.Warmup(ctx))
			require.NoError(t, b.Issue(ctx, []abi.IssueRecord{{ID: 10, Index: 3, Flags: abi.FlagWantOutput}, {ID: 11, Index: 4}}))
			require.NoError(t, b.Issue(ctx, []abi.IssueRecord{{ID: 12, Index: 4, Flags: abi.FlagWantOutput}}))
			require.NoError(t, b.Issue(ctx, []abi.IssueRecord{{ID: 13, Index: 99, Flags: abi.FlagWantOutput}}))
			require.NoError(t, b.Flush(ctx))
			rec.wait(t, 4)
			want := map[uint64]string{10: "three", 11: "", 12: "four", 13: string(le64(99))}
			for id, data := range want {
				c, ok := rec.get(id)
				require.True(t, ok)
				assert.Equal(t, Completion{ID: id, Status: abi.OK, Data: []byte(data), NTokens: 3}, c)
			}
			assert.Len(t, rec.first, 3, "the fake reports first tokens of samples whose output is wanted")
			assert.Empty(t, rec.early)
			require.NoError(t, b.UnloadSamples(ctx, []uint64{3, 4}))
			require.NoError(t, b.Close())
			require.ErrorIs(t, b.Err(), ErrClosed)
			arenas, _ = filepath.Glob(filepath.Join(shm, "mlperf-host-arena-*"))
			assert.Empty(t, arenas, "Close removes the arena")
			assert.ErrorIs(t, b.Issue(ctx, records(1, 1, 1)), ErrClosed)
		})
	}
}

func TestProcessLoad(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := openFake(t, fakeEcho, Config{})
	path := filepath.Join(t.TempDir(), "model.bin")
	require.NoError(t, os.WriteFile(path, []byte("fail"), 0o644))
	err := b.Load(ctx, Model{Path: path})
	require.ErrorIs(t, err, ErrInvalidArgument, "the plugin has MODEL_PATH: it read the file itself")
	assert.EqualError(t, err, `plugin "fake": load: INVALID_ARGUMENT: model rejected`)
	err = b.Load(ctx, Model{Path: path + ".missing"})
	require.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, b.Err(), "a failed load is not fatal")
	require.NoError(t, b.Load(ctx, Model{Bytes: []byte("ok")}))

	small := openFake(t, fakeEcho, Config{MaxMessageBytes: 4096})
	err = small.Load(ctx, Model{Bytes: make([]byte, 8192)})
	assert.EqualError(t, err, `plugin "fake": load: the model's 8192 bytes do not fit in one 4096-byte message: give the plugin the MODEL_PATH capability, or raise Config.MaxMessageBytes`)
	require.NoError(t, small.LoadSamples(ctx, []Sample{{Index: 1, Data: make([]byte, 3000)}, {Index: 2, Data: make([]byte, 3000)}}),
		"samples go through the arena, whatever their size")
}

func TestProcessLogs(t *testing.T) {
	t.Parallel()
	sink := &logSink{}
	b := openFake(t, fakeLogs, Config{Logger: slog.New(sink)})
	require.NoError(t, b.Close())
	assert.Contains(t, sink.messages(slog.LevelDebug), "loading runtime")
	assert.Contains(t, sink.messages(slog.LevelWarn), "low memory")
	info := sink.messages(slog.LevelInfo)
	assert.Contains(t, info, "a plain line")
	assert.Contains(t, info, `{"@message": 5, "@level": []}`, "a line go-plugin's own parser would panic on is logged as text")
}

// TestProcessFatalFaults covers every way a running subprocess plugin ends
// the run: a clear error naming the plugin and what it did, every sample
// issued completes exactly once, and the host goes on.
func TestProcessFatalFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mode    string
		cfg     Config
		wantErr error
		msg     []string
	}{
		{name: "crash", mode: fakeCrash, wantErr: ErrCrashed,
			msg: []string{`plugin "fake": process: exited: pid `, " exited with exit status 3; last output: device lost, giving up"}},
		{name: "panic", mode: fakePanic, wantErr: ErrCrashed, msg: []string{"exit status 2", "panic: kaboom"}},
		{name: "stall", mode: fakeStall, cfg: Config{StallTimeout: 300 * time.Millisecond}, wantErr: ErrStalled,
			msg: []string{`plugin "fake": session: stalled: 2 samples in flight and none completed for `, "(deadline 300ms)"}},
		{name: "malformed frame", mode: fakeMalformed, wantErr: ErrProtocol,
			msg: []string{`plugin "fake": session: broke the plugin ABI: completions message: malformed frame: completion records of 23 bytes are not a multiple of 24`}},
		{name: "unknown id", mode: fakeUnknownID, wantErr: ErrProtocol, msg: []string{"first tokens for sample id 1000001, which is not in flight"}},
		{name: "duplicate id", mode: fakeDuplicate, wantErr: ErrProtocol, msg: []string{"completions for sample id 1, which is not in flight (never issued, or completed before)"}},
		{name: "session error", mode: fakeSessionError, wantErr: ErrUnavailable,
			msg: []string{`plugin "fake": session: plugin reported a fatal error: UNAVAILABLE: device lost`}},
		{name: "health check", mode: fakePingStall, cfg: Config{HealthInterval: 100 * time.Millisecond, CallTimeout: 200 * time.Millisecond},
			wantErr: ErrHang, msg: []string{`plugin "fake": health check: did not return in time: no answer to a ping within 100ms`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := openFake(t, tt.mode, tt.cfg)
			rec := newRecorder()
			b.SetHandler(rec)
			if tt.mode != fakePingStall {
				require.NoError(t, b.Issue(t.Context(), records(1, 0, 2)))
			}
			waitDone(t, b)
			if tt.mode != fakePingStall {
				rec.wait(t, 2)
			}
			assertFailed(t, b, rec, "fake", tt.wantErr, tt.msg)
		})
	}
}

func TestProcessStartErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mode    string
		cfg     Config
		wantErr error
		msg     string
	}{
		{name: "version mismatch", mode: fakeV2, wantErr: ErrVersionMismatch,
			msg: `plugin "fake": handshake: speaks another ABI version: plugin speaks ABI v2, this mlperf-host speaks v1`},
		{name: "stdout before the handshake", mode: fakeStdout, wantErr: ErrProtocol,
			msg: `plugin "fake": start: broke the plugin ABI: it printed "starting fake plugin..." on stdout instead of the handshake line`},
		{name: "dies at start", mode: fakeDieAtStart, wantErr: ErrStart,
			msg: `plugin "fake": start: failed to start: the plugin exited with exit status 1 before the handshake; last output: cannot open /dev/accel0: no such device`},
		{name: "no handshake in time", mode: fakeSlowStart, cfg: Config{StartTimeout: 300 * time.Millisecond}, wantErr: ErrStart,
			msg: `plugin "fake": start: failed to start: no handshake within 300ms`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.cfg.Env = []string{fakePluginEnv + "=" + tt.mode}
			b, err := Open(t.Context(), fakeProcess(t), tt.cfg)
			require.ErrorIs(t, err, tt.wantErr)
			assert.Nil(t, b)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestProcessChecksum(t *testing.T) {
	t.Parallel()
	p := fakeProcess(t)
	sum, err := fileSHA256(p.Entry)
	require.NoError(t, err)
	p.SHA256 = sum
	b, err := Open(t.Context(), p, Config{Env: []string{fakePluginEnv + "=" + fakeEcho}})
	require.NoError(t, err)
	require.NoError(t, b.Close())

	p.SHA256 = make([]byte, 32)
	_, err = Open(t.Context(), p, Config{Env: []string{fakePluginEnv + "=" + fakeEcho}})
	require.ErrorIs(t, err, ErrChecksum)
	assert.ErrorContains(t, err, "has sha256 "+hex.EncodeToString(sum)+", its manifest says 0000")
}

func TestProcessMissingExecutable(t *testing.T) {
	t.Parallel()
	_, err := Open(t.Context(), Plugin{Name: "gone", Kind: manifest.KindProcess, Entry: "/nonexistent/plugin"}, Config{})
	require.ErrorIs(t, err, ErrStart)
	assert.ErrorContains(t, err, `plugin "gone": start`)
}

// startServe starts the fake plugin in serve mode and returns what it
// printed.
func startServe(t *testing.T) (ReattachConfig, *exec.Cmd) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fakePluginEnv+"="+fakeServe)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	rc, err := ParseReattachConfig([]byte(line))
	require.NoError(t, err)
	return rc, cmd
}

func TestReattach(t *testing.T) {
	t.Parallel()
	rc, cmd := startServe(t)
	assert.Equal(t, cmd.Process.Pid, rc.Pid)

	for run := range 2 { // two runs against the same process
		b, err := Reattach(t.Context(), rc, Config{})
		require.NoError(t, err, "run %d", run)
		rec := newRecorder()
		b.SetHandler(rec)
		require.NoError(t, b.Issue(t.Context(), records(1, 7, 3)))
		rec.wait(t, 3)
		require.NoError(t, b.Close())
		require.NoError(t, cmd.Process.Signal(syscallZero), "the plugin outlives Close")
	}
}

func TestParseReattachConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want ReattachConfig
		msg  string
	}{
		{name: "unix", in: `{"plugin":"trt","abi_major":1,"pid":42,"network":"unix","address":"/tmp/p","token":"` + fakeServeToken + `"}`,
			want: ReattachConfig{Plugin: "trt", ABIMajor: 1, Pid: 42, Network: "unix", Address: "/tmp/p", Token: fakeServeToken}},
		{name: "loopback tcp without pid", in: `{"plugin":"trt","abi_major":1,"network":"tcp","address":"127.0.0.1:7000","token":"` + fakeServeToken + `"}`,
			want: ReattachConfig{Plugin: "trt", ABIMajor: 1, Network: "tcp", Address: "127.0.0.1:7000", Token: fakeServeToken}},
		{name: "remote tcp", in: `{"plugin":"trt","abi_major":1,"network":"tcp","address":"10.0.0.2:7000","token":"` + fakeServeToken + `"}`,
			msg: `"address" "10.0.0.2:7000" is not a loopback address`},
		{name: "no token", in: `{"plugin":"trt","abi_major":1,"pid":42,"network":"unix","address":"/tmp/p"}`,
			msg: `"token" is missing or shorter than 32 characters`},
		{name: "not json", in: `trt 1 unix /tmp/p`, msg: "reattach config: invalid character"},
		{name: "unknown field", in: `{"plugin":"trt","abi_major":1,"network":"unix","address":"/p","tls":true}`, msg: `unknown field "tls"`},
		{name: "missing fields", in: `{}`, msg: `"plugin" is missing` + "\n" + `reattach config: "abi_major" is missing or not positive` + "\n" +
			`reattach config: "network" "": want "unix" or "tcp"` + "\n" + `reattach config: "address" is missing`},
		{name: "trailing", in: `{"plugin":"trt","abi_major":1,"network":"unix","address":"/p","token":"` + fakeServeToken + `"} x`, msg: "unexpected data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseReattachConfig([]byte(tt.in))
			if tt.msg != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := Reattach(t.Context(), ReattachConfig{Plugin: "x", ABIMajor: 3, Network: "unix", Address: "/p", Token: fakeServeToken}, Config{})
	require.ErrorIs(t, err, ErrVersionMismatch)
}

func FuzzParseReattachConfig(f *testing.F) {
	f.Add([]byte(`{"plugin":"trt","abi_major":1,"pid":42,"network":"unix","address":"/tmp/p","token":"` + fakeServeToken + `"}`))
	f.Add([]byte(`{"plugin":"","abi_major":-1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseReattachConfig(b)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "reattach config: "))
			return
		}
		require.NoError(t, c.Validate())
	})
}

func TestProcessCloseWithOrphanHoldingOutput(t *testing.T) {
	t.Parallel()
	b := openFake(t, fakeOrphan, Config{CloseTimeout: 300 * time.Millisecond})
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Issue(t.Context(), records(1, 1, 1)))
	rec.wait(t, 1)
	done := make(chan error, 1)
	go func() { done <- b.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(4 * time.Second): // the helper lives 5 s
		require.FailNow(t, "Close waited for the orphan's pipes")
	}
}

func TestProcessIssueFromHandler(t *testing.T) {
	t.Parallel()
	runChain(t, openFake(t, fakeEcho, Config{}), 200)
}

// TestProcessIssueChunksAndDuplicates: a query larger than one message
// goes as several and every sample completes once; a query with an id
// already in flight (or twice in itself) is refused whole, and its ids
// stay free.
func TestProcessIssueChunksAndDuplicates(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := openFake(t, fakeEcho, Config{})
	b.(*processBackend).chunk = 3
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Load(ctx, Model{Bytes: []byte("model")}))

	require.NoError(t, b.Issue(ctx, records(100, 0, 10)))
	err := b.Issue(ctx, []abi.IssueRecord{{ID: 200, Index: 1}, {ID: 201, Index: 1}, {ID: 200, Index: 2}})
	require.ErrorIs(t, err, ErrInvalidArgument)
	assert.ErrorContains(t, err, "sample id 200 is already in flight")
	require.NoError(t, b.Flush(ctx))
	rec.wait(t, 10)
	for id := range uint64(10) {
		c, ok := rec.get(100 + id)
		require.True(t, ok, "sample %d", 100+id)
		assert.Equal(t, string(le64(id)), string(c.Data))
	}
	require.NoError(t, b.Issue(ctx, []abi.IssueRecord{{ID: 200, Index: 1, Flags: abi.FlagWantOutput}, {ID: 201, Index: 2, Flags: abi.FlagWantOutput}}),
		"a refused query leaves none of its ids in flight")
	rec.wait(t, 12)
	require.NoError(t, b.Err())
}
