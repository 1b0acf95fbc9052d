package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/mem"

	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// ServeConfig is how [ServeRemote] serves a plugin.
type ServeConfig struct {
	// TLS is the server's side of mutual TLS ([ServerTLS] builds it): its
	// certificate, and the CA whose client certificates it accepts. nil
	// is plaintext, allowed only on a loopback listener with
	// InsecureLoopback.
	TLS              *tls.Config
	InsecureLoopback bool
	// Logger receives one line per refused connection or call; nil
	// discards them.
	Logger *slog.Logger
	// Renew, when not nil, is called each time the host that used the
	// plugin leaves: it starts a fresh plugin for the next run (a run
	// loads its model, which a plugin keeps) and returns where it serves;
	// the host that connects next reaches that one.
	Renew func(context.Context) (ReattachConfig, error)
	// ModelDir is the one directory of this machine whose files a remote
	// host may name: a model path, or an option the plugin's schema
	// declares a path, must resolve inside it (links included). Empty
	// refuses every server path: the host sends the model's bytes.
	ModelDir string
	// AllowOptions, when not nil, are the only options a remote host may
	// set in its Load (each also declared by the plugin; a path option
	// also inside ModelDir); empty and not nil allows none. nil allows
	// every option the plugin's schema declares. An option the plugin
	// does not declare is refused either way.
	AllowOptions []string
	// Limits bound what hosts may hold of the server; zero fields take
	// [DefaultServeLimits]'.
	Limits ServeLimits
}

// ServeLimits bound the connections and the work of remote hosts.
type ServeLimits struct {
	// HandshakeTimeout bounds a connection's TLS handshake and HTTP/2
	// preface: a connection that says nothing is closed after it.
	HandshakeTimeout time.Duration
	// MaxConns bounds the connections open at once, handshakes included;
	// MaxConnsPerAddr those from one IP address. Past either, a new
	// connection is closed at once (and logged).
	MaxConns, MaxConnsPerAddr int
	// KeepaliveInterval is how often serve pings a connected host;
	// KeepaliveTimeout how long it waits for the answer before it drops
	// the host (stopped, frozen, unplugged).
	KeepaliveInterval, KeepaliveTimeout time.Duration
	// IdleTimeout drops a host with no call in progress for that long,
	// releasing the plugin for the next.
	IdleTimeout time.Duration
	// MaxStreams bounds the calls of one connection in progress at once.
	MaxStreams uint32
	// MaxSampleBytes bounds the bytes of the samples a host has loaded
	// into the plugin at once.
	MaxSampleBytes int64
}

// DefaultServeLimits are the limits of a [ServeConfig] that sets none.
var DefaultServeLimits = ServeLimits{
	HandshakeTimeout: 10 * time.Second, MaxConns: 64, MaxConnsPerAddr: 8,
	KeepaliveInterval: 30 * time.Second, KeepaliveTimeout: 20 * time.Second,
	IdleTimeout: 5 * time.Minute, MaxStreams: 16, MaxSampleBytes: 16 << 30,
}

// withDefaults fills the zero fields from [DefaultServeLimits].
func (l ServeLimits) withDefaults() ServeLimits {
	d := DefaultServeLimits
	pick := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	l.HandshakeTimeout = pick(l.HandshakeTimeout, d.HandshakeTimeout)
	l.KeepaliveInterval = pick(l.KeepaliveInterval, d.KeepaliveInterval)
	l.KeepaliveTimeout = pick(l.KeepaliveTimeout, d.KeepaliveTimeout)
	l.IdleTimeout = pick(l.IdleTimeout, d.IdleTimeout)
	if l.MaxConns <= 0 {
		l.MaxConns = d.MaxConns
	}
	if l.MaxConnsPerAddr <= 0 {
		l.MaxConnsPerAddr = d.MaxConnsPerAddr
	}
	if l.MaxStreams == 0 {
		l.MaxStreams = d.MaxStreams
	}
	if l.MaxSampleBytes <= 0 {
		l.MaxSampleBytes = d.MaxSampleBytes
	}
	return l
}

