package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/mlperf-host/mlperf-host/plugins/qaic/aic"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// envPrefix starts the environment variables that set plugin options
// before Load: MLPERF_QAIC_SET_SIZE=4 is the option set_size=4.
const envPrefix = "MLPERF_QAIC_"

func main() {
	b, err := newBackend(os.Environ())
	if err != nil {
		fmt.Fprintf(os.Stderr, "qaic: %v\n", err)
		os.Exit(1)
	}
	sdk.Serve(b)
}

// newBackend builds the backend from the defaults and the options in
// environ.
func newBackend(environ []string) (*aic.Backend, error) {
	cfg, err := aic.DefaultConfig().WithOptions(envOptions(environ, envPrefix))
	if err != nil {
		return nil, fmt.Errorf("%s* environment variables: %w", envPrefix, err)
	}
	return aic.New(cfg)
}

// envOptions returns the plugin options set in environ as prefix+NAME=VALUE,
// keyed by the lower-case NAME.
func envOptions(environ []string, prefix string) map[string]string {
	opts := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if name, ok := strings.CutPrefix(k, prefix); ok && name != "" {
			opts[strings.ToLower(name)] = v
		}
	}
	return opts
}
