//go:build linux || darwin

package ort

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// apiVersion is the OrtApi version requested from OrtGetApiBase: the one
// ONNX Runtime 1.30's header declares. GetApi returns NULL for a version
// the library does not provide, i.e. a library older than 1.30; newer
// libraries keep serving older versions.
const apiVersion = 30

// apiIndex is the position of a function pointer in struct OrtApi
// (onnxruntime_c_api.h). The table only grows: entries never move once a
// version ships, and every entry used here belongs to version 1, the
// block the header marks "DO NOT MODIFY ABOVE".
type apiIndex int

// The OrtApi entries the engine calls, numbered as in the header. Tests
// check each one by behaviour (api_test.go).
const (
	apiCreateStatus                     apiIndex = 0
	apiGetErrorCode                     apiIndex = 1
	apiGetErrorMessage                  apiIndex = 2
	apiCreateEnv                        apiIndex = 3
	apiCreateSessionFromArray           apiIndex = 8
	apiRun                              apiIndex = 9
	apiCreateSessionOptions             apiIndex = 10
	apiSetSessionExecutionMode          apiIndex = 13
	apiSetSessionGraphOptimizationLevel apiIndex = 23
	apiSetIntraOpNumThreads             apiIndex = 24
	apiSetInterOpNumThreads             apiIndex = 25
	apiSessionGetInputCount             apiIndex = 30
	apiSessionGetOutputCount            apiIndex = 31
	apiSessionGetInputTypeInfo          apiIndex = 33
	apiSessionGetOutputTypeInfo         apiIndex = 34
	apiSessionGetInputName              apiIndex = 36
	apiSessionGetOutputName             apiIndex = 37
	apiCreateRunOptions                 apiIndex = 39
	apiRunOptionsSetTerminate           apiIndex = 46
	apiRunOptionsUnsetTerminate         apiIndex = 47
	apiCreateTensorWithDataAsOrtValue   apiIndex = 49
	apiGetTensorMutableData             apiIndex = 51
	apiCastTypeInfoToTensorInfo         apiIndex = 55
	apiGetOnnxTypeFromTypeInfo          apiIndex = 56
	apiGetTensorElementType             apiIndex = 60
	apiGetDimensionsCount               apiIndex = 61
	apiGetDimensions                    apiIndex = 62
	apiGetTensorTypeAndShape            apiIndex = 65
	apiCreateCPUMemoryInfo              apiIndex = 69
	apiAllocatorAlloc                   apiIndex = 75
	apiAllocatorFree                    apiIndex = 76
	apiGetAllocatorWithDefaultOptions   apiIndex = 78
	apiReleaseEnv                       apiIndex = 92
	apiReleaseStatus                    apiIndex = 93
	apiReleaseMemoryInfo                apiIndex = 94
	apiReleaseSession                   apiIndex = 95
	apiReleaseValue                     apiIndex = 96
	apiReleaseRunOptions                apiIndex = 97
	apiReleaseTypeInfo                  apiIndex = 98
	apiReleaseTensorTypeAndShapeInfo    apiIndex = 99
	apiReleaseSessionOptions            apiIndex = 100

	// apiAddSessionConfigEntry is past version 1's block (entries after
	// it never move either: the header appends); a version-30 table has
	// it. api_test.go checks it by its effect on a model with external
	// data.
	apiAddSessionConfigEntry apiIndex = 130

	// apiVersion1Entries is the number of entries in version 1 of the
	// table (the last is ReleaseCustomOpDomain, 101).
	apiVersion1Entries = 102
)

// api is a loaded OrtApi table. Its zero value is not usable.
type api struct {
	table unsafe.Pointer // const OrtApi*
}

// fn returns the function pointer at index i.
func (a api) fn(i apiIndex) uintptr {
	return *(*uintptr)(unsafe.Add(a.table, uintptr(i)*unsafe.Sizeof(uintptr(0))))
}

// call calls entry i and returns its result register.
//
// The go:uintptrescapes directive makes the compiler treat uintptr
// arguments converted from pointers as live, heap-allocated pointers for
// the duration of the call, as for purego.SyscallN itself.
//
//go:uintptrescapes
func (a api) call(i apiIndex, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(a.fn(i), args...)
	return r
}

// status calls an entry that returns OrtStatus* and turns a non-NULL
// status into a *StatusError (releasing the status).
//
//go:uintptrescapes
func (a api) status(i apiIndex, args ...uintptr) error {
	r, _, _ := purego.SyscallN(a.fn(i), args...)
	if r == 0 {
		return nil
	}
	return a.takeStatus(r)
}

// takeStatus converts and releases a non-NULL OrtStatus*.
func (a api) takeStatus(st uintptr) error {
	code, _, _ := purego.SyscallN(a.fn(apiGetErrorCode), st)
	msg, _, _ := purego.SyscallN(a.fn(apiGetErrorMessage), st)
	err := &StatusError{Code: ErrorCode(int32(code)), Message: strings.TrimSpace(goString(msg))}
	purego.SyscallN(a.fn(apiReleaseStatus), st)
	return err
}

// release calls a Release* entry on a handle when the handle is not 0.
func (a api) release(i apiIndex, h uintptr) {
	if h != 0 {
		purego.SyscallN(a.fn(i), h)
	}
}

// loadAPI asks the library's OrtGetApiBase for the OrtApi table of
// apiVersion and checks that every entry used here is present.
func loadAPI(lib uintptr) (api, string, error) {
	base, err := native.Dlsym(lib, "OrtGetApiBase")
	if err != nil {
		return api{}, "", fmt.Errorf("find OrtGetApiBase: %w", err)
	}
	// struct OrtApiBase { const OrtApi* (*GetApi)(uint32_t); const char* (*GetVersionString)(void); }
	r, _, _ := purego.SyscallN(base)
	if r == 0 {
		return api{}, "", fmt.Errorf("OrtGetApiBase returned NULL")
	}
	apiBase := uintptrToPointer(r)
	getAPI := *(*uintptr)(apiBase)
	getVersion := *(*uintptr)(unsafe.Add(apiBase, unsafe.Sizeof(uintptr(0))))
	v, _, _ := purego.SyscallN(getVersion)
	version := goString(v)
	t, _, _ := purego.SyscallN(getAPI, apiVersion)
	if t == 0 {
		return api{}, version, fmt.Errorf("library is ONNX Runtime %s, which does not provide OrtApi version %d (ONNX Runtime %s or newer)", version, apiVersion, Version)
	}
	a := api{table: uintptrToPointer(t)}
	for i := apiIndex(0); i < apiVersion1Entries; i++ {
		if a.fn(i) == 0 {
			return api{}, version, fmt.Errorf("ONNX Runtime %s: OrtApi entry %d is NULL", version, i)
		}
	}
	return a, version, nil
}
