package codesandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// LaunchArg is the first argument with which [Run] starts its launcher:
// the launcher's main passes the arguments after it to [Main].
const LaunchArg = "__codesandbox-launch"

// Config is how a program is confined.
type Config struct {
	// Launcher is the path of a binary whose main calls [Main] when its
	// first argument is [LaunchArg].
	Launcher string
	// WallTime is how long the program may run before it is killed,
	// with every process it started.
	WallTime time.Duration
	// CPUTime is its CPU time limit (RLIMIT_CPU), rounded up to whole
	// seconds.
	CPUTime time.Duration
	// Memory is its address space limit in bytes (RLIMIT_AS).
	Memory int64
	// FileSize is the largest file it may write, in bytes (RLIMIT_FSIZE).
	FileSize int64
	// Output bounds the bytes of its stdout and of its stderr kept.
	Output int
	// Dir is where its temporary directory is made; "" for the system's.
	Dir string
	// Threads is how many threads (and processes, which RLIMIT_NPROC
	// counts alike) it may run at once; 0 for one. A runtime such as
	// Node's starts a few threads before it runs any code.
	Threads int
	// Processes lets it start processes, up to Threads: a compiler
	// driver that runs its passes (g++'s cc1plus, as, ld). Only for a
	// trusted program; an untrusted one gets no new process (the
	// seccomp filter of the package doc).
	Processes bool
}

// Validate reports what is missing or out of range.
func (c Config) Validate() error {
	var errs []error
	if c.Launcher == "" {
		errs = append(errs, errors.New("codesandbox: no launcher"))
	}
	if c.WallTime <= 0 {
		errs = append(errs, fmt.Errorf("codesandbox: wall time %v", c.WallTime))
	}
	if c.CPUTime <= 0 {
		errs = append(errs, fmt.Errorf("codesandbox: CPU time %v", c.CPUTime))
	}
	if c.Memory < 1<<20 {
		errs = append(errs, fmt.Errorf("codesandbox: memory %d bytes: want at least 1 MiB", c.Memory))
	}
	if c.FileSize < 0 {
		errs = append(errs, fmt.Errorf("codesandbox: file size %d", c.FileSize))
	}
	if c.Output <= 0 {
		errs = append(errs, fmt.Errorf("codesandbox: output bound %d", c.Output))
	}
	if c.Threads < 0 {
		errs = append(errs, fmt.Errorf("codesandbox: threads %d", c.Threads))
	}
	return errors.Join(errs...)
}

// Result is how a confined program ended.
type Result struct {
	// Stdout and Stderr are its output, each cut at Config.Output bytes.
	Stdout, Stderr []byte
	// ExitCode is its exit status; -1 when a signal killed it.
	ExitCode int
	// Signal names the signal that killed it ("killed", "CPU time limit
	// exceeded"), "" when it exited.
	Signal string
	// TimedOut: it ran past Config.WallTime and was killed.
	TimedOut bool
	// Isolated: it ran in namespaces of its own (package doc); false
	// where the kernel refused them and the rlimits alone held.
	Isolated bool
}

// limits is what Run tells the launcher.
type limits struct {
	CPUSeconds uint64
	Memory     uint64
	FileSize   uint64
	Tasks      uint64 // RLIMIT_NPROC
	Processes  bool   // no seccomp filter on new processes
	Isolated   bool
	Dir        string
}

// Run runs argv (argv[0] looked up in the PATH /usr/bin:/bin) confined as
// cfg says, in a fresh temporary directory holding files (name, relative
// to it, to contents), with stdin as its standard input; the directory is
// removed after. The child's environment is PATH, HOME and TMPDIR (its
// directory) and LANG=C.UTF-8.
//
// # Errors
//
// An invalid cfg, a directory that cannot be made, a launcher that cannot
// start or that fails before it runs argv. How the program itself ended
// (an exit status, a signal, the wall time) is the Result, not an error.
func Run(ctx context.Context, cfg Config, files map[string][]byte, argv []string, stdin []byte) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	w, err := NewWorkdir(cfg.Dir, files)
	if err != nil {
		return Result{}, err
	}
	defer w.Close()
	return w.Run(ctx, cfg, argv, stdin)
}

// Workdir is a temporary directory that several confined commands run in
// one after another, each seeing what the one before left: a compiler's
// output, then the compiled program.
type Workdir struct{ dir string }

