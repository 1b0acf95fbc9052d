// Package config builds mlperf-host's effective configuration from its
// layers, lowest first:
//
//  1. the built-in MLPerf benchmark table (package benchmarks) and defaults
//  2. mlperf.conf (the rules); then LayerCalibration, a value a run's
//     calibration chose, set with Config.With only where no layer the
//     user writes set one
//  3. user.conf (the submitter's tuning)
//  4. a config file, TOML or YAML
//  5. MLPERF_HOST_* environment variables
//  6. command-line flags, including --set KEY=VALUE
//
// Each layer is a github.com/knadh/koanf/v2 instance; the merge keeps, for
// every key, the layer and place (file and line, variable, flag) that set
// its effective value, so that `mlperf-host config show` can print it and
// every error names the source, the key and the allowed values.
//
// The result is an immutable [Config]. Package config reads no process
// state: the caller passes the environment, flags and file paths.
//
// Package config imports abi (for its name suggestions), benchmarks, koanf
// and the standard library; it must never import host, loadgen, sdk,
// plugins or cmd.
package config
