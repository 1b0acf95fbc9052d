//go:build linux || darwin

package ortnn

import (
	"context"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

var libraryFlag = flag.String("ort.library", filepath.Join("..", "..", "..", "third_party", "ort", DefaultLibrary),
	"libonnxruntime for the tests (make ort fetches it)")

func runtime(t *testing.T) *Runtime {
	t.Helper()
	if _, err := os.Stat(*libraryFlag); err != nil {
		t.Skipf("ONNX Runtime library not found at %s (%v): run `make ort`, or pass -ort.library=PATH", *libraryFlag, err)
	}
	r, err := New(Config{Library: *libraryFlag})
	require.NoError(t, err)
	return r
}

// pattern is a batch of n [1, 28, 28] uint8 images.
func pattern(n int) ([]int64, []byte) {
	b := make([]byte, n*28*28)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return []int64{int64(n), 1, 28, 28}, b
}

// TestRuntimeMatchesGoEngine runs the Fashion-MNIST CNN through the
// service and through the Go engine on the same batch.
func TestRuntimeMatchesGoEngine(t *testing.T) {
	t.Parallel()
	r := runtime(t)
	ctx := context.Background()
	g, err := r.Load(ctx, fashionmnist.Model())
	require.NoError(t, err)
	defer g.Close()
	c, err := g.NewContext(ctx)
	require.NoError(t, err)
	dims, in := pattern(3)
	require.NoError(t, c.SetInput(0, Uint8, dims, in))
	require.NoError(t, c.Compute(ctx))
	got, err := c.Output(0)
	require.NoError(t, err)

	s, err := goengine.New().Load(ctx, fashionmnist.Model(), engine.Options{Threads: 1})
	require.NoError(t, err)
	defer s.Close()
	outs := make([]engine.Tensor, len(s.Outputs()))
	require.NoError(t, s.Run(ctx, []engine.Tensor{{Name: s.Inputs()[0].Name, DType: engine.Uint8, Shape: dims, Data: in}}, outs))
	want := outs[0].Data
	require.Len(t, got, len(want))
	for i := 0; i < len(want); i += 4 {
		w := math.Float32frombits(binary.LittleEndian.Uint32(want[i:]))
		v := math.Float32frombits(binary.LittleEndian.Uint32(got[i:]))
		assert.InDelta(t, w, v, 1e-3, "output value %d", i/4)
	}

	// A second context runs its own session.
	c2, err := g.NewContext(ctx)
	require.NoError(t, err)
	require.NoError(t, c2.SetInput(0, Uint8, dims, in))
	require.NoError(t, c2.Compute(ctx))
	got2, err := c2.Output(0)
	require.NoError(t, err)
	assert.Equal(t, got, got2)
}

func TestRuntimeErrors(t *testing.T) {
	t.Parallel()
	r := runtime(t)
	ctx := context.Background()
	_, err := r.Load(ctx, []byte("not a model"))
	require.ErrorIs(t, err, ErrInvalidModel)

	g, err := r.Load(ctx, fashionmnist.Model())
	require.NoError(t, err)
	defer g.Close()
	c, err := g.NewContext(ctx)
	require.NoError(t, err)
	dims, in := pattern(1)
	require.ErrorIs(t, c.SetInput(1, Float32, dims, in), ErrNoTensor)
	require.ErrorIs(t, c.SetInput(0, Type(42), dims, in), ErrUnsupported)
	require.ErrorIs(t, c.Compute(ctx), ErrInput, "no input set")
	_, err = c.Output(0)
	require.ErrorIs(t, err, ErrInput, "nothing computed")
	require.NoError(t, c.SetInput(0, Uint8, []int64{1, 1, 28, 27}, in[:28*27]))
	require.ErrorIs(t, c.Compute(ctx), ErrInput, "wrong shape")
	_, err = c.Output(7)
	require.ErrorIs(t, err, ErrNoTensor)
}

// TestRuntimeRefusesExternalData: a guest's model comes as bytes, with
// no directory, so external data must not be read from the host's working
// directory, where ONNX Runtime would look (this package's own source file
// is there).
func TestRuntimeRefusesExternalData(t *testing.T) {
	t.Parallel()
	r := runtime(t)
	m, err := onnxpb.Decode(fashionmnist.Model())
	require.NoError(t, err)
	require.NotEmpty(t, onnxpb.Externalize(m, "ortnn.go", 0))
	_, err = r.Load(context.Background(), onnxpb.Encode(m))
	require.ErrorIs(t, err, ErrInvalidModel)
	assert.Contains(t, err.Error(), `file "ortnn.go": the model came as bytes`)
}

func TestRuntimeWithoutLibrary(t *testing.T) {
	t.Parallel()
	r, err := New(Config{Library: filepath.Join(t.TempDir(), "libonnxruntime.so.1"), Hint: "get it"})
	require.NoError(t, err)
	_, err = r.Load(context.Background(), fashionmnist.Model())
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "get it")
}
