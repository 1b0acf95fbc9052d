// Package bench is the registry of the benchmarks mlperf-host reads and
// scores: one row per benchmark ([Rows], table.go), naming the LoadGen
// models it serves, its package (internal/bench/<package> holds a
// benchmark family's data set readers in the reference form, its
// response format, its scorer and its fixtures), its readers, its scorer
// and its section of docs/benchmarks.md. The runner (and so run and
// submit) and the accuracy and dataset commands read the table: [Open] tries every row's
// readers on a path, [LookupScorer] finds a benchmark's scorer.
//
// The rules of the rounds (required scenarios, sample counts, quality
// targets, audits) are package benchmarks', extracted from the official
// repository; a row joins them by the LoadGen model name.
//
// Package bench imports the benchmarks' packages and what they share
// (dataset, accuracy, benchmarks); none of them imports it. It must never
// import host, loadgen, sdk, plugins or cmd.
package bench
