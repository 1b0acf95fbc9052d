package accel

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

func TestOpenLibraryNamesWhatWasTried(t *testing.T) {
	t.Parallel()
	_, err := OpenLibrary("tensorrt", "libcudart", []string{"/nonexistent/a.so", "/nonexistent/b.so"}, "install it")
	require.ErrorIs(t, err, ErrRuntimeMissing)
	var le *LibraryError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, []string{"/nonexistent/a.so", "/nonexistent/b.so"}, le.Tried)
	assert.Regexp(t, `^tensorrt: cannot load libcudart \(tried /nonexistent/a.so, /nonexistent/b.so\): .*; install it$`, err.Error())
	assert.Equal(t, abi.FailedPrecondition, sdk.CodeOf(err))
}

func TestHealthKeepsTheFirstFailure(t *testing.T) {
	t.Parallel()
	var h Health
	h.Init("qaic", "device", 3)
	assert.False(t, h.Failed())
	first := h.Fail(errors.New("dma error"))
	second := h.Fail(errors.New("later"))
	assert.True(t, h.Failed())
	assert.Same(t, first, second, "a device fails once")
	assert.Same(t, first, h.Err())
	assert.Equal(t, "qaic: device 3 failed: dma error", first.Error())
	assert.Equal(t, abi.Unavailable, sdk.CodeOf(first))
	assert.Same(t, first, h.Fail(first), "a DeviceError passes through")

	var fresh Health
	fresh.Init("tensorrt", "CUDA device", 1)
	assert.Equal(t, "tensorrt: CUDA device 1 failed: failed", fresh.Err().Error())
}
