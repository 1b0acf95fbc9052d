package runner

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// mlperfConfOnly are the settings only mlperf.conf may set; the official
// LoadGen ignores them in user.conf, and so does ReadConf.
var mlperfConfOnly = map[string]bool{
	"qsl_rng_seed": true, "sample_index_rng_seed": true, "schedule_rng_seed": true,
	"accuracy_log_probability": true, "test05": true, "test05_qsl_rng_seed": true,
	"test05_sample_index_rng_seed": true, "test05_schedule_rng_seed": true,
}

// ReadConf is the config.ConfReader of mlperf.conf and user.conf files,
// parsed by LoadGen with the official precedence. A user.conf's
// mlperf.conf-only keys (seeds) are dropped, as the official LoadGen drops
// them; its keys that no run reads (a misspelled setting) are errors,
// where the official LoadGen ignores them.
func ReadConf(kind config.Layer, path, model, scenario string) ([]config.ConfEntry, error) {
	c, err := loadgen.LoadConfig(path)
	if err != nil {
		return nil, err
	}
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	user := kind != config.LayerMLPerfConf
	if user {
		if err := checkUserConfKeys(c, path); err != nil {
			return nil, err
		}
	}
	var out []config.ConfEntry
	for _, key := range config.SettingKeys() {
		v, line, ok := c.Lookup(model, scenario, key)
		if !ok || (user && mlperfConfOnly[key]) {
			continue
		}
		pattern := key
		if line > 0 && line <= len(lines) {
			pattern, _, _ = strings.Cut(lines[line-1], "=")
			pattern = strings.TrimSpace(pattern)
		}
		out = append(out, config.ConfEntry{Setting: key, Value: v, Line: line, Pattern: pattern})
	}
	return out, nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

// Mode maps config's mode names onto LoadGen's.
func Mode(m string) (loadgen.Mode, error) {
	switch m {
	case config.ModePerformance:
		return loadgen.PerformanceOnly, nil
	case config.ModeAccuracy:
		return loadgen.AccuracyOnly, nil
	case config.ModeSubmission:
		return loadgen.SubmissionRun, nil
	case config.ModeFindPeak:
		return loadgen.FindPeakPerformance, nil
	}
	return 0, fmt.Errorf("unknown mode %q", m)
}

// TestSettings maps the effective configuration onto LoadGen's
// TestSettings: the official defaults, the scenario and mode, then every
// settings.* key applied with LoadGen's own mlperf.conf semantics (units,
// which scenario each key is read for). Interactive runs as LoadGen's
// Server, its settings read as the model MODEL-interactive's.
//
// # Errors
//
// A *config.Error naming the key, value and source of a value LoadGen
// rejects, or the joined errors of TestSettings.Validate.
func TestSettings(c *config.Config) (loadgen.TestSettings, error) {
	s := loadgen.DefaultTestSettings()
	sc, err := loadgen.ParseScenario(string(c.LoadGenScenario()))
	if err != nil {
		return s, err
	}
	s.Scenario = sc
	if s.Mode, err = Mode(c.Mode); err != nil {
		return s, err
	}
	settings := c.Settings()
	var b strings.Builder
	for _, v := range settings {
		fmt.Fprintf(&b, "%s.%s.%s = %s\n", c.ConfModel(), sc, v.Key, v.Value)
	}
	conf, err := loadgen.ParseConfig(strings.NewReader(b.String()), "effective settings")
	if err != nil {
		return s, settingError(settings, err)
	}
	mode := s.Mode
	// As mlperf.conf, so that every key (seeds included) applies: the
	// layers below already enforced which file may set what.
	if s, err = conf.Apply(s, c.ConfModel(), sc, loadgen.MLPerfConf); err != nil {
		return s, settingError(settings, err)
	}
	if _, set := c.Lookup(config.PrefixSettings + "mode"); !set {
		s.Mode = mode
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("%w: %w", config.ErrConfig, err)
	}
	if err := checkServerQPS(c, s); err != nil {
		return s, err
	}
	return s, nil
}

// checkServerQPS refuses a Server run whose target_qps nobody chose (nor
// a calibration will choose): the
// official mlperf.conf's 1 QPS is a placeholder every submitter overrides
// in user.conf, and a run at that rate lasts until min_query_count queries
// have arrived, one a second.
func checkServerQPS(c *config.Config, s loadgen.TestSettings) error {
	v, _ := c.Lookup(config.PrefixSettings + "target_qps")
	if s.Scenario != loadgen.Server || c.SetByUser(config.PrefixSettings+"target_qps") || v.Source.Layer == config.LayerCalibration ||
		NeedsCalibration(c, s) {
		return nil
	}
	d := max(s.MinDuration, time.Duration(float64(s.MinQueryCount)/s.ServerTargetQPS*float64(time.Second)))
	return exitcode.New(exitcode.Config,
		fmt.Errorf("%w: %s has no target_qps of yours: %s = %s (%s) would run for at least %v",
			config.ErrConfig, c.Scenario, config.PrefixSettings+"target_qps", v.Value, v.Source, d.Round(time.Second)),
		fmt.Sprintf("set the rate your system sustains: %s.Server.target_qps = N in user.conf, or --set settings.target_qps=N; or, in a performance run, leave it to the calibration (calibrate.mode=auto)", confWildcard(c)))
}

// confWildcard is the model part of a user.conf line for the run: "*",
// but the -interactive model's name for Interactive, whose lines name it.
func confWildcard(c *config.Config) string {
	if c.Scenario == benchmarks.Interactive {
		return c.ConfModel()
	}
	return "*"
}

// settingError names the source of the line LoadGen rejected.
func settingError(settings []config.Value, err error) error {
	var ce *loadgen.ConfigError
	if errors.As(err, &ce) && ce.Line > 0 && ce.Line <= len(settings) {
		v := settings[ce.Line-1]
		return &config.Error{Key: config.PrefixSettings + v.Key, Value: v.Value, Source: v.Source, Err: errors.New(ce.Msg)}
	}
	return fmt.Errorf("%w: %w", config.ErrConfig, err)
}
