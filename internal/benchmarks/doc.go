// Package benchmarks is mlperf-host's table of MLPerf Inference rounds: for
// each round (v5.1, v6.0, v6.1) the official seeds, the benchmarks with
// their required and optional scenarios per system category, data set and
// performance sample counts, latency bounds, quality targets, compliance
// tests and those tests' audit.config settings, the official mlperf.conf
// settings of each benchmark and scenario, and what the submission checker
// requires of a submission tree (its path templates, required files and
// system description fields). The bundled Fashion-MNIST demo benchmark is
// added to every round.
//
// The tables are data (rounds/*.json), extracted from the official
// mlcommons/inference repository by scripts/rounds/gen_rounds.py;
// docs/submission.md says where each fact comes from.
//
// It is the lowest configuration layer: everything in it can be overridden
// by mlperf.conf, user.conf, the config file, the environment and flags.
//
// Package benchmarks imports only the standard library; it must never
// import host, loadgen, sdk, plugins or cmd.
package benchmarks
