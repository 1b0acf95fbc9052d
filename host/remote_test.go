//go:build unix

package host

import (
	"bytes"
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/testcerts"
)

// serveRemote serves the fake plugin in serve mode on a loopback port
// with the server files (nil: plaintext) and returns the address and the
// server's log.
func serveRemote(t *testing.T, files *TLSFiles) (string, *syncBuffer) {
	t.Helper()
	addr, logs, _ := serveRemoteStoppable(t, files)
	return addr, logs
}

// serveRemoteStoppable is serveRemote with a function that stops the
// server, closing its connections.
func serveRemoteStoppable(t *testing.T, files *TLSFiles) (string, *syncBuffer, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveRemoteOn(t, ln, files)
}

// serveRemoteOn is serveRemoteStoppable on a listener of the caller's.
func serveRemoteOn(t *testing.T, ln net.Listener, files *TLSFiles) (string, *syncBuffer, func()) {
	t.Helper()
	return serveRemoteWith(t, ln, files, ServeConfig{})
}

// serveRemoteWith is serveRemoteOn with the model directory and limits
// of cfg.
func serveRemoteWith(t *testing.T, ln net.Listener, files *TLSFiles, cfg ServeConfig) (string, *syncBuffer, func()) {
	t.Helper()
	rc, _ := startServe(t)
	return serveRemoteTarget(t, ln, files, rc, cfg)
}

// serveRemoteTarget is serveRemoteWith of a plugin the caller started.
func serveRemoteTarget(t *testing.T, ln net.Listener, files *TLSFiles, rc ReattachConfig, cfg ServeConfig) (string, *syncBuffer, func()) {
	t.Helper()
	var err error
	logs := &syncBuffer{}
	cfg.InsecureLoopback, cfg.Logger = files == nil, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if files != nil {
		cfg.TLS, err = ServerTLS(*files)
		require.NoError(t, err)
	}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ServeRemote(ctx, ln, rc, cfg) }()
	t.Cleanup(func() {
		stop()
		assert.NoError(t, <-done)
	})
	return ln.Addr().String(), logs, stop
}

// syncBuffer is a buffer for a logger of several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRemote: a plugin served over mutual TLS runs queries for a host
// whose certificate the server's CA signed, and refuses, with a clear
// error and before any call reaches the plugin, a host with a certificate
// of another CA, an expired one, none, or no TLS at all; a server
// certificate of a CA the host does not trust is refused by the host.
func TestRemote(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca, other := testcerts.NewCA(t, dir, "ca"), testcerts.NewCA(t, dir, "other-ca")
	valid := time.Now().Add(time.Hour)
	server := tlsFiles(ca.Issue(t, dir, "server", valid))
	addr, logs := serveRemote(t, &server)

	client := func(f TLSFiles) RemoteConfig {
		conf, err := ClientTLS(f, "127.0.0.1")
		require.NoError(t, err)
		return RemoteConfig{Plugin: "fake", Address: addr, TLS: conf}
	}
	good := tlsFiles(ca.Issue(t, dir, "client", valid))

	b, err := OpenRemote(t.Context(), client(good), Config{})
	require.NoError(t, err)
	assert.Equal(t, TransportRemote, b.Info().Transport)
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Issue(t.Context(), records(1, 7, 3)))
	rec.wait(t, 3)
	require.NoError(t, b.Close())

	noCert := client(good)
	noCert.TLS.Certificates = nil
	untrusting := client(good)
	untrusting.TLS.RootCAs = nil // the system's: not the test CA
	stranger := tlsFiles(other.Issue(t, dir, "stranger", valid))
	stranger.CA = ca.Path // it trusts the server; the server does not trust it
	foreign := client(stranger)
	// Go's client offers no certificate of a CA the server did not name;
	// another client may.
	foreign.TLS.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		return &foreign.TLS.Certificates[0], nil
	}
	// Each refusal: the host's error says it could not connect (over TLS
	// 1.3 it may learn why only from the server, whose log says it).
	for _, tc := range []struct {
		name      string
		rc        RemoteConfig
		hostSays  string
		serverLog string
	}{
		{"client certificate of another CA", foreign, "cannot connect over mutual TLS",
			"certificate signed by unknown authority"},
		{"expired client certificate", client(tlsFiles(ca.Issue(t, dir, "expired", time.Now().Add(-time.Minute)))), "cannot connect over mutual TLS",
			"certificate has expired or is not yet valid"},
		{"no client certificate", noCert, "cannot connect over mutual TLS", "client didn't provide a certificate"},
		{"plaintext client", RemoteConfig{Plugin: "fake", Address: addr, InsecureLoopback: true}, "cannot connect in plaintext",
			"first record does not look like a TLS handshake"},
		// The host's own verdict on the server.
		{"server certificate of an untrusted CA", untrusting, "x509: certificate signed by unknown authority", ""},
	} {
		_, err := OpenRemote(t.Context(), tc.rc, Config{})
		require.ErrorIs(t, err, ErrStart, tc.name)
		assert.ErrorContains(t, err, `plugin "fake": remote `+addr+": failed to start: ", tc.name)
		assert.ErrorContains(t, err, tc.hostSays, tc.name)
		if tc.serverLog != "" {
			assert.Eventually(t, func() bool { return strings.Contains(logs.String(), tc.serverLog) }, 5*time.Second, 10*time.Millisecond,
				"%s: the server's log says why: %s", tc.name, logs)
		}
	}
}

