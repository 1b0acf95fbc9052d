package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"text/tabwriter"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/conformance"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/runner"
)

// plugins returns where this process finds plugins.
func (a *app) plugins() runner.Plugins {
	cache := ""
	if a.cacheDir != "" {
		cache = filepath.Join(a.cacheDir, "mlperf-host", "wazero")
	}
	workDir := ""
	if a.cwd != "" {
		workDir = filepath.Join(a.cwd, "plugins")
	}
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn)
	return runner.Plugins{
		Dirs:         host.DefaultDirs(a.cwd, a.xdgDataHome, a.home, a.executable),
		WorkDir:      workDir,
		EmbeddedName: embeddedPlugin, Embedded: embeddedModule, CacheDir: cache,
		Logger:   slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level})),
		LogLevel: level,
		NN:       a.wasiNN,
	}
}

func (a *app) cmdPlugins(ctx context.Context, args []string) error {
	usage := exitcode.New(exitcode.Usage, errors.New("plugins: want `plugins list`, `plugins describe NAME` or `plugins check NAME`"), "")
	if len(args) == 0 {
		return usage
	}
	switch args[0] {
	case "list":
		return a.pluginsList(ctx, args[1:])
	case "check":
		return a.pluginsCheck(ctx, args[1:])
	case "describe":
		return a.pluginsDescribe(ctx, args[1:])
	}
	return usage
}

func (a *app) pluginsList(ctx context.Context, args []string) error {
	fs := a.newFlagSet("plugins list", "[flags]", "List the installed plugins and the embedded one.")
	var cf configFlags
	cf.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("plugins list: unexpected argument %q", pos[0]), "")
	}
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	entries, problems := a.plugins().List(ctx, c)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tKIND\tABI\tWHERE\tDESCRIPTION")
	for _, e := range entries {
		abiV := "-"
		if e.ABIMajor > 0 {
			abiV = fmt.Sprintf("v%d", e.ABIMajor)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, quoteEmpty(e.Version), e.Kind, abiV, e.Path, e.Description)
	}
	tw.Flush()
	if len(entries) == 0 {
		fmt.Fprintf(a.stdout, "no plugins in %v, and this binary embeds none\n", a.plugins().Dirs)
	}
	if problems != nil {
		fmt.Fprintf(a.stderr, "skipped: %v\n", problems)
	}
	return nil
}

func (a *app) pluginsCheck(ctx context.Context, args []string) error {
	fs := a.newFlagSet("plugins check", "[flags] NAME",
		"Run the conformance checks against an installed (or the embedded) plugin, through the host,\nwith the configured benchmark's model and the first samples of its data set.")
	var cf configFlags
	cf.register(fs)
	samples := fs.Int("samples", 8, "number of data set `N` samples to load")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return exitcode.New(exitcode.Usage, errors.New("plugins check: want one plugin NAME"), "`mlperf-host plugins list` shows the names")
	}
	cf.vals = append(cf.vals, configFlagValue("plugin", pos[0]))
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	in, err := runner.CheckInput(ctx, c, *samples)
	if err != nil {
		return err
	}
	b, err := a.plugins().Open(ctx, c)
	if err != nil {
		return err
	}
	if err := runner.CheckPluginOptions(b.Info(), c); err != nil {
		b.Close()
		return err
	}
	res, err := conformance.Run(ctx, b, in)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for _, r := range res {
		status, detail := "ok", r.Detail
		switch {
		case r.Skipped:
			status = "skipped"
		case r.Err != nil:
			status, detail = "FAIL", r.Err.Error()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, status, detail)
	}
	tw.Flush()
	if err != nil {
		return exitcode.New(exitcode.PluginFailed, fmt.Errorf("plugin %s: %w", c.Plugin, err), "")
	}
	fmt.Fprintf(a.stdout, "plugin %s passes %d checks\n", c.Plugin, len(res))
	return nil
}
