//go:build !wasip1

package sdk

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// Serve serves b as a subprocess plugin and exits when the host is done
// with it. Call it from main:
//
//	func main() { sdk.Serve(echo.New()) }
//
// Serve runs the go-plugin handshake (the magic cookie and ABI major from
// package abi), serves the gRPC service of abi/backendv1grpc over b, logs
// hclog JSON lines to stderr (the host forwards them; see [Logger]) and
// recovers panics in b's methods, reporting them as [abi.Internal] (a
// control call's with the stack; Infer's stack is logged once, its
// samples fail with the panic's value).
//
// Run by a person rather than by mlperf-host (no handshake cookie in the
// environment), the binary prints what it is and how to use it, and exits
// with status 1. Its flags:
//
//	-version  print the plugin's name, version and ABI version, exit 0
//	-serve    serve for a host to reattach to (remote mode): print one JSON
//	          line with the address and a token, e.g. {"plugin":"echo",
//	          "abi_major":1,"pid":42,"network":"unix","address":
//	          "/tmp/mlperf-host-plugin123/plugin456","token":"9f2c..."},
//	          and serve until interrupted, in a directory only this user
//	          can enter, refusing every call without the token
//
// # Notes
//
// Serve is main's body: unlike the rest of the SDK it reads the
// environment and the command line, handles SIGINT and SIGTERM in serve
// mode, and exits the process. stdout is reserved for the handshake line:
// write logs with [Logger] or to stderr.
func Serve(b Backend) {
	os.Exit(serveMain(b, os.Args, os.Getenv, os.Stdout, os.Stderr))
}

// serveMain is Serve without the exit, for tests.
func serveMain(b Backend, args []string, getenv func(string) string, stdout, stderr *os.File) int {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.Bool("version", false, "print the plugin's name, version and ABI version")
	serveMode := fs.Bool("serve", false, "serve for a host to reattach to; print the reattach config as a JSON line")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	logOut := &lockedWriter{w: stderr}
	log := newStderrLogger(logOut, slog.LevelDebug)
	shmDir := getenv(abi.SharedMemoryDirEnv)
	if shmDir == "" {
		shmDir = abi.DefaultSharedMemoryDir()
	}
	maxUnread, err := strconv.ParseInt(cmp.Or(getenv(abi.MaxUnreadBytesEnv), "0"), 10, 64)
	if err != nil || maxUnread < 0 {
		log.Error("ignoring a malformed "+abi.MaxUnreadBytesEnv, "value", getenv(abi.MaxUnreadBytesEnv))
		maxUnread = 0
	}
	srv := NewServer(b, ServerConfig{Logger: log, ModelPath: true, SharedArena: sharedArenaSupported, SharedRing: sharedRingSupported,
		SharedMemoryDir: shmDir, MaxUnreadBytes: maxUnread})
	switch {
	case *version:
		return printVersion(stdout, stderr, srv)
	case *serveMode:
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return serveReattach(ctx, srv, logOut, stdout)
	case getenv(abi.MagicCookieKey) != abi.MagicCookieValue:
		printUsage(stderr, args[0], srv)
		return 1
	}
	plugin.Serve(serveConfig(srv, logOut, nil, ""))
	srv.Close()
	return 0
}

// serveConfig is the go-plugin configuration: gRPC only, one plugin set
// for ABI major abi.Major.
func serveConfig(srv *Server, logOut io.Writer, test *plugin.ServeTestConfig, token string) *plugin.ServeConfig {
	grpcServer := newGRPCServer
	if token != "" { // serve mode: only a host holding the token may call
		grpcServer = func(opts []grpc.ServerOption) *grpc.Server {
			return newGRPCServer(append(opts, backendv1grpc.TokenServerOptions(token)...))
		}
	}
	return &plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion: abi.ProtocolVersion, MagicCookieKey: abi.MagicCookieKey, MagicCookieValue: abi.MagicCookieValue,
		},
		VersionedPlugins: map[int]plugin.PluginSet{abi.Major: {abi.PluginName: &grpcPlugin{srv: srv}}},
		GRPCServer:       grpcServer,
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "sdk", Output: logOut, JSONFormat: true, Level: hclog.Info}),
		Test:             test,
	}
}

