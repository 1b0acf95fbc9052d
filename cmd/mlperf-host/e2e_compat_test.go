package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/abicompat"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// installRelease builds the echo example as the SDK of release r built it
// into dir/plugins/echo, with its manifest of then, and returns
// dir/plugins; it skips the test without the repository's history.
func installRelease(t *testing.T, dir string, r abicompat.Release) string {
	t.Helper()
	pdir := filepath.Join(dir, "plugins", "echo")
	require.NoError(t, os.MkdirAll(pdir, 0o755))
	err := r.Build(t.Context(), ".", "examples/echo/cmd/echo", filepath.Join(pdir, "echo"))
	if errors.Is(err, abicompat.ErrNoHistory) {
		t.Skipf("cannot build the %s plugin: %v", r.Name(), err)
	}
	require.NoError(t, err)
	m, err := r.ReadFile(t.Context(), ".", "examples/echo/plugins/echo/plugin.json")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(pdir, "plugin.json"), m, 0o644))
	return filepath.Join(dir, "plugins")
}

// TestOlderPluginsStillWork: the echo example as the SDK of every released
// minor built it (from a pinned commit) is described, passes the
// conformance checks and runs with this host.
func TestOlderPluginsStillWork(t *testing.T) {
	t.Parallel()
	for _, rel := range abicompat.Releases() {
		t.Run(rel.Name(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			plugins := installRelease(t, dir, rel)

			r := mlperfHost(t, dir, "plugins", "describe", "echo", "--plugin-dirs", plugins)
			require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, fmt.Sprintf("abi            v1.%d\n", rel.Minor))
			if rel.Minor < 2 {
				assert.Contains(t, r.stdout, "options: the plugin declares none")
			} else { // option schemas came with v1.2
				assert.Contains(t, r.stdout, "options (--set echo.NAME=VALUE")
			}

			r = mlperfHost(t, dir, "plugins", "check", "echo", "--plugin-dirs", plugins)
			require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "plugin echo passes")

			for _, sc := range []string{"Offline", "Server", "SingleStream"} {
				r = mlperfHost(t, dir, append([]string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--scenario", sc,
					"--out", "logs-" + sc}, fast(t, dir)...)...)
				assertVerdict(t, r, filepath.Join(dir, "logs-"+sc))
				assert.Contains(t, r.stdout, "(process, max batch 256, 2 in flight)")
			}
		})
	}
}