// ServeRemote serves the plugin at target (a plugin in the SDK's serve
// mode, reached through its socket and token) to remote hosts on ln, until
// ctx ends. A client without a certificate signed by the configured CA
// never gets past the TLS handshake. Past it, serve answers one host at a
// time, and only the Backend service's calls, and refuses what would
// reach this machine's files: shared memory, server paths outside
// ModelDir. Its errors to hosts name no server path.
//
// # Errors
//
// A plaintext config on a non-loopback listener, a bad target or model
// directory; what the server returns other than its closing.
func ServeRemote(ctx context.Context, ln net.Listener, target ReattachConfig, cfg ServeConfig) error {
	if err := target.Validate(); err != nil {
		return err
	}
	if cfg.TLS == nil && !plaintextAllowed(cfg.InsecureLoopback, ln.Addr().String()) {
		return fmt.Errorf("serve on %s: %w: serve with a certificate, a key and the CA of the clients (plaintext only on a loopback address, when allowed)", ln.Addr(), ErrInsecure)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	models, err := openModelDir(cfg.ModelDir)
	if err != nil {
		return err
	}
	if models != nil {
		defer models.Close()
	}
	conn, err := dialServed(target)
	if err != nil {
		return err
	}
	creds := insecure.NewCredentials()
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		tc.NextProtos = []string{"h2"}
		creds = loggedCreds{credentials.NewTLS(tc), log}
	}
	lim := cfg.Limits.withDefaults()
	p := &remoteProxy{ctx: ctx, log: log, renew: cfg.Renew, models: models, allow: allowSet(cfg.AllowOptions), maxLoaded: lim.MaxSampleBytes,
		plugin: servedConn{conn: conn, addr: target.Address}}
	defer func() {
		p.mu.Lock()
		_ = p.plugin.conn.Close()
		p.mu.Unlock()
	}()
	srv := grpc.NewServer(grpc.Creds(creds), grpc.UnknownServiceHandler(p.forward), grpc.ForceServerCodecV2(rawCodec{}),
		grpc.StatsHandler(hostsHandler{p}),
		grpc.ConnectionTimeout(lim.HandshakeTimeout),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: lim.IdleTimeout, Time: lim.KeepaliveInterval, Timeout: lim.KeepaliveTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: remoteKeepaliveMin, PermitWithoutStream: true}),
		grpc.MaxConcurrentStreams(lim.MaxStreams),
		// A sample or an answer as large as a plugin takes and sends.
		grpc.MaxRecvMsgSize(DefaultMaxMessageBytes), grpc.MaxSendMsgSize(DefaultMaxMessageBytes))
	stop := context.AfterFunc(ctx, srv.Stop)
	defer stop()
	err = srv.Serve(newLimitListener(ln, lim.MaxConns, lim.MaxConnsPerAddr, log))
	if ctx.Err() != nil || errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// remoteKeepaliveMin is the shortest interval between a host's pings
// that serve accepts; a host pings every [remoteKeepalive].
const (
	remoteKeepaliveMin = 5 * time.Second
	remoteKeepalive    = 30 * time.Second
)

// dialServed connects to a served plugin, with its token on every call.
func dialServed(target ReattachConfig) (*grpc.ClientConn, error) {
	addr := target.Address
	if target.Network == "unix" {
		addr = "unix://" + addr
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), backendv1grpc.TokenCredentials(target.Token),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(DefaultMaxMessageBytes), grpc.MaxCallSendMsgSize(DefaultMaxMessageBytes)))
	if err != nil {
		return nil, fmt.Errorf("serve plugin %q: %w", target.Plugin, err)
	}
	return conn, nil
}

// loggedCreds logs every refused TLS handshake: a client without a
// certificate of the configured CA, with an expired one, or not speaking
// TLS at all.
type loggedCreds struct {
	credentials.TransportCredentials
	log *slog.Logger
}

func (c loggedCreds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	out, info, err := c.TransportCredentials.ServerHandshake(conn)
	if err != nil {
		c.log.Warn("remote plugin: refused a connection", "from", conn.RemoteAddr().String(), "err", err)
	}
	return out, info, err
}

func (c loggedCreds) Clone() credentials.TransportCredentials {
	return loggedCreds{c.TransportCredentials.Clone(), c.log}
}

// rawCodec passes messages as their bytes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("remote plugin: cannot pass a %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(*b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("remote plugin: cannot pass into a %T", v)
	}
	*b = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }
