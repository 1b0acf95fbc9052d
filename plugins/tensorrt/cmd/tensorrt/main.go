package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/plugins/tensorrt/trt"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// envPrefix starts the environment variables that set plugin options
// before Load: MLPERF_TENSORRT_BATCH_SIZE=8 is the option batch_size=8.
const envPrefix = "MLPERF_TENSORRT_"

func main() {
	b, err := newBackend(os.Environ())
	if err != nil {
		fmt.Fprintf(os.Stderr, "tensorrt: %v\n", err)
		os.Exit(1)
	}
	sdk.Serve(b)
}

// newBackend builds the backend from the defaults and the options in
// environ.
func newBackend(environ []string) (*trt.Backend, error) {
	base := trt.DefaultConfig()
	// Built engines persist across runs in the user's cache directory
	// unless the engine_cache option says otherwise.
	if dir, err := os.UserCacheDir(); err == nil {
		base.EngineCache = filepath.Join(dir, "mlperf-host", "tensorrt")
	}
	cfg, err := base.WithOptions(sdk.EnvOptions(environ, envPrefix))
	if err != nil {
		return nil, fmt.Errorf("%s* environment variables: %w", envPrefix, err)
	}
	return trt.New(cfg)
}
