package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/runner"
)

// configFlags collects the flags that set config keys, in command-line
// order, for the flag layer.
type configFlags struct {
	file string
	vals []config.FlagValue
}

// keyFlag is a flag that sets one config key.
type keyFlag struct {
	cf        *configFlags
	key, name string
}

func (f keyFlag) String() string { return "" }

func (f keyFlag) Set(v string) error {
	f.cf.vals = append(f.cf.vals, config.FlagValue{Key: f.key, Value: v, Flag: "--" + f.name})
	return nil
}

// setFlag is --set KEY=VALUE, repeatable.
type setFlag struct{ cf *configFlags }

func (f setFlag) String() string { return "" }

func (f setFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	key, err := config.SetKey(strings.TrimSpace(k))
	if err != nil {
		return err
	}
	f.cf.vals = append(f.cf.vals, config.FlagValue{Key: key, Value: val, Flag: "--set " + v})
	return nil
}

// register adds the config flags to fs.
func (cf *configFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.file, "config", "", "config `FILE` (TOML or YAML) over user.conf")
	for _, f := range []struct{ name, key, help string }{
		{"round", config.KeyRound, "MLPerf Inference `ROUND` whose rules apply: v5.1, v6.0 or v6.1 (default v6.1)"},
		{"benchmark", config.KeyBenchmark, "benchmark `NAME` of the round's table (default fashion-mnist, the bundled demo)"},
		{"scenario", config.KeyScenario, "`SCENARIO`: SingleStream, MultiStream, Server, Offline or Interactive (LLMs; LoadGen's Server under MODEL-interactive's rules) (default Offline)"},
		{"mode", config.KeyMode, "`MODE`: performance, accuracy, submission or find-peak (default performance)"},
		{"plugin", config.KeyPlugin, "plugin `NAME` or path (default onnx, embedded)"},
		{"model", config.KeyModel, "model `FILE` the plugin loads (default: the benchmark's bundled model)"},
		{"dataset", config.KeyDataset, "data set `PATH`: a directory of .npy files or a .mlph file (default: bundled)"},
		{"label-map", config.KeyLabelMap, "label map `FILE` of a .npy directory (default DIR/val_map.txt)"},
		{"out", config.KeyOut, "output `DIR` for the logs (default mlperf-results)"},
		{"mlperf-conf", config.KeyMLPerfConf, "mlperf.conf `FILE` (the rules) over the built-in table"},
		{"user-conf", config.KeyUserConf, "user.conf `FILE` (your tuning)"},
		{"progress", config.KeyProgress, "progress bar: auto, always or never"},
		{"plugin-dirs", config.KeyHostPluginDirs, "comma-separated plugin `DIRS` to search"},
		{"remote", config.KeyRemoteAddress, "use the plugin an `mlperf-host serve` serves at `HOST:PORT` (docs/remote.md)"},
		{"calibrate", config.KeyCalibrateMode, "`auto` (probe the system before a performance run and choose the target_qps / target_latency you did not set) or off"},
		{"pool", config.KeyPool, "run plugin instances as one SUT: `MEMBERS` such as simdevice,simdevice{slots=4} (docs/pool.md)"},
	} {
		fs.Var(keyFlag{cf: cf, key: f.key, name: f.name}, f.name, f.help)
	}
	fs.Var(setFlag{cf}, "set", "`KEY=VALUE`: a plugin option (onnx.threads=4), a LoadGen setting\n(settings.target_qps=100) or any config key; repeatable")
}

// load builds the effective configuration from the layers.
func (a *app) load(cf *configFlags) (*config.Config, error) {
	c, err := config.Load(config.Inputs{
		ConfigFile: cf.file, Environ: a.environ, Flags: cf.vals, ReadConf: runner.ReadConf,
	})
	if c != nil {
		c.Scoring.Launcher = a.executable // the code sandbox's launcher
	}
	return c, err
}

// configFlagValue is a value a command sets from its arguments.
func configFlagValue(key, value string) config.FlagValue {
	return config.FlagValue{Key: key, Value: value, Flag: "argument"}
}
