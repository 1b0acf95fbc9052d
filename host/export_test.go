package host

import "testing"

// GoGuestModule exposes the Go guest fixture to the external test package
// (the benchmarks).
func GoGuestModule(tb testing.TB) []byte { return goGuestModule(tb) }

// WASMCacheDir exposes the tests' shared compilation cache.
func WASMCacheDir() string { return wasmCache() }
