package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/mlperf-host/mlperf-host/abi"
)

// RemoteConfig says where a plugin served by [ServeRemote] on another
// machine listens, and how to authenticate to it.
type RemoteConfig struct {
	// Plugin names the plugin in logs and errors.
	Plugin string
	// Address is the server's host:port.
	Address string
	// TLS is this client's side of mutual TLS: its certificate, the CA
	// that signed the server's, and the name the server's certificate
	// must carry ([ClientTLS] builds it). nil is plaintext, allowed only
	// to a loopback address with InsecureLoopback.
	TLS *tls.Config
	// InsecureLoopback allows plaintext to a loopback address (tests).
	InsecureLoopback bool
	// NetworkDivision sends each query's sample bytes with the query, in
	// the timed path, as the MLPerf Network division requires: LoadSamples
	// keeps the samples on this side and sends nothing.
	NetworkDivision bool
	// DialTimeout bounds each attempt to connect: the TCP connection and
	// the TLS handshake; 0 is DefaultDialTimeout. A server that does not
	// answer in time fails OpenRemote instead of holding it until the
	// first call's timeout.
	DialTimeout time.Duration
}

// DefaultDialTimeout is a remote plugin's dial timeout when none is set.
const DefaultDialTimeout = 10 * time.Second

// ErrInsecure is a remote plugin refused for want of TLS.
var ErrInsecure = errors.New("plaintext refused")

// Validate reports every missing or bad field.
func (c RemoteConfig) Validate() error {
	var errs []error
	if c.Plugin == "" {
		errs = append(errs, errors.New("remote plugin: no name"))
	}
	if _, _, err := net.SplitHostPort(c.Address); err != nil {
		errs = append(errs, fmt.Errorf("remote plugin: address %q: want HOST:PORT: %w", c.Address, err))
	} else if c.TLS == nil && !plaintextAllowed(c.InsecureLoopback, c.Address) {
		errs = append(errs, fmt.Errorf("remote plugin: address %s: %w: a remote plugin is reached over mutual TLS (plaintext only to a loopback address, when allowed)", c.Address, ErrInsecure))
	}
	return errors.Join(errs...)
}

// plaintextAllowed reports whether plaintext is allowed to or on address:
// asked for, and a loopback address.
func plaintextAllowed(asked bool, address string) bool { return asked && loopback(address) }

// OpenRemote connects to a plugin served by [ServeRemote]: the subprocess
// transport over TCP and mutual TLS, without the shared memory a local
// plugin maps (samples and completions travel in gRPC messages). Close
// ends the session and leaves the plugin served.
//
// # Errors
//
// A bad config; a refused or failed TLS handshake (wrong CA, expired or
// missing certificate), an unreachable server: a [*PluginError] wrapping
// [ErrStart] that says why.
func OpenRemote(ctx context.Context, rc RemoteConfig, cfg Config) (Backend, error) {
	if err := rc.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	addr, err := net.ResolveTCPAddr("tcp", rc.Address)
	if err != nil {
		return nil, fmt.Errorf("remote plugin %q: %w", rc.Plugin, err)
	}
	cfg.DisableSharedArena, cfg.DisableSharedRing = true, true
	op := "remote " + rc.Address
	dialTimeout := rc.DialTimeout
	if dialTimeout <= 0 {
		dialTimeout = DefaultDialTimeout
	}
	dialer := &net.Dialer{Timeout: dialTimeout}
	b, err := attach(ctx, ReattachConfig{Plugin: rc.Plugin, ABIMajor: abi.Major, Network: "tcp", Address: rc.Address}, addr, cfg, rc.TLS, op, TransportRemote,
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "tcp", addr.String())
		}),
		// Bounds the TLS handshake too: a server that never answers
		// fails the first call once it passed.
		grpc.WithConnectParams(grpc.ConnectParams{MinConnectTimeout: dialTimeout, Backoff: backoff.DefaultConfig}),
		// A server gone silent (frozen, unplugged) ends the run.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: remoteKeepalive, Timeout: DefaultServeLimits.KeepaliveTimeout, PermitWithoutStream: true}))
	if err != nil && !errors.Is(err, ErrStart) && status.Code(err) == codes.Unavailable {
		// The first call found no connection: refused, or the TLS
		// handshake failed (the server's or this side's verdict).
		how := "over mutual TLS"
		if rc.TLS == nil {
			how = "in plaintext"
		}
		msg := err.Error()
		var se interface{ GRPCStatus() *status.Status }
		if errors.As(err, &se) {
			msg = se.GRPCStatus().Message()
		}
		return nil, &PluginError{Plugin: rc.Plugin, Op: op, Err: fmt.Errorf("%w: cannot connect %s (dial timeout %v; a server that refused this host says why in its log): %s",
			ErrStart, how, dialTimeout, msg)}
	}
	if pb, ok := b.(*processBackend); ok && rc.NetworkDivision {
		pb.network = newNetworkSamples()
	}
	return b, err
}
