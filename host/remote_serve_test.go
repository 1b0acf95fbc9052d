//go:build unix

package host

import (
	"crypto/tls"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/internal/testcerts"
)

// served serves the fake plugin with cfg in plaintext on a loopback port.
func served(t *testing.T, cfg ServeConfig) (string, *syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr, logs, _ := serveRemoteWith(t, ln, nil, cfg)
	return addr, logs
}

// rawHost is a remote host speaking gRPC to serve directly, as an
// attacker would: any method, any message.
func rawHost(t *testing.T, addr string, creds credentials.TransportCredentials) *grpc.ClientConn {
	t.Helper()
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestServeRefusesSharedMemory: a remote host naming a file of the server
// as its sample arena, or attaching shared rings, is refused before the
// plugin; the Info it gets offers neither.
func TestServeRefusesSharedMemory(t *testing.T) {
	t.Parallel()
	addr, _ := served(t, ServeConfig{})
	c := backendv1grpc.NewBackendClient(rawHost(t, addr, nil))
	info, err := c.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor, HostCapabilities: ^uint64(0)})
	require.NoError(t, err)
	caps := abi.Capability(info.GetCapabilities())
	assert.False(t, caps.Has(abi.CapSharedArena), "no arena offered")
	assert.False(t, caps.Has(abi.CapSharedRing), "no rings offered")
	assert.False(t, caps.Has(abi.CapModelPath), "no model path without a model directory")
	assert.True(t, caps.Has(abi.CapFlush), "the other bits pass")

	for _, path := range []string{"/etc/passwd", "/dev/shm/" + abi.SharedMemoryPrefix + "arena-1"} {
		_, err = c.LoadSamples(t.Context(), &backendv1.LoadSamplesRequest{Arena: &backendv1.Arena{Path: path, Size: 16},
			Samples: []*backendv1.SampleRef{{Index: 1, Length: 16}}})
		assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
		assert.ErrorContains(t, err, "a remote host cannot use shared memory")
	}

	for _, msg := range []*backendv1.HostMessage{
		{Kind: &backendv1.HostMessage_RingAttach{RingAttach: &backendv1.RingAttach{Path: "/etc/passwd", Size: 4096}}},
		{Kind: &backendv1.HostMessage_Doorbell{Doorbell: &backendv1.Doorbell{}}},
	} {
		s, err := c.Session(t.Context())
		require.NoError(t, err)
		require.NoError(t, s.Send(msg))
		_, err = s.Recv()
		assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	}
}

// TestServeForwardsOnlyBackend: go-plugin's controller (Shutdown), broker
// and any other service are refused; the plugin keeps serving and no
// error names serve's socket.
func TestServeForwardsOnlyBackend(t *testing.T) {
	t.Parallel()
	addr, logs := served(t, ServeConfig{})
	conn := rawHost(t, addr, nil)
	for _, method := range []string{"/plugin.GRPCController/Shutdown", "/plugin.GRPCBroker/StartStream", "/grpc.health.v1.Health/Check", "/x/y"} {
		var out []byte
		err := conn.Invoke(t.Context(), method, &[]byte{}, &out, grpc.ForceCodecV2(rawCodec{}))
		assert.Equal(t, codes.Unimplemented, status.Code(err), "%s: %v", method, err)
		assert.NotContains(t, err.Error(), "/", "%s: no path in %v", method, err)
	}
	assert.Contains(t, logs.String(), "method=/plugin.GRPCController/Shutdown")
	_, err := backendv1grpc.NewBackendClient(conn).Ping(t.Context(), &backendv1.PingRequest{Nonce: 3})
	require.NoError(t, err, "the plugin still serves")
}

