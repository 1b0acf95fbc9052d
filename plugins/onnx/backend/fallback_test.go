package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// brokenEngine is an engine named "ort" whose Load always fails with err.
type brokenEngine struct{ err error }

func (e brokenEngine) Name() string { return "ort" }

func (e brokenEngine) Load(context.Context, []byte, engine.Options) (engine.Session, error) {
	return nil, e.err
}

var errNoLibrary = fmt.Errorf("load library %q: not found; run `make ort`: %w", "libonnxruntime.so.1", engine.ErrUnavailable)

// TestDefaultEngineFallback: with engine ort by default and go as the
// fallback, a missing ONNX Runtime loads the model on go with a warning
// that carries the engine's error, unless the options name the engine or
// ort fails for another reason.
func TestDefaultEngineFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fallback string
		ortErr   error
		opts     map[string]string
		loadErr  string // "" when Load succeeds
		warning  bool
	}{
		{name: "unavailable falls back", fallback: "go", ortErr: errNoLibrary, warning: true},
		{name: "named engine never falls back", fallback: "go", ortErr: errNoLibrary, opts: map[string]string{OptEngine: "ort"},
			loadErr: "load model with the ort engine: load library \"libonnxruntime.so.1\": not found; run `make ort`"},
		{name: "other errors do not fall back", fallback: "go", ortErr: fmt.Errorf("bad graph: %w", engine.ErrInvalidModel),
			loadErr: "load model with the ort engine: bad graph"},
		{name: "no fallback configured", ortErr: errNoLibrary, loadErr: "make ort"},
		{name: "go named explicitly", fallback: "go", ortErr: errNoLibrary, opts: map[string]string{OptEngine: "go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := NewWithConfig(Config{Name: "onnx-ort", Engine: "ort", Fallback: tt.fallback},
				goengine.New(), brokenEngine{err: tt.ortErr})
			require.NoError(t, err)
			var log bytes.Buffer
			ctx := sdk.WithLogger(context.Background(), slog.New(slog.NewTextHandler(&log, nil)))
			err = b.Load(ctx, sdk.Model{Bytes: fashionmnist.Model(), Options: tt.opts})
			t.Cleanup(func() { _ = b.Close() })
			if tt.loadErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.loadErr)
				want := abi.Internal
				if errors.Is(tt.ortErr, engine.ErrUnavailable) {
					want = abi.FailedPrecondition // the user can install what is missing
				}
				assert.Equal(t, want, sdk.CodeOf(err))
			} else {
				require.NoError(t, err)
				assert.Equal(t, "go", b.cfg.engine)
				set, err := fashionmnist.Load()
				require.NoError(t, err)
				c := newCompleter()
				require.NoError(t, b.Infer(ctx, sdk.Query{Samples: []sdk.Sample{{ID: 7, Data: set.Images[0], WantOutput: true}}}, c))
				ref, err := fashionmnist.LoadReference()
				require.NoError(t, err)
				assert.Equal(t, ref.Predictions[0], argmax(c.done[7]))
			}
			if tt.warning {
				assert.Contains(t, log.String(), "level=WARN")
				assert.Contains(t, log.String(), "onnx-ort: the ort engine is unavailable; the go engine runs the model instead (--set onnx-ort.engine=ort makes this an error)")
				assert.Contains(t, log.String(), "libonnxruntime.so.1")
				assert.Contains(t, log.String(), "make ort")
			} else {
				assert.NotContains(t, log.String(), "level=WARN")
			}
			if tt.loadErr == "" {
				assert.Contains(t, log.String(), "level=INFO msg=\"onnx-ort: the go engine runs the model\"", "Load says which engine runs")
			}
		})
	}
}

func TestNewWithConfig(t *testing.T) {
	t.Parallel()
	b, err := NewWithConfig(Config{Name: "onnx-ort", Description: "ONNX Runtime on CPU", Engine: "ort", Fallback: "go"},
		goengine.New(), brokenEngine{})
	require.NoError(t, err)
	info := b.Info()
	assert.Equal(t, "onnx-ort", info.Name)
	assert.Equal(t, "ONNX Runtime on CPU (engines: go, ort; default ort, go when ort is unavailable)", info.Description)

	for _, cfg := range []Config{{Engine: "tvm"}, {Engine: "ort", Fallback: "tvm"}} {
		_, err := NewWithConfig(cfg, goengine.New(), brokenEngine{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `engine "tvm": this build has engines go, ort`)
	}
	b, err = NewWithConfig(Config{}, goengine.New())
	require.NoError(t, err)
	assert.Equal(t, New(goengine.New()).Info(), b.Info(), "the zero Config is New's")
	assert.Equal(t, "ONNX models on CPU (engines: go)", b.Info().Description)
}
