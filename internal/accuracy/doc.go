// Package accuracy reads and writes MLPerf accuracy logs
// (mlperf_log_accuracy.json, [ReadLog], [WriteLog]) and says what a
// benchmark's scorer is ([Scorer]: the official script it stands for,
// the inputs it needs besides the log, [Inputs], and the [Score] it
// finds: the result line the script prints, which accuracy.txt holds and
// the submission checker reads, and the values the quality targets
// check). The scorers themselves are the benchmarks' packages'
// (internal/bench/...); the registry (internal/bench) finds them.
//
// Package accuracy imports only the standard library and package
// benchmarks (the metrics); it must never import a benchmark's package,
// the registry, host, loadgen, sdk, plugins or cmd.
package accuracy
