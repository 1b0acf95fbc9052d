// Package loadgen is a pure-Go MLPerf Inference LoadGen: it generates the
// queries of the four MLPerf scenarios (SingleStream, MultiStream, Server,
// Offline) against a system under test, times them, decides validity with
// the official rules (minimum duration and query count, latency bounds,
// early stopping) and writes the official logs (mlperf_log_summary.txt,
// mlperf_log_detail.txt, mlperf_log_accuracy.json and, on request,
// mlperf_log_trace.json).
//
// It follows the official C++ LoadGen (mlcommons/inference, loadgen/) field
// for field: the same [TestSettings] and defaults, the same mlperf.conf /
// user.conf / audit.config semantics, the same random streams (std::mt19937
// and libstdc++'s distributions, reproduced bit for bit) so that equal seeds
// give the equal loaded sample sets, sample orders and Poisson schedules,
// the same statistics and the same log formats.
//
// A run is built as data first (the loadable sample sets and every query
// with its scheduled time), then executed: the hot path (issuing a query,
// completing a sample) allocates nothing, latencies are measured from the
// scheduled time, and percentiles are exact.
//
// Package loadgen imports only the standard library. It knows nothing about
// plugins: it must never import host, abi, sdk, plugins or cmd.
package loadgen
