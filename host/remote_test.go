//go:build unix

package host

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCA is a certificate authority made by a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	path string // its certificate, PEM
}

func newTestCA(t *testing.T, dir, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	path := filepath.Join(dir, name+".pem")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	return &testCA{cert: cert, key: key, path: path}
}

// issue writes a certificate for 127.0.0.1 signed by ca, valid until
// notAfter, and its key; it returns the files with ca as their CA.
func (ca *testCA) issue(t *testing.T, dir, name string, notAfter time.Time) TLSFiles {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: notAfter.Add(-2 * time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	kb, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	f := TLSFiles{CA: ca.path, Cert: filepath.Join(dir, name+".pem"), Key: filepath.Join(dir, name+".key")}
	require.NoError(t, os.WriteFile(f.Cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(f.Key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600))
	return f
}

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
	rc, _ := startServe(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	logs := &syncBuffer{}
	cfg := ServeConfig{InsecureLoopback: files == nil, Logger: slog.New(slog.NewTextHandler(logs, nil))}
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
	ca, other := newTestCA(t, dir, "ca"), newTestCA(t, dir, "other-ca")
	valid := time.Now().Add(time.Hour)
	server := ca.issue(t, dir, "server", valid)
	addr, logs := serveRemote(t, &server)

	client := func(f TLSFiles) RemoteConfig {
		conf, err := ClientTLS(f, "127.0.0.1")
		require.NoError(t, err)
		return RemoteConfig{Plugin: "fake", Address: addr, TLS: conf}
	}
	good := ca.issue(t, dir, "client", valid)

	b, err := OpenRemote(t.Context(), client(good), Config{})
	require.NoError(t, err)
	assert.Equal(t, TransportProcess, b.Info().Transport)
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Issue(t.Context(), records(1, 7, 3)))
	rec.wait(t, 3)
	require.NoError(t, b.Close())

	noCert := client(good)
	noCert.TLS.Certificates = nil
	untrusting := client(good)
	untrusting.TLS.RootCAs = nil // the system's: not the test CA
	stranger := other.issue(t, dir, "stranger", valid)
	stranger.CA = ca.path // it trusts the server; the server does not trust it
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
		{"expired client certificate", client(ca.issue(t, dir, "expired", time.Now().Add(-time.Minute))), "cannot connect over mutual TLS",
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
