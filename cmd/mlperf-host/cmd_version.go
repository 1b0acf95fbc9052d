package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/mlperf-host/mlperf-host/abi"
)

func (a *app) cmdVersion(ctx context.Context, args []string) error {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintf(a.stdout, "mlperf-host %s, plugin ABI v%d.%d, embedded plugin: %s\n", v, abi.Major, abi.Minor, embeddedStatus())
	return nil
}
