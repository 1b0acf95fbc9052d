package loadgen

// System call numbers the syscall package lacks on linux/amd64.
const (
	sysSchedSetattr = 314
	sysSchedGetattr = 315
)
