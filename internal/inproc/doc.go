// Package inproc serves an sdk.Backend in this process behind
// host.Backend, through the SDK's own [sdk.Server] and session: queries
// split into Infer calls of at most MaxBatch samples on MaxInFlight
// workers, every id completed exactly once, panics and broken promises
// reported as the SDK reports them to every transport. With no transport
// between host and SDK, it is the baseline of the host's transport
// benchmarks (`make bench-host`): each other row's cost minus this one is
// the transport's.
//
// Package inproc imports host, sdk and abi; nothing but tests and
// benchmarks may import it.
package inproc
