package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// reportRuns copies the report's fixture runs (detail logs of real runs
// of the demo benchmark) into dir.
func reportRuns(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join("..", "..", "internal", "report", "testdata", "runs")
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
}

func TestReportCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code exitcode.Code
		// out is the page the command writes (relative to the directory it
		// runs in), "" for none.
		out    string
		stdout string
		stderr string
	}{
		{name: "one run", args: []string{"onnx-offline"}, out: "onnx-offline/report.html",
			stdout: "wrote onnx-offline/report.html (fashion-mnist Offline on onnx (onnx-offline), 0 traced samples)\n"},
		{name: "two plugins", args: []string{"onnx-offline", "onnx-ort-offline"}, out: "compare.html",
			stdout: "wrote compare.html (2 runs compared)\n"},
		{name: "scenarios differ: a warning", args: []string{"--html", "mixed.html", "onnx-ort-singlestream", "onnx-ort-multistream"},
			out: "mixed.html", stdout: "wrote mixed.html (2 runs compared)\n",
			stderr: "mlperf-host: warning: the runs are of different scenarios (onnx-ort-singlestream: SingleStream, onnx-ort-multistream: MultiStream): their numbers do not measure the same thing\n"},
		{name: "an accuracy run cannot be compared", args: []string{"onnx-offline", "onnx-ort-accuracy"}, code: exitcode.Usage,
			stderr: "has no performance results (effective_test_mode AccuracyOnly)"},
		{name: "no such run", args: []string{"onnx-offline", "nothing"}, code: exitcode.Dataset, stderr: "mlperf_log_detail.txt"},
		{name: "no run", code: exitcode.Usage, stderr: "want the log directory of a run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			reportRuns(t, dir)
			r := mlperfHost(t, dir, append([]string{"report"}, tt.args...)...)
			require.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			if tt.stdout != "" {
				assert.Equal(t, tt.stdout, r.stdout)
			}
			if tt.code == exitcode.OK {
				assert.Equal(t, tt.stderr, r.stderr)
			} else {
				assert.Contains(t, r.stderr, tt.stderr)
				assert.NoFileExists(t, filepath.Join(dir, "compare.html"), "no page from a failed comparison")
			}
			if tt.out != "" {
				page, err := os.ReadFile(filepath.Join(dir, tt.out))
				require.NoError(t, err)
				assert.NotContains(t, string(page), dir, "the page names runs by their directories' base names")
			}
		})
	}
}
