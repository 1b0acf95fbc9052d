package host

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// remoteProxy passes the calls of one remote host at a time to the
// plugin.
type remoteProxy struct {
	ctx    context.Context
	log    *slog.Logger
	renew  func(context.Context) (ReattachConfig, error)
	models *os.Root // ModelDir; nil: no server path is allowed
	// allow are the options a host may set (AllowOptions); nil: every
	// option the plugin declares.
	allow map[string]bool
	// maxLoaded bounds the sample bytes one host loads.
	maxLoaded int64
	ids       atomic.Uint64

	mu     sync.Mutex // held while the plugin is replaced
	plugin servedConn
	owner  *remoteHost   // the host the plugin serves; nil: free
	since  time.Time     // when owner made its first call
	freed  chan struct{} // closed when owner leaves
	loaded loadedBytes   // the owner's samples
}

// servedConn is the connection to the served plugin and the address it
// is reached at, which no error to a host may carry.
type servedConn struct {
	conn *grpc.ClientConn
	addr string
}

// remoteHost is one connection of a remote host past the handshake.
type remoteHost struct {
	id   uint64
	name string // its certificate's subject, or "a plaintext host"
	addr string
}

func (h *remoteHost) String() string { return h.name + " (" + h.addr + ")" }

type remoteHostKey struct{}

// hostOf is the connection a call came on.
func hostOf(ctx context.Context) *remoteHost {
	h, _ := ctx.Value(remoteHostKey{}).(*remoteHost)
	return h
}

// claimWait is how long a host's call waits for the plugin's holder to
// leave before it is refused: a run that starts as the previous one
// closes reaches serve before the closed connection's end does.
const claimWait = 3 * time.Second

// claim makes h the plugin's host if none is, and refuses h when another
// still is after claimWait: a run of one host is never disturbed by
// another's calls.
func (p *remoteProxy) claim(ctx context.Context, h *remoteHost) (servedConn, error) {
	if h == nil {
		return servedConn{}, status.Error(codes.Internal, "remote plugin: a call from no connection")
	}
	timer := time.NewTimer(claimWait)
	defer timer.Stop()
	for {
		p.mu.Lock()
		switch p.owner {
		case nil:
			p.owner, p.since, p.freed = h, time.Now(), make(chan struct{})
			p.log.Info("remote plugin: serving a host", "host", h.String())
			fallthrough
		case h:
			plugin := p.plugin
			p.mu.Unlock()
			return plugin, nil
		}
		owner, since, freed := p.owner, p.since, p.freed
		p.mu.Unlock()
		select {
		case <-freed:
			continue
		case <-ctx.Done():
			return servedConn{}, status.FromContextError(ctx.Err()).Err()
		case <-timer.C:
		}
		p.log.Warn("remote plugin: refused a call: busy", "host", h.String(), "serving", owner.String())
		return servedConn{}, status.Errorf(codes.ResourceExhausted, "remote plugin: busy: serving %s since %s; try again when its run ends",
			owner, since.UTC().Format(time.RFC3339))
	}
}

// release frees the plugin when its host leaves, and renews it: the
// next host gets a plugin with no model loaded and no samples.
func (p *remoteProxy) release(h *remoteHost) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h == nil || p.owner != h {
		return
	}
	p.owner = nil
	defer close(p.freed) // once the fresh plugin is in place
	p.loaded = loadedBytes{}
	p.log.Info("remote plugin: the host left", "host", h.String())
	if p.renew == nil || p.ctx.Err() != nil {
		return
	}
	// Calls of the next host wait for the fresh plugin.
	target, err := p.renew(p.ctx)
	if err == nil {
		var conn *grpc.ClientConn
		if conn, err = dialServed(target); err == nil {
			_ = p.plugin.conn.Close()
			p.plugin = servedConn{conn: conn, addr: target.Address}
			return
		}
	}
	p.log.Error("remote plugin: cannot renew the plugin; the next host reaches the old one", "err", err)
}

// hostsHandler tags each connection with its host and frees the plugin
// when the connection of its host ends.
type hostsHandler struct{ p *remoteProxy }

func (hostsHandler) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (hostsHandler) HandleRPC(context.Context, stats.RPCStats)                       {}

func (h hostsHandler) TagConn(ctx context.Context, info *stats.ConnTagInfo) context.Context {
	rh := &remoteHost{id: h.p.ids.Add(1), name: "a plaintext host", addr: fmt.Sprint(info.RemoteAddr)}
	if pr, ok := peer.FromContext(ctx); ok {
		if ti, ok := pr.AuthInfo.(credentials.TLSInfo); ok && len(ti.State.PeerCertificates) > 0 {
			rh.name = "host " + ti.State.PeerCertificates[0].Subject.String()
		}
	}
	return context.WithValue(ctx, remoteHostKey{}, rh)
}

func (h hostsHandler) HandleConn(ctx context.Context, st stats.ConnStats) {
	if _, ok := st.(*stats.ConnEnd); ok {
		h.p.release(hostOf(ctx))
	}
}
