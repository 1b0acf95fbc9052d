package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

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
	// Logger receives one line per refused connection; nil discards them.
	Logger *slog.Logger
	// Renew, when not nil, is called each time the last host connected
	// leaves: it starts a fresh plugin for the next run (a run loads its
	// model, which a plugin keeps) and returns where it serves; the host
	// that connects next reaches that one.
	Renew func(context.Context) (ReattachConfig, error)
}

// ServeRemote serves the plugin at target (a plugin in the SDK's serve
// mode, reached through its socket and token) to remote hosts on ln, until
// ctx ends. Every call of an authenticated client goes to the plugin with
// the plugin's token; a client without a certificate signed by the
// configured CA never gets past the TLS handshake, so the plugin never
// runs a query of its.
//
// # Errors
//
// A plaintext config on a non-loopback listener, a bad target; what the
// server returns other than its closing.
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
	p := &remoteProxy{ctx: ctx, conn: conn, log: log, renew: cfg.Renew}
	defer func() {
		p.mu.Lock()
		_ = p.conn.Close()
		p.mu.Unlock()
	}()
	srv := grpc.NewServer(grpc.Creds(creds), grpc.UnknownServiceHandler(p.forward), grpc.ForceServerCodecV2(rawCodec{}),
		grpc.StatsHandler(hostsHandler{p}),
		// A sample or an answer as large as a plugin takes and sends.
		grpc.MaxRecvMsgSize(DefaultMaxMessageBytes), grpc.MaxSendMsgSize(DefaultMaxMessageBytes))
	stop := context.AfterFunc(ctx, srv.Stop)
	defer stop()
	err = srv.Serve(ln)
	if ctx.Err() != nil || errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

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

// remoteProxy passes every call of a remote host to the plugin.
type remoteProxy struct {
	ctx   context.Context
	log   *slog.Logger
	renew func(context.Context) (ReattachConfig, error)

	mu     sync.RWMutex // held for writing while the plugin is replaced
	conn   *grpc.ClientConn
	active int // hosts connected past the handshake
}

// hostsHandler counts the hosts connected past the handshake and renews
// the plugin when the last one leaves.
type hostsHandler struct{ p *remoteProxy }

func (hostsHandler) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context   { return ctx }
func (hostsHandler) HandleRPC(context.Context, stats.RPCStats)                         {}
func (hostsHandler) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (h hostsHandler) HandleConn(_ context.Context, st stats.ConnStats) {
	p := h.p
	switch st.(type) {
	case *stats.ConnBegin:
		p.mu.Lock()
		p.active++
		p.mu.Unlock()
	case *stats.ConnEnd:
		p.mu.Lock()
		defer p.mu.Unlock()
		p.active--
		if p.active > 0 || p.renew == nil || p.ctx.Err() != nil {
			return
		}
		// Calls of the next host wait for the fresh plugin.
		target, err := p.renew(p.ctx)
		if err == nil {
			var conn *grpc.ClientConn
			if conn, err = dialServed(target); err == nil {
				_ = p.conn.Close()
				p.conn = conn
				return
			}
		}
		p.log.Error("remote plugin: cannot renew the plugin; the next host reaches the old one", "err", err)
	}
}

// forward passes one call, unary or streaming, both ways: messages as
// bytes, headers and trailers as they come, the plugin's status back.
func (p *remoteProxy) forward(_ any, ss grpc.ServerStream) error {
	method, ok := grpc.MethodFromServerStream(ss)
	if !ok {
		return errors.New("remote plugin: a call without a method")
	}
	md, _ := metadata.FromIncomingContext(ss.Context())
	md = md.Copy()
	md.Delete(backendv1grpc.TokenMetadataKey) // the plugin's own token goes with the call
	ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(ss.Context(), md))
	defer cancel()
	p.mu.RLock()
	conn := p.conn
	p.mu.RUnlock()
	cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return err
	}
	session := method == backendv1grpc.Backend_Session_FullMethodName
	// failed says why the messages to the plugin stopped, when serve
	// stopped them.
	failed := make(chan error, 1)
	go func() { // the remote host's messages to the plugin, until the call ends
		for {
			var b []byte
			if err := ss.RecvMsg(&b); err != nil {
				if errors.Is(err, io.EOF) {
					_ = cs.CloseSend() // always nil
				}
				return
			}
			if session && carriesSamples(b) {
				// The Network division: the query's samples first.
				var err error
				if b, err = loadCarried(ctx, conn, b); err != nil {
					p.log.Error("remote plugin: a query's samples", "err", err)
					failed <- err
					cancel()
					return
				}
			}
			if cs.SendMsg(&b) != nil {
				return // the plugin's side ended: its status reaches the host below
			}
		}
	}()
	if h, err := cs.Header(); err == nil {
		if err := ss.SendHeader(h); err != nil {
			return err
		}
	}
	for {
		var b []byte
		if err := cs.RecvMsg(&b); err != nil {
			select {
			case err := <-failed:
				return status.Error(codes.FailedPrecondition, err.Error())
			default:
			}
			ss.SetTrailer(cs.Trailer())
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := ss.SendMsg(&b); err != nil {
			return err // the deferred cancel ends the plugin's side; the remote host's ends with this call
		}
	}
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
