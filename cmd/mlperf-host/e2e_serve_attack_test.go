//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/testcerts"
)

// servedEcho starts `serve` of a private echo over mutual TLS with extra
// flags and returns it, its address, the CA and the working directory.
func servedEcho(t *testing.T, extra ...string) (srv *bgHost, addr string, ca *testcerts.CA, dir string) {
	t.Helper()
	dir = t.TempDir()
	plugins, _ := privateEcho(t, dir)
	ca = testcerts.NewCA(t, dir, "ca")
	server := ca.Issue(t, dir, "server", time.Now().Add(time.Hour))
	args := append([]string{"serve", "--plugin-dirs", plugins, "--plugin", "echo", "--listen", "127.0.0.1:0",
		"--ca", server.CA, "--cert", server.Cert, "--key", server.Key}, extra...)
	srv = startHost(t, dir, nil, args...)
	srv.waitStderr(t, "serving plugin echo")
	m := regexp.MustCompile(`serving plugin echo \S+ on (127\.0\.0\.1:\d+)`).FindStringSubmatch(srv.errb.String())
	require.Len(t, m, 2, srv.errb.String())
	return srv, m[1], ca, dir
}

// attacker is a host with a certificate of the server's own CA speaking
// gRPC to serve directly: any method, any message.
func attacker(t *testing.T, ca *testcerts.CA, dir, addr string) *grpc.ClientConn {
	t.Helper()
	conf, err := host.ClientTLS(host.TLSFiles(ca.Issue(t, dir, "attacker", time.Now().Add(time.Hour))), "127.0.0.1")
	require.NoError(t, err)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(conf)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// remoteRun is `run --remote` of a short Offline run with a client of ca.
func remoteRun(t *testing.T, ca *testcerts.CA, dir, addr, out string) result {
	t.Helper()
	client := ca.Issue(t, dir, "client", time.Now().Add(time.Hour))
	conf := filepath.Join(dir, "remote.conf")
	require.NoError(t, os.WriteFile(conf, []byte(poolConf), 0o644))
	return mlperfHost(t, dir, "run", "--scenario", "Offline", "--remote", addr, "--out", out, "--user-conf", conf,
		"--set", "remote.ca="+client.CA, "--set", "remote.cert="+client.Cert, "--set", "remote.key="+client.Key)
}

// TestServeAttacks: a host holding a certificate of the server's CA
// cannot have the plugin read a server file as shared memory, open a
// server path as its model, or stop the plugin through go-plugin's
// controller; every refusal names no server path, and a real run then
// passes on the same plugin.
func TestServeAttacks(t *testing.T) {
	t.Parallel()
	srv, addr, ca, dir := servedEcho(t)
	secret := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("private bytes of the server"), 0o600))
	conn := attacker(t, ca, dir, addr)
	c := backendv1grpc.NewBackendClient(conn)

	for _, path := range []string{secret, "/etc/passwd"} {
		_, err := c.LoadSamples(t.Context(), &backendv1.LoadSamplesRequest{Arena: &backendv1.Arena{Path: path, Size: 8},
			Samples: []*backendv1.SampleRef{{Index: 0, Length: 8}}})
		assert.Equal(t, codes.PermissionDenied, status.Code(err), "%s: %v", path, err)
		assert.ErrorContains(t, err, "a remote host cannot use shared memory")
	}
	for _, path := range []string{secret, "/etc/shadow", "../../../../etc/shadow", filepath.Join(dir, "none")} {
		_, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelPath: path})
		assert.Equal(t, codes.PermissionDenied, status.Code(err), "%s: %v", path, err)
		assert.NotContains(t, status.Convert(err).Message(), dir)
	}
	err := conn.Invoke(t.Context(), "/plugin.GRPCController/Shutdown", &emptypb.Empty{}, &emptypb.Empty{})
	assert.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
	assert.NotContains(t, err.Error(), os.TempDir(), "no socket path")
	_, err = c.Ping(t.Context(), &backendv1.PingRequest{Nonce: 1})
	require.NoError(t, err, "the plugin still serves")
	require.NoError(t, conn.Close())
	srv.waitStderr(t, "remote plugin: the host left")

	r := remoteRun(t, ca, dir, addr, "logs")
	assertVerdict(t, r, filepath.Join(dir, "logs"))
	srv.signal(t, os.Interrupt)
	assert.Equal(t, exitcode.OK, srv.wait(t).code)
}

// TestServeBusy: while a host holds the plugin, a run of another host
// fails (exit 7) saying who is served and since when, with a hint that
// works; once the holder's call ends and it is dropped for idling, the
// next run passes.
func TestServeBusy(t *testing.T) {
	t.Parallel()
	srv, addr, ca, dir := servedEcho(t, "--idle-timeout", "2s")
	holder := backendv1grpc.NewBackendClient(attacker(t, ca, dir, addr))
	_, err := holder.Info(t.Context(), &backendv1.InfoRequest{})
	require.NoError(t, err)
	_, err = holder.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: []byte("m")})
	require.NoError(t, err)
	// A call in progress (a session, which needs a model): the holder is
	// not idle while it lasts.
	ctx, endSession := context.WithCancel(t.Context())
	session, err := holder.Session(ctx)
	require.NoError(t, err)
	require.NoError(t, session.Send(&backendv1.HostMessage{Kind: &backendv1.HostMessage_Flush{Flush: &backendv1.Flush{}}}))
	m, err := session.Recv()
	require.NoError(t, err)
	require.NotNil(t, m.GetFlushed(), "the session is open: %v", m)

	r := remoteRun(t, ca, dir, addr, "busy")
	require.Equal(t, exitcode.PluginFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
	assert.Regexp(t, `remote plugin: busy: serving host CN=attacker \(127\.0\.0\.1:\d+\) since `, r.stderr)
	assert.Contains(t, r.stderr, "the log of `mlperf-host serve` on "+addr+" says more")
	assert.NotContains(t, r.stderr, "plugins check remote", "no hint that cannot work")

	endSession()
	srv.waitStderr(t, "remote plugin: the host left") // the holder, idle once its call ended
	r = remoteRun(t, ca, dir, addr, "logs")
	assertVerdict(t, r, filepath.Join(dir, "logs"))
}

