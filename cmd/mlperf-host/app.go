package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// app is the CLI with its process state passed in, so that tests run it
// in-process.
type app struct {
	stdout, stderr io.Writer
	environ        []string
	cwd, home      string
	xdgDataHome    string
	cacheDir       string
	executable     string
	// terminal: stderr is a terminal, where the progress bar draws.
	terminal bool
	// stopNow closes at the second Ctrl-C: runs end at once.
	stopNow <-chan struct{}
}

func newApp(stdout, stderr io.Writer) *app { return &app{stdout: stdout, stderr: stderr} }

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(a *app, ctx context.Context, args []string) error
}

func commands() []command {
	return []command{
		{"run", "[flags]", "run the configured benchmark (the default command)", (*app).cmdRun},
		{"accuracy", "[flags] [LOG]", "score an accuracy log against the benchmark's quality target", (*app).cmdAccuracy},
		{"submit", "[flags]", "run performance, accuracy and compliance tests; write and check a submission tree", (*app).cmdSubmit},
		{"benchmarks", "[--round R] [NAME]", "list a round's benchmarks and their rules", (*app).cmdBenchmarks},
		{"report", "[flags] DIR", "write an HTML report of a run's logs", (*app).cmdReport},
		{"plugins", "list | describe NAME | check NAME", "list installed plugins, describe one (devices, options), or run the conformance checks against it", (*app).cmdPlugins},
		{"config", "show [flags]", "print the effective configuration and where each value came from", (*app).cmdConfig},
		{"dataset", "info | convert | export | prepare", "inspect, convert, export or prepare data sets", (*app).cmdDataset},
		{"serve", "--plugin NAME --listen ADDR [TLS flags]", "serve a plugin to runs on other machines over mutual TLS", (*app).cmdServe},
		{"version", "", "print the version and ABI", (*app).cmdVersion},
	}
}

// main runs the command line and returns the exit code, having printed
// any error with its hint.
func (a *app) main(ctx context.Context, args []string) exitcode.Code {
	err := a.dispatch(ctx, args)
	if err == nil {
		return exitcode.OK
	}
	err = classify(err)
	if errors.Is(err, flag.ErrHelp) {
		return exitcode.OK
	}
	code := exitcode.Of(err)
	fmt.Fprintf(a.stderr, "mlperf-host: %v\n", err)
	if h := exitcode.Hint(err); h != "" {
		fmt.Fprintf(a.stderr, "hint: %s\n", h)
	}
	return code
}

func (a *app) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" && args[0] != "-help" {
		return a.cmdRun(ctx, args)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		a.usage(a.stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(a, ctx, args[1:])
		}
	}
	a.usage(a.stderr)
	return exitcode.New(exitcode.Usage, fmt.Errorf("unknown command %q", args[0]), "run `mlperf-host help` for the commands")
}

func (a *app) usage(w io.Writer) {
	fmt.Fprint(w, `mlperf-host runs MLPerf Inference benchmarks against plugin backends.

Usage:
  mlperf-host [run flags]           run the configured benchmark
  mlperf-host COMMAND [args]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %-24s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, `
Run "mlperf-host COMMAND -h" for a command's flags. Configuration layers, lowest first:
built-in benchmark table < mlperf.conf < user.conf < --config FILE (TOML/YAML) <
MLPERF_HOST_* environment < flags. Docs: docs/cli.md, exit codes: docs/exit-codes.md.
`)
}

// newFlagSet makes a command's flag set that reports errors as Usage.
func (a *app) newFlagSet(name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	fs.Usage = func() {
		fmt.Fprintf(a.stderr, "Usage: mlperf-host %s %s\n\n%s\n\nFlags:\n", name, args, summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, flags and arguments in any order (`plugins check
// NAME --plugin-dirs D` as well as `plugins check --plugin-dirs D NAME`;
// everything after "--" is an argument), returns the arguments, and
// classifies a bad flag as a usage error.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, exitcode.New(exitcode.Usage, err, fmt.Sprintf("run `mlperf-host %s -h` for its flags", fs.Name()))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if i := len(args) - len(rest); i > 0 && args[i-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
