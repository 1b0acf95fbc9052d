// Package sdk is what an inference vendor imports to serve a backend to
// mlperf-host. A vendor implements [Backend] and calls [Serve] from main for
// a subprocess plugin, or [Register] from init for a WASM reactor; the same
// backend source builds either way.
//
// The SDK owns the transport: version negotiation, (de)serialization, buffer
// management and panic recovery. A vendor never imports wazero, gRPC or
// go-plugin.
//
// Of this module, package sdk imports only abi (abi/backendv1grpc only in
// its native files); it must never import host, loadgen, cmd or any
// plugin. Of third-party code it imports protobuf, and in its native
// (non-wasip1) files go-plugin, go-hclog and gRPC: a WASM guest links
// neither gRPC nor go-plugin (internal/archtest checks both builds).
package sdk
