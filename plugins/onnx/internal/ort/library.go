//go:build linux || darwin

package ort

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// Version is the ONNX Runtime release the engine is written and tested
// against; `make ort` fetches it.
const Version = "1.30.0"

// The C enum values passed to ONNX Runtime.
const (
	loggingLevelFatal = 4 // ORT_LOGGING_LEVEL_FATAL
	arenaAllocator    = 1 // OrtArenaAllocator
	memTypeDefault    = 0 // OrtMemTypeDefault
	onnxTypeTensor    = 1 // ONNX_TYPE_TENSOR
	executionSeq      = 0 // ORT_SEQUENTIAL
	executionParallel = 1 // ORT_PARALLEL
)

// library is one loaded libonnxruntime: its OrtApi table and, while
// sessions use it, the OrtEnv and CPU memory info they share.
//
// The library is never unloaded: ONNX Runtime keeps process-wide state
// (thread-local storage, static objects) that dlclose would leave
// dangling. The environment is created by the first session and released
// with the last one.
type library struct {
	path    string
	api     api
	version string

	mu    sync.Mutex
	refs  int
	env   uintptr // OrtEnv*
	mem   uintptr // OrtMemoryInfo* describing CPU memory
	alloc uintptr // OrtAllocator* (ONNX Runtime's default; never released)
}

// openLibrary dlopens path and loads its OrtApi table.
func openLibrary(path string) (*library, error) {
	lib, err := native.Open([]string{path})
	if err != nil {
		return nil, &LibraryError{Path: path, Err: err}
	}
	a, version, err := loadAPI(lib.Handle())
	if err != nil {
		return nil, &LibraryError{Path: path, Err: err}
	}
	return &library{path: path, api: a, version: version}, nil
}

// acquire takes a reference on the environment, creating it (with the CPU
// memory info and the default allocator) for the first one.
func (l *library) acquire() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs > 0 {
		l.refs++
		return nil
	}
	logID := cString("mlperf-host")
	var env, mem, alloc uintptr
	if err := l.api.status(apiCreateEnv, loggingLevelFatal, uintptr(unsafe.Pointer(&logID[0])), uintptr(unsafe.Pointer(&env))); err != nil {
		return fmt.Errorf("create environment: %w", err)
	}
	if err := l.api.status(apiCreateCPUMemoryInfo, arenaAllocator, memTypeDefault, uintptr(unsafe.Pointer(&mem))); err != nil {
		l.api.release(apiReleaseEnv, env)
		return fmt.Errorf("create cpu memory info: %w", err)
	}
	if err := l.api.status(apiGetAllocatorWithDefaultOptions, uintptr(unsafe.Pointer(&alloc))); err != nil {
		l.api.release(apiReleaseMemoryInfo, mem)
		l.api.release(apiReleaseEnv, env)
		return fmt.Errorf("get default allocator: %w", err)
	}
	l.env, l.mem, l.alloc, l.refs = env, mem, alloc, 1
	return nil
}

// releaseRef drops a reference; the last one releases the environment.
func (l *library) releaseRef() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refs--
	if l.refs > 0 {
		return
	}
	l.api.release(apiReleaseMemoryInfo, l.mem)
	l.api.release(apiReleaseEnv, l.env)
	l.env, l.mem, l.alloc = 0, 0, 0
}

// allocFree frees memory ONNX Runtime allocated with the default
// allocator (names returned by SessionGet*Name).
func (l *library) allocFree(p uintptr) {
	if p != 0 {
		_ = l.api.status(apiAllocatorFree, l.alloc, p)
	}
}