// NewWorkdir makes a temporary directory in parent ("" for the system's)
// holding files (name, relative to it, to contents).
//
// # Errors
//
// A directory or file that cannot be made, a name outside the directory.
func NewWorkdir(parent string, files map[string][]byte) (*Workdir, error) {
	dir, err := os.MkdirTemp(parent, "codesandbox-")
	if err != nil {
		return nil, fmt.Errorf("codesandbox: %w", err)
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("codesandbox: file %q is outside the directory", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("codesandbox: %w", err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("codesandbox: %w", err)
		}
	}
	return &Workdir{dir: dir}, nil
}

// Run runs argv in the directory as [Run] does, confined as cfg says
// (cfg.Dir is not read).
//
// # Errors
//
// As [Run]'s.
func (w *Workdir) Run(ctx context.Context, cfg Config, argv []string, stdin []byte) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if len(argv) == 0 {
		return Result{}, errors.New("codesandbox: no command")
	}
	// The launcher's root of a run before (an empty directory once its
	// mount namespace is gone), or whatever a program left by that name.
	if err := os.RemoveAll(filepath.Join(w.dir, rootName)); err != nil {
		return Result{}, fmt.Errorf("codesandbox: %w", err)
	}
	lim := limits{
		CPUSeconds: uint64((cfg.CPUTime + time.Second - 1) / time.Second),
		Memory:     uint64(cfg.Memory),
		FileSize:   uint64(cfg.FileSize),
		Tasks:      uint64(max(cfg.Threads, 1)),
		Processes:  cfg.Processes,
		Dir:        w.dir,
	}
	res, err := run(ctx, cfg, lim, true, argv, stdin)
	if errors.Is(err, errNoNamespaces) {
		res, err = run(ctx, cfg, lim, false, argv, stdin)
	}
	return res, err
}

// Close removes the directory; it may be called more than once.
func (w *Workdir) Close() error {
	if err := os.RemoveAll(w.dir); err != nil {
		return fmt.Errorf("codesandbox: %w", err)
	}
	return nil
}

// rootName is the directory, in the child's, where the launcher builds
// the root file system it pivots into.
const rootName = ".root"

// errNoNamespaces: the kernel refused the child's namespaces.
var errNoNamespaces = errors.New("no namespaces")

// LaunchFailed is the exit status of a launcher that could not run the
// command, and LaunchPrefix begins what it writes to stderr then: a
// launcher's main prints LaunchPrefix and the error [Main] returned, and
// exits with LaunchFailed.
const (
	LaunchFailed = 125
	LaunchPrefix = "codesandbox launcher: "
)

func run(ctx context.Context, cfg Config, lim limits, isolated bool, argv []string, stdin []byte) (Result, error) {
	lim.Isolated = isolated
	spec, err := json.Marshal(lim)
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.WallTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Launcher, append([]string{LaunchArg, string(spec), "--"}, argv...)...)
	cmd.Dir = lim.Dir
	cmd.Env = []string{}
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &capped{n: cfg.Output}, &capped{n: cfg.Output}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = sysProcAttr(isolated)
	cmd.Cancel = func() error { return killAll(cmd) }
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		if isolated && namespacesRefused(err) {
			return Result{}, errNoNamespaces
		}
		return Result{}, fmt.Errorf("codesandbox: start %s: %w", cfg.Launcher, err)
	}
	werr := cmd.Wait()
	res := Result{Stdout: stdout.b.Bytes(), Stderr: stderr.b.Bytes(), Isolated: isolated, TimedOut: ctx.Err() != nil}
	res.ExitCode, res.Signal = exitOf(cmd.ProcessState)
	if werr != nil && cmd.ProcessState == nil {
		return res, fmt.Errorf("codesandbox: %w", werr)
	}
	if res.ExitCode == LaunchFailed && bytes.HasPrefix(res.Stderr, []byte(LaunchPrefix)) {
		msg := strings.TrimSpace(strings.TrimPrefix(string(res.Stderr), LaunchPrefix))
		return res, fmt.Errorf("codesandbox: launcher: %s", msg)
	}
	return res, nil
}

// capped keeps the first n bytes written to it and discards the rest.
type capped struct {
	b bytes.Buffer
	n int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.n - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
