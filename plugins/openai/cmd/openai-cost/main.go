// Command openai-cost measures the openai plugin's client against a
// plain net/http loop (package cost) and prints the table. It runs the
// canned server as a child process of its own (openai-cost serve), so
// that its CPU time is the client's alone.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/plugins/openai/cost"
	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		err = serve(ctx)
	} else {
		err = measure(ctx, os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openai-cost:", err)
		os.Exit(1)
	}
}

// serve runs the canned server, prints its URL and stops when stdin
// closes.
func serve(ctx context.Context) error { return openaitest.ServeChild(ctx, openaitest.Behavior{}) }

func measure(ctx context.Context, args []string) error {
	var cfg cost.Config
	fs := flag.NewFlagSet("openai-cost", flag.ContinueOnError)
	fs.IntVar(&cfg.Serial, "serial", 0, "requests one at a time per figure (default 2000)")
	fs.IntVar(&cfg.Rounds, "rounds", 0, "rounds the serial requests are sent in, the clients in turn; a figure is the median round's (default 5)")
	fs.IntVar(&cfg.Offline, "offline", 0, "requests of the Offline phase (default 20000)")
	fs.IntVar(&cfg.Workers, "workers", 0, "requests in flight, and connections (default 64)")
	fs.DurationVar(&cfg.Step, "step", 0, "length of a Server step (default 1s)")
	profile := fs.String("cpuprofile", "", "write the client's CPU profile to this file")
	fs.Func("option", "one more of the plugin's options, `NAME=VALUE` (repeatable; not one the run sets)", func(v string) error {
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return fmt.Errorf("want NAME=VALUE, got %q", v)
		}
		if cfg.PluginOptions == nil {
			cfg.PluginOptions = map[string]string{}
		}
		cfg.PluginOptions[name] = value
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	srv, err := openaitest.StartChild(exec.CommandContext(ctx, exe, "serve"))
	if err != nil {
		return err
	}
	defer srv.Close()
	cfg.URL = srv.URL
	dir, err := os.MkdirTemp("", "openai-cost")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg.Dir = dir
	start := time.Now()
	res, err := cost.Run(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("openai client cost against the canned server in another process on loopback (%s; %v)\n\n", cost.Machine(), time.Since(start).Round(time.Second))
	return res.Table(os.Stdout)
}
