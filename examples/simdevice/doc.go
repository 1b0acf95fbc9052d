// Package simdevice is a simulated accelerator for mlperf-host: a batch of
// n samples takes base + per_sample·n on one of its execution slots (a GPU
// copy stream, an AIC exec object), and completes from the device's own
// timers, as a GPU backend's completion threads do. It is the SDK's
// example of an asynchronous backend ([sdk.Submitter]) and of Server
// batching ([sdk.Info.BatchTimeout]), and the plugin `make bench-batching`
// measures the batcher with: no CPU time is spent on inference, so what
// limits it is the batch sizes the SDK forms.
//
// Each sample completes with its own bytes when its output is wanted.
//
// Package simdevice imports only the standard library, sdk and abi; it
// must never import host, loadgen, cmd or a plugin.
package simdevice
