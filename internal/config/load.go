package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Inputs is everything Load reads. The caller gathers it from the process.
type Inputs struct {
	// ConfigFile is the --config file; "" for none.
	ConfigFile string
	// Environ is the environment as os.Environ returns it.
	Environ []string
	// Flags are the flags the user set, in order.
	Flags []FlagValue
	// ReadConf reads mlperf.conf and user.conf.
	ReadConf ConfReader
}

// Value is one effective key.
type Value struct {
	Key, Value string
	Source     Source
	// Help describes the key; empty for settings and options.
	Help string
}

// Config is the effective configuration. It is never modified after Load.
type Config struct {
	// Round is the round whose rules apply; Benchmark a row of its table.
	Round     *benchmarks.Round
	Benchmark benchmarks.Benchmark
	Scenario  benchmarks.Scenario
	Mode      string
	Plugin    string
	Model     string
	Dataset   string
	LabelMap  string
	// AudioFeatures is the audio_features key.
	AudioFeatures string
	// GraphSample is the graph_sample key.
	GraphSample string
	Out         string
	Progress    string
	// AccuracyOutput is the accuracy_output key; "" for the benchmark's.
	AccuracyOutput string
	Category       benchmarks.Category
	Division       string
	Submitter      string
	System         string
	Host           HostConfig
	// TEST06EOS and TEST06DType: test06.eos_token_id (else the
	// benchmark's EOS ids) and test06.dtype.
	TEST06EOS   []int64
	TEST06DType string
	// TEST07Dataset and TEST07Script: test07.dataset and
	// test07.accuracy_script.
	TEST07Dataset, TEST07Script string
	// AccuracyDataset is accuracy.dataset: the data set of submit's
	// accuracy runs; "" for the dataset key's.
	AccuracyDataset string
	// Calibration is the calibration key: a file; "" for none.
	Calibration string
	// Scoring is the accuracy.* keys.
	Scoring ScoringConfig
	// Pool is the pool key's members; nil for a run of one plugin.
	Pool []PoolMember
	// Remote is the remote.* keys: a plugin served on another machine.
	Remote RemoteConfig
	// Calibrate is the calibrate.* keys.
	Calibrate CalibrateConfig

	values  []Value
	ignored []string
}

// ScoringConfig is the accuracy.* keys: what a benchmark's scorer reads
// besides the accuracy log; "" for the data set's, or none.
type ScoringConfig struct {
	Truth, Vocab, Trace, DType, Punkt, Features, Problems string
	// Launcher is the code sandbox's launcher, the running binary (set
	// by the CLI, not a key).
	Launcher string
}

// HostConfig is the host.* keys.
type HostConfig struct {
	Instances           int
	CallTimeout         time.Duration
	MemoryLimitMiB      int
	Guard               string
	PluginDirs          []string
	CompilationCacheDir string
	// SharedRings, SharedRingsFirstTokens and RingSpin: host.shared_rings
	// is not off, is on (the rings for a plugin that reports first
	// tokens too), host.ring_spin.
	SharedRings, SharedRingsFirstTokens bool
	RingSpin                            time.Duration
	// CloseTimeout is host.close_timeout.
	CloseTimeout time.Duration
	// PIDNamespace is host.pid_namespace: "auto" or "off".
	PIDNamespace string
	// WasiNN, WasiNNLibrary and WasiNNThreads: host.wasi_nn ("ort" or
	// "off"), host.wasi_nn_library, host.wasi_nn_threads.
	WasiNN        string
	WasiNNLibrary string
	WasiNNThreads int
	// LogLevel is host.log_level: debug, info, warn or error.
	LogLevel string
	// PoolDepth is host.pool_depth.
	PoolDepth int
}

