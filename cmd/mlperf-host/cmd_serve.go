package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// serveStartTimeout bounds how long a served plugin may take to say where
// it serves.
const serveStartTimeout = 30 * time.Second

func (a *app) cmdServe(ctx context.Context, args []string) error {
	fs := a.newFlagSet("serve", "--plugin NAME --listen ADDR --ca FILE --cert FILE --key FILE",
		"Serve a subprocess plugin of this machine to `mlperf-host run --remote` on other machines, over\n"+
			"mutual TLS: only hosts with a certificate signed by --ca get through. Each run gets a fresh\n"+
			"plugin process. Runs until interrupted.")
	var cf configFlags
	cf.register(fs)
	listen := fs.String("listen", "", "`HOST:PORT` to listen on")
	ca := fs.String("ca", "", "PEM `FILE` of the CA whose client certificates are accepted")
	cert := fs.String("cert", "", "PEM `FILE` of this server's certificate")
	key := fs.String("key", "", "PEM `FILE` of this server's private key")
	insecure := fs.Bool("insecure-loopback", false, "serve plaintext on a loopback address (tests only)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *listen == "" {
		return exitcode.New(exitcode.Usage, errors.New("serve: want --listen HOST:PORT and no arguments"), "mlperf-host serve --plugin NAME --listen :7000 --ca ca.pem --cert server.pem --key server.key")
	}
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	tc := &host.ServeConfig{InsecureLoopback: *insecure,
		Logger: slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	if !*insecure || *ca != "" || *cert != "" || *key != "" {
		if tc.TLS, err = host.ServerTLS(host.TLSFiles{CA: *ca, Cert: *cert, Key: *key}); err != nil {
			return exitcode.New(exitcode.Config, fmt.Errorf("serve: %w", err), "pass --ca, --cert and --key: docs/remote.md")
		}
	}
	pl, err := a.plugins().Resolve(c)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Errorf("serve: %w", err), "pass another --listen address")
	}
	defer ln.Close()
	sp, err := host.StartServed(ctx, pl, nil, a.stderr, serveStartTimeout)
	if err != nil {
		return err
	}
	// Each run gets a fresh plugin: a run loads its model, which the
	// plugin keeps. The first waits started; the next starts as a run ends.
	var mu sync.Mutex
	defer func() {
		mu.Lock()
		sp.Stop()
		mu.Unlock()
	}()
	tc.Renew = func(ctx context.Context) (host.ReattachConfig, error) {
		mu.Lock()
		defer mu.Unlock()
		sp.Stop()
		next, err := host.StartServed(ctx, pl, nil, a.stderr, serveStartTimeout)
		if err != nil {
			return host.ReattachConfig{}, err
		}
		sp = next
		fmt.Fprintf(a.stderr, "mlperf-host: the host disconnected; a fresh plugin %s serves the next run\n", pl.Name)
		return sp.Reattach, nil
	}
	fmt.Fprintf(a.stderr, "mlperf-host: serving plugin %s %s on %s\n", pl.Name, pl.Version, ln.Addr())
	if err := host.ServeRemote(ctx, ln, sp.Reattach, *tc); err != nil {
		return exitcode.New(exitcode.Config, fmt.Errorf("serve: %w", err), "")
	}
	return nil
}
