package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// calibrateConf shortens the demo's runs (as demoConf does) and sets no
// scenario's expected value: the runs calibrate them.
const calibrateConf = `*.*.min_duration = 500
*.*.min_query_count = 64
`

// calibrationLine is the console line of a calibrated run.
var calibrationLine = regexp.MustCompile(`(?m)^mlperf-host: calibrated (\w+) (target_qps|target_latency) = ([0-9.]+) \(probe: [^)]+\)$`)

// TestDemoCalibrates runs each scenario of the demo benchmark with no
// expected value of the user's: the run probes the plugin, says what it
// chose, and runs with it. Whatever the machine's speed, the verdict must
// follow the measurements and the exit code the verdict (assertVerdict),
// and the logs show the value chosen.
func TestDemoCalibrates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ scenario, key string }{
		{"Offline", "target_qps"}, {"SingleStream", "target_latency"}, {"MultiStream", "target_latency"}, {"Server", "target_qps"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			conf := filepath.Join(dir, "calibrate.conf")
			require.NoError(t, os.WriteFile(conf, []byte(calibrateConf), 0o644))
			r := mlperfHost(t, dir, "run", "--scenario", tc.scenario, "--out", "logs", "--plugin", onnxPlugin(t), "--user-conf", conf,
				"--set", wazeroCache(), "--set", "calibrate.probe_time=250ms")
			m := calibrationLine.FindStringSubmatch(r.stderr)
			require.NotNil(t, m, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Equal(t, tc.scenario, m[1])
			assert.Equal(t, tc.key, m[2])
			assertVerdict(t, r, filepath.Join(dir, "logs"))
			detail, err := os.ReadFile(filepath.Join(dir, "logs", "mlperf_log_detail.txt"))
			require.NoError(t, err)
			assert.Contains(t, string(detail), "mlperf-host calibrated "+tc.scenario+" "+tc.key+" = "+m[3])
			assert.NoDirExists(t, filepath.Join(dir, "logs", "calibration"), "the probes leave no logs")

			// The user's value wins: no probe.
			r = mlperfHost(t, dir, "run", "--scenario", tc.scenario, "--out", "logs2", "--plugin", onnxPlugin(t), "--user-conf", conf,
				"--set", wazeroCache(), "--set", "settings."+tc.key+"="+m[3])
			assert.NotRegexp(t, calibrationLine, r.stderr)
			assertVerdict(t, r, filepath.Join(dir, "logs2"))
		})
	}
}
