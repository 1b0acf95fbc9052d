// Package benchmarks is mlperf-host's built-in MLPerf Inference benchmark
// table: for each benchmark its model, data set, sizes, latency bound,
// quality target, required scenarios per system category and required
// compliance tests, as the official rules and submission checker state
// them, plus the bundled Fashion-MNIST demo benchmark.
//
// It is the lowest configuration layer: everything in it can be overridden
// by mlperf.conf, user.conf, the config file, the environment and flags.
//
// Package benchmarks imports only the standard library; it must never
// import host, loadgen, sdk, plugins or cmd.
package benchmarks
