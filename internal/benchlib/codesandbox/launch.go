package codesandbox

import (
	"fmt"
	"os"
)

// LaunchIfAsked makes the running program the sandbox's launcher when its
// first argument is [LaunchArg]: it then runs [Main] and, should Main
// fail, writes the error after [LaunchPrefix] to stderr and exits with
// [LaunchFailed]. Otherwise it returns at once. Call it first in a main,
// or in a TestMain whose test binary is a [Config]'s Launcher (the
// helper-process pattern); only those may, for the same reason as Main.
func LaunchIfAsked() {
	if len(os.Args) < 2 || os.Args[1] != LaunchArg {
		return
	}
	err := Main(os.Args[2:])
	fmt.Fprintln(os.Stderr, LaunchPrefix+err.Error())
	os.Exit(LaunchFailed)
}
