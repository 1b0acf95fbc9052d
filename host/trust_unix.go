//go:build unix

package host

import (
	"fmt"
	"os"
	"syscall"
)

// unsafeMode says why a plugin file is unsafe: writable by every user (a
// directory with the sticky bit excepted), or owned by another user than
// the one running the host (root excepted). Group-writable files are the
// norm where every user has a group of their own, and are not reported.
func unsafeMode(st os.FileInfo) string {
	mode := st.Mode().Perm()
	if mode&0o002 != 0 && (!st.IsDir() || st.Mode()&os.ModeSticky == 0) {
		return fmt.Sprintf("writable by every user (mode %04o): anyone could replace the plugin", mode)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		if uid := int(sys.Uid); uid != 0 && uid != os.Getuid() {
			return fmt.Sprintf("owned by another user (uid %d), who could replace the plugin", uid)
		}
	}
	return ""
}
