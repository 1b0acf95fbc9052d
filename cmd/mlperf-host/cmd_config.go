package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

func (a *app) cmdConfig(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "show" {
		return exitcode.New(exitcode.Usage, fmt.Errorf("config: want `config show`"), "run `mlperf-host config show -h`")
	}
	fs := a.newFlagSet("config show", "[flags]", "Print every effective configuration value and the layer that set it.")
	var cf configFlags
	cf.register(fs)
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("config show: unexpected argument %q", pos[0]), "")
	}
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, v := range c.Values() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Key, quoteEmpty(v.Value), v.Source)
	}
	tw.Flush()
	if ig := c.Ignored(); len(ig) > 0 {
		fmt.Fprintf(a.stdout, "\nignored (no config key): %s\n", strings.Join(ig, ", "))
	}
	return nil
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
