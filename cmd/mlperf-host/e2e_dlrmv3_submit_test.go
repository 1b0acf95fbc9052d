package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv3"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// dlrmv3SubmitConf: a Server run long enough for early stopping (1000
// queries at 200 QPS, as auditsConf's, under a bound of 1 s that a busy
// machine meets), the others a handful of queries.
const dlrmv3SubmitConf = `*.*.min_duration = 0
*.*.min_query_count = 8
*.Offline.target_qps = 1
dlrm-v3.Server.target_qps = 200
dlrm-v3.Server.min_query_count = 1000
dlrm-v3.Server.target_latency = 1000
`

// TestDLRMv3SubmitEndToEnd submits a closed datacenter dlrm-v3 tree as a
// vendor would, on the streaming fixture of TestBenchmarksEndToEnd:
// Server and Offline, each with its accuracy run and TEST08.
func TestDLRMv3SubmitEndToEnd(t *testing.T) {
	t.Parallel()
	plugins, _ := onnxOrt(t)
	model, err := filepath.Abs(filepath.Join("testdata", "benchmarks", "dlrmv3-signature.onnx"))
	require.NoError(t, err)
	dir := auditsDir(t, "dlrm-v3")
	// Predictions near 1/2 on the right side of it: every candidate
	// right, every request's AUC 1, NE about 0.91: the closed targets
	// (DLRM_NE >= 0.866, DLRM_ACC >= 0.6958, DLRM_AUC >= 0.7858) met.
	require.NoError(t, dlrmv3.WriteStreaming(filepath.Join(dir, "data", dlrmv3.SampledDir), 10, [][]dlrmv3.Slot{
		dlrmv3Requester([]int64{540, 474, 543}, []float32{4, 2, 5}),
		dlrmv3Requester([]int64{477, 546}, []float32{1, 3.5}),
		dlrmv3Requester([]int64{480, 549, 483, 552, 486}, []float32{3, 4, 1, 5, 2}),
	}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(dlrmv3SubmitConf), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "calibration.md"), []byte("# Calibration\n\nFP32 as trained.\n"), 0o644))
	args := []string{"submit", "--submission", "sub", "--benchmark", "dlrm-v3", "--dataset", "data", "--model", model,
		"--plugin", "onnx-ort", "--plugin-dirs", plugins, "--user-conf", "user.conf", "--set", "category=datacenter",
		"--set", "calibration=calibration.md"}
	r := mlperfHost(t, dir, append(args, submitTreeFlags("closed")...)...)
	// Three requests reach none of the round's sample counts nor its
	// 600 s: the tree's check says so, and only so.
	require.Equal(t, exitcode.SubmissionInvalid, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	res := filepath.Join(dir, "sub", "closed", "acme", "results", "box", "dlrm-v3")
	for _, sc := range []string{"Server", "Offline"} {
		assert.Contains(t, r.stderr, sc+" TEST08: TEST PASS")
		verdict, err := os.ReadFile(filepath.Join(res, sc, "TEST08", "verify_accuracy.txt"))
		require.NoError(t, err)
		golden(t, "dlrmv3_test08_"+strings.ToLower(sc), string(verdict))
		audit, err := os.ReadFile(filepath.Join(res, sc, "TEST08", "audit.config"))
		require.NoError(t, err)
		assert.Contains(t, string(audit), "*.*.accuracy_log_sampling_target = 4096\n")
		assert.FileExists(t, filepath.Join(res, sc, "TEST08", "accuracy", "mlperf_log_accuracy.json"))
		assert.FileExists(t, filepath.Join(res, sc, "TEST08", "performance", "run_1", "mlperf_log_detail.txt"))
	}
	problems := checkedProblems(t, dir)
	require.Len(t, problems, 2)
	for sc, ps := range problems {
		require.NotEmpty(t, ps, sc)
		for _, p := range ps {
			assert.Regexp(t, `\((performance_sample_count_check|min_query_count_check|min_duration_check|dataset_check)\)$`, p, sc)
		}
	}
}
