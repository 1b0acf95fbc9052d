//go:build unix

package host

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// checkSocketDir refuses a plugin socket whose directory another user may
// enter or that another user owns: whoever can reach the socket could
// stand in for the plugin and receive the data set, or could have
// replaced it. The SDK's serve mode creates a 0700 directory of its own.
func checkSocketDir(socket string) error {
	dir := filepath.Dir(socket)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("socket directory %s is open to other users (mode %04o): serve the plugin with this SDK's -serve, which uses a 0700 directory", dir, perm)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("socket directory %s belongs to another user (uid %d)", dir, sys.Uid)
	}
	return nil
}