// Load builds the effective configuration from its layers.
//
// # Errors
//
// Every error matches [ErrConfig]: a [*FileError] for a file that cannot be
// read or parsed, an [*Error] naming key, value, source and allowed values
// for a bad value (all bad values, joined).
func Load(in Inputs) (*Config, error) {
	var upper []*layer
	if in.ConfigFile != "" {
		l, err := fileLayer(in.ConfigFile)
		if err != nil {
			return nil, err
		}
		upper = append(upper, l)
	}
	env, ignored, err := envLayer(in.Environ)
	if err != nil {
		return nil, err
	}
	flags, err := flagLayer(in.Flags)
	if err != nil {
		return nil, err
	}
	upper = append(upper, env, flags)
	top, err := merge(upper...)
	if err != nil {
		return nil, err
	}

	// The benchmark and scenario select the lower layers' values, so they
	// are read from the upper layers first.
	pick := func(key string) (string, Source, error) {
		spec, _ := specFor(key)
		v, src := spec.def, Source{LayerBuiltin, "default"}
		if top.k.Exists(key) {
			v, src = top.k.String(key), top.source[key]
		}
		if spec.check(v) != nil {
			return "", src, &Error{Key: key, Value: v, Source: src, Allowed: spec.allowed}
		}
		return v, src, nil
	}
	roundName, _, err := pick(KeyRound)
	if err != nil {
		return nil, err
	}
	round, err := benchmarks.LookupRound(roundName)
	if err != nil {
		return nil, err
	}
	name, nameSrc, err := pick(KeyBenchmark)
	if err != nil {
		return nil, err
	}
	bench, err := round.Lookup(name)
	if err != nil {
		return nil, &Error{Key: KeyBenchmark, Value: name, Source: nameSrc, Err: err}
	}
	sc, scSrc, err := pick(KeyScenario)
	if err != nil {
		return nil, err
	}
	if err := checkInteractive(round, bench, benchmarks.Scenario(sc), scSrc); err != nil {
		return nil, err
	}
	layers := []*layer{}
	builtin, err := builtinLayer(round, bench, benchmarks.Scenario(sc))
	if err != nil {
		return nil, err
	}
	layers = append(layers, builtin)
	for _, c := range []struct {
		key string
		lay Layer
	}{{KeyMLPerfConf, LayerMLPerfConf}, {KeyUserConf, LayerUserConf}} {
		if path := top.k.String(c.key); path != "" {
			l, err := confLayer(c.lay, path, bench.ConfName(benchmarks.Scenario(sc)), string(benchmarks.Scenario(sc).LoadGen()), in.ReadConf)
			if err != nil {
				return nil, err
			}
			layers = append(layers, l)
		}
	}
	all, err := merge(append(layers, upper...)...)
	if err != nil {
		return nil, err
	}
	return build(all, round, bench, ignored)
}

// checkInteractive refuses the Interactive scenario of a benchmark no
// category of the round submits it for: its mlperf.conf has no
// Interactive rules.
func checkInteractive(round *benchmarks.Round, bench benchmarks.Benchmark, sc benchmarks.Scenario, src Source) error {
	if sc != benchmarks.Interactive || bench.HasInteractive() {
		return nil
	}
	var with []string
	for _, b := range round.All() {
		if b.HasInteractive() {
			with = append(with, b.SubmissionName)
		}
	}
	return &Error{Key: KeyScenario, Value: string(sc), Source: src,
		Err:     fmt.Errorf("%s has no Interactive scenario in round %s", bench.SubmissionName, round.Name),
		Allowed: "Interactive only for " + strings.Join(with, ", ")}
}

