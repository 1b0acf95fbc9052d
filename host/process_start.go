package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// grpcPlugin is the host side of the go-plugin plugin: it turns the
// connection into a Backend client.
type grpcPlugin struct{ plugin.NetRPCUnsupportedPlugin }

func (grpcPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the host does not serve backends")
}

func (grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return backendv1grpc.NewBackendClient(conn), nil
}

func handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{ProtocolVersion: abi.ProtocolVersion, MagicCookieKey: abi.MagicCookieKey, MagicCookieValue: abi.MagicCookieValue}
}

func pluginSets() map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{abi.Major: {abi.PluginName: grpcPlugin{}}}
}

// openProcess starts an executable plugin.
func openProcess(ctx context.Context, p Plugin, cfg Config) (_ Backend, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// go-plugin cannot check a command its RunnerFunc starts: the host
	// verifies the entry itself and starts the very file it verified.
	entry, err := openVerified(p)
	if err != nil {
		return nil, err
	}
	defer entry.Close() // the child has its own descriptor once started
	b := newProcessBackend(ctx, p.Name, cfg.withDefaults())
	cmd := verifiedCommand(entry, p.Entry)
	b.proc = newProcRunner(cmd, b.cfg)
	cc := &plugin.ClientConfig{
		HandshakeConfig:  handshake(),
		VersionedPlugins: pluginSets(),
		// go-plugin builds the environment (the host's, its handshake
		// variables, the client certificate) on a placeholder command.
		RunnerFunc: func(_ hclog.Logger, placeholder *exec.Cmd, _ string) (runner.Runner, error) {
			cmd.Env = append(placeholder.Env, abi.SharedMemoryDirEnv+"="+sharedMemoryDir(b.cfg.SharedMemoryDir))
			cmd.Env = append(cmd.Env, b.cfg.Env...)
			return b.proc, nil
		},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		StartTimeout:     b.cfg.StartTimeout,
		SyncStdout:       b.stdout,
		SyncStderr:       b.tail,
		Logger:           newHclog(b.ctx, b.cfg.Logger.With("plugin", p.Name)),
		GRPCDialOptions:  b.dialOptions(),
	}
	b.client = plugin.NewClient(cc)
	defer func() {
		if err != nil {
			b.shutdown()
			b.bg.Wait()
		}
	}()
	startErr := b.start()
	if startErr != nil {
		return nil, startErr
	}
	b.pid = b.proc.cmd.Process.Pid
	// A system that refused the namespace is said on the console; one
	// without (or a user who turned it off) in the detail log only.
	if t := b.proc.tree; !t.Contained && strings.HasPrefix(t.Why, treeRefused) {
		b.cfg.Logger.Warn("processes the plugin starts may outlive it", "plugin", p.Name, "process_tree", t.String())
	} else {
		b.cfg.Logger.Debug("plugin process tree", "plugin", p.Name, "process_tree", t.String())
	}
	if err := b.negotiate(ctx); err != nil {
		return nil, err
	}
	b.bg.Add(1)
	go b.monitor()
	return b, nil
}

var pluginVersionRE = regexp.MustCompile(`Plugin version: (\d+)`)

// start runs go-plugin's handshake and dispenses the Backend client,
// turning go-plugin's errors into ones that say what the plugin did.
func (b *processBackend) start() error {
	cp, err := b.client.Client()
	if b.proc.stderr != nil {
		b.bg.Add(1)
		go func() {
			defer b.bg.Done()
			defer close(b.stderrDone)
			forwardStderr(b.ctx, b.proc.stderr, b.cfg.Logger.With("plugin", b.name), b.tail)
		}()
	} else {
		close(b.stderrDone)
	}
	if err != nil {
		return b.startError(err)
	}
	raw, err := cp.Dispense(abi.PluginName)
	if err != nil {
		return &PluginError{Plugin: b.name, Op: "handshake", Err: fmt.Errorf("%w: %v", ErrProtocol, err)}
	}
	b.rpc = raw.(backendv1grpc.BackendClient)
	return nil
}

