package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// ConfigKind says which of the three official config files a [Config] is.
// It decides which keys the file may set, as conf_type does in the official
// TestSettings::FromConfig.
type ConfigKind int

const (
	// MLPerfConf is the rules file, mlperf.conf. Only it sets the three
	// RNG seeds, accuracy_log_probability and the test05 keys.
	MLPerfConf ConfigKind = iota
	// UserConf is the submitter's tuning file, user.conf. Apply it after
	// mlperf.conf, as the official LoadGen does.
	UserConf
	// AuditConf is a compliance test's audit.config (TEST01, TEST04,
	// TEST05). It is applied last, for the scenario and model "*".
	AuditConf
)

// String names the file kind.
func (k ConfigKind) String() string {
	switch k {
	case MLPerfConf:
		return "mlperf.conf"
	case UserConf:
		return "user.conf"
	case AuditConf:
		return "audit.config"
	}
	return fmt.Sprintf("ConfigKind(%d)", int(k))
}

// ErrInvalidConfig is wrapped by every [*ConfigError].
var ErrInvalidConfig = errors.New("invalid config")

// ConfigError is a malformed line or value in a config file.
type ConfigError struct {
	// File is the name the config was parsed under.
	File string
	// Line is the 1-based line number.
	Line int
	// Key is the key of the line, when it has one.
	Key string
	// Msg says what is wrong.
	Msg string
}

// Error formats the error as file:line: key "k": message.
func (e *ConfigError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: key %q: %s", e.File, e.Line, e.Key, e.Msg)
}

// Unwrap makes errors.Is(err, ErrInvalidConfig) true.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// Config is one parsed config file: "model.scenario.key = value" lines,
// where model and scenario may be "*". It is immutable once parsed and safe
// to share.
type Config struct {
	name    string
	values  map[string]configValue
	ignored []ConfigError
}

type configValue struct {
	text string
	line int
}

// LoadConfig reads and parses the config file at path.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load config %q: %w", path, err)
	}
	defer f.Close()
	return ParseConfig(f, path)
}

