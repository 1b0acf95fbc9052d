// Command link links the onnx plugin's SIMD kernels (package wasmsimd)
// into a WASM module built by the Go toolchain for GOOS=wasip1, in place
// or into -o:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o onnx.wasm ./plugins/onnx/cmd/onnx
//	go run ./plugins/onnx/internal/kernels/wasmsimd/link onnx.wasm
//
// A module that imports no kernel is left as it is.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mlperf-host/mlperf-host/plugins/internal/wasmlink"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels/wasmsimd"
)

func main() {
	out := flag.String("o", "", "write the linked module here instead of over the input")
	flag.Usage = func() {
		_, _ = fmt.Fprintln(flag.CommandLine.Output(), "usage: link [-o out.wasm] module.wasm")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "link:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	if out == "" {
		out = in
	}
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	linked, err := wasmlink.Link(b, wasmsimd.Module(), wasmsimd.ImportModule)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	return os.WriteFile(out, linked, 0o644)
}