// TestRemotePlaintextRefused: plaintext only to and on a loopback
// address, and only when asked for.
func TestRemotePlaintextRefused(t *testing.T) {
	t.Parallel()
	for _, rc := range []RemoteConfig{
		{Plugin: "fake", Address: "10.0.0.2:7000", InsecureLoopback: true},
		{Plugin: "fake", Address: "127.0.0.1:7000"},
	} {
		_, err := OpenRemote(t.Context(), rc, Config{})
		require.ErrorIs(t, err, ErrInsecure, rc.Address)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	rc, _ := startServe(t)
	require.ErrorIs(t, ServeRemote(t.Context(), ln, rc, ServeConfig{}), ErrInsecure)

	// Nothing listening: refused at once, a clear error.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gone := closed.Addr().String()
	require.NoError(t, closed.Close())
	_, err = OpenRemote(t.Context(), RemoteConfig{Plugin: "fake", Address: gone, InsecureLoopback: true}, Config{})
	require.ErrorIs(t, err, ErrStart)
	assert.ErrorContains(t, err, "cannot connect in plaintext")
	assert.ErrorContains(t, err, "connection refused")

	addr, _ := serveRemote(t, nil)
	b, err := OpenRemote(t.Context(), RemoteConfig{Plugin: "fake", Address: addr, InsecureLoopback: true}, Config{})
	require.NoError(t, err, "plaintext on loopback when asked for")
	require.NoError(t, b.Close())
}

// TestRemoteConnectionLost: a server gone in the middle of a run ends the
// backend with an error naming the plugin; nothing waits forever.
func TestRemoteConnectionLost(t *testing.T) {
	t.Parallel()
	addr, _, stop := serveRemoteStoppable(t, nil)
	b, err := OpenRemote(t.Context(), RemoteConfig{Plugin: "fake", Address: addr, InsecureLoopback: true}, Config{})
	require.NoError(t, err)
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Issue(t.Context(), records(1, 7, 3)))
	rec.wait(t, 3)
	stop()
	select {
	case <-b.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the backend did not notice the lost connection")
	}
	var pe *PluginError
	require.ErrorAs(t, b.Err(), &pe)
	assert.Equal(t, "fake", pe.Plugin)
	assert.Error(t, b.Issue(t.Context(), records(10, 7, 1)))
	_ = b.Close()
}

func tlsFiles(f testcerts.Files) TLSFiles { return TLSFiles{CA: f.CA, Cert: f.Cert, Key: f.Key} }
