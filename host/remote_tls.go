package host

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"runtime"
)

// TLSFiles names the PEM files of one side of mutual TLS.
type TLSFiles struct {
	// CA is the certificate of the CA that signed the other side's
	// certificate.
	CA string
	// Cert and Key are this side's certificate (chain) and private key.
	Cert, Key string
}

// ServerTLS is a remote plugin server's TLS: TLS 1.3, its certificate,
// and a client certificate signed by f.CA required of every client.
//
// # Errors
//
// A file missing, unreadable or not PEM of the right kind, naming it.
func ServerTLS(f TLSFiles) (*tls.Config, error) {
	cert, pool, err := f.load()
	if err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}, nil
}

// ClientTLS is a remote plugin client's TLS: TLS 1.3, its certificate,
// and a server certificate signed by f.CA for serverName (a host name or
// an IP address).
//
// # Errors
//
// As [ServerTLS]; an empty serverName.
func ClientTLS(f TLSFiles, serverName string) (*tls.Config, error) {
	if serverName == "" {
		return nil, errors.New("remote TLS: no server name to check the server's certificate against")
	}
	cert, pool, err := f.load()
	if err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: serverName}, nil
}

// load reads the certificate, its key and the CA.
func (f TLSFiles) load() (tls.Certificate, *x509.CertPool, error) {
	var errs []error
	for _, x := range []struct{ what, path string }{{"CA", f.CA}, {"certificate", f.Cert}, {"key", f.Key}} {
		if x.path == "" {
			errs = append(errs, fmt.Errorf("remote TLS: no %s file", x.what))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return tls.Certificate{}, nil, err
	}
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("remote TLS: certificate %s, key %s: %w", f.Cert, f.Key, err)
	}
	ca, err := os.ReadFile(f.CA)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("remote TLS: CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return tls.Certificate{}, nil, fmt.Errorf("remote TLS: CA %s holds no PEM certificate", f.CA)
	}
	return cert, pool, nil
}

// Warnings says what is unsafe about the files: a private key other users
// can read.
func (f TLSFiles) Warnings() []string {
	st, err := os.Stat(f.Key)
	if runtime.GOOS == "windows" || err != nil || st.Mode().Perm()&0o004 == 0 { // Windows has no such mode bits
		return nil
	}
	return []string{fmt.Sprintf("private key %s is readable by every user (mode %04o): anyone on this machine could pose as it; chmod 600 it",
		f.Key, st.Mode().Perm())}
}
