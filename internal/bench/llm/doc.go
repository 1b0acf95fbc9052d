// Package llm is the LLM benchmarks scored by ROUGE: llama2-70b
// (OpenOrca, evaluate-accuracy.py) and llama3.1-8b (CNN-DailyMail,
// evaluation.py). It holds their data set as the references read it
// ([Reader]: token-id prompts and reference outputs in the Llama 3.1
// reference's JSON; [PickleReader]: the Llama 2 reference's pandas
// DataFrame pickle, read directly), the response the official scripts read (the generated token
// ids, int32 as the plugins answer), the scorers ([ROUGEScorer],
// [CNNDMScorer]: the ids decoded with the model's tokenizer.json,
// package sdk/tokenizer; sentences split by package punkt; ROUGE by
// package rouge) and the fixtures the end-to-end tests run
// ([WritePrompts], [WritePicklePrompts]).
//
// Package llm imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package llm