// TestServeErrorsHideSocket: a served plugin gone, a host's call fails
// with a sentence that names no path of the server; serve's log has the
// details.
func TestServeErrorsHideSocket(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rc, cmd := startServe(t)
	addr, logs, _ := serveRemoteTarget(t, ln, nil, rc, ServeConfig{})
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	_, err = backendv1grpc.NewBackendClient(rawHost(t, addr, nil)).Ping(t.Context(), &backendv1.PingRequest{})
	require.Error(t, err)
	assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
	assert.NotContains(t, err.Error(), rc.Address)
	assert.NotContains(t, err.Error(), filepath.Dir(rc.Address))
	assert.Contains(t, err.Error(), "the served plugin is not answering")
	assert.Contains(t, logs.String(), "the served plugin failed a call")
}

// TestServeOneHostAtATime: while a host (a CA-signed certificate) runs,
// another host of the same CA is refused with who is served and since
// when, and its Close never reaches the plugin: the run goes on. Once the
// first host leaves, the next is served.
func TestServeOneHostAtATime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := testcerts.NewCA(t, dir, "ca")
	valid := time.Now().Add(time.Hour)
	server := tlsFiles(ca.Issue(t, dir, "server", valid))
	addr, logs := serveRemote(t, &server)
	hostTLS := func(name string) credentials.TransportCredentials {
		conf, err := ClientTLS(tlsFiles(ca.Issue(t, dir, name, valid)), "127.0.0.1")
		require.NoError(t, err)
		return credentials.NewTLS(conf)
	}

	victim, err := OpenRemote(t.Context(), RemoteConfig{Plugin: "fake", Address: addr, TLS: mustClientTLS(t, ca, dir, "victim")}, Config{})
	require.NoError(t, err)
	rec := newRecorder()
	victim.SetHandler(rec)

	attacker := rawHost(t, addr, hostTLS("attacker"))
	ac := backendv1grpc.NewBackendClient(attacker)
	_, err = ac.Close(t.Context(), &backendv1.CloseRequest{})
	require.Error(t, err)
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	assert.Regexp(t, `remote plugin: busy: serving host CN=victim \(127\.0\.0\.1:\d+\) since \d{4}-\d\d-\d\dT`, err.Error())
	_, err = ac.LoadSamples(t.Context(), &backendv1.LoadSamplesRequest{})
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)

	require.NoError(t, victim.Issue(t.Context(), records(1, 7, 3)), "the victim's run goes on")
	rec.wait(t, 3)
	require.NoError(t, victim.Close())
	assert.Contains(t, logs.String(), "refused a call: busy")

	assert.Eventually(t, func() bool {
		_, err := ac.Ping(t.Context(), &backendv1.PingRequest{})
		return err == nil
	}, 10*time.Second, 20*time.Millisecond, "the next host is served once the first left")
}

func mustClientTLS(t *testing.T, ca *testcerts.CA, dir, name string) *tls.Config {
	t.Helper()
	conf, err := ClientTLS(tlsFiles(ca.Issue(t, dir, name, time.Now().Add(time.Hour))), "127.0.0.1")
	require.NoError(t, err)
	return conf
}

// TestServeIdleHostReleased: a host that connects, calls and then stays
// silent past the idle limit is dropped, and the next host is served.
func TestServeIdleHostReleased(t *testing.T) {
	t.Parallel()
	addr, logs := served(t, ServeConfig{Limits: ServeLimits{IdleTimeout: 300 * time.Millisecond}})
	idle := backendv1grpc.NewBackendClient(rawHost(t, addr, nil))
	_, err := idle.Ping(t.Context(), &backendv1.PingRequest{})
	require.NoError(t, err)
	next := backendv1grpc.NewBackendClient(rawHost(t, addr, nil))
	assert.Eventually(t, func() bool {
		_, err := next.Ping(t.Context(), &backendv1.PingRequest{})
		return err == nil
	}, 10*time.Second, 20*time.Millisecond, "the idle host let go of the plugin")
	assert.Contains(t, logs.String(), "remote plugin: the host left")
}

