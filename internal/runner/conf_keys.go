package runner

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// confScenarios are the scenario parts a conf key may have.
var confScenarios = []string{"*", "SingleStream", "MultiStream", "Server", "Offline"}

// checkUserConfKeys rejects the keys of a user.conf that no run would
// read: an unknown setting (a typo such as target_qsp), a scenario in the
// wrong case, a key without model and scenario. The official LoadGen
// ignores them without a word, so a typo silently leaves the setting at
// its default; here it is an error naming the line and the close matches.
// mlperf.conf is not checked: it comes from MLCommons and may name
// settings of a newer LoadGen.
func checkUserConfKeys(c *loadgen.Config, path string) error {
	settings := config.SettingKeys()
	var errs []error
	bad := func(k loadgen.ConfigKey, format string, args ...any) {
		errs = append(errs, &loadgen.ConfigError{File: path, Line: k.Line, Key: k.Key, Msg: fmt.Sprintf(format, args...)})
	}
	for _, k := range c.Keys() {
		switch {
		case k.Setting == "":
			bad(k, "want model.scenario.setting, e.g. *.Offline.target_qps")
		case strings.EqualFold(k.Scenario, "Interactive"):
			// LoadGen runs Interactive as Server, under a model name of its own.
			model := k.Model
			if model == "*" {
				model = "MODEL"
			}
			bad(k, "LoadGen has no Interactive scenario: an Interactive run reads %s%s.Server.%s", model, benchmarks.InteractiveSuffix, k.Setting)
		case !slices.Contains(confScenarios, k.Scenario):
			bad(k, "unknown scenario %q%s (want one of %s)", k.Scenario, didYouMean(k.Scenario, confScenarios),
				strings.Join(confScenarios, ", "))
		case !slices.Contains(settings, k.Setting):
			bad(k, "unknown setting %q%s; `mlperf-host config show` lists the settings", k.Setting, didYouMean(k.Setting, settings))
		}
	}
	return errors.Join(errs...)
}

// didYouMean formats the close matches of name, if any.
func didYouMean(name string, candidates []string) string {
	m := config.Suggest(name, candidates)
	if len(m) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(m, " or ") + "?)"
}

// checkSampleCount refuses a performance_sample_count_override that the
// user set larger than the data set: the LoadGen would load the whole set
// and log a count it never had. The benchmark table's own count is left
// alone (a smaller data set for a trial run is fine).
func checkSampleCount(c *config.Config, samples int) error {
	v, ok := c.Lookup(config.PrefixSettings + "performance_sample_count_override")
	if !ok || v.Source.Layer == config.LayerBuiltin {
		return nil
	}
	n, err := strconv.ParseUint(v.Value, 10, 64)
	if err != nil || n <= uint64(samples) {
		return nil // the config layer checked the syntax
	}
	return &config.Error{Key: v.Key, Value: v.Value, Source: v.Source,
		Err:     fmt.Errorf("the data set has %d samples", samples),
		Allowed: fmt.Sprintf("at most %d, or 0 for the benchmark's count", samples)}
}