// newGRPCServer sets explicit message limits (gRPC's default receive
// limit is 4 MiB) and flow-control windows large enough for batched
// completions.
func newGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts,
		grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.InitialWindowSize(4<<20), grpc.InitialConnWindowSize(16<<20))
	return grpc.NewServer(opts...)
}

// grpcPlugin is the go-plugin plugin: it registers the Backend service.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *Server
}

var _ plugin.GRPCPlugin = (*grpcPlugin)(nil)

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	backendv1grpc.RegisterBackendServer(s, newGRPCBackend(p.srv))
	return nil
}

func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, fmt.Errorf("plugin %s: a plugin serves backends, it is not a client", abi.PluginName)
}

func printVersion(stdout, stderr io.Writer, srv *Server) int {
	info := srv.Info(nil)
	if c := abi.Code(info.GetStatus().GetCode()); c != abi.OK {
		fmt.Fprintf(stderr, "info: %s: %s\n", c, info.GetStatus().GetMessage())
		return 1
	}
	fmt.Fprintf(stdout, "%s %s (mlperf-host plugin ABI %s)\n", info.GetName(), info.GetVersion(), abi.VersionString(abi.Major, abi.Minor))
	return 0
}

func printUsage(w io.Writer, argv0 string, srv *Server) {
	name := argv0
	what := "an mlperf-host backend plugin"
	if info := srv.Info(nil); abi.Code(info.GetStatus().GetCode()) == abi.OK {
		name = info.GetName()
		what = fmt.Sprintf("the %q backend plugin %s of mlperf-host (%s)", info.GetName(), info.GetVersion(), info.GetDescription())
	}
	fmt.Fprintf(w, "This is %s, speaking plugin ABI %s.\n", what, abi.VersionString(abi.Major, abi.Minor))
	fmt.Fprintf(w, "It is started by mlperf-host, which talks to it over gRPC; on its own it does nothing.\n\n")
	for _, l := range [][2]string{
		{"mlperf-host --plugin " + name + " ...", "run a benchmark with it (--plugin also takes this file's path)"},
		{"mlperf-host plugins check " + name, "run the conformance checks against it"},
		{argv0 + " -version", "print its name and version"},
		{argv0 + " -serve", "serve it for a host to reattach to (remote mode)"},
	} {
		fmt.Fprintf(w, "  %-40s %s\n", l[0], l[1])
	}
}

// reattachLine is the JSON line serve mode prints: the host's
// ReattachConfig.
type reattachLine struct {
	Plugin   string `json:"plugin"`
	ABIMajor int    `json:"abi_major"`
	Pid      int    `json:"pid,omitempty"`
	Network  string `json:"network"`
	Address  string `json:"address"`
	Token    string `json:"token"`
}

// serveReattach serves until ctx ends, after printing where.
func serveReattach(ctx context.Context, srv *Server, logOut io.Writer, stdout io.Writer) int {
	name := srv.Info(nil).GetName()
	token, cleanup, err := privateServe()
	if err != nil {
		fmt.Fprintf(logOut, "serve: %v\n", err)
		return 1
	}
	defer cleanup()
	ch := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		select {
		case rc := <-ch:
			line, _ := json.Marshal(reattachLine{Plugin: name, ABIMajor: rc.ProtocolVersion, Pid: rc.Pid,
				Network: rc.Addr.Network(), Address: rc.Addr.String(), Token: token})
			fmt.Fprintf(stdout, "%s\n", line)
		case <-closed:
		}
	}()
	plugin.Serve(serveConfig(srv, logOut, &plugin.ServeTestConfig{Context: ctx, ReattachConfigCh: ch, CloseCh: closed}, token))
	<-printed
	srv.Close()
	return 0
}
