// Package inproc serves an sdk.Backend in this process behind
// host.Backend, with the semantics the subprocess and WASM transports
// give it: queries split into Infer calls of at most MaxBatch samples, at
// most MaxInFlight calls at once on a fixed set of workers, every id
// completed exactly once, panics and protocol violations turned into clear
// errors. Tests use it as the reference transport (the same backend driven
// in-process, as WASM and as a subprocess must answer alike) and
// benchmarks as the zero-transport baseline.
//
// Package inproc imports host, sdk and abi; nothing but tests, benchmarks
// and cmd may import it.
package inproc
