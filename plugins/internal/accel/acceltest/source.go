package acceltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// ModelSource describes a plugin for [ModelSource.Test].
type ModelSource struct {
	// Option is the plugin option that names a model file, e.g. "engine".
	Option string
	// Model is a model that echoes samples of SampleSize bytes.
	Model      []byte
	SampleSize int
	// New returns an unloaded backend on a fresh fake runtime.
	New func(t *testing.T) sdk.Backend
	// Nothing is in Load's error when the host sends no model.
	Nothing string
	// NotLoaded is the backend's error for Infer before a good Load.
	NotLoaded error
}

// Test checks where Load takes the model from: the option's file, else
// the model's path, else its bytes (a host may send a benchmark's bundled
// model as bytes, which the option must override); and that a failed Load
// leaves the backend unloaded.
func (c ModelSource) Test(t *testing.T) {
	file := filepath.Join(t.TempDir(), "model.bin")
	require.NoError(t, os.WriteFile(file, c.Model, 0o600))
	garbage := []byte("an onnx model")
	tests := []struct {
		name    string
		model   sdk.Model
		wantErr string
	}{
		{name: "option over bytes", model: sdk.Model{Bytes: garbage, Options: map[string]string{c.Option: file}}},
		{name: "option over path", model: sdk.Model{Path: "/nonexistent/other", Options: map[string]string{c.Option: file}}},
		{name: "path over bytes", model: sdk.Model{Path: file, Bytes: garbage}},
		{name: "bytes alone", model: sdk.Model{Bytes: c.Model}},
		{name: "missing file", model: sdk.Model{Path: "/nonexistent/model"}, wantErr: "/nonexistent/model"},
		{name: "nothing", model: sdk.Model{}, wantErr: c.Nothing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := c.New(t)
			t.Cleanup(func() { _ = b.Close() })
			err := b.Load(t.Context(), tt.model)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.ErrorIs(t, b.Infer(t.Context(), Query(Seq(1), c.SampleSize, true, true), NewRecorder()), c.NotLoaded)
				return
			}
			require.NoError(t, err)
			rec := NewRecorder()
			require.NoError(t, b.Infer(t.Context(), Query(Seq(2), c.SampleSize, true, true), rec))
			out, _, _ := rec.Results()
			assert.Equal(t, SampleBytes(1, c.SampleSize), out[IDBase+1])
		})
	}
}
