//go:build unix

package sdk

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// TestMapSharedOnlyItsDirectory: the SDK maps a host's file in its
// shared-memory directory and refuses, in the same words whether the file
// exists or not, any other path a request names: a secret elsewhere, a
// link in the directory to it, a file without a host's name, a path that
// climbs out, a directory.
func TestMapSharedOnlyItsDirectory(t *testing.T) {
	t.Parallel()
	shm, other := t.TempDir(), t.TempDir()
	secret := filepath.Join(other, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("private bytes"), 0o600))
	good := filepath.Join(shm, abi.SharedMemoryPrefix+"arena-1")
	require.NoError(t, os.WriteFile(good, []byte("sample bytes"), 0o600))
	link := filepath.Join(shm, abi.SharedMemoryPrefix+"arena-link")
	require.NoError(t, os.Symlink(secret, link))
	plain := filepath.Join(shm, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("x"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(shm, abi.SharedMemoryPrefix+"dir"), 0o700))

	data, release, err := mapArena(shm, good, 6)
	require.NoError(t, err)
	assert.Equal(t, "sample", string(data))
	release()

	const refused = "not a file of this plugin's shared-memory directory"
	for _, tt := range []struct{ name, dir, path string }{
		{name: "elsewhere", dir: shm, path: secret},
		{name: "system file", dir: shm, path: "/etc/passwd"},
		{name: "link to elsewhere", dir: shm, path: link},
		{name: "no host name", dir: shm, path: plain},
		{name: "climbs out", dir: shm, path: filepath.Join(shm, "..", filepath.Base(other), "secret")},
		{name: "missing", dir: shm, path: filepath.Join(shm, abi.SharedMemoryPrefix+"arena-none")},
		{name: "directory", dir: shm, path: filepath.Join(shm, abi.SharedMemoryPrefix+"dir")},
		{name: "relative", dir: shm, path: abi.SharedMemoryPrefix + "arena-1"},
		{name: "no directory", dir: "", path: good},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := mapArena(tt.dir, tt.path, 1)
			require.Error(t, err)
			assert.Contains(t, err.Error(), refused)
			assert.NotContains(t, err.Error(), tt.path, "the error names no server path")
			_, _, err = mapRing(tt.dir, tt.path, 1)
			assert.ErrorContains(t, err, refused)
		})
	}

	// Through the gRPC service, as a caller names the file.
	g := newGRPCBackend(NewServer(nil, ServerConfig{SharedArena: true, SharedMemoryDir: shm}))
	resp, err := g.LoadSamples(t.Context(), &backendv1.LoadSamplesRequest{Arena: &backendv1.Arena{Path: secret, Size: 4},
		Samples: []*backendv1.SampleRef{{Index: 0, Length: 4}}})
	require.NoError(t, err)
	assert.Equal(t, uint32(abi.InvalidArgument), resp.GetStatus().GetCode())
	assert.Contains(t, resp.GetStatus().GetMessage(), refused)
}
