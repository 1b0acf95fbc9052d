package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// publishedTree is a published v5.1 submission tree of the developers'
// shared directory (../shared/real-submissions), skipping the test where
// it is absent.
func publishedTree(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "real-submissions", "trees", name))
	require.NoError(t, err)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("published submission %s not here: the developers' shared directory holds it", name)
	}
	return dir
}

// TestCheckPublished checks a published tree as a user would: every
// result accepted with the metric the official checker's summary prints,
// as JSON too; a warning of mlperf-host's own rules refuses nothing
// unless --strict.
func TestCheckPublished(t *testing.T) {
	t.Parallel()
	tree := publishedTree(t, "nvidia-b200-llm")
	dir := t.TempDir()
	r := mlperfHost(t, dir, "submit", "--check-only", "--round", "v5.1", "--submission", tree)
	require.Equal(t, exitcode.OK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "4 results: 4 accepted, 0 refused")

	r = mlperfHost(t, dir, "submit", "--check-only", "--json", "--round", "v5.1", "--submission", tree)
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	var out struct {
		Results []struct {
			Result, Scenario, Unit string
			Metric                 float64
			Accepted               bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Len(t, out.Results, 4)
	got := map[string]float64{}
	for _, res := range out.Results {
		assert.True(t, res.Accepted, res.Result)
		got[res.Scenario] = res.Metric
		assert.Equal(t, "tokens/s", res.Unit, res.Result)
	}
	assert.InDelta(t, 59545.4, got["Interactive"], 1e-6)

	// A PerformanceOnly log in an accuracy directory: the official checker
	// takes it, mlperf-host warns, and refuses it when strict.
	lenovo := publishedTree(t, "lenovo-se100-edge")
	copied := filepath.Join(dir, "lenovo")
	require.NoError(t, os.CopyFS(copied, os.DirFS(lenovo)))
	acc := filepath.Join(copied, "closed/Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT/resnet50/Offline/accuracy/mlperf_log_detail.txt")
	b, err := os.ReadFile(acc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(acc, []byte(strings.Replace(string(b), `"effective_test_mode", "value": "AccuracyOnly"`, `"effective_test_mode", "value": "PerformanceOnly"`, 1)), 0o644))
	r = mlperfHost(t, dir, "submit", "--check-only", "--round", "v5.1", "--submission", copied)
	require.Equal(t, exitcode.OK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, `warning: closed/Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT/resnet50/Offline/accuracy/mlperf_log_detail.txt: effective_test_mode is "PerformanceOnly"`)
	r = mlperfHost(t, dir, "submit", "--check-only", "--strict", "--round", "v5.1", "--submission", copied)
	assert.Equal(t, exitcode.SubmissionInvalid, r.code)
	assert.Contains(t, r.stdout, "5 results: 4 accepted, 1 refused")
}
