package loadgen

import (
	"slices"
	"strings"
)

// ConfigKey is one key a config file sets, split as the official lookup
// reads it: the setting after the last dot, the scenario before it, and
// the model (which may hold dots itself) before that.
type ConfigKey struct {
	// Key is the whole key, e.g. "*.Offline.target_qps".
	Key string
	// Model, Scenario and Setting are its parts; Scenario and Setting are
	// empty when the key has fewer than three parts (the official lookup
	// never matches such a key).
	Model, Scenario, Setting string
	// Line is the 1-based line that set it last.
	Line int
}

// Keys returns every key the file sets, in line order. The official
// LoadGen ignores keys it does not read (a misspelled setting, a
// scenario in the wrong case); a front end can check them here.
func (c *Config) Keys() []ConfigKey {
	keys := make([]ConfigKey, 0, len(c.values))
	for k, v := range c.values {
		ck := ConfigKey{Key: k, Line: v.line}
		if i := strings.LastIndexByte(k, '.'); i > 0 {
			if j := strings.LastIndexByte(k[:i], '.'); j > 0 {
				ck.Model, ck.Scenario, ck.Setting = k[:j], k[j+1:i], k[i+1:]
			}
		}
		keys = append(keys, ck)
	}
	slices.SortFunc(keys, func(a, b ConfigKey) int { return a.Line - b.Line })
	return keys
}
