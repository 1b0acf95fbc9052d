// Package submission lays out, verifies and checks an MLPerf Inference
// submission tree as the official tools of the chosen round expect it
// (mlcommons/inference tools/submission and compliance/). For round 6.x:
//
//	DIVISION/SUBMITTER/systems/SYSTEM.json
//	DIVISION/SUBMITTER/src/BENCHMARK/README.md
//	DIVISION/SUBMITTER/documentation/calibration.md            (closed)
//	DIVISION/SUBMITTER/results/SYSTEM/BENCHMARK/SCENARIO/
//	    measurements.json, user.conf, README.md
//	    performance/run_1/mlperf_log_{summary,detail}.txt
//	    accuracy/{mlperf_log_summary.txt,mlperf_log_detail.txt,mlperf_log_accuracy.json,accuracy.txt}
//	    TEST01/{verify_accuracy.txt,verify_performance.txt,performance/run_1/...,accuracy/...}
//	    TEST04/{verify_performance.txt,performance/run_1/...}
//
// Round 5.1 keeps code/, measurements/ and compliance/ trees of their own;
// [Layout] takes every path from the round's checker templates.
//
// The Verify functions judge compliance runs as the official scripts do
// and write their verify_*.txt; [TruncateAccuracyLog] truncates an
// accuracy log and records its hash as truncate_accuracy_log.py does;
// [DetectSystem] and [DescribeSystem] make the system description; [Check]
// checks a whole tree result by result as the round's official checker
// does (its lookups, Interactive, inferred results, the power checks:
// [CheckPTDSession]) and reports mlperf-host's stricter rules apart, as
// warnings unless the tree is checked strictly.
//
// Package submission imports only the standard library, mlperf-host's
// benchmarks and mllog packages and a YAML parser (the nameplate power
// file); it must never import host, loadgen, sdk, plugins or cmd.
package submission
