// Package sdktest is the conformance kit for mlperf-host backends: a plugin
// author runs it from go test on the backend value,
//
//	func TestConformance(t *testing.T) { sdktest.Run(t, mybackend.New()) }
//
// and it drives the backend through the same [sdk.Server] and dispatcher
// that [sdk.Serve] and [sdk.Register] put behind their transports, so it
// tests what ships, watching every call the SDK makes into the backend
// ([sdk.ServerConfig.Observe]). It checks the lifecycle order, that every
// sample id is completed exactly once (single samples, multi-sample
// queries split at MaxBatch, concurrent queries up to MaxInFlight,
// one-sample queries back to back as the Server scenario sends them), that
// no call goes past MaxBatch samples (or units of a [sdk.BatchSizer]), that
// with a BatchTimeout no short batch leaves before its oldest sample has
// waited it, that a [sdk.Submitter] is called through Submit, that every
// sample reaches the backend with the bytes and tensors (names, dtypes,
// shapes) it was loaded with and is never written to, flush semantics,
// and the handling of bad input (an empty query, an unknown sample index,
// unloaded samples, a bad model when the backend has one, an unknown
// option when it declares an option schema). Give it samples of named
// tensors with [TensorSamples] (or your own) and Config.Model.Inputs. Run
// it with -race: the concurrent queries then find data races in the
// backend.
//
// Package sdktest imports sdk, abi and testify; it must never import
// host, loadgen, cmd or a plugin.
package sdktest
