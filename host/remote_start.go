package host

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mlperf-host/mlperf-host/host/manifest"
)

// ServedPlugin is a subprocess plugin started in the SDK's serve mode
// (-serve), for [ServeRemote].
type ServedPlugin struct {
	// Reattach is where it serves and its token.
	Reattach ReattachConfig
	// Tree says whether the processes it starts die with it.
	Tree ProcessTree
	proc *os.Process
	done chan struct{} // closed once the process exited
}

// StartServed starts p, a subprocess plugin, in serve mode: the entry the
// host verified, in a process group of its own (in a PID namespace of its
// own where cfg and the system allow: see [ProcessTree]), with env added to its
// environment and its log to stderr. It returns once the plugin says
// where it serves.
//
// # Errors
//
// A plugin of another kind, an entry that fails its checks, a plugin
// that exits or prints no reattach line within timeout.
func StartServed(ctx context.Context, p Plugin, cfg Config, env []string, stderr io.Writer, timeout time.Duration) (_ *ServedPlugin, err error) {
	if p.Kind != manifest.KindProcess {
		return nil, fmt.Errorf("serve plugin %q: a %s plugin: only a subprocess plugin is served to other machines", p.Name, p.Kind)
	}
	entry, err := openVerified(p)
	if err != nil {
		return nil, err
	}
	defer entry.Close()
	cmd := verifiedCommand(entry, p.Entry)
	cmd.Args = append(cmd.Args, "-serve")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	out, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("serve plugin %q: %w", p.Name, err)
	}
	cmd.Stdout = w
	setProcAttrs(cmd)
	ways, why := treeWaysFor(cfg)
	cmd, tree, err := startContained(cmd, ways, why)
	w.Close() // the child has its own; the reader sees EOF when it exits
	if err != nil {
		out.Close()
		return nil, &PluginError{Plugin: p.Name, Op: "serve", Err: fmt.Errorf("%w: %v", ErrStart, err)}
	}
	s := &ServedPlugin{proc: cmd.Process, Tree: tree, done: make(chan struct{})}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
		_, _ = io.Copy(io.Discard, out) // nothing more is printed; keep the pipe drained
		_ = cmd.Wait()                  // Stop kills it: how it exits says nothing more
		out.Close()
		close(s.done)
	}()
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case l := <-line:
		if l == "" {
			return nil, &PluginError{Plugin: p.Name, Op: "serve", Err: fmt.Errorf("%w: it exited without saying where it serves", ErrStart)}
		}
		if s.Reattach, err = ParseReattachConfig([]byte(l)); err != nil {
			return nil, &PluginError{Plugin: p.Name, Op: "serve", Err: fmt.Errorf("%w: %w", ErrProtocol, err)}
		}
		// The process this host started, whatever it calls itself: in a
		// PID namespace of its own the plugin is process 1.
		s.Reattach.Pid = cmd.Process.Pid
		return s, nil
	case <-timer.C:
		return nil, &PluginError{Plugin: p.Name, Op: "serve", Err: fmt.Errorf("%w: no reattach line within %v", ErrStart, timeout)}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// servedStopGrace is how long a served plugin has to end once asked to,
// before it is killed.
const servedStopGrace = 5 * time.Second

// Stop asks the plugin to end (an interrupt: it closes its backend and
// removes its socket directory), kills its process group after
// servedStopGrace or once it ended (its helpers with it), waits for it,
// and removes its socket and their directory if it left them.
func (s *ServedPlugin) Stop() {
	if s.proc.Signal(os.Interrupt) == nil {
		t := time.NewTimer(servedStopGrace)
		select {
		case <-s.done:
		case <-t.C:
		}
		t.Stop()
	}
	killGroup(s.proc.Pid)
	_ = s.proc.Kill() // where there are no process groups
	<-s.done
	if s.Reattach.Network == "unix" && s.Reattach.Address != "" {
		_ = os.Remove(s.Reattach.Address)
		_ = os.Remove(filepath.Dir(s.Reattach.Address)) // only if empty
	}
}
