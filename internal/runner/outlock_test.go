package runner

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneRunPerOutDir: a run into a directory another run holds is refused
// naming the holder; once released, the directory is free, and no lock
// file is left among the results.
func TestOneRunPerOutDir(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	out := t.TempDir()
	release, err := lockOutDir(out, "resnet50 Offline performance with plugin trt")
	require.NoError(t, err)

	_, p := oracle(t, nil)
	c := load(t, "out", out, "settings.min_duration", "10")
	_, err = Run(context.Background(), Spec{Config: c, Plugins: p})
	require.ErrorIs(t, err, ErrOutDirBusy)
	assert.ErrorContains(t, err, out+" is held by another run (pid "+strconv.Itoa(os.Getpid())+", started ")
	assert.ErrorContains(t, err, "resnet50 Offline performance with plugin trt)")
	entries, _ := os.ReadDir(out)
	assert.Len(t, entries, 1, "nothing but the holder's lock was written")

	release()
	assert.NoFileExists(t, filepath.Join(out, LockFile))
	o, err := Run(context.Background(), Spec{Config: c, Plugins: p})
	require.NoError(t, err)
	assert.NotContains(t, o.Files, LockFile)
	assert.NoFileExists(t, filepath.Join(out, LockFile))
}
