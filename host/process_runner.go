package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-plugin/runner"
)

// procRunner starts and watches one plugin process for go-plugin. It runs
// the plugin in its own process group (killed as a whole) with Pdeathsig
// on Linux, in a PID namespace of its own where allowed (ProcessTree), keeps stderr for the host's own reader, and announces the
// process's exit on exited.
type procRunner struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	// stderr is read by the host (forwardStderr), not by go-plugin.
	stderr io.ReadCloser

	exited  chan struct{}
	exitErr error // set before exited is closed
	wait    sync.Once

	// ways are how Start may contain the plugin's process tree, why is
	// why it is not when there are none; tree is how it was.
	ways []treeWay
	why  string
	tree ProcessTree
}

var _ runner.Runner = (*procRunner)(nil)

func newProcRunner(cmd *exec.Cmd, cfg Config) *procRunner {
	ways, why := treeWaysFor(cfg)
	return &procRunner{cmd: cmd, exited: make(chan struct{}), ways: ways, why: why}
}

func (r *procRunner) Start(ctx context.Context) error {
	r.cmd.Stdin = nil // plugins get no terminal input
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		return err
	}
	r.cmd.Stdout, r.cmd.Stderr = stdoutW, stderrW
	setProcAttrs(r.cmd)
	started, tree, err := startContained(r.cmd, r.ways, r.why)
	if err == nil {
		r.cmd, r.tree = started, tree
	}
	// The child has its copies; the write ends must close here for the
	// readers to see EOF when it exits.
	stdoutW.Close()
	stderrW.Close()
	if err != nil {
		stdoutR.Close()
		stderrR.Close()
		return err
	}
	r.stdout, r.stderr = stdoutR, stderrR
	// Reap the process as soon as it exits: go-plugin waits only once its
	// pipes close, which a helper holding them can delay forever. This
	// goroutine ends with the process, which Close always kills.
	go func() { _ = r.Wait(context.WithoutCancel(ctx)) }()
	return nil
}

// Wait waits for the process to exit, once; go-plugin calls it when the
// handshake pipe closes.
func (r *procRunner) Wait(context.Context) error {
	r.wait.Do(func() {
		r.exitErr = r.cmd.Wait()
		close(r.exited)
	})
	<-r.exited
	return r.exitErr
}

// Kill kills the process group.
func (r *procRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	killGroup(r.cmd.Process.Pid)
	err := r.cmd.Process.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }

// Stderr is empty for go-plugin: the host reads the real one.
func (r *procRunner) Stderr() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }

func (r *procRunner) Name() string { return r.cmd.Path }

func (r *procRunner) ID() string {
	if r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *procRunner) Diagnose(context.Context) string {
	select {
	case <-r.exited:
		return "the plugin process " + exitStatus(r.exitErr)
	default:
		return ""
	}
}

func (r *procRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}
func (r *procRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// exitStatus describes how a process ended: "exited with exit status 3",
// "exited with signal: killed".
func exitStatus(err error) string {
	if err == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return "exited with " + ee.Error()
	}
	return fmt.Sprintf("exited: %v", err)
}
