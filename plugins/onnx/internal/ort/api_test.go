//go:build linux || darwin

package ort

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// OrtApi entries the engine does not call, used here to check the
// neighbourhood of the ones it does (numbered as in onnxruntime_c_api.h).
const (
	apiSetOptimizedModelFilePath apiIndex = 11
	apiMemoryInfoGetName         apiIndex = 71
	apiMemoryInfoGetID           apiIndex = 72
	apiMemoryInfoGetMemType      apiIndex = 73
	apiMemoryInfoGetType         apiIndex = 74
)

// TestLoadAPI checks the library and the table it serves.
func TestLoadAPI(t *testing.T) {
	t.Parallel()
	l := needAPI(t)
	assert.Equal(t, Version, l.version)
	assert.NotZero(t, l.api.fn(apiReleaseSessionOptions))
}

// TestStatusEntries checks CreateStatus (0), GetErrorCode (1),
// GetErrorMessage (2) and ReleaseStatus (93): a status made with a code
// and message reads back as the same *StatusError.
func TestStatusEntries(t *testing.T) {
	t.Parallel()
	l := needAPI(t)
	tests := []struct {
		name string
		code ErrorCode
		msg  string
	}{
		{name: "fail", code: CodeFail, msg: "something failed"},
		{name: "invalid argument", code: CodeInvalidArgument, msg: "bad argument"},
		{name: "not implemented", code: CodeNotImplemented, msg: "no kernel"},
		{name: "empty message", code: CodeInvalidGraph, msg: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg := cString(tt.msg)
			st := l.api.call(apiCreateStatus, uintptr(tt.code), uintptr(unsafe.Pointer(&msg[0])))
			require.NotZero(t, st)
			err := l.api.takeStatus(st)
			var se *StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.code, se.Code)
			assert.Equal(t, tt.msg, se.Message)
			assert.Contains(t, err.Error(), tt.code.String())
		})
	}
}

// TestMemoryInfoEntries checks CreateCpuMemoryInfo (69) against the
// MemoryInfoGet* entries after it (71-74) and ReleaseMemoryInfo (94).
func TestMemoryInfoEntries(t *testing.T) {
	t.Parallel()
	l := needAPI(t)
	var mem, name, id, memType, allocType uintptr
	require.NoError(t, l.api.status(apiCreateCPUMemoryInfo, arenaAllocator, memTypeDefault, uintptr(unsafe.Pointer(&mem))))
	defer l.api.release(apiReleaseMemoryInfo, mem)
	require.NoError(t, l.api.status(apiMemoryInfoGetName, mem, uintptr(unsafe.Pointer(&name))))
	require.NoError(t, l.api.status(apiMemoryInfoGetID, mem, uintptr(unsafe.Pointer(&id))))
	require.NoError(t, l.api.status(apiMemoryInfoGetMemType, mem, uintptr(unsafe.Pointer(&memType))))
	require.NoError(t, l.api.status(apiMemoryInfoGetType, mem, uintptr(unsafe.Pointer(&allocType))))
	assert.Equal(t, "Cpu", goString(name))
	assert.Equal(t, int32(0), int32(id))
	assert.Equal(t, int32(memTypeDefault), int32(memType))
	assert.Equal(t, int32(arenaAllocator), int32(allocType))
}

// convBNRelu is Conv → BatchNormalization → Relu on a [1,2,5,5] input:
// ONNX Runtime folds the BatchNormalization at level basic and fuses the
// Relu into the Conv at level extended.
func convBNRelu() []byte {
	ones := func(name string, dims ...int64) onnxpb.Tensor {
		n := 1
		for _, d := range dims {
			n *= int(d)
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = 1 + float32(i)/8
		}
		return onnxpb.FloatTensor(name, dims, v)
	}
	return graphModel(13,
		[]onnxpb.Node{
			node("Conv", []string{"x", "w", "b"}, []string{"c"}, onnxpb.IntsAttr("pads", 1, 1, 1, 1)),
			node("BatchNormalization", []string{"c", "scale", "bias", "mean", "var"}, []string{"n"}),
			node("Relu", []string{"n"}, []string{"y"}),
		},
		[]onnxpb.Tensor{ones("w", 3, 2, 3, 3), ones("b", 3), ones("scale", 3), ones("bias", 3), ones("mean", 3), ones("var", 3)},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("x", onnxpb.Float, 1, 2, 5, 5)},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.Float, 1, 3, 5, 5)})
}

// TestOptimizationLevelEntry checks SetSessionGraphOptimizationLevel (23)
// and the OptOptimization values through the model ONNX Runtime writes
// after optimizing (SetOptimizedModelFilePath, 11).
func TestOptimizationLevelEntry(t *testing.T) {
	t.Parallel()
	l := needAPI(t)
	require.NoError(t, l.acquire())
	t.Cleanup(l.releaseRef)
	m := convBNRelu()
	optimized := func(t *testing.T, level string) []onnxpb.Node {
		lv, err := optimizationLevel(level)
		require.NoError(t, err)
		var opts, sess uintptr
		require.NoError(t, l.api.status(apiCreateSessionOptions, uintptr(unsafe.Pointer(&opts))))
		defer l.api.release(apiReleaseSessionOptions, opts)
		path := filepath.Join(t.TempDir(), "optimized.onnx")
		cpath := cString(path)
		require.NoError(t, l.api.status(apiSetSessionGraphOptimizationLevel, opts, lv))
		require.NoError(t, l.api.status(apiSetOptimizedModelFilePath, opts, uintptr(unsafe.Pointer(&cpath[0]))))
		require.NoError(t, l.api.status(apiCreateSessionFromArray, l.env, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), opts,
			uintptr(unsafe.Pointer(&sess))))
		l.api.release(apiReleaseSession, sess)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		om, err := onnxpb.Decode(b)
		require.NoError(t, err)
		return om.Graph.Nodes
	}
	ops := func(nodes []onnxpb.Node) []string {
		var out []string
		for _, n := range nodes {
			out = append(out, n.OpType)
		}
		return out
	}
	tests := []struct {
		name  string
		level string
		want  []string
	}{
		{name: "disable keeps every node", level: "disable", want: []string{"Conv", "BatchNormalization", "Relu"}},
		{name: "basic folds BatchNormalization", level: "basic", want: []string{"Conv", "Relu"}},
		{name: "extended fuses Relu", level: "extended", want: []string{"FusedConv"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ops(optimized(t, tt.level)))
		})
	}
}
