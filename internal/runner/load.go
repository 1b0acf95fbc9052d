package runner

import (
	"errors"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// PluginRun is what a plugin is told at Load about the run (ABI v1.2):
// the benchmark, scenario, mode and the effective settings a backend
// sizes itself by. totalSamples is the data set's size.
func PluginRun(c *config.Config, s loadgen.TestSettings, totalSamples int) *host.Run {
	ts := host.TestSettings{
		MinDuration: s.MinDuration, MaxDuration: s.MaxDuration, MinQueryCount: s.MinQueryCount, MaxQueryCount: s.MaxQueryCount,
		TotalSampleCount: uint64(totalSamples), UseTokenLatencies: s.UseTokenLatencies,
		TTFTLatency: s.ServerTTFTLatency, TPOTLatency: s.ServerTPOTLatency,
	}
	perf := uint64(c.Benchmark.PerformanceSampleCount)
	if s.PerformanceSampleCountOverride > 0 {
		perf = s.PerformanceSampleCountOverride
	}
	if perf == 0 || perf > ts.TotalSampleCount {
		perf = ts.TotalSampleCount
	}
	ts.PerformanceSampleCount = perf
	switch s.Scenario {
	case loadgen.SingleStream:
		ts.TargetLatency, ts.TargetLatencyPercentile, ts.SamplesPerQuery = s.SingleStreamExpectedLatency, s.SingleStreamTargetLatencyPercentile, 1
	case loadgen.MultiStream:
		ts.TargetLatency, ts.TargetLatencyPercentile = s.MultiStreamExpectedLatency, s.MultiStreamTargetLatencyPercentile
		ts.SamplesPerQuery = s.MultiStreamSamplesPerQuery
	case loadgen.Server:
		ts.TargetQPS, ts.TargetLatency, ts.TargetLatencyPercentile = s.ServerTargetQPS, s.ServerTargetLatency, s.ServerTargetLatencyPercentile
		ts.SamplesPerQuery, ts.MaxAsyncQueries = 1, s.ServerMaxAsyncQueries
	case loadgen.Offline:
		ts.TargetQPS = s.OfflineExpectedQPS
	}
	return &host.Run{Benchmark: c.Benchmark.Name, Scenario: s.Scenario.String(), Mode: s.Mode.String(), Settings: ts}
}

// OptionsKey is the plugin name the run's plugin options are keyed by
// (options.NAME.KEY): the configured plugin's, or a served plugin's own
// name, which the host learns from its Info.
func OptionsKey(c *config.Config, info host.Info) string {
	if c.Remote.Address != "" {
		return info.Name
	}
	return c.Plugin
}

// CheckPluginOptions checks the run's plugin options against the option
// schema the plugin declared (ABI v1.2), before Load: an unknown option
// is named with its close matches, a bad value with its type, each with
// the configuration key and source it came from.
func CheckPluginOptions(info host.Info, c *config.Config) error {
	err := info.CheckOptions(c.PluginOptions(OptionsKey(c, info)))
	if err == nil {
		return nil
	}
	var errs []error
	for _, v := range c.PluginOptionValues(OptionsKey(c, info)) {
		e := info.CheckOptions(map[string]string{v.Key: v.Value})
		var oe *abi.OptionError
		if errors.As(e, &oe) {
			errs = append(errs, &config.Error{Key: v.Help, Value: v.Value, Source: v.Source, Err: oe})
		}
	}
	return exitcode.New(exitcode.Config, errors.Join(errs...), "`mlperf-host plugins describe "+c.Plugin+"` lists the plugin's options")
}