// build validates every key and makes the Config.
func build(all *layer, round *benchmarks.Round, bench benchmarks.Benchmark, ignored []string) (*Config, error) {
	keys := all.k.Keys()
	var errs []error
	var values []Value
	for _, key := range keys {
		v := all.k.String(key)
		src := all.source[key]
		val := Value{Key: key, Value: v, Source: src}
		switch {
		case strings.HasPrefix(key, PrefixSettings):
			if allowed, err := checkSetting(strings.TrimPrefix(key, PrefixSettings), v); err != nil {
				errs = append(errs, &Error{Key: key, Value: v, Source: src, Allowed: allowed})
			}
		case strings.HasPrefix(key, PrefixOptions):
			if !isConfigKey(key) {
				errs = append(errs, &Error{Key: key, Value: v, Source: src, Allowed: "a key options.PLUGIN.OPTION"})
			}
		case strings.HasPrefix(key, PrefixSystemDesc), strings.HasPrefix(key, PrefixMeasurements):
			if !isConfigKey(key) {
				errs = append(errs, &Error{Key: key, Value: v, Source: src, Allowed: "a key system_desc.FIELD or measurements.FIELD"})
			}
		default:
			spec, ok := specFor(key)
			if !ok {
				errs = append(errs, &Error{Key: key, Value: v, Source: src, Err: errors.New("unknown key"),
					Allowed: "a key among " + strings.Join(TopLevelKeys(), ", ") + ", settings.NAME, options.PLUGIN.OPTION or system_desc.FIELD"})
				continue
			}
			if err := spec.check(v); err != nil {
				e := &Error{Key: key, Value: v, Source: src, Allowed: spec.allowed}
				if !errors.Is(err, errBad) {
					e.Err = err
				}
				errs = append(errs, e)
			}
			val.Help = spec.help
		}
		values = append(values, val)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	get := all.k.String
	atoi := func(k string) int { n, _ := strconv.Atoi(get(k)); return n }
	timeout, _ := time.ParseDuration(get(KeyHostTimeout))
	spin, _ := time.ParseDuration(get(KeyHostRingSpin))
	closeTimeout, _ := time.ParseDuration(get(KeyHostCloseTimeout))
	c := &Config{
		Round: round, Benchmark: bench, Scenario: benchmarks.Scenario(get(KeyScenario)), Mode: get(KeyMode),
		Plugin: get(KeyPlugin), Model: get(KeyModel), Dataset: get(KeyDataset), LabelMap: get(KeyLabelMap),
		AudioFeatures: get(KeyAudioFeatures), GraphSample: get(KeyGraphSample),
		Out: get(KeyOut), Progress: get(KeyProgress), AccuracyOutput: get(KeyAccuracyOutput), Category: benchmarks.Category(get(KeyCategory)),
		Division: get(KeyDivision), Submitter: get(KeySubmitter), System: get(KeySystem),
		Host: HostConfig{
			Instances: atoi(KeyHostInstances), CallTimeout: timeout, MemoryLimitMiB: atoi(KeyHostMemory),
			Guard: get(KeyHostGuard), CompilationCacheDir: get(KeyHostCacheDir),
			SharedRings: get(KeyHostRings) != "off", SharedRingsFirstTokens: get(KeyHostRings) == "on", RingSpin: spin, CloseTimeout: closeTimeout, PIDNamespace: get(KeyHostPIDNamespace),
			WasiNN: get(KeyHostWasiNN), WasiNNLibrary: get(KeyHostWasiNNLibrary), WasiNNThreads: atoi(KeyHostWasiNNThreads),
			LogLevel: get(KeyHostLogLevel),
		},
		TEST06DType: get(KeyTEST06DType), Calibration: get(KeyCalibration),
		Scoring: ScoringConfig{Truth: get(KeyAccuracyTruth), Vocab: get(KeyAccuracyVocab), Trace: get(KeyAccuracyTrace), DType: get(KeyAccuracyDType), Punkt: get(KeyAccuracyPunkt), Features: get(KeyAccuracyFeatures),
			Problems: get(KeyAccuracyProblems)},
		values: values, ignored: ignored,
	}
	c.TEST06EOS, _ = ParseIDs(get(KeyTEST06EOS))
	if c.TEST06EOS == nil {
		c.TEST06EOS = slices.Clone(c.Benchmark.EOSTokenIDs)
	}
	c.TEST07Dataset, c.TEST07Script = get(KeyTEST07Dataset), get(KeyTEST07Script)
	c.AccuracyDataset = get(KeyAccuracyDataset)
	if d := get(KeyHostPluginDirs); d != "" {
		c.Host.PluginDirs = strings.Split(d, ",")
	}
	c.buildPool(get)
	c.buildRemote(get)
	c.buildCalibrate(get)
	return c, nil
}

// Values returns every effective key with its value and source, sorted by
// key.
func (c *Config) Values() []Value {
	v := slices.Clone(c.values)
	slices.SortFunc(v, func(a, b Value) int { return strings.Compare(a.Key, b.Key) })
	return v
}

// Lookup returns one key's effective value.
func (c *Config) Lookup(key string) (Value, bool) {
	for _, v := range c.values {
		if v.Key == key {
			return v, true
		}
	}
	return Value{}, false
}

// Ignored lists the MLPERF_HOST_* variables that name no config key.
func (c *Config) Ignored() []string { return slices.Clone(c.ignored) }

// Settings returns the effective LoadGen settings (the keys under
// settings., without the prefix) and their sources.
func (c *Config) Settings() []Value {
	var out []Value
	for _, v := range c.Values() {
		if s, ok := strings.CutPrefix(v.Key, PrefixSettings); ok {
			v.Key = s
			out = append(out, v)
		}
	}
	return out
}

// ConfModel is the model name the run's lines use in mlperf.conf and
// user.conf: the benchmark's LoadGen model name ("resnet50"), else its
// submission name; "MODEL-interactive" in the Interactive scenario.
func (c *Config) ConfModel() string { return c.Benchmark.ConfName(c.Scenario) }

// DatasetFeatures is what the data set's samples hold where its
// reference form offers a choice (dataset.Options.Features): the
// graph_sample key for rgat's IGBH, audio_features for LibriSpeech.
func (c *Config) DatasetFeatures() string {
	if c.Benchmark.Name == "rgat" {
		return c.GraphSample
	}
	return c.AudioFeatures
}

// LoadGenScenario is the scenario LoadGen runs and conf lines name:
// Server for Interactive, else the run's scenario.
func (c *Config) LoadGenScenario() benchmarks.Scenario { return c.Scenario.LoadGen() }

// SystemDesc returns the system description fields the configuration
// sets (system_desc.FIELD), by field name.
func (c *Config) SystemDesc() map[string]string { return c.under(PrefixSystemDesc) }

// Measurements returns the measurements.json fields the configuration
// sets (measurements.FIELD), by field name.
func (c *Config) Measurements() map[string]string { return c.under(PrefixMeasurements) }

func (c *Config) under(prefix string) map[string]string {
	out := map[string]string{}
	for _, v := range c.values {
		if f, ok := strings.CutPrefix(v.Key, prefix); ok {
			out[f] = v.Value
		}
	}
	return out
}

// SetByUser reports whether key's effective value comes from a layer the
// user writes (user.conf, the config file, the environment or a flag),
// not from the built-in table, an mlperf.conf or a calibration.
func (c *Config) SetByUser(key string) bool {
	v, ok := c.Lookup(key)
	return ok && v.Source.Layer > LayerCalibration
}

// With returns a copy of c with the given settings set by source (for
// the runs of a submission: TEST04 sets performance_issue_same and so on).
func (c *Config) With(src Source, settings map[string]string) *Config {
	n := *c
	n.values = slices.Clone(c.values)
	for k, v := range settings {
		key := PrefixSettings + k
		i := slices.IndexFunc(n.values, func(x Value) bool { return x.Key == key })
		if i < 0 {
			n.values = append(n.values, Value{Key: key, Value: v, Source: src})
		} else {
			n.values[i] = Value{Key: key, Value: v, Source: src}
		}
	}
	return &n
}

// String describes the run: "fashion-mnist Offline performance".
func (c *Config) String() string {
	return fmt.Sprintf("%s %s %s", c.Benchmark.SubmissionName, c.Scenario, c.Mode)
}

// WithMode returns a copy of c that runs in mode m (one of the Mode*
// constants).
func (c *Config) WithMode(m string) *Config {
	n := *c
	n.Mode = m
	return &n
}
