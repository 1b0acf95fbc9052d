// Package mixtral is the Mixtral 8x7B benchmark (mixtral-8x7b, round
// v6.0): its data set as the reference reads it ([Reader]: the pandas
// DataFrame pickle of OpenOrca, GSM8K and MBXP prompts,
// language/mixtral-8x7b/dataset.py), the response its script reads (the
// generated token ids), the scorer ([Scorer]: evaluate-accuracy.py's
// ROUGE on OpenOrca, exact match on GSM8K, and evaluate_mbxp.py's MBXP:
// the generated code of six languages run against its test code as
// mxeval runs it, in the code sandbox, [MBXPGrader]) and the fixtures the
// tests write ([WriteData]).
//
// Package mixtral imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib, sdk/tokenizer); it
// must never import another benchmark's package, the registry
// (internal/bench), host, loadgen, plugins or cmd.
package mixtral
