// Command mlperf-host runs MLPerf Inference benchmarks against inference
// backends loaded as plugins: one binary, any backend, no rebuild.
//
//	mlperf-host --plugin onnx                 # the configured benchmark
//	mlperf-host run --scenario Server --mode accuracy
//	mlperf-host plugins list | plugins check NAME
//	mlperf-host accuracy LOG | submit | report DIR | config show
//
// It is the only package that touches process state: arguments, the
// environment, signals, the terminal, stdout/stderr and the exit code
// (docs/exit-codes.md). Nothing imports it.
package main
