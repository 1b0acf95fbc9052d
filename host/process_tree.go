package host

import (
	"errors"
	"os/exec"
	"strings"
)

// ProcessTree says whether the processes a subprocess plugin starts die
// with it, however it dies (a host killed by SIGKILL included), and why
// not when they do not.
type ProcessTree struct {
	// Contained: the plugin runs as the first process of a PID namespace
	// of its own, and the kernel kills every process in it when the
	// plugin exits. Otherwise only the plugin's process group is killed
	// by a living host, and what the plugin started in another group or
	// session, or anything at all once the host is SIGKILLed, outlives it.
	Contained bool
	// How names the mechanism ("pid namespace", "pid namespace in a user
	// namespace") or, uncontained, "process group".
	How string
	// Why says why the tree is not contained: containment is off, or the
	// system refused each way tried (with its error).
	Why string
}

// String is the one line the console and the detail log give.
func (t ProcessTree) String() string {
	if t.Contained {
		return t.How + ": every process the plugin starts dies with it"
	}
	return t.How + " only: processes the plugin starts outside its group, and all of them once the host is killed by SIGKILL, can outlive it (" + t.Why + ")"
}

// ProcessTreeReporter is a Backend that runs its plugin as a local
// subprocess and says how that process's descendants are contained; ok
// is false when the host did not start the process (a reattached plugin).
type ProcessTreeReporter interface {
	ProcessTree() (tree ProcessTree, ok bool)
}

var _ ProcessTreeReporter = (*processBackend)(nil)

// ProcessTree says how the plugin's process tree is held.
func (b *processBackend) ProcessTree() (ProcessTree, bool) {
	if b.attach != nil || b.proc == nil {
		return ProcessTree{}, false
	}
	return b.proc.tree, true
}

// Why a plugin's tree is not contained, when no way was tried.
const (
	treeOff         = "host.pid_namespace is off"
	treeUnsupported = "this system has no PID namespaces"
	// treeRefused starts the why of a system that refused every way.
	treeRefused = "refused: "
)

// treeWaysFor returns the ways to try under cfg, and why the tree is not
// contained when there are none.
func treeWaysFor(cfg Config) ([]treeWay, string) {
	if cfg.DisablePIDNamespace {
		return nil, treeOff
	}
	if cfg.treeWays != nil {
		return cfg.treeWays, ""
	}
	if ways := treeWays(); len(ways) > 0 {
		return ways, ""
	}
	return nil, treeUnsupported
}

// treeWay is one way to start a plugin: what it adds to the command's
// process attributes, and its name.
type treeWay struct {
	name  string
	apply func(*exec.Cmd)
}

// startContained starts cmd the first of ways that the system allows
// (each on a fresh copy of cmd, as an exec.Cmd starts once), else as a
// plain process group; it returns the command that started and how its
// tree is held. An error that is not the system refusing a namespace
// ends the tries at once.
func startContained(cmd *exec.Cmd, ways []treeWay, why string) (*exec.Cmd, ProcessTree, error) {
	var refused []string
	for _, w := range ways {
		c := copyCommand(cmd)
		w.apply(c)
		err := c.Start()
		if err == nil {
			return c, ProcessTree{Contained: true, How: w.name}, nil
		}
		if !namespaceRefused(err) {
			return nil, ProcessTree{}, err
		}
		refused = append(refused, w.name+": "+errors.Unwrap(err).Error())
	}
	if len(refused) > 0 {
		why = treeRefused + strings.Join(refused, "; ")
	}
	c := copyCommand(cmd)
	if err := c.Start(); err != nil {
		return nil, ProcessTree{}, err
	}
	return c, ProcessTree{How: "process group", Why: why}, nil
}

// copyCommand returns an unstarted copy of cmd's program, arguments,
// environment, directory, files and process attributes.
func copyCommand(cmd *exec.Cmd) *exec.Cmd {
	c := &exec.Cmd{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir,
		Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, ExtraFiles: cmd.ExtraFiles}
	if cmd.SysProcAttr != nil {
		a := *cmd.SysProcAttr
		c.SysProcAttr = &a
	}
	return c
}
