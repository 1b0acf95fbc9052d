package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

var (
	simOnce sync.Once
	simErr  error
)

// installSimDevice builds the simulated accelerator beside the echo
// plugin (one plugin directory holds both) and returns that directory.
func installSimDevice(t *testing.T) string {
	t.Helper()
	plugins := installEcho(t)
	simOnce.Do(func() {
		_, simErr = installPluginErr(filepath.Dir(binary), "simdevice", "../../examples/simdevice/cmd/simdevice",
			"../../examples/simdevice/plugins/simdevice/plugin.json")
	})
	require.NoError(t, simErr)
	return plugins
}

// poolConf keeps a simdevice pool's Offline run short: about 3300
// samples, which two members at their default cost run in a few ms.
const poolConf = `*.*.min_duration = 300
*.Offline.target_qps = 10000
*.Server.target_qps = 200
*.Server.target_latency = 1000
`

func poolArgs(t *testing.T, dir string) []string {
	t.Helper()
	conf := filepath.Join(dir, "pool.conf")
	require.NoError(t, os.WriteFile(conf, []byte(poolConf), 0o644))
	return []string{"--plugin-dirs", installSimDevice(t), "--user-conf", conf, "--out", "logs"}
}

// poolMembers reads the per-member entries of a detail log.
func poolMembers(t *testing.T, logs string) (members []map[string]any, started []map[string]any) {
	t.Helper()
	f, err := os.Open(filepath.Join(logs, "mlperf_log_detail.txt"))
	require.NoError(t, err)
	defer f.Close()
	log, err := mllog.Parse(f)
	require.NoError(t, err)
	for _, r := range log.Records {
		switch r.Key {
		case "sut_pool_member":
			var m map[string]any
			require.NoError(t, json.Unmarshal(r.Value, &m))
			members = append(members, m)
		case "sut_pool_members":
			require.NoError(t, json.Unmarshal(r.Value, &started))
		}
	}
	return members, started
}

// TestPoolRun: two simulated devices, one faster, run as one SUT from the
// command line; the summary, the detail log and the console give each
// member's share and latencies, and the shares add up to the run's
// samples.
func TestPoolRun(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{"Offline", "Server"} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"run", "--scenario", sc, "--pool", "simdevice,simdevice{batch_per_sample=1us,name=fast}"}, poolArgs(t, dir)...)
			r := mlperfHost(t, dir, args...)
			logs := filepath.Join(dir, "logs")
			assertVerdict(t, r, logs)
			assert.Contains(t, r.stderr, "with a pool of 2 (simdevice#0, fast)")
			assert.Regexp(t, `member simdevice#0\s+simdevice process: \d+ samples`, r.stdout)
			assert.Regexp(t, `member fast\s+simdevice process: \d+ samples`, r.stdout)

			members, started := poolMembers(t, logs)
			require.Len(t, started, 2)
			assert.Equal(t, "fast", started[1]["name"])
			assert.Equal(t, "simdevice", started[1]["plugin"])
			require.Len(t, members, 2)
			var total, share float64
			for _, m := range members {
				total += m["samples"].(float64)
				share += m["share"].(float64)
				lat := m["latency_ns"].(map[string]any)
				assert.LessOrEqual(t, lat["p50"].(float64), lat["p99"].(float64))
			}
			assert.InDelta(t, 1.0, share, 1e-9)
			f, err := os.Open(filepath.Join(logs, "mlperf_log_detail.txt"))
			require.NoError(t, err)
			defer f.Close()
			log, err := mllog.Parse(f)
			require.NoError(t, err)
			count, err := log.Float("result_query_count")
			require.NoError(t, err)
			perQuery, err := log.Float("effective_samples_per_query")
			require.NoError(t, err)
			assert.InDelta(t, count*perQuery, total, 0.5, "the members' samples are the run's")

			summary := readFile(t, logs, "mlperf_log_summary.txt")
			assert.Contains(t, summary, "\nPool Members\n")
			assert.Regexp(t, `fast \(simdevice, process\) : \d+ samples \(\d+\.\d\d%\), 0 failed, p50 `, summary)
		})
	}
}

