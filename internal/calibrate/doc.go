// Package calibrate decides the machine-dependent expected values of a
// run (Offline target_qps, SingleStream and MultiStream target_latency,
// Server target_qps) from short untimed probe runs: how long to probe, how
// to read a probe's measurement, what value to choose with which safety
// margin, and, for Server, the search for the highest rate that meets the
// latency bound.
//
// Package calibrate runs nothing itself: the caller (package runner)
// passes a [Prober] that makes one probe run against the system under
// test. Its decisions are pure functions of the measurements, so that
// they are tested without a machine's speed entering the test.
//
// Package calibrate imports only the standard library; it must never
// import host, loadgen, sdk, plugins or cmd.
package calibrate
