// Command onnx serves the onnx backend (plugins/onnx/backend) as an
// mlperf-host plugin. The same source builds both ways:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o onnx.wasm ./plugins/onnx/cmd/onnx # WASM (the embedded default)
//	go run ./plugins/onnx/internal/kernels/wasmsimd/link onnx.wasm                         # ... with its SIMD kernels linked in
//	go build -o onnx ./plugins/onnx/cmd/onnx                                                 # subprocess
//
// The WASM build runs sandboxed, with no filesystem and no native code. Its
// default engine is wasinn: the model runs in the host's inference engine
// through the WASI-NN import (in mlperf-host, ONNX Runtime, when its
// library is found), while batching and the responses stay in the guest;
// when the host has none, the go engine runs it in the sandbox, with a
// warning. Its kernels are WebAssembly SIMD128 code
// that the link step adds to the module (make embed-onnx does both
// steps); a module built with -tags purego has the portable Go kernels
// and needs no link step. The subprocess build adds the ONNX
// Runtime engine ("--set onnx.engine=ort"), which binds libonnxruntime at
// run time (`make ort` fetches it). The installed native plugin is
// onnx-ort (../onnx-ort): the same backend with ONNX Runtime by default.
package main

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/backend"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// A WASM reactor runs init and never main; in a native build Register
// does nothing.
func init() { sdk.Register(newBackend()) }

func main() { sdk.Serve(newBackend()) }

// newBackend is the backend over this build's engines, with its default.
func newBackend() *backend.Backend {
	b, err := backend.NewWithConfig(setup(), engines()...)
	if err != nil {
		panic(err) // setup names an engine of engines: a build error
	}
	return b
}
