package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// TestPluginsDescribeAndOptions: a v1.2 plugin's option schema, printed
// by `plugins describe` and enforced before Load, per scenario.
func TestPluginsDescribeAndOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins := installEcho(t)

	r := mlperfHost(t, dir, "plugins", "describe", "echo", "--plugin-dirs", plugins)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	for _, want := range []string{"plugin         echo 0.1.0", "abi            v1.4", "max batch      256",
		"options (--set echo.NAME=VALUE, or echo.SCENARIO.NAME for one scenario)"} {
		assert.Contains(t, r.stdout, want)
	}
	assert.Regexp(t, `\n  fault\s+enum\s+none\s+misbehave on purpose, for failure tests \(duplicate-id, error, .*\)\n`, r.stdout)
	assert.Regexp(t, `\n  max_batch\s+uint\s+-\s+samples per Infer call`, r.stdout)

	// A misspelt option of the Server scenario's own fails a Server run
	// before Load, naming where it came from and what was meant; an
	// Offline run never sees it.
	args := append([]string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--set", "echo.Server.max_bach=4"}, fast(t, dir)...)
	r = mlperfHost(t, dir, append(args, "--scenario", "Server", "--out", "server")...)
	require.Equal(t, exitcode.Config, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, `options.echo.Server.max_bach = "4" (flag --set echo.Server.max_bach=4): unknown option "max_bach" (did you mean max_batch?)`)
	assert.Contains(t, r.stderr, "plugins describe echo")
	r = mlperfHost(t, dir, append(args, "--scenario", "Offline", "--out", "offline")...)
	assertVerdict(t, r, filepath.Join(dir, "offline"))
}
