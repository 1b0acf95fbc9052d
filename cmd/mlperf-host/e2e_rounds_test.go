package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// TestRoundsCLI: the round selects the benchmarks; the rules' mistakes
// stop a run before it starts.
func TestRoundsCLI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code exitcode.Code
		want []string
	}{
		{name: "benchmarks of v6.1", args: []string{"benchmarks"}, want: []string{"round v6.1 (LoadGen 6.0.17)", "resnet ", "fashion-mnist "}},
		{name: "benchmarks of v6.0", args: []string{"benchmarks", "--round", "v6.0", "retinanet"}, want: []string{"retinanet", "TEST01"}},
		{name: "a benchmark of another round", args: []string{"run", "--benchmark", "retinanet"}, code: exitcode.Config,
			want: []string{`benchmark = "retinanet" (flag --benchmark): unknown benchmark "retinanet" in round v6.1`}},
		// Uncalibrated: calibration would choose the rate.
		{name: "Server without target_qps", args: []string{"run", "--scenario", "Server", "--calibrate", "off"}, code: exitcode.Config,
			want: []string{"Server has no target_qps of yours", "would run for at least 17m4s", "hint: set the rate your system sustains"}},
		{name: "missing audit.config", args: []string{"run", "--audit-config", "/nonexistent/audit.config"}, code: exitcode.Config,
			want: []string{"audit.config /nonexistent/audit.config"}},
		{name: "not a datacenter benchmark", args: []string{"submit", "--benchmark", "resnet", "--set", "category=datacenter"}, code: exitcode.Config,
			want: []string{"resnet is not a datacenter benchmark in round v6.1", "hint: set category to one the benchmark is part of: edge, datacenter,edge"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mlperfHost(t, t.TempDir(), tt.args...)
			require.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stdout+r.stderr, w)
			}
		})
	}
}

// TestRunAuditConfig: run takes an official audit.config (TEST04's
// settings) and LoadGen applies it, saying so in the detail log; the
// lines of the run's model apply too, as the reference SUTs read them
// (TEST04's wan-2.2-t2v-a14b.Offline.min_query_count), another model's
// do not.
func TestRunAuditConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.config")
	require.NoError(t, os.WriteFile(audit, []byte("*.Offline.mode = 2\n*.Offline.performance_issue_unique = 0\n"+
		"*.Offline.performance_issue_same = 1\n*.Offline.performance_issue_same_index = 3\n"+
		benchmarks.DemoName+".Offline.min_query_count = 77\nresnet50.Offline.min_query_count = 99\n"), 0o644))
	r := mlperfHost(t, dir, append([]string{"run", "--plugin", echoPlugin(t), "--out", "logs", "--audit-config", audit}, fast(t, dir)...)...)
	assertVerdict(t, r, filepath.Join(dir, "logs"))
	detail, err := os.ReadFile(filepath.Join(dir, "logs", "mlperf_log_detail.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(detail), "Found Audit Config file (audit.config)")
	assert.Contains(t, string(detail), `"key": "effective_performance_issue_same", "value": true`)
	assert.Contains(t, string(detail), `"key": "requested_min_query_count", "value": 77`)
}
