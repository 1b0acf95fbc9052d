package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"

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
	// Logger receives one line per refused or ended connection; nil
	// discards them.
	Logger *slog.Logger
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
	network := target.Network
	if network == "unix" {
		network = "unix://"
	} else {
		network = ""
	}
	conn, err := grpc.NewClient(network+target.Address, grpc.WithTransportCredentials(insecure.NewCredentials()),
		backendv1grpc.TokenCredentials(target.Token))
	if err != nil {
		return fmt.Errorf("serve plugin %q: %w", target.Plugin, err)
	}
	defer conn.Close()
	creds := insecure.NewCredentials()
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		tc.NextProtos = []string{"h2"}
		creds = loggedCreds{credentials.NewTLS(tc), log}
	}
	p := &remoteProxy{conn: conn, log: log}
	srv := grpc.NewServer(grpc.Creds(creds), grpc.UnknownServiceHandler(p.forward), grpc.ForceServerCodecV2(rawCodec{}))
	stop := context.AfterFunc(ctx, srv.Stop)
	defer stop()
	err = srv.Serve(ln)
	if ctx.Err() != nil || errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// remoteProxy passes every call of a remote host to the plugin.
type remoteProxy struct {
	conn *grpc.ClientConn
	log  *slog.Logger
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
	cs, err := p.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return err
	}
	go func() { // the remote host's messages to the plugin, until the call ends
		for {
			var b []byte
			if err := ss.RecvMsg(&b); err != nil {
				if errors.Is(err, io.EOF) {
					_ = cs.CloseSend() // always nil
				}
				return
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