// isSpace is C's isspace in the "C" locale, the separator of the official
// parser's stream extraction.
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// ParseConfig parses config content exactly as the official LoadGen reads
// it: whitespace-separated "key = value" tokens, "#" as a whole token
// starting a comment, values that must be integers (C strtoul, any base) or
// doubles (C strtod), the last line winning for a repeated key. name is
// used in errors.
//
// # Errors
//
// Every line the official parser rejects is reported as a [*ConfigError]
// (joined when there are several), and no Config is returned. Lines it
// skips without a word (a key with no "= value") are kept in
// [Config.Ignored].
func ParseConfig(r io.Reader, name string) (*Config, error) {
	c := &Config{name: name, values: make(map[string]configValue)}
	br := bufio.NewReader(r)
	var errs []error
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadString('\n')
		if len(line) > 0 || err == nil {
			if e := c.parseLine(line, lineNo); e != nil {
				errs = append(errs, e)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read config %q: %w", name, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

func (c *Config) parseLine(line string, lineNo int) error {
	const (
		wantKey = iota
		wantEqual
		wantValue
	)
	state, key := wantKey, ""
	stored := false
	for _, tok := range strings.FieldsFunc(line, isSpace) {
		if tok == "#" && state != wantValue {
			break
		}
		switch state {
		case wantKey:
			key = tok
			state = wantEqual
		case wantEqual:
			if tok != "=" {
				return &ConfigError{File: c.name, Line: lineNo, Key: key, Msg: "expected 'key = value'"}
			}
			state = wantValue
		case wantValue:
			// The official parser keeps reading values: the last one wins.
			if !acceptedValue(tok) {
				return &ConfigError{File: c.name, Line: lineNo, Key: key,
					Msg: fmt.Sprintf("value %q needs to be an integer or a double", tok)}
			}
			c.values[key] = configValue{text: tok, line: lineNo}
			stored = true
		}
	}
	if state != wantKey && !stored {
		c.ignored = append(c.ignored, ConfigError{File: c.name, Line: lineNo, Key: key,
			Msg: "ignored: no '= value' after the key"})
	}
	return nil
}

// Name returns the name the config was parsed under.
func (c *Config) Name() string { return c.name }

// Ignored returns the lines the official parser skips silently (a key
// without "= value", such as "#comment" written without a space). They are
// not errors; a front end may warn about them.
func (c *Config) Ignored() []ConfigError { return append([]ConfigError(nil), c.ignored...) }

// Lookup returns the value of key for model and scenario with the official
// precedence: "model.scenario.key", then "*.scenario.key", then
// "model.*.key", then "*.*.key".
func (c *Config) Lookup(model, scenario, key string) (value string, line int, ok bool) {
	for _, k := range [...]string{
		model + "." + scenario + "." + key,
		"*." + scenario + "." + key,
		model + ".*." + key,
		"*.*." + key,
	} {
		if v, found := c.values[k]; found {
			return v.text, v.line, true
		}
	}
	return "", 0, false
}

// Apply returns s with the keys of c that apply to model and scenario,
// following the official TestSettings::FromConfig key for key: which keys
// each kind of file may set, the scenario each key is read for (target
// latencies and QPS of every scenario are read at once), and the units
// (milliseconds in files, the percentiles in percent).
//
// Use [ConfigModelName] to turn a benchmark name such as "bert-99.9" into
// the model name the official files use.
//
// # Errors
//
// A "mode" value other than 0 to 3 is a [*ConfigError]; s is then returned
// unchanged.
func (c *Config) Apply(s TestSettings, model string, scenario Scenario, kind ConfigKind) (TestSettings, error) {
	a := applier{c: c, model: model, scenario: scenario.String()}
	if v, line, ok := a.lookup(a.scenario, "mode"); ok {
		n := strtoull(v)
		if n > uint64(FindPeakPerformance) {
			return s, &ConfigError{File: c.name, Line: line, Key: "mode",
				Msg: fmt.Sprintf("invalid mode %s (want 0 SubmissionRun, 1 AccuracyOnly, 2 PerformanceOnly or 3 FindPeakPerformance)", v)}
		}
		s.Mode = Mode(n)
	}
	sc := a.scenario
	if kind == MLPerfConf {
		a.uint(sc, "qsl_rng_seed", 1, &s.QSLRNGSeed)
		a.uint(sc, "sample_index_rng_seed", 1, &s.SampleIndexRNGSeed)
		a.uint(sc, "schedule_rng_seed", 1, &s.ScheduleRNGSeed)
		a.float(sc, "accuracy_log_probability", 0.01, &s.AccuracyLogProbability)
		a.flagOne(sc, "test05", &s.Test05)
		a.uint(sc, "test05_qsl_rng_seed", 1, &s.Test05QSLRNGSeed)
		a.uint(sc, "test05_sample_index_rng_seed", 1, &s.Test05SampleIndexRNGSeed)
		a.uint(sc, "test05_schedule_rng_seed", 1, &s.Test05ScheduleRNGSeed)
	}
	a.flagOne(sc, "use_token_latencies", &s.UseTokenLatencies)
	if s.UseTokenLatencies {
		a.nanos("Server", "ttft_latency", &s.ServerTTFTLatency)
		a.nanos("Server", "tpot_latency", &s.ServerTPOTLatency)
	}
	a.flagOne(sc, "infer_token_latencies", &s.InferTokenLatencies)
	if s.InferTokenLatencies {
		a.uint(sc, "token_latency_scaling_factor", 1, &s.TokenLatencyScalingFactor)
	}
	a.flagOne(sc, "use_grouped_qsl", &s.UseGroupedQSL)

	a.float("SingleStream", "target_latency_percentile", 0.01, &s.SingleStreamTargetLatencyPercentile)
	a.float("MultiStream", "target_latency_percentile", 0.01, &s.MultiStreamTargetLatencyPercentile)
	a.uint("MultiStream", "samples_per_query", 1, &s.MultiStreamSamplesPerQuery)
	a.float("Server", "target_latency_percentile", 0.01, &s.ServerTargetLatencyPercentile)
	a.nanos("Server", "target_latency", &s.ServerTargetLatency)

	a.flagNonZero(sc, "performance_issue_unique", &s.PerformanceIssueUnique)
	a.flagNonZero(sc, "performance_issue_same", &s.PerformanceIssueSame)
	a.uint(sc, "performance_issue_same_index", 1, &s.PerformanceIssueSameIndex)
	a.flagOne(sc, "sample_concatenate_permutation", &s.SampleConcatenatePermutation)
	a.flagNonZero("Server", "coalesce_queries", &s.ServerCoalesceQueries)
	a.uint("Server", "max_async_queries", 1, &s.ServerMaxAsyncQueries)
	a.flagNonZero("Server", "constant_gen", &s.ServerConstantGen)

	a.millis(sc, "min_duration", &s.MinDuration)
	a.millis(sc, "max_duration", &s.MaxDuration)
	a.uint(sc, "min_query_count", 1, &s.MinQueryCount)
	a.uint(sc, "max_query_count", 1, &s.MaxQueryCount)
	a.uint(sc, "performance_sample_count_override", 1, &s.PerformanceSampleCountOverride)
	a.uint(sc, "accuracy_sample_count_override", 1, &s.AccuracySampleCountOverride)
	a.floatNanos("SingleStream", "target_latency", &s.SingleStreamExpectedLatency)
	a.floatNanos("MultiStream", "target_latency", &s.MultiStreamExpectedLatency)
	a.float("Server", "target_qps", 1, &s.ServerTargetQPS)
	a.float("Offline", "target_qps", 1, &s.OfflineExpectedQPS)
	a.flagNonZero(sc, "print_timestamps", &s.PrintTimestamps)

	a.uint(sc, "accuracy_log_rng_seed", 1, &s.AccuracyLogRNGSeed)
	a.uint(sc, "accuracy_log_sampling_target", 1, &s.AccuracyLogSamplingTarget)
	return s, nil
}

// applier reads typed values the way the official lookupkv lambda does.
type applier struct {
	c        *Config
	model    string
	scenario string
}

func (a applier) lookup(scenario, key string) (string, int, bool) {
	return a.c.Lookup(a.model, scenario, key)
}

// uint reads strtoull(value) * multiplier, wrapping like uint64_t.
func (a applier) uint(scenario, key string, multiplier uint64, dst *uint64) {
	if v, _, ok := a.lookup(scenario, key); ok {
		*dst = strtoull(v) * multiplier
	}
}

func (a applier) float(scenario, key string, multiplier float64, dst *float64) {
	if v, _, ok := a.lookup(scenario, key); ok {
		*dst = strtod(v) * multiplier
	}
}

// flagOne sets dst to value == 1, flagNonZero to value != 0: the official
// parser uses both tests, key by key.
func (a applier) flagOne(scenario, key string, dst *bool) {
	if v, _, ok := a.lookup(scenario, key); ok {
		*dst = strtoull(v) == 1
	}
}

func (a applier) flagNonZero(scenario, key string, dst *bool) {
	if v, _, ok := a.lookup(scenario, key); ok {
		*dst = strtoull(v) != 0
	}
}

// millis reads an integer count of milliseconds.
func (a applier) millis(scenario, key string, dst *time.Duration) {
	if v, _, ok := a.lookup(scenario, key); ok {
		ms := strtoull(v)
		if ms > math.MaxInt64/uint64(time.Millisecond) {
			*dst = math.MaxInt64
			return
		}
		*dst = time.Duration(ms) * time.Millisecond
	}
}

// nanos reads integer milliseconds into integer nanoseconds
// (strtoull(value) * 1000000, wrapping like uint64_t).
func (a applier) nanos(scenario, key string, dst *time.Duration) {
	if v, _, ok := a.lookup(scenario, key); ok {
		*dst = time.Duration(strtoull(v) * uint64(time.Millisecond))
	}
}

// floatNanos reads (possibly fractional) milliseconds into nanoseconds, as
// the official double-typed expected latencies are.
func (a applier) floatNanos(scenario, key string, dst *time.Duration) {
	if v, _, ok := a.lookup(scenario, key); ok {
		*dst = saturatingDuration(strtod(v) * 1e6)
	}
}

func saturatingDuration(ns float64) time.Duration {
	switch {
	case math.IsNaN(ns):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

// ConfigModelName maps a benchmark name as submissions spell it to the
// model name the official mlperf.conf uses: the accuracy-target suffix
// ("-99", "-99.9") is dropped, as are the legacy v0.5 aliases ("resnet",
// "ssd-small", "ssd-large"). Other names are returned unchanged.
func ConfigModelName(benchmark string) string {
	for _, suffix := range [...]string{"-99.9", "-99"} {
		if b, ok := strings.CutSuffix(benchmark, suffix); ok {
			benchmark = b
			break
		}
	}
	switch benchmark {
	case "resnet":
		return "resnet50"
	case "ssd-small":
		return "ssd-mobilenet"
	case "ssd-large":
		return "ssd-resnet34"
	}
	return benchmark
}
