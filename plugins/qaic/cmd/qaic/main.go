package main

import (
	"fmt"
	"os"

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
	cfg, err := aic.DefaultConfig().WithOptions(sdk.EnvOptions(environ, envPrefix))
	if err != nil {
		return nil, fmt.Errorf("%s* environment variables: %w", envPrefix, err)
	}
	return aic.New(cfg)
}
