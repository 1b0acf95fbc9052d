//go:build linux || darwin

package ort

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// TestLoadErrors checks that models ONNX Runtime rejects, and bad
// options, fail Load with the engine's sentinels and ONNX Runtime's
// message.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	x := []onnxpb.ValueInfo{onnxpb.TensorInfo("x", onnxpb.Float, -1, 3)}
	y := []onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.Float, -1, 3)}
	relu := []onnxpb.Node{node("Relu", []string{"x"}, []string{"y"})}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		model    []byte
		opts     engine.Options
		target   error
		code     ErrorCode // the ONNX Runtime status code, when ONNX Runtime decided
		mentions string
	}{
		{name: "not protobuf", model: []byte("this is not a model"), target: engine.ErrInvalidModel, code: CodeInvalidProtobuf, mentions: "protobuf parsing failed"},
		{name: "empty", model: nil, target: engine.ErrInvalidModel, mentions: "empty model"},
		{name: "missing input", model: graphModel(13, []onnxpb.Node{node("Add", []string{"x", "nope"}, []string{"y"})}, nil, x, y),
			target: engine.ErrInvalidModel, code: CodeInvalidArgument, mentions: "'nope'"},
		{name: "cycle", model: graphModel(13, []onnxpb.Node{node("Add", []string{"x", "z"}, []string{"y"}), node("Relu", []string{"y"}, []string{"z"})}, nil, x, y),
			target: engine.ErrInvalidModel, code: CodeFail, mentions: "not acyclic"},
		{name: "type mismatch", model: graphModel(13, []onnxpb.Node{node("Add", []string{"x", "i"}, []string{"y"})},
			[]onnxpb.Tensor{onnxpb.Int64Tensor("i", []int64{1}, []int64{1})}, x, y), target: engine.ErrInvalidModel, code: CodeFail, mentions: "bound to different types"},
		{name: "unknown attribute", model: graphModel(13, []onnxpb.Node{node("Relu", []string{"x"}, []string{"y"}, onnxpb.IntAttr("bogus", 1))}, nil, x, y),
			target: engine.ErrInvalidModel, code: CodeInvalidGraph, mentions: "bogus"},
		{name: "unknown operator", model: graphModel(13, []onnxpb.Node{node("Frobnicate", []string{"x"}, []string{"y"})}, nil, x, y),
			target: engine.ErrUnsupported, code: CodeInvalidGraph, mentions: "No Op registered for Frobnicate"},
		{name: "operator version without kernel", model: graphModel(1, relu, nil, x, y),
			target: engine.ErrUnsupported, code: CodeNotImplemented, mentions: "Relu(1)"},
		{name: "future opset", model: graphModel(99, relu, nil, x, y), target: engine.ErrUnsupported, code: CodeFail, mentions: "Opset 99"},
		{name: "future IR version", model: onnxpb.Encode(&onnxpb.Model{IRVersion: 99, Opsets: []onnxpb.Opset{{Version: 13}}, HasGraph: true,
			Graph: onnxpb.Graph{Name: "g", Nodes: relu, Inputs: x, Outputs: y}}), target: engine.ErrUnsupported, code: CodeFail, mentions: "IR version: 99"},
		{name: "double input", model: graphModel(13, relu, nil, []onnxpb.ValueInfo{onnxpb.TensorInfo("x", onnxpb.DataType(11), 3)},
			[]onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.DataType(11), 3)}), target: engine.ErrUnsupported, mentions: `input "x": unsupported by engine: element type double`},
		{name: "bad optimization option", model: linearModel(), opts: engine.Options{Extra: map[string]string{OptOptimization: "max"}}, mentions: "ort_optimization"},
		{name: "bad inter-op option", model: linearModel(), opts: engine.Options{Extra: map[string]string{OptInterOpThreads: "0"}}, mentions: "ort_inter_op_threads"},
		{name: "negative threads", model: linearModel(), opts: engine.Options{Threads: -1}, mentions: "threads -1"},
		{name: "canceled", ctx: canceled, model: linearModel(), target: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			s, err := e.Load(ctx, tt.model, tt.opts)
			require.Error(t, err)
			assert.Nil(t, s)
			if tt.target != nil {
				require.ErrorIs(t, err, tt.target)
			}
			var st *StatusError
			if tt.code != 0 {
				require.ErrorAs(t, err, &st)
				assert.Equal(t, tt.code, st.Code)
			} else {
				assert.NotErrorAs(t, err, &st)
			}
			assert.Contains(t, err.Error(), tt.mentions)
		})
	}
}

// TestMissingLibrary checks that a library that is not there gives an
// error that says how to get it, and that the engine still loads the
// library once it is given.
func TestMissingLibrary(t *testing.T) {
	t.Parallel()
	// This test needs no library, except for the last step.
	missing := filepath.Join(t.TempDir(), DefaultLibrary)
	tests := []struct {
		name string
		new  func() (*Engine, engine.Options)
	}{
		{name: "config path", new: func() (*Engine, engine.Options) {
			e, err := NewWithConfig(Config{Library: missing})
			require.NoError(t, err)
			return e, engine.Options{}
		}},
		{name: "option path", new: func() (*Engine, engine.Options) {
			return New(), engine.Options{Extra: map[string]string{OptLibrary: missing}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, opts := tt.new()
			_, err := e.Load(context.Background(), linearModel(), opts)
			require.ErrorIs(t, err, ErrLibrary)
			require.ErrorIs(t, err, engine.ErrUnavailable, "a backend may fall back to another engine")
			var le *LibraryError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, missing, le.Path)
			assert.Contains(t, err.Error(), "make ort")
			assert.Contains(t, err.Error(), "--set onnx.ort_library=")
			assert.Contains(t, err.Error(), "No such file")

			opts.Extra = map[string]string{OptLibrary: needLibrary(t)}
			s, err := e.Load(context.Background(), linearModel(), opts)
			require.NoError(t, err)
			require.NoError(t, s.Close())
		})
	}
}

// TestMissingLibraryHint: a plugin installed under another name gives its
// own fix instead of the onnx plugin's.
func TestMissingLibraryHint(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), DefaultLibrary)
	e, err := NewWithConfig(Config{Library: missing, Hint: "run `make ort && make build`"})
	require.NoError(t, err)
	_, err = e.Load(context.Background(), linearModel(), engine.Options{})
	require.ErrorIs(t, err, engine.ErrUnavailable)
	assert.Contains(t, err.Error(), missing)
	assert.True(t, strings.HasSuffix(err.Error(), "; run `make ort && make build`"), err.Error())
	assert.NotContains(t, err.Error(), "--set onnx.")
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	require.NoError(t, Config{}.Validate())
	_, err := NewWithConfig(Config{Library: string(make([]byte, 5000))})
	require.Error(t, err)
	_, err = NewWithConfig(Config{Hint: string(make([]byte, 5000))})
	require.Error(t, err)
	assert.Equal(t, "ort", New().Name())
}
