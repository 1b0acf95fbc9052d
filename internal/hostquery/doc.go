// Package hostquery issues timed queries of one fixed batch to a
// host.Backend and waits for all their completions: the driver the WASM
// benchmarks (internal/wasmcompare, internal/nnort's BenchmarkQuery)
// share.
//
// Package hostquery imports host and abi only; benchmarks and tools import
// it, never the binary's code.
package hostquery