// TestServeConnectionLimits: a connection that never completes its
// handshake is closed after the handshake timeout; connections past the
// per-address bound are closed at once, and logged.
func TestServeConnectionLimits(t *testing.T) {
	t.Parallel()
	addr, logs := served(t, ServeConfig{Limits: ServeLimits{HandshakeTimeout: 200 * time.Millisecond, MaxConnsPerAddr: 2}})
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		conns = append(conns, c)
	}
	for i, c := range conns {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Second)))
		_, err := io.ReadAll(c)
		assert.NoError(t, err, "connection %d: closed by serve (EOF), not left to the deadline", i)
	}
	assert.Contains(t, logs.String(), "refused a connection: too many connections from one address")
}

// TestServePaths: a model path or a path option a remote host names must
// resolve inside the model directory; one outside, through a link, or
// missing is refused in the same words (no oracle), the string option
// passes as it is, and an allowed path reaches the plugin resolved.
func TestServePaths(t *testing.T) {
	t.Parallel()
	models, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(models, "model.onnx"), []byte("m"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(models, "escape")))
	addr, _ := served(t, ServeConfig{ModelDir: models})
	c := backendv1grpc.NewBackendClient(rawHost(t, addr, nil))
	info, err := c.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
	require.NoError(t, err)
	assert.True(t, abi.Capability(info.GetCapabilities()).Has(abi.CapModelPath), "a model directory: model paths")

	resp, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelPath: "model.onnx",
		Options: map[string]string{"library": filepath.Join(models, "model.onnx"), "note": "/etc/passwd"}})
	require.NoError(t, err)
	want := filepath.Join(models, "model.onnx")
	assert.Equal(t, "model="+want+" library="+want+" note=/etc/passwd", resp.GetFacts().GetFramework())

	var msgs []string
	for _, tc := range []struct {
		name  string
		model string
		opts  map[string]string
	}{
		{name: "model outside", model: filepath.Join(outside, "secret")},
		{name: "system file", model: "/etc/shadow"},
		{name: "climbing", model: "../../../../etc/shadow"},
		{name: "missing", model: "none.onnx"},
		{name: "link out", model: "escape"},
		{name: "library outside", opts: map[string]string{"library": "/etc/passwd"}},
		{name: "one of libraries outside", opts: map[string]string{"library": want + ":/usr/lib/libc.so.6"}},
	} {
		_, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelPath: tc.model, Options: tc.opts})
		require.Error(t, err, tc.name)
		assert.Equal(t, codes.PermissionDenied, status.Code(err), "%s: %v", tc.name, err)
		msg := status.Convert(err).Message()
		assert.NotContains(t, msg, outside, tc.name)
		msgs = append(msgs, strings.ReplaceAll(msg, "option library", "the model path"))
	}
	for _, m := range msgs {
		assert.Equal(t, msgs[0], m, "every refusal in the same words")
	}
}

// TestServeNoModelDir: without a model directory every server path is
// refused; the model's bytes pass.
func TestServeNoModelDir(t *testing.T) {
	t.Parallel()
	addr, _ := served(t, ServeConfig{})
	c := backendv1grpc.NewBackendClient(rawHost(t, addr, nil))
	_, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelPath: "/etc/passwd"})
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	_, err = c.Load(t.Context(), &backendv1.LoadRequest{Options: map[string]string{"library": "/lib/evil.so"}})
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	resp, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: []byte("m")})
	require.NoError(t, err)
	assert.Equal(t, uint32(0), resp.GetStatus().GetCode())
}

// TestServeSampleBytesBound: a host's loaded samples past the bound are
// refused; unloading makes room again.
func TestServeSampleBytesBound(t *testing.T) {
	t.Parallel()
	addr, _ := served(t, ServeConfig{Limits: ServeLimits{MaxSampleBytes: 1000}})
	c := backendv1grpc.NewBackendClient(rawHost(t, addr, nil))
	load := func(i uint64, n int) error {
		_, err := c.LoadSamples(t.Context(), &backendv1.LoadSamplesRequest{Samples: []*backendv1.SampleRef{{Index: i, Data: make([]byte, n), Length: uint64(n)}}})
		return err
	}
	require.NoError(t, load(1, 600))
	require.NoError(t, load(1, 600), "the same sample again holds no more")
	err := load(2, 600)
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	_, err = c.UnloadSamples(t.Context(), &backendv1.UnloadSamplesRequest{Indices: []uint64{1}})
	require.NoError(t, err)
	require.NoError(t, load(2, 600))
}

