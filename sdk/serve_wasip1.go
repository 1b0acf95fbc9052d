//go:build wasip1

package sdk

import (
	"fmt"
	"os"
)

// Serve is for subprocess plugins. In a WASM module, main runs only when
// the module was built as a command rather than a reactor: Serve then says
// how to build it and exits with status 1.
func Serve(Backend) {
	fmt.Fprintln(os.Stderr, "this WASM module was built as a command: build it as a reactor "+
		"(GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared) so that the host can call the exports sdk.Register installs")
	os.Exit(1)
}
