// Package conformance checks an installed plugin at run time, through the
// same host.Backend a benchmark run uses: what `mlperf-host plugins check
// NAME` runs. It complements sdk/sdktest (a Go test suite vendors run on
// their backend value) by checking the built artifact as the host sees it:
// handshake and ABI version, Info, Load, sample loading, every id completed
// exactly once for single samples, batches larger than MaxBatch and
// concurrent queries, deterministic outputs, Flush, a bad sample index
// failing one sample without killing the plugin, and a clean Close.
//
// Package conformance imports host and abi; it must never import loadgen,
// sdk, plugins or cmd.
package conformance
