//go:build linux && !amd64 && !arm64

package loadgen

// Elsewhere the issuer's thread keeps its time slice (tuneThread skips it).
const (
	sysSchedSetattr = 0
	sysSchedGetattr = 0
)
