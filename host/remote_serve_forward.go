package host

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// forward passes one call of the plugin's host, unary or streaming, both
// ways: messages as bytes (each checked by its method's filter), headers
// and trailers as they come, the plugin's status back. A call outside the
// Backend service, or of another host while one is served, never reaches
// the plugin.
func (p *remoteProxy) forward(_ any, ss grpc.ServerStream) error {
	h := hostOf(ss.Context())
	method, _ := grpc.MethodFromServerStream(ss)
	f, ok := backendFilters[method]
	if !ok {
		level := slog.LevelWarn
		if goPluginClientCalls[method] {
			level = slog.LevelDebug
		}
		p.log.Log(ss.Context(), level, "remote plugin: refused a call outside the Backend service", "host", h.String(), "method", method)
		return status.Error(codes.Unimplemented, "remote plugin: serve answers the mlperf.backend.v1.Backend service only")
	}
	plugin, err := p.claim(ss.Context(), h)
	if err != nil {
		return err
	}
	md, _ := metadata.FromIncomingContext(ss.Context())
	md = md.Copy()
	md.Delete(backendv1grpc.TokenMetadataKey) // the plugin's own token goes with the call
	ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(ss.Context(), md))
	defer cancel()
	cs, err := plugin.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return p.hostError(plugin, method, err)
	}
	// failed says why the messages to the plugin stopped, when serve
	// stopped them.
	failed := make(chan error, 1)
	// The remote host's messages to the plugin, until the call ends: its
	// RecvMsg returns once this handler has.
	go func() {
		for {
			var b []byte
			if err := ss.RecvMsg(&b); err != nil {
				if errors.Is(err, io.EOF) {
					_ = cs.CloseSend() // always nil
				}
				return
			}
			b, err := f.up(ctx, p, plugin, b)
			if err != nil {
				p.log.Warn("remote plugin: refused a host's message", "host", h.String(), "method", method, "err", err)
				failed <- err
				cancel()
				return
			}
			if cs.SendMsg(&b) != nil {
				return // the plugin's side ended: its status reaches the host below
			}
		}
	}()
	if md, err := cs.Header(); err == nil {
		if err := ss.SendHeader(md); err != nil {
			return err
		}
	}
	for {
		var b []byte
		if err := cs.RecvMsg(&b); err != nil {
			select {
			case err := <-failed:
				return err
			default:
			}
			ss.SetTrailer(cs.Trailer())
			if errors.Is(err, io.EOF) {
				return nil
			}
			return p.hostError(plugin, method, err)
		}
		if f.down != nil {
			if b, err = f.down(p, b); err != nil {
				return status.Errorf(codes.Internal, "remote plugin: %v", err)
			}
		}
		if err := ss.SendMsg(&b); err != nil {
			return err // the deferred cancel ends the plugin's side; the remote host's ends with this call
		}
	}
}

// goPluginClientCalls are the calls a host's go-plugin client makes as it
// attaches, which serve refuses as every call outside the Backend service
// but does not warn of.
var goPluginClientCalls = map[string]bool{"/plugin.GRPCBroker/StartStream": true, "/plugin.GRPCStdio/StreamStdio": true}

// hostError is the error of a call to the plugin as its host gets it:
// the plugin's own status as it is, serve's connection to the plugin
// failing as a plain sentence (the full error goes to serve's log; the
// host learns nothing of serve's socket).
func (p *remoteProxy) hostError(plugin servedConn, method string, err error) error {
	st := status.Convert(err)
	if st.Code() == codes.Canceled {
		return err
	}
	if st.Code() == codes.Unavailable || (plugin.addr != "" && strings.Contains(st.Message(), plugin.addr)) {
		p.log.Error("remote plugin: the served plugin failed a call", "method", method, "err", err)
		return status.Error(codes.Unavailable, "remote plugin: the served plugin is not answering (serve's log says why)")
	}
	return err
}
