// Package host finds, starts and talks to mlperf-host's backend plugins,
// and hides how each one runs behind one [Backend]:
//
//   - a WASM module (a WASI reactor), run sandboxed in this process by
//     wazero: no filesystem, no network, capped memory, a pool of
//     single-threaded instances;
//   - a subprocess, started and supervised through hashicorp/go-plugin over
//     gRPC: crash isolation for native accelerator drivers.
//
// Both speak ABI v1 (package abi). The host negotiates the version, checks
// every WASM export's signature, routes completions back to a [Handler]
// without allocating per sample, and turns every way a plugin can fail (a
// trap, a panic, an endless loop, memory past its cap, malformed frames,
// unknown ids, a crash, a stall, a version mismatch) into an error that names
// the plugin and what it did, delivered through [Backend.Err] and
// [Backend.Done] while the host keeps running.
//
// Plugins are found by name in plugin directories, each described by a
// manifest (package manifest), or opened by path: [Resolve], then [Open].
//
// Package host imports abi and third-party transports (wazero, go-plugin,
// gRPC) only; it must never import loadgen, sdk, plugins or cmd, and it
// never touches process state (environment, signals, stdout, exit).
package host
