package main

import (
	"errors"
	"strings"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// classify gives an error from the packages its exit code and a hint,
// unless it already has one.
func classify(err error) error {
	var done *exitcode.Error
	if errors.As(err, &done) {
		return err
	}
	is := func(targets ...error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
	switch {
	case is(config.ErrConfig, loadgen.ErrInvalidConfig, loadgen.ErrInvalidSettings):
		return exitcode.New(exitcode.Config, err, "`mlperf-host config show` prints every value and where it came from")
	case is(dataset.ErrNotFound, dataset.ErrCorrupt, dataset.ErrMismatch):
		return exitcode.New(exitcode.Dataset, err, "check --dataset (a directory of .npy files: one per sample with val_map.txt, one per tensor with lengths.npy, or one directory per sample; or a .mlph file); `mlperf-host dataset info PATH` inspects one")
	case is(accuracy.ErrLog):
		return exitcode.New(exitcode.Dataset, err, "pass the mlperf_log_accuracy.json of an accuracy run")
	case is(host.ErrPluginNotFound, host.ErrNotPlugin, host.ErrAmbiguousPlugin):
		return exitcode.New(exitcode.PluginNotFound, err, "`mlperf-host plugins list` shows the installed plugins; pass --plugin NAME or a path")
	case is(manifest.ErrInvalid):
		return exitcode.New(exitcode.PluginNotFound, err, "fix the plugin.json the message names (docs/host.md lists its fields), or reinstall the plugin")
	case is(host.ErrVersionMismatch, host.ErrProtocol):
		return exitcode.New(exitcode.PluginABI, err, "install a build of the plugin for this mlperf-host's ABI (`mlperf-host version`)")
	}
	var pe *host.PluginError
	if errors.As(err, &pe) {
		return exitcode.New(exitcode.PluginFailed, err, pluginHint(pe.Plugin))
	}
	return err
}

// pluginHint says where a failed plugin's diagnostics are: a served
// plugin's are on the machine that serves it, checked there by name.
func pluginHint(plugin string) string {
	if addr, remote := strings.CutPrefix(plugin, "remote "); remote {
		return "the log of `mlperf-host serve` on " + addr + " says more; `mlperf-host plugins check NAME` there runs the served plugin's conformance checks"
	}
	return "the plugin's log lines above say more; `mlperf-host plugins check " + plugin + "` runs its conformance checks"
}
