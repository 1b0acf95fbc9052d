// Package exitcode is mlperf-host's one table of process exit codes and the
// error type that carries a code and a hint for the user to the CLI.
//
// Libraries return ordinary wrapped errors; only cmd/mlperf-host turns an
// error into an exit code, with [Of]. A library may classify an error it
// returns with [New] or [WithHint] so that the CLI picks the right row.
//
// Package exitcode imports only the standard library; it must never import
// host, loadgen, sdk, plugins or cmd.
package exitcode
