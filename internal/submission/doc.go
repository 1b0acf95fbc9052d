// Package submission lays out, verifies and checks an MLPerf Inference
// submission tree, as the official submission checker
// (mlcommons/inference tools/submission) expects it:
//
//	DIVISION/SUBMITTER/systems/SYSTEM.json
//	DIVISION/SUBMITTER/code/BENCHMARK/README.md
//	DIVISION/SUBMITTER/measurements/SYSTEM/BENCHMARK/SCENARIO/{README.md,user.conf,SYSTEM_mlperf-host_SCENARIO.json}
//	DIVISION/SUBMITTER/results/SYSTEM/BENCHMARK/SCENARIO/performance/run_1/mlperf_log_{summary,detail}.txt
//	DIVISION/SUBMITTER/results/SYSTEM/BENCHMARK/SCENARIO/accuracy/{mlperf_log_*,accuracy.txt}
//	DIVISION/SUBMITTER/compliance/SYSTEM/BENCHMARK/SCENARIO/TEST0N/{verify_*.txt,performance/run_1/...}
//
// [Layout] names the paths, the Verify functions write the compliance
// verdicts (verify_accuracy.txt, verify_performance.txt) and [Check] checks
// a whole tree against the rules mlperf-host knows (package benchmarks).
//
// Package submission imports only the standard library and mlperf-host's
// benchmarks, mllog and accuracy packages; it must never import host,
// loadgen, sdk, plugins or cmd.
package submission
