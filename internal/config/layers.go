package config

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
)

// EnvPrefix starts every environment variable config reads.
const EnvPrefix = "MLPERF_HOST_"

// layer is one loaded layer: its flat values and where each came from.
type layer struct {
	k      *koanf.Koanf
	source map[string]Source
}

func newLayer() *layer { return &layer{k: koanf.New("."), source: map[string]Source{}} }

// set records one value.
func (l *layer) set(key, value string, src Source) error {
	if err := l.k.Load(confmap.Provider(map[string]any{key: value}, "."), nil); err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	l.source[key] = src
	return nil
}

// stringify turns a parsed TOML/YAML leaf into the string config keeps.
func stringify(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "1"
		}
		return "0"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = stringify(e)
		}
		return strings.Join(parts, ",")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// fileLayer reads a TOML (.toml) or YAML (.yaml, .yml) config file.
func fileLayer(path string) (*layer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Layer: LayerFile, Path: path, Err: err}
	}
	var parser koanf.Parser
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		parser = toml.Parser()
	case ".yaml", ".yml":
		parser = yaml.Parser()
	default:
		return nil, &FileError{Layer: LayerFile, Path: path, Err: fmt.Errorf("unknown extension %q: want .toml, .yaml or .yml", filepath.Ext(path))}
	}
	k := koanf.New(".")
	if err := k.Load(rawBytes(b), parser); err != nil {
		return nil, &FileError{Layer: LayerFile, Path: path, Err: err}
	}
	l := newLayer()
	if err := poolTables(k); err != nil {
		return nil, &FileError{Layer: LayerFile, Path: path, Err: err}
	}
	for _, key := range k.Keys() {
		if err := l.set(key, stringify(k.Get(key)), Source{LayerFile, path}); err != nil {
			return nil, &FileError{Layer: LayerFile, Path: path, Err: err}
		}
	}
	return l, nil
}

// rawBytes is a koanf.Provider of a byte slice.
type rawBytes []byte

func (r rawBytes) ReadBytes() ([]byte, error) { return bytes.Clone(r), nil }
func (r rawBytes) Read() (map[string]any, error) {
	return nil, fmt.Errorf("raw bytes need a parser")
}

// envKey maps MLPERF_HOST_SETTINGS__TARGET_QPS to settings.target_qps:
// the prefix goes, "__" separates levels, the rest is lower-cased.
func envKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, EnvPrefix), "__", "."))
}

// envLayer reads MLPERF_HOST_* variables that name config keys; the others
// (variables of tests and plugins, such as MLPERF_HOST_DEVICE) are returned
// as ignored.
func envLayer(environ []string) (*layer, []string, error) {
	l := newLayer()
	var ignored []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		key := envKey(name)
		if !isConfigKey(key) {
			ignored = append(ignored, name)
			continue
		}
		if err := l.set(key, value, Source{LayerEnv, name}); err != nil {
			return nil, nil, err
		}
	}
	slices.Sort(ignored)
	return l, ignored, nil
}

// isConfigKey reports whether key can be a config key: a top-level key, a
// setting or a plugin option.
func isConfigKey(key string) bool {
	if _, ok := specFor(key); ok {
		return true
	}
	if s, ok := strings.CutPrefix(key, PrefixSettings); ok {
		_, known := settingKinds[s]
		return known
	}
	if o, ok := strings.CutPrefix(key, PrefixOptions); ok {
		plugin, opt, ok := strings.Cut(o, ".")
		return ok && plugin != "" && opt != ""
	}
	for _, p := range freeFormPrefixes {
		if f, ok := strings.CutPrefix(key, p); ok {
			return f != "" && !strings.Contains(f, ".")
		}
	}
	return false
}

// FlagValue is one flag the user set: the config key it sets, its value,
// and how it was spelled.
type FlagValue struct {
	Key, Value, Flag string
}

func flagLayer(flags []FlagValue) (*layer, error) {
	l := newLayer()
	for _, f := range flags {
		if err := l.set(f.Key, f.Value, Source{LayerFlag, f.Flag}); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// SetKey maps a --set KEY (or MLPERF_HOST_ variable) to its config key:
// top-level keys, host.* and settings.* keep their name; anything else,
// PLUGIN.OPTION, is a plugin option (options.PLUGIN.OPTION).
func SetKey(key string) (string, error) {
	switch {
	case key == "":
		return "", fmt.Errorf("empty key")
	case isConfigKey(key), strings.HasPrefix(key, PrefixSettings), strings.HasPrefix(key, "host."),
		strings.HasPrefix(key, PrefixSystemDesc), strings.HasPrefix(key, PrefixMeasurements):
		return key, nil
	}
	plugin, opt, ok := strings.Cut(key, ".")
	if !ok || plugin == "" || opt == "" {
		return "", fmt.Errorf("%q is no config key and not PLUGIN.OPTION", key)
	}
	return PrefixOptions + key, nil
}

// merge merges layers into one, lowest first, keeping each key's source.
func merge(layers ...*layer) (*layer, error) {
	out := newLayer()
	for _, l := range layers {
		if l == nil {
			continue
		}
		if err := out.k.Merge(l.k); err != nil {
			return nil, err
		}
		maps.Copy(out.source, l.source)
	}
	return out, nil
}
