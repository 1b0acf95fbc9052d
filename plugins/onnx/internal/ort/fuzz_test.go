//go:build linux || darwin

package ort

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// FuzzLoad feeds arbitrary bytes to ONNX Runtime as a model: Load must
// fail with a classified error or give a session that runs (or fails
// cleanly) on zero inputs and closes. A crash here is a crash of ONNX
// Runtime's parser or kernels: the native plugin runs as a subprocess, so
// it would take down the plugin, not the host. The seed corpus is in
// testdata/fuzz/FuzzLoad plus the plugin's fixture models.
func FuzzLoad(f *testing.F) {
	if ms, err := filepath.Glob(filepath.Join(opsDir, "*", "model.onnx")); err == nil {
		for _, p := range ms {
			if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	e := newEngine(f)
	f.Fuzz(func(t *testing.T, model []byte) {
		ctx := context.Background()
		s, err := e.Load(ctx, model, engine.Options{Threads: 1, MaxBatch: 2})
		if err != nil {
			if !errors.Is(err, engine.ErrInvalidModel) && !errors.Is(err, engine.ErrUnsupported) {
				t.Fatalf("unclassified load error: %v", err)
			}
			return
		}
		defer s.Close()
		if in, ok := zeroInputs(s, 1<<16); ok {
			_ = s.Run(ctx, in, make([]engine.Tensor, len(s.Outputs())))
		}
	})
}
