package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	a := newApp(os.Stdout, os.Stderr)
	a.environ = os.Environ()
	a.cwd, _ = os.Getwd()
	a.home, _ = os.UserHomeDir()
	a.xdgDataHome = os.Getenv("XDG_DATA_HOME")
	a.cacheDir, _ = os.UserCacheDir()
	a.executable, _ = os.Executable()
	a.terminal = term.IsTerminal(int(os.Stderr.Fd())) // the progress bar draws on stderr
	code := a.main(ctx, os.Args[1:])
	stop()
	os.Exit(int(code))
}
