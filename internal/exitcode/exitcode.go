package exitcode

import (
	"context"
	"errors"
	"fmt"
)

// Code is a process exit status of mlperf-host.
type Code int

// The exit codes. docs/exit-codes.md is this table; a test keeps the two
// equal.
const (
	// OK: the command did what was asked. For a run, the LoadGen result is
	// VALID (and, in accuracy mode, the quality target is met).
	OK Code = 0
	// Internal: a bug or an unexpected failure of the machine (out of disk:
	// the logs not written whole are renamed .incomplete; permission denied
	// on the output directory).
	Internal Code = 1
	// Usage: an unknown command, flag or argument.
	Usage Code = 2
	// Config: a bad value or file in a configuration layer (mlperf.conf,
	// user.conf, the config file, MLPERF_HOST_* variables, --set), or an
	// output directory another run holds.
	Config Code = 3
	// Dataset: the data set, or an input log, is missing, unreadable,
	// corrupt, or its shape or dtype does not match.
	Dataset Code = 4
	// PluginNotFound: no plugin of that name, the path is not a plugin, or
	// its manifest is invalid.
	PluginNotFound Code = 5
	// PluginABI: the plugin speaks another ABI version, or breaks the ABI.
	PluginABI Code = 6
	// PluginFailed: the plugin failed to start, load the model, or failed
	// during the run (crash, trap, hang, stall, sample errors). A failure
	// in Close after a complete run is only a warning.
	PluginFailed Code = 7
	// InvalidResult: the run finished but the LoadGen result is INVALID
	// (latency bound, minimum duration or query count not met).
	InvalidResult Code = 8
	// AccuracyBelowTarget: the accuracy log does not reach the quality
	// target.
	AccuracyBelowTarget Code = 9
	// SubmissionInvalid: the submission tree fails the submission checks.
	SubmissionInvalid Code = 10
	// Interrupted: stopped by Ctrl-C (SIGINT) or SIGTERM; what was kept is
	// printed.
	Interrupted Code = 130
)

// Row is one line of the documented table.
type Row struct {
	Code Code
	Name string
	// Meaning says when the code is returned.
	Meaning string
	// Action says what the user does about it.
	Action string
}

// Table returns the documented exit codes in ascending order.
func Table() []Row {
	return []Row{
		{OK, "ok", "the command did what was asked; a run is VALID and, in accuracy mode, meets its quality target", "nothing"},
		{Internal, "internal", "a bug or an unexpected failure of the machine (permission denied; disk full: each log that could not be written whole is renamed `.incomplete` and listed)", "read the message; report a bug if it names no cause of yours"},
		{Usage, "usage", "unknown command, flag or argument", "run `mlperf-host help` or `mlperf-host CMD -h`"},
		{Config, "config", "a bad value or file in a configuration layer (a setting outside its range, an unknown user.conf key, a --model the plugin cannot read); the message names the source, key and allowed values; or the output directory is held by another run, which the message names", "fix the named file, variable or flag; `mlperf-host config show` prints every value and its source; for a busy directory, pass another --out"},
		{Dataset, "dataset", "the data set, or an input log (accuracy log, detail log, trace), is missing, unreadable, corrupt, or has the wrong shape or dtype", "check --dataset (or the log) and the files the message names; `mlperf-host dataset info PATH` checks a data set"},
		{PluginNotFound, "plugin-not-found", "no plugin of that name in the plugin directories, the path is not a plugin, or its plugin.json is invalid (the message names the file and field)", "`mlperf-host plugins list`; install the plugin or pass its path; fix the named plugin.json"},
		{PluginABI, "plugin-abi", "the plugin speaks another ABI version, or breaks the ABI", "install a plugin built for this mlperf-host's ABI, or upgrade mlperf-host"},
		{PluginFailed, "plugin-failed", "the plugin failed to start or load the model, or failed during the run (crash, trap, hang, stall, a failed sample: the first ends the run). A plugin failing in Close after a complete run is a warning: the code then follows the result", "read the plugin's log lines above the error; `mlperf-host plugins check NAME`; a served plugin's (`--remote`, also busy serving another host) are in the log of `mlperf-host serve` on its machine"},
		{InvalidResult, "invalid-result", "the run finished but the LoadGen result is INVALID", "read the summary's reasons; lower target_qps or raise target_latency in user.conf"},
		{AccuracyBelowTarget, "accuracy-below-target", "the accuracy does not reach the benchmark's quality target", "check the model, the data set and its label map"},
		{SubmissionInvalid, "submission-invalid", "the submission tree fails the submission checks", "fix each listed problem and run `mlperf-host submit --check-only DIR`"},
		{Interrupted, "interrupted", "stopped by Ctrl-C or SIGTERM (a second one stops at once); the logs written so far are kept and listed", "run again; partial logs are not a valid result"},
	}
}

// String returns the code's name from the table.
func (c Code) String() string {
	for _, r := range Table() {
		if r.Code == c {
			return r.Name
		}
	}
	return fmt.Sprintf("exit(%d)", int(c))
}

// Error is an error classified for the CLI: the exit code it maps to and a
// hint telling the user what to do. It wraps the underlying error.
type Error struct {
	Code Code
	Err  error
	// Hint is one sentence of advice; empty when there is none.
	Hint string
}

// Error returns the wrapped error's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// New classifies err with code and hint. A nil err stays nil.
func New(code Code, err error, hint string) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err, Hint: hint}
}

// Errorf formats an error classified with code and no hint.
func Errorf(code Code, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// WithHint adds a hint to err, keeping the code it already carries
// (Internal when none).
func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Of(err), Err: err, Hint: hint}
}

// Of returns the exit code of err: OK for nil, Interrupted for a canceled
// context, the code of the outermost [*Error] in its chain, else Internal.
func Of(err error) Code {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, context.Canceled) {
		return Interrupted
	}
	return Internal
}

// Hint returns the first non-empty hint in err's chain.
func Hint(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return ""
		}
		if e.Hint != "" {
			return e.Hint
		}
		err = e.Err
	}
	return ""
}
