package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// defaultServeMaxUnread is the completion bytes a served plugin holds for
// a host that does not read them: far more than the flow-control windows
// of a host that reads, far less than the machine.
const defaultServeMaxUnread = 256 << 20

// serveStartTimeout bounds how long a served plugin may take to say where
// it serves.
const serveStartTimeout = 30 * time.Second

func (a *app) cmdServe(ctx context.Context, args []string) error {
	fs := a.newFlagSet("serve", "--plugin NAME --listen ADDR --ca FILE --cert FILE --key FILE",
		"Serve a subprocess plugin of this machine to `mlperf-host run --remote` on other machines, over\n"+
			"mutual TLS: only hosts with a certificate signed by --ca get through, one host at a time. Each\n"+
			"run gets a fresh plugin process. Remote hosts never use shared memory, and name files of this\n"+
			"machine only inside --model-dir. Runs until interrupted.")
	var cf configFlags
	cf.register(fs)
	listen := fs.String("listen", "", "`HOST:PORT` to listen on")
	ca := fs.String("ca", "", "PEM `FILE` of the CA whose client certificates are accepted")
	cert := fs.String("cert", "", "PEM `FILE` of this server's certificate")
	key := fs.String("key", "", "PEM `FILE` of this server's private key")
	insecure := fs.Bool("insecure-loopback", false, "serve plaintext on a loopback address (tests only)")
	modelDir := fs.String("model-dir", "", "the one `DIR` of this machine whose files remote hosts may name (model paths, path options); empty: none, hosts send the model's bytes")
	idle := fs.Duration("idle-timeout", host.DefaultServeLimits.IdleTimeout, "drop a host with no call in progress for this long, freeing the plugin")
	maxSamples := fs.Int64("max-sample-bytes", host.DefaultServeLimits.MaxSampleBytes, "the sample bytes one host may load into the plugin at once")
	allow := fs.String("allow-option", "", "`NAMES` (comma-separated, or none) of the only plugin options a remote host may set; empty: every option the plugin declares")
	maxUnread := fs.Int64("max-unread-bytes", defaultServeMaxUnread, "the completion bytes the plugin holds for a host that does not read them; past it the host's session fails")
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
	tc := &host.ServeConfig{InsecureLoopback: *insecure, ModelDir: *modelDir, AllowOptions: allowedOptions(*allow),
		Logger: slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Limits: host.ServeLimits{IdleTimeout: *idle, MaxSampleBytes: *maxSamples}}
	if !*insecure || *ca != "" || *cert != "" || *key != "" {
		files := host.TLSFiles{CA: *ca, Cert: *cert, Key: *key}
		if tc.TLS, err = host.ServerTLS(files); err != nil {
			return exitcode.New(exitcode.Config, fmt.Errorf("serve: %w", err), "pass --ca, --cert and --key: docs/remote.md")
		}
		for _, w := range files.Warnings() {
			fmt.Fprintf(a.stderr, "mlperf-host: warning: %s\n", w)
		}
	}
	if *maxUnread <= 0 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("serve: --max-unread-bytes %d: want a positive byte count", *maxUnread), "")
	}
	env := []string{abi.MaxUnreadBytesEnv + "=" + strconv.FormatInt(*maxUnread, 10)}
	if *modelDir != "" {
		if st, err := os.Stat(*modelDir); err != nil || !st.IsDir() {
			return exitcode.New(exitcode.Config, fmt.Errorf("serve: --model-dir %s: not a directory", *modelDir), "pass the directory of the models remote hosts may load")
		}
	}
	pl, err := a.plugins().Resolve(c)
	if err != nil {
		return err
	}
	if pl.Kind != manifest.KindProcess {
		return exitcode.New(exitcode.Config, fmt.Errorf("serve: plugin %s is a %s plugin: only a subprocess plugin is served to other machines", pl.Name, pl.Kind),
			"a WASM plugin runs inside the host: run it where the host runs (`mlperf-host run --plugin NAME`)")
	}
	if w := everyInterface(*listen); w != "" {
		fmt.Fprintf(a.stderr, "mlperf-host: warning: %s\n", w)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Errorf("serve: %w", err), "pass another --listen address")
	}
	defer ln.Close()
	hc := a.plugins().HostConfig(c)
	sp, err := host.StartServed(ctx, pl, hc, env, a.stderr, serveStartTimeout)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "mlperf-host: plugin %s's processes: %s\n", pl.Name, sp.Tree)
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
		next, err := host.StartServed(ctx, pl, hc, env, a.stderr, serveStartTimeout)
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

// allowedOptions reads --allow-option: nil when empty (every option the
// plugin declares), none for "none".
func allowedOptions(v string) []string {
	if v == "" {
		return nil
	}
	out := []string{}
	for n := range strings.SplitSeq(v, ",") {
		if n = strings.TrimSpace(n); n != "" && n != "none" {
			out = append(out, n)
		}
	}
	return out
}

// everyInterface warns of a listen address that binds every interface
// of the machine; "" for one that names an address.
func everyInterface(listen string) string {
	h, _, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(h); h == "" || (ip != nil && ip.IsUnspecified()) {
		return "--listen " + listen + " binds every interface of this machine: name one address (--listen 10.0.0.5:7000) to serve one network only"
	}
	return ""
}
