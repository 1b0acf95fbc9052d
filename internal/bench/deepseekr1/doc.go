// Package deepseekr1 is the deepseek-r1 benchmark: its data set read in
// the reference's form (a pandas DataFrame pickle of token-id prompts,
// ground truths and their source data sets: GPQA, MMLU-Pro, MATH-500,
// AIME, LiveCodeBench), its response (the generated token ids) and its
// scorer, language/deepseek-r1/eval_accuracy.py's: letter extraction for
// the multiple-choice sets, PRM800K's grader for MATH-500, AIME's integer
// answers, and LiveCodeBench's tests run against the generated programs
// in the code sandbox (internal/benchlib/livecodebench).
//
// Package deepseekr1 imports the shared parts (internal/benchlib/...),
// internal/dataset, internal/accuracy, internal/benchmarks and
// sdk/tokenizer; it must never import another benchmark's package,
// internal/bench, host, loadgen, plugins or cmd.
package deepseekr1
