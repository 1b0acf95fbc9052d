package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// TestWasiNN runs the demo's accuracy test on the embedded onnx plugin
// (built and linked as make build does) with the host's wasi-nn engine:
// the plugin's default engine, wasinn, hands the model to ONNX Runtime
// through the host and keeps batching and responses in the sandbox. The
// accuracy is ONNX Runtime's; with wasi-nn off the go engine runs the
// model and says why.
func TestWasiNN(t *testing.T) {
	t.Parallel()
	_, lib := onnxOrt(t)
	if lib == "" {
		t.Skip("ONNX Runtime not found in third_party/ort: run `make ort`")
	}
	args := []string{"run", "--plugin", onnxPlugin(t), "--mode", "accuracy", "--out", "logs", "--set", wazeroCache(),
		"--set", "host.log_level=info", "--set", "host.wasi_nn_library=" + lib}
	tests := []struct {
		name       string
		set        []string
		want, miss []string
	}{
		{name: "ort", want: []string{"onnx: the wasinn engine runs the model"}, miss: []string{"unavailable"}},
		{name: "off", set: []string{"--set", "host.wasi_nn=off"},
			want: []string{"this host has no wasi-nn engine configured", "the wasinn engine is unavailable; the go engine runs the model instead",
				"onnx: the go engine runs the model"}, miss: []string{"level=WARN"}},
		{name: "missing library", set: []string{"--set", "host.wasi_nn_library=" + filepath.Join(t.TempDir(), "libonnxruntime.so.1")},
			want: []string{"run `make ort`, then `make build`", "onnx: the go engine runs the model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mlperfHost(t, t.TempDir(), append(args, tt.set...)...)
			require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "accuracy=88.700%, good=887, total=1000")
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
			for _, m := range tt.miss {
				assert.NotContains(t, r.stderr, m)
			}
		})
	}
}