// TestPoolAccuracy: an accuracy run goes through every member, and the
// accuracy checked is the whole pool's: two correct members pass, and a
// member that answers wrong fails the pool whose other member (the demo's
// onnx model, 88.7% alone) is right.
func TestPoolAccuracy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args func(t *testing.T, dir string) []string
		code exitcode.Code
	}{
		{name: "correct members", code: exitcode.OK, args: func(t *testing.T, dir string) []string {
			return []string{"--pool", "echo,simdevice", "--dataset", identityDataset(t, dir, 400), "--set", "accuracy_output=class-int64"}
		}},
		// echo answers the image's bytes, not its class.
		{name: "one wrong member", code: exitcode.AccuracyBelowTarget, args: func(t *testing.T, _ string) []string {
			return []string{"--pool", onnxPlugin(t) + "{name=onnx},echo", "--set", wazeroCache()}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append(append([]string{"run", "--mode", "accuracy"}, tc.args(t, dir)...), poolArgs(t, dir)...)
			r := mlperfHost(t, dir, args...)
			require.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
			assert.Regexp(t, `member echo#\d\s+echo process: [1-9]\d* samples`, r.stdout)
			assert.NotRegexp(t, `member \S+\s+\S+ \S+: 0 samples`, r.stdout, "every member answered some samples")
			if tc.code == exitcode.OK {
				assert.Contains(t, r.stdout, "accuracy=100.000%, good=400, total=400")
			} else {
				assert.Contains(t, r.stderr, "does not reach the target")
			}
		})
	}
}

// TestPoolMemberFails: a member that dies mid-run ends the run at once,
// exit 7 naming the member and what it did; the other member is closed
// cleanly and no plugin process is left.
func TestPoolMemberFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins, entry := privateEcho(t, dir)
	args := append([]string{"run", "--scenario", "Offline", "--plugin-dirs", plugins, "--out", "logs",
		"--pool", "echo{name=good},echo{name=doomed,fault=exit,fault_after=2000}"}, fast(t, dir)...)
	r := mlperfHost(t, dir, args...)
	require.Equal(t, exitcode.PluginFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
	assert.Contains(t, tail(r.stderr), `pool "pool": member 1 "doomed" failed: plugin "echo"`)
	assert.Contains(t, tail(r.stderr), "exit status 3")
	assert.Contains(t, readFile(t, filepath.Join(dir, "logs"), "mlperf_log_summary.txt"), "Result is : INVALID")
	assertNoProcess(t, entry)
}

// TestPoolBadMember: a member the run cannot use stops it before
// anything runs, naming the member, and closes the members opened before.
func TestPoolBadMember(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, pool string
		code       exitcode.Code
		want       string
	}{
		{"option the plugin does not declare", "simdevice,simdevice{slotz=4}", exitcode.Config,
			`member "simdevice#1": unknown option "slotz" (did you mean slots?)`},
		{"plugin not found", "simdevice{name=good},nosuch", exitcode.PluginNotFound, `pool member 1 "nosuch#1": `},
		{"option out of range", "simdevice{slots=0}", exitcode.PluginFailed, `pool "pool": member 0 "simdevice#0" failed: load: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"run", "--pool", tc.pool}, poolArgs(t, dir)...)
			r := mlperfHost(t, dir, args...)
			require.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
			assert.Contains(t, r.stderr, tc.want)
		})
	}
}

// TestPoolFromFile: a pool written as a list of tables in a YAML file,
// each member with its own options and name.
func TestPoolFromFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "pool.yaml")
	require.NoError(t, os.WriteFile(conf, []byte(`pool:
  - {plugin: simdevice, name: slow, options: {batch_per_sample: 6us}}
  - plugin: simdevice
    name: quick
host:
  pool_depth: 128
`), 0o644))
	r := mlperfHost(t, dir, append([]string{"run", "--config", conf}, poolArgs(t, dir)...)...)
	assertVerdict(t, r, filepath.Join(dir, "logs"))
	assert.Contains(t, r.stderr, "with a pool of 2 (slow, quick)")
	assert.Regexp(t, `member slow\s+simdevice process: \d+ samples`, r.stdout)
	assert.Regexp(t, `member quick\s+simdevice process: \d+ samples`, r.stdout)
}
