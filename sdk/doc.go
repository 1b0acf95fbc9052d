// Package sdk is what an inference vendor imports to serve a backend to
// mlperf-host. A vendor implements [Backend] and calls [Serve] from main for
// a subprocess plugin, or [Register] from init for a WASM reactor; the same
// backend source builds either way.
//
// The SDK owns the transport: version negotiation, (de)serialization, buffer
// management and panic recovery. A vendor never imports wazero, gRPC or
// go-plugin.
//
// Package sdk imports only the standard library and abi; it must never
// import host, loadgen, cmd or any plugin.
package sdk
