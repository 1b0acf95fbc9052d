package config

import (
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Plugin options are keys options.PLUGIN.OPTION, for every scenario, or
// options.PLUGIN.SCENARIO.OPTION, for one scenario only: a run gets the
// first kind overridden by its scenario's own. The scenario is matched
// without regard to case, because environment variables are upper-case
// (MLPERF_HOST_OPTIONS__TENSORRT__SERVER__BATCH_SIZE).

// scenarioOption splits OPTION of options.PLUGIN.OPTION into a scenario
// and the option name when it starts with a scenario's name and a dot.
func scenarioOption(opt string) (benchmarks.Scenario, string, bool) {
	first, rest, ok := strings.Cut(opt, ".")
	if !ok || rest == "" {
		return "", "", false
	}
	for _, sc := range benchmarks.RunScenarios() {
		if strings.EqualFold(first, string(sc)) {
			return sc, rest, true
		}
	}
	return "", "", false
}

// PluginOptionValues returns the options plugin gets in this run, sorted
// by name, each with the key and source it came from (Value.Key is the
// option's name, Value.Help its full config key): options.PLUGIN.OPTION
// overridden by options.PLUGIN.SCENARIO.OPTION of the run's scenario;
// other scenarios' options are left out.
func (c *Config) PluginOptionValues(plugin string) []Value {
	prefix := PrefixOptions + plugin + "."
	var out []Value
	put := func(v Value) {
		for i := range out {
			if out[i].Key == v.Key {
				out[i] = v
				return
			}
		}
		out = append(out, v)
	}
	var scoped []Value
	for _, v := range c.Values() {
		opt, ok := strings.CutPrefix(v.Key, prefix)
		if !ok {
			continue
		}
		full := v.Key
		v.Key, v.Help = opt, full
		if sc, name, ok := scenarioOption(opt); ok {
			if sc == c.Scenario {
				v.Key = name
				scoped = append(scoped, v)
			}
			continue
		}
		put(v)
	}
	for _, v := range scoped {
		put(v)
	}
	slices.SortFunc(out, func(a, b Value) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// PluginOptions returns the options of plugin as the plugin receives
// them: [Config.PluginOptionValues] without their sources.
func (c *Config) PluginOptions(plugin string) map[string]string {
	opts := map[string]string{}
	for _, v := range c.PluginOptionValues(plugin) {
		opts[v.Key] = v.Value
	}
	return opts
}
