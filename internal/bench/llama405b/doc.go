// Package llama405b is the Llama 3.1 405B benchmark (llama3_1-405b,
// round v6.0): its data set as the reference reads it ([Reader]: the
// pandas DataFrame pickle of prompts from several sub-datasets, each
// with the metric it is scored by, language/llama3.1-405b/dataset.py),
// the response its script reads (the generated token ids), the scorer
// ([Scorer]: evaluate-accuracy.py's ROUGE-L, needle-in-a-haystack and
// question-answering exact match, averaged per metric) and the fixtures
// the tests write ([WriteData]).
//
// Package llama405b imports only the standard library and the shared
// parts (dataset, accuracy, benchmarks, internal/benchlib,
// sdk/tokenizer); it must never import another benchmark's package, the
// registry (internal/bench), host, loadgen, plugins or cmd.
package llama405b
