// Package runner turns mlperf-host's effective configuration into a run:
// LoadGen TestSettings from the config layers, the data set and the plugin,
// and drives the LoadGen against the plugin through package bridge.
//
// Package runner touches no process state (no environment, signals,
// stdout or exit): cmd/mlperf-host passes writers and the context.
//
// Package runner may import loadgen, host, abi and mlperf-host's internal
// packages; it must never import sdk, plugins (other than the bundled
// demo data) or cmd.
package runner
