// Package dlrmv3 is the DLRMv3 benchmark (dlrm-v3: an HSTU generative
// recommender on the synthetic streaming data set): the data set as the
// reference writes and reads it ([Reader]: the sampled_data/ CSV files
// of streaming_synthetic_data.py, one sample per request of each
// inference timestamp), the response the official script reads
// ([Response]: float32 [ts_idx, query_idx, predictions, labels, weights,
// candidate count], the performance form without labels, weights and
// count), its scorer ([Scorer]: torchrec's lifetime NE, accuracy and
// GAUC as accuracy.py logs them), TEST08's verification ([VerifyTEST08],
// compliance/TEST08/run_verification.py) and the fixtures the tests run
// ([WriteStreaming]).
//
// Package dlrmv3 imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package dlrmv3
