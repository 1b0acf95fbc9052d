//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
	"github.com/mlperf-host/mlperf-host/host"
)

// TestServeModeAuthenticated: a plugin the SDK serves for reattachment
// (-serve), even under umask 000, listens in a directory only its user can
// enter and answers only the host holding the token it printed; the
// directory goes when it stops.
func TestServeModeAuthenticated(t *testing.T) {
	t.Parallel()
	_, entry := privateEcho(t, t.TempDir())
	cmd := exec.Command("/bin/sh", "-c", `umask 000; exec "$0" -serve`, entry)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	rc, err := host.ParseReattachConfig([]byte(line))
	require.NoError(t, err, "the line carries a token: %s", line)
	require.Equal(t, "unix", rc.Network)

	dir := filepath.Dir(rc.Address)
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "whatever the umask")

	conn, err := grpc.NewClient("unix://"+rc.Address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	_, err = backendv1grpc.NewBackendClient(conn).Info(t.Context(), &backendv1.InfoRequest{})
	assert.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)

	b, err := host.Reattach(t.Context(), rc, host.Config{})
	require.NoError(t, err)
	assert.Equal(t, "echo", b.Info().Name)
	require.NoError(t, b.Close())

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("the plugin exited after SIGTERM: %v", err)
	case <-time.After(30 * time.Second):
		require.FailNow(t, "the plugin did not stop")
	}
	assert.NoDirExists(t, dir, "the socket directory is removed")
}
