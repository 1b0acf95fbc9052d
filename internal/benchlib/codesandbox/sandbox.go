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
	if len(argv) == 0 {
		return Result{}, errors.New("codesandbox: no command")
	}
	dir, err := os.MkdirTemp(cfg.Dir, "codesandbox-")
	if err != nil {
		return Result{}, fmt.Errorf("codesandbox: %w", err)
	}
	defer os.RemoveAll(dir)
	for name, b := range files {
		p := filepath.Join(dir, name)
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return Result{}, fmt.Errorf("codesandbox: file %q is outside the directory", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return Result{}, fmt.Errorf("codesandbox: %w", err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return Result{}, fmt.Errorf("codesandbox: %w", err)
		}
	}
	lim := limits{
		CPUSeconds: uint64((cfg.CPUTime + time.Second - 1) / time.Second),
		Memory:     uint64(cfg.Memory),
		FileSize:   uint64(cfg.FileSize),
		Dir:        dir,
	}
	res, err := run(ctx, cfg, lim, true, argv, stdin)
	if errors.Is(err, errNoNamespaces) {
		res, err = run(ctx, cfg, lim, false, argv, stdin)
	}
	return res, err
}

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
