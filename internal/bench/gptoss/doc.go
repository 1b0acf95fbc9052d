// Package gptoss is the gpt-oss-120b benchmark (a reasoning LLM on AIME
// 2025, GPQA Diamond and LiveCodeBench v6). It holds its data sets as the
// reference reads them ([Reader]: the pandas DataFrames of
// utils/tokenization.py's load_tokenized_dataset, in Parquet or pickled,
// the performance set's prompts, the accuracy and TEST07 sets' prompts
// with each sample's sub-dataset and ground truth), the response the official script reads
// (the generated token ids, int32 as the plugins answer), its scorer
// ([Scorer]: eval_mlperf_accuracy.py's answer extraction per sub-dataset,
// LiveCodeBench's programs run against their tests in the code sandbox
// (internal/benchlib/livecodebench), and its final score, each
// sub-dataset's correct answers over its repeats) and the fixtures the tests run ([WriteSet], [WriteParquetSet]).
//
// Package gptoss imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib, sdk/tokenizer); it
// must never import another benchmark's package, the registry
// (internal/bench), host, loadgen, plugins or cmd.
package gptoss
