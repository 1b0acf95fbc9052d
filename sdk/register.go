//go:build !wasip1

package sdk

// Register installs b behind the WASM exports of ABI v1 when the program
// is built for GOOS=wasip1; on other platforms it does nothing, and main
// calls [Serve]. Together they let one source build both ways:
//
//	func init() { sdk.Register(echo.New()) } // WASM reactor: main never runs
//	func main() { sdk.Serve(echo.New()) }    // subprocess
func Register(Backend) {}