// TestRemoteModelPathInModelDir: a remote host sends its model path as
// given: a relative one is a file of the server's model directory, which
// the plugin opens; a path outside it fails the Load.
func TestRemoteModelPathInModelDir(t *testing.T) {
	t.Parallel()
	models := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(models, "model.onnx"), []byte("m"), 0o600))
	addr, _ := served(t, ServeConfig{ModelDir: models})
	for _, tc := range []struct {
		name, path, err string
	}{
		{name: "in the model directory", path: "model.onnx"},
		{name: "outside", path: "/etc/passwd", err: "not a path this server allows"},
	} {
		b, err := OpenRemote(t.Context(), RemoteConfig{Plugin: "fake", Address: addr, InsecureLoopback: true}, Config{})
		require.NoError(t, err, tc.name)
		err = b.Load(t.Context(), Model{Path: tc.path})
		if tc.err == "" {
			require.NoError(t, err, tc.name)
		} else {
			assert.ErrorContains(t, err, tc.err, tc.name)
		}
		require.NoError(t, b.Close())
	}
}

// TestServedPluginStop: a served plugin stopped is gone, and so is its
// socket directory, however it ended.
func TestServedPluginStop(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	sp, err := StartServed(t.Context(), Plugin{Name: "fake", Kind: manifest.KindProcess, Entry: exe}, Config{},
		[]string{fakePluginEnv + "=" + fakeServe}, io.Discard, 30*time.Second)
	require.NoError(t, err)
	require.Equal(t, "unix", sp.Reattach.Network)
	// The process started, not the pid it gives itself (1 in a PID
	// namespace of its own).
	assert.Equal(t, sp.proc.Pid, sp.Reattach.Pid)
	if runtime.GOOS == "linux" && !strings.HasPrefix(sp.Tree.Why, treeRefused) {
		assert.True(t, sp.Tree.Contained, sp.Tree.String())
	}
	dir := filepath.Dir(sp.Reattach.Address)
	require.DirExists(t, dir)
	sp.Stop()
	assert.NoDirExists(t, dir)
	assert.False(t, processAlive(sp.Reattach.Pid), "the plugin is gone")
}

// TestServeOptionAllowlist: a remote host sets only options the plugin
// declares and, with AllowOptions, only those it lists; a refusal names
// every refused option and reaches no plugin.
func TestServeOptionAllowlist(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		allow   []string
		opts    map[string]string
		refused string // "": loaded
	}{
		{name: "declared, no list", opts: map[string]string{"note": "n"}},
		{name: "undeclared, no list", opts: map[string]string{"note": "n", "zz_extra": "1", "aa_extra": "2"}, refused: "aa_extra, zz_extra"},
		{name: "listed", allow: []string{"note"}, opts: map[string]string{"note": "n"}},
		{name: "not listed", allow: []string{"note"}, opts: map[string]string{"note": "n", "library": "x"}, refused: "library"},
		{name: "listed, undeclared", allow: []string{"note", "extra"}, opts: map[string]string{"extra": "1"}, refused: "extra"},
		{name: "none allowed", allow: []string{}, opts: map[string]string{"note": "n"}, refused: "note"},
		{name: "none allowed, none set", allow: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, logs := served(t, ServeConfig{AllowOptions: tc.allow})
			c := backendv1grpc.NewBackendClient(rawHost(t, addr, nil))
			resp, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: []byte("m"), Options: tc.opts})
			if tc.refused == "" {
				require.NoError(t, err)
				assert.Equal(t, abi.OK, abi.Code(resp.GetStatus().GetCode()), resp.GetStatus().GetMessage())
				return
			}
			assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
			assert.Contains(t, status.Convert(err).Message(), "may not set on this server: "+tc.refused+" (")
			assert.Contains(t, logs.String(), "refused options a remote host may not set")
		})
	}
}