// TestServeConfigMistakes: serving a WASM plugin, and plaintext to an
// address that is not loopback, are configuration errors (exit 3), a
// plugin path naming nothing is a plugin not found (exit 5); a
// world-readable key and a listener on every interface are warned of.
func TestServeConfigMistakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := testcerts.NewCA(t, dir, "ca")
	server := ca.Issue(t, dir, "server", time.Now().Add(time.Hour))
	r := mlperfHost(t, dir, "serve", "--plugin", echoPlugin(t), "--listen", "127.0.0.1:0",
		"--ca", server.CA, "--cert", server.Cert, "--key", server.Key)
	assert.Equal(t, exitcode.Config, r.code, tail(r.stderr))
	assert.Contains(t, r.stderr, "only a subprocess plugin is served to other machines")

	// A plugin path that names nothing is a plugin not found (exit 5).
	r = mlperfHost(t, dir, "run", "--plugin", "../../evil")
	assert.Equal(t, exitcode.PluginNotFound, r.code, tail(r.stderr))
	assert.Contains(t, r.stderr, "plugins list")

	r = mlperfHost(t, dir, "run", "--scenario", "Offline", "--remote", "192.0.2.1:7000", "--set", "remote.insecure_loopback=1")
	assert.Equal(t, exitcode.Config, r.code, tail(r.stderr))
	assert.Contains(t, r.stderr, "plaintext refused")

	require.NoError(t, os.Chmod(server.Key, 0o644))
	plugins, _ := privateEcho(t, dir)
	srv := startHost(t, dir, nil, "serve", "--plugin-dirs", plugins, "--plugin", "echo", "--listen", ":0",
		"--ca", server.CA, "--cert", server.Cert, "--key", server.Key)
	srv.waitStderr(t, "serving plugin echo")
	assert.Contains(t, srv.errb.String(), "private key "+server.Key+" is readable by every user (mode 0644)")
	assert.Contains(t, srv.errb.String(), "--listen :0 binds every interface of this machine")
	srv.signal(t, os.Interrupt)
	assert.Equal(t, exitcode.OK, srv.wait(t).code)
}

// TestServeUnreadCompletionsBound: a host that issues and never reads its
// completions makes the plugin hold at most --max-unread-bytes of them
// (the count its log names); its session then fails with that cause,
// which the host reads once it reads.
func TestServeUnreadCompletionsBound(t *testing.T) {
	t.Parallel()
	const limit, sample = 1 << 20, 64 << 10
	srv, addr, ca, dir := servedEcho(t, "--max-unread-bytes", strconv.Itoa(limit))
	c := backendv1grpc.NewBackendClient(attacker(t, ca, dir, addr))
	_, err := c.Info(t.Context(), &backendv1.InfoRequest{})
	require.NoError(t, err)
	_, err = c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: []byte("m")})
	require.NoError(t, err)
	_, err = c.LoadSamples(t.Context(), &backendv1.LoadSamplesRequest{Samples: []*backendv1.SampleRef{{Index: 0, Data: make([]byte, sample), Length: sample}}})
	require.NoError(t, err)
	// A bound on the whole session, so that a plugin that never ends it
	// fails this test, not the package's timeout.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	session, err := c.Session(ctx)
	require.NoError(t, err)
	// 256 MiB of outputs if the plugin held them all; sending stops once
	// the plugin ended the session.
	for id := range uint64(4096) {
		issue := &backendv1.Issue{Samples: abi.AppendIssueRecord(nil, abi.IssueRecord{ID: id + 1, Index: 0, Flags: abi.FlagWantOutput})}
		if session.Send(&backendv1.HostMessage{Kind: &backendv1.HostMessage_Issue{Issue: issue}}) != nil {
			break
		}
	}
	srv.waitStderr(t, "session failed: its host stopped reading")
	m := regexp.MustCompile(`the host left (\d+) bytes of completions unread, more than the (\d+) `).FindStringSubmatch(srv.errb.String())
	require.Len(t, m, 3, srv.errb.String())
	held, _ := strconv.Atoi(m[1])
	assert.Equal(t, strconv.Itoa(limit), m[2])
	assert.LessOrEqual(t, held, limit+sample+abi.CompletionRecordSize, "the plugin held its limit and one completion more")

	var cause error
	for cause == nil {
		msg, err := session.Recv()
		switch {
		case err != nil:
			cause = err
		case msg.GetError() != nil:
			cause = errors.New(msg.GetError().GetStatus().GetMessage())
		}
	}
	assert.ErrorContains(t, cause, "stopped reading its session")
}
