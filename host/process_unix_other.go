//go:build unix && !linux

package host

import "syscall"

// setDeathSignal does nothing: only Linux has Pdeathsig. The host's
// health pings and the plugin's own parent check cover the rest.
func setDeathSignal(*syscall.SysProcAttr) {}
