//go:build linux

package host

import (
	"os"
	"os/exec"
)

// verifiedCommand returns the command that starts the open entry file f
// itself: the child receives it as descriptor 3 and executes
// /proc/self/fd/3, so that the program that runs is the file the host
// opened and verified even if the path was replaced since. argv[0] is the
// entry's path; os.Executable in the plugin still names the file. The
// plugin inherits descriptor 3 (read-only, its own executable).
//
// Without /proc the command names the path, as elsewhere.
func verifiedCommand(f *os.File, path string) *exec.Cmd {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return exec.Command(path)
	}
	cmd := exec.Command("/proc/self/fd/3")
	cmd.Args[0] = path
	cmd.ExtraFiles = []*os.File{f}
	return cmd
}
