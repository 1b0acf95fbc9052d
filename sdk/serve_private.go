//go:build !wasip1

package sdk

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/hashicorp/go-plugin"
)

// privateServe prepares serve mode: a random token every call must carry
// (printed in the reattach line, for the host) and a directory only this
// user can enter (0700, whatever the umask) for go-plugin's socket, which
// cleanup removes. Serve mode runs as main: it sets go-plugin's socket
// directory variable for this process.
func privateServe() (token string, cleanup func(), err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("token: %w", err)
	}
	dir, err := os.MkdirTemp("", "mlperf-host-plugin")
	if err != nil {
		return "", nil, fmt.Errorf("socket directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("socket directory: %w", err)
	}
	if err := os.Setenv(plugin.EnvUnixSocketDir, dir); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("socket directory: %w", err)
	}
	return hex.EncodeToString(b), func() { os.RemoveAll(dir) }, nil
}
