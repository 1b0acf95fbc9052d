//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/testcerts"
)

// TestServeRemote: `serve` serves the echo plugin over mutual TLS on a
// loopback port; `run --remote` runs the benchmark through it with a
// certificate of the server's CA, and is refused with a clear error with
// one of another CA (the server logs why); the next run gets a fresh
// plugin. Interrupted, serve exits 0 and leaves no plugin process.
func TestServeRemote(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins, entry := privateEcho(t, dir)
	ca, other := testcerts.NewCA(t, dir, "ca"), testcerts.NewCA(t, dir, "other")
	valid := time.Now().Add(time.Hour)
	server, client := ca.Issue(t, dir, "server", valid), ca.Issue(t, dir, "client", valid)
	stranger := other.Issue(t, dir, "stranger", valid)

	srv := startHost(t, dir, nil, "serve", "--plugin-dirs", plugins, "--plugin", "echo", "--listen", "127.0.0.1:0",
		"--ca", server.CA, "--cert", server.Cert, "--key", server.Key)
	srv.waitStderr(t, "serving plugin echo")
	m := regexp.MustCompile(`serving plugin echo \S+ on (127\.0\.0\.1:\d+)`).FindStringSubmatch(srv.errb.String())
	require.Len(t, m, 2, srv.errb.String())
	addr := m[1]

	conf := filepath.Join(dir, "remote.conf")
	require.NoError(t, os.WriteFile(conf, []byte(poolConf), 0o644)) // a short Offline run
	remote := func(f testcerts.Files, out string) []string {
		return []string{"run", "--scenario", "Offline", "--remote", addr, "--out", out, "--user-conf", conf,
			"--set", "remote.ca=" + f.CA, "--set", "remote.cert=" + f.Cert, "--set", "remote.key=" + f.Key}
	}
	r := mlperfHost(t, dir, remote(client, "logs")...)
	assertVerdict(t, r, filepath.Join(dir, "logs"))
	assert.Regexp(t, `plugin\s+echo \S+ \(remote, `, r.stdout)
	assert.Contains(t, r.stderr, "Offline (performance) with the plugin served at "+addr)

	// A host the server's CA did not sign: its certificate is one the
	// server does not name, so Go's client offers none.
	stranger.CA = ca.Path
	r = mlperfHost(t, dir, remote(stranger, "refused")...)
	require.Equal(t, exitcode.PluginFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
	assert.Contains(t, r.stderr, `plugin "remote `+addr+`": remote `+addr+": failed to start: cannot connect over mutual TLS")
	srv.waitStderr(t, "remote plugin: refused a connection")
	_, err := os.Stat(filepath.Join(dir, "refused", "mlperf_log_detail.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing ran")

	// The next run gets a fresh plugin (the first one's keeps its model).
	r = mlperfHost(t, dir, remote(client, "again")...)
	assertVerdict(t, r, filepath.Join(dir, "again"))
	srv.waitStderr(t, "a fresh plugin echo serves the next run")

	srv.signal(t, os.Interrupt)
	done := srv.wait(t)
	assert.Equal(t, 0, int(done.code), tail(done.stderr))
	assertNoProcess(t, entry)
}

// TestPoolRemoteMember: a pool of a local echo and one served over mutual
// TLS, each answering its share; the remote member's transport says so.
func TestPoolRemoteMember(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins, _ := privateEcho(t, dir)
	ca := testcerts.NewCA(t, dir, "ca")
	valid := time.Now().Add(time.Hour)
	server, client := ca.Issue(t, dir, "server", valid), ca.Issue(t, dir, "client", valid)
	srv := startHost(t, dir, nil, "serve", "--plugin-dirs", plugins, "--plugin", "echo", "--listen", "127.0.0.1:0",
		"--ca", server.CA, "--cert", server.Cert, "--key", server.Key)
	srv.waitStderr(t, "serving plugin echo")
	m := regexp.MustCompile(`serving plugin echo \S+ on (127\.0\.0\.1:\d+)`).FindStringSubmatch(srv.errb.String())
	require.Len(t, m, 2, srv.errb.String())

	conf := filepath.Join(dir, "remote.conf")
	require.NoError(t, os.WriteFile(conf, []byte(poolConf), 0o644))
	r := mlperfHost(t, dir, "run", "--scenario", "Offline", "--plugin-dirs", plugins, "--out", "logs", "--user-conf", conf,
		"--pool", "echo{name=here},@"+m[1]+"{name=there}",
		"--set", "remote.ca="+client.CA, "--set", "remote.cert="+client.Cert, "--set", "remote.key="+client.Key)
	assertVerdict(t, r, filepath.Join(dir, "logs"))
	assert.Contains(t, r.stderr, "with a pool of 2 (here, there)")
	assert.Regexp(t, `member here\s+echo process: \d+ samples`, r.stdout)
	assert.Regexp(t, `member there\s+echo remote: \d+ samples`, r.stdout)
}

// TestServeRemoteNetworkDivision: with remote.network_division=1 an
// accuracy run through a served echo plugin gets every answer right (the
// plugin has each sample only through its query) and the detail log says
// the run is in the Network division; without a remote plugin the key is
// a config error.
func TestServeRemoteNetworkDivision(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins, _ := privateEcho(t, dir)
	srv := startHost(t, dir, nil, "serve", "--plugin-dirs", plugins, "--plugin", "echo", "--listen", "127.0.0.1:0", "--insecure-loopback")
	srv.waitStderr(t, "serving plugin echo")
	m := regexp.MustCompile(`serving plugin echo \S+ on (127\.0\.0\.1:\d+)`).FindStringSubmatch(srv.errb.String())
	require.Len(t, m, 2, srv.errb.String())

	conf := filepath.Join(dir, "remote.conf")
	require.NoError(t, os.WriteFile(conf, []byte(poolConf), 0o644))
	args := []string{"run", "--mode", "accuracy", "--scenario", "Offline", "--user-conf", conf, "--out", "logs",
		"--dataset", identityDataset(t, dir, 200), "--set", "accuracy_output=class-int64", "--set", "remote.network_division=1"}
	r := mlperfHost(t, dir, append(args, "--remote", m[1], "--set", "remote.insecure_loopback=1")...)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
	assert.Contains(t, r.stdout, "accuracy=100.000%, good=200, total=200")
	detail, err := os.ReadFile(filepath.Join(dir, "logs", "mlperf_log_detail.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(detail), `"key": "generic_message", "value": "network division: the LoadGen node sends each query's sample data`)

	r = mlperfHost(t, dir, append(args, "--plugin-dirs", plugins, "--plugin", "echo")...)
	assert.Equal(t, exitcode.Config, r.code, tail(r.stderr))
	assert.Contains(t, r.stderr, "remote.network_division=1 without a remote plugin")

	// The network division itself asks for sample data in the timed path.
	r = mlperfHost(t, dir, "run", "--plugin-dirs", plugins, "--plugin", "echo", "--set", "division=network", "--out", "logs")
	assert.Equal(t, exitcode.Config, r.code, tail(r.stderr))
	assert.Contains(t, r.stderr, "division=network without remote.network_division=1")
}