func (b *processBackend) startError(err error) error {
	msg := err.Error()
	if m := pluginVersionRE.FindStringSubmatch(msg); m != nil && strings.Contains(msg, "incompatible API version") {
		major, _ := strconv.Atoi(m[1])
		return versionMismatch(b.name, major)
	}
	if junk, ok := strings.CutPrefix(msg, "Unrecognized remote plugin message: "); ok {
		if line, _, _ := strings.Cut(junk, "\n"); line != "" {
			return &PluginError{Plugin: b.name, Op: "start", Err: fmt.Errorf(
				"%w: it printed %q on stdout instead of the handshake line: stdout is reserved for the handshake, write logs to stderr; or is it not an mlperf-host plugin?",
				ErrProtocol, line)}
		}
	}
	// go-plugin kills the process on a failed start; give its exit (and
	// last words) a moment to arrive.
	select {
	case <-b.proc.exited:
	case <-time.After(2 * time.Second):
	}
	if strings.Contains(msg, "timeout while waiting for plugin to start") {
		return &PluginError{Plugin: b.name, Op: "start", Err: fmt.Errorf("%w: no handshake within %v%s",
			ErrStart, b.cfg.StartTimeout, lastWords(b.stdout, b.tail))}
	}
	select {
	case <-b.proc.exited:
		b.awaitLastWords()
		return &PluginError{Plugin: b.name, Op: "start", Err: fmt.Errorf("%w: the plugin %s before the handshake%s",
			ErrStart, exitStatus(b.proc.exitErr), lastWords(b.stdout, b.tail))}
	default:
	}
	return &PluginError{Plugin: b.name, Op: "start", Err: fmt.Errorf("%w: %v%s", ErrStart, err, lastWords(b.stdout, b.tail))}
}

// Reattach attaches to a subprocess plugin already running (see
// [ReattachConfig]). Close then leaves the process running: it ends the
// session and disconnects, without the Close RPC.
func Reattach(ctx context.Context, rc ReattachConfig, cfg Config) (_ Backend, err error) {
	if err := rc.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rc.ABIMajor != abi.Major {
		return nil, versionMismatch(rc.Plugin, rc.ABIMajor)
	}
	var addr net.Addr
	if rc.Network == "unix" {
		if err := checkSocketDir(rc.Address); err != nil {
			return nil, &PluginError{Plugin: rc.Plugin, Op: "reattach", Err: fmt.Errorf("%w: %w", ErrStart, err)}
		}
		addr = &net.UnixAddr{Net: "unix", Name: rc.Address}
	} else if addr, err = net.ResolveTCPAddr("tcp", rc.Address); err != nil {
		return nil, fmt.Errorf("reattach to plugin %q: %w", rc.Plugin, err)
	}
	return attach(ctx, rc, addr, cfg, nil, "reattach", TransportProcess)
}

// attach connects to a plugin served at addr, with the token of rc (when
// it has one) and over TLS with tlsConf (when not nil); op names the
// step in errors, t is the transport Info reports; extra dial options
// come last.
func attach(ctx context.Context, rc ReattachConfig, addr net.Addr, cfg Config, tlsConf *tls.Config, op string, t Transport, extra ...grpc.DialOption) (_ Backend, err error) {
	b := newProcessBackend(ctx, rc.Plugin, cfg.withDefaults())
	b.transport = t
	b.attach = &attachedRunner{pid: rc.Pid, detach: make(chan struct{})}
	b.pid = rc.Pid
	dial := append(b.dialOptions(), extra...)
	if rc.Token != "" {
		dial = append(dial, backendv1grpc.TokenCredentials(rc.Token))
	}
	b.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: handshake(),
		// No handshake line when reattaching: the plugin set is fixed.
		Plugins: pluginSets()[abi.Major],
		Reattach: &plugin.ReattachConfig{Protocol: plugin.ProtocolGRPC, ProtocolVersion: rc.ABIMajor, Addr: addr, Pid: rc.Pid,
			ReattachFunc: func() (runner.AttachedRunner, error) { return b.attach, nil }},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SyncStdout:       b.stdout,
		SyncStderr:       b.tail,
		Logger:           newHclog(b.ctx, b.cfg.Logger.With("plugin", rc.Plugin)),
		GRPCDialOptions:  dial,
		TLSConfig:        tlsConf,
	})
	defer func() {
		if err != nil {
			b.detach()
		}
	}()
	cp, err := b.client.Client()
	if err != nil {
		return nil, &PluginError{Plugin: rc.Plugin, Op: op, Err: fmt.Errorf("%w: %v", ErrStart, err)}
	}
	raw, err := cp.Dispense(abi.PluginName)
	if err != nil {
		return nil, &PluginError{Plugin: rc.Plugin, Op: op, Err: fmt.Errorf("%w: %v", ErrProtocol, err)}
	}
	b.rpc = raw.(backendv1grpc.BackendClient)
	if err := b.negotiate(ctx); err != nil {
		return nil, err
	}
	b.bg.Add(1)
	go b.monitor()
	return b, nil
}

// detach lets go of a reattached plugin without stopping it.
func (b *processBackend) detach() {
	if cp, err := b.client.Client(); err == nil {
		if gc, ok := cp.(*plugin.GRPCClient); ok {
			_ = gc.Conn.Close()
		}
	}
	close(b.attach.detach)
}
