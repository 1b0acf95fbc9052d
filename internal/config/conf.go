package config

import (
	"fmt"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// ConfEntry is one line of an mlperf.conf or user.conf that applies to the
// run's model and scenario.
type ConfEntry struct {
	// Setting is the key after model.scenario., e.g. "target_qps".
	Setting string
	Value   string
	// Line is the 1-based line number; Pattern the line's whole key, e.g.
	// "*.Server.target_latency".
	Line    int
	Pattern string
}

// ConfReader returns the entries of the conf file at path that apply to
// model and scenario, one per setting: the most specific match wins, as in
// the official LoadGen. kind is LayerMLPerfConf or LayerUserConf. cmd/mlperf-host passes LoadGen's parser.
type ConfReader func(kind Layer, path, model, scenario string) ([]ConfEntry, error)

// confLayer reads one conf file through read.
func confLayer(lay Layer, path, model, scenario string, read ConfReader) (*layer, error) {
	if read == nil {
		return nil, &FileError{Layer: lay, Path: path, Err: fmt.Errorf("no conf reader")}
	}
	entries, err := read(lay, path, model, scenario)
	if err != nil {
		return nil, &FileError{Layer: lay, Path: path, Err: err}
	}
	l := newLayer()
	for _, e := range entries {
		where := fmt.Sprintf("%s:%d (%s)", path, e.Line, e.Pattern)
		if err := l.set(PrefixSettings+e.Setting, e.Value, Source{lay, where}); err != nil {
			return nil, &FileError{Layer: lay, Path: path, Err: err}
		}
	}
	return l, nil
}

// builtinLayer is the lowest layer: every key's default and the settings
// the round's official mlperf.conf gives this benchmark and scenario (for
// the demo, its own rules over the lines for every model), each with the
// line it comes from.
func builtinLayer(r *benchmarks.Round, b benchmarks.Benchmark, sc benchmarks.Scenario) (*layer, error) {
	l := newLayer()
	for _, k := range keySpecs() {
		if k.def == "" {
			continue
		}
		if err := l.set(k.key, k.def, Source{LayerBuiltin, "default"}); err != nil {
			return nil, err
		}
	}
	for _, s := range b.Settings[sc] {
		if _, known := settingKinds[s.Key]; !known {
			// An official setting this LoadGen does not take
			// (TestOfficialSettingsKnown: none today).
			continue
		}
		where := "mlperf.conf " + r.Name + " (" + s.Pattern + ")"
		switch {
		case s.From != "":
			where = "round " + r.Name + " (" + s.From + ")"
		case b.Demo && strings.HasPrefix(s.Pattern, b.Name+"."):
			where = "demo rules (" + s.Pattern + ")"
		}
		if err := l.set(PrefixSettings+s.Key, s.Value, Source{LayerBuiltin, where}); err != nil {
			return nil, err
		}
	}
	return l, nil
}
