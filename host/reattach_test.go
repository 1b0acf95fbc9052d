//go:build unix

package host

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// TestReattachAuthenticated: a plugin served for reattachment answers
// only calls carrying its token, from a socket in a directory only its
// user may enter; the host refuses a socket others may reach.
func TestReattachAuthenticated(t *testing.T) {
	t.Parallel()
	rc, _ := startServe(t)
	dir := filepath.Dir(rc.Address)
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	// A client without the token (any process of any user that reaches
	// the socket) is refused.
	conn, err := grpc.NewClient("unix://"+rc.Address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	_, err = backendv1grpc.NewBackendClient(conn).Info(t.Context(), &backendv1.InfoRequest{})
	assert.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)

	wrong := rc
	wrong.Token = "ffffffffffffffffffffffffffffffffffffffff"
	_, err = Reattach(t.Context(), wrong, Config{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing or wrong token")

	b, err := Reattach(t.Context(), rc, Config{})
	require.NoError(t, err, "the token opens it")
	require.NoError(t, b.Close())

	require.NoError(t, os.Chmod(dir, 0o755))
	_, err = Reattach(t.Context(), rc, Config{})
	require.ErrorIs(t, err, ErrStart)
	assert.ErrorContains(t, err, "socket directory "+dir+" is open to other users (mode 0755)")
}
