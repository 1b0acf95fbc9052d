// Package sdktest is the conformance kit for mlperf-host backends: a plugin
// author runs it from go test on the backend value,
//
//	func TestConformance(t *testing.T) { sdktest.Run(t, mybackend.New()) }
//
// and it drives the backend through the same [sdk.Server] and dispatcher
// that [sdk.Serve] and [sdk.Register] put behind their transports, so it
// tests what ships. It checks the lifecycle order, that every sample id is
// completed exactly once (single samples, multi-sample queries split at
// MaxBatch, concurrent queries up to MaxInFlight), flush semantics, and
// the handling of bad input (an empty query, an unknown sample index,
// unloaded samples, a bad model when the backend has one). Run it with
// -race: the concurrent queries then find data races in the backend.
//
// Package sdktest imports sdk, abi and testify; it must never import
// host, loadgen, cmd or a plugin.
package sdktest
