// Package abi is the versioned contract between mlperf-host and its backend
// plugins: ABI v1. It holds what both sides must agree on and nothing else:
// version numbers and the handshake, status codes, capability bits, the
// packed hot-path records, and the names of the WASM exports and imports.
// The protobuf messages are in [github.com/mlperf-host/mlperf-host/abi/backendv1]
// and the gRPC service in [github.com/mlperf-host/mlperf-host/abi/backendv1grpc].
//
// docs/abi.md explains the contract to plugin authors who do not write Go.
//
// Package abi imports nothing of mlperf-host's, and builds for
// GOOS=wasip1 GOARCH=wasm: WASM guests link it.
package abi
