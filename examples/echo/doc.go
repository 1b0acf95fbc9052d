// Package echo is the null backend of mlperf-host: it completes each
// sample with the sample's own bytes (or with nothing when the LoadGen does
// not want the output). It measures the harness and its transports without
// any inference, and it is the plugin the host's tests and benchmarks run,
// in process, as a WASM module and as a subprocess (cmd/echo builds both).
//
// It also misbehaves on request, for failure tests: the "fault" option of
// Load picks a fault ([Faults] lists them) and "fault_after" the number of
// samples served normally before it strikes. The "service_time" option
// makes every Infer call last at least that long, which, with "max_batch"
// and "max_in_flight", caps its speed: tests of a run's minimum duration
// use it to get runs whose length has a floor on any machine.
//
// Package echo imports only the standard library, sdk and abi; it must
// never import host, loadgen, cmd or a plugin.
package echo
