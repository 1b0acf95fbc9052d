package main

import (
	"os"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/codesandbox"

	"golang.org/x/term"
)

func main() {
	codesandbox.LaunchIfAsked() // the code sandbox's launcher, when started as one
	ctx, stopNow, stop := interrupts(os.Stderr)
	a := newApp(os.Stdout, os.Stderr)
	a.environ = os.Environ()
	a.cwd, _ = os.Getwd()
	a.home, _ = os.UserHomeDir()
	a.xdgDataHome = os.Getenv("XDG_DATA_HOME")
	a.cacheDir, _ = os.UserCacheDir()
	a.executable, _ = os.Executable()
	a.terminal = term.IsTerminal(int(os.Stderr.Fd())) // the progress bar draws on stderr
	a.stopNow = stopNow
	code := a.main(ctx, os.Args[1:])
	stop()
	os.Exit(int(code))
}
