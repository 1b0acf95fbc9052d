package sdk

import "strings"

// EnvOptions returns the plugin options set in environ (os.Environ's form)
// as prefix+NAME=VALUE, keyed by the lower-cased NAME:
// MLPERF_TENSORRT_BATCH_SIZE=8 with prefix "MLPERF_TENSORRT_" is the option
// batch_size=8. A plugin's main uses it for options it needs before Load
// (the host reads Info, hence MaxInFlight, before Load carries the
// options). The value is everything after the first '='.
func EnvOptions(environ []string, prefix string) map[string]string {
	opts := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if name, ok := strings.CutPrefix(k, prefix); ok && name != "" {
			opts[strings.ToLower(name)] = v
		}
	}
	return opts
}
