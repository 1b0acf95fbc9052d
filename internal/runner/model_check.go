package runner

import (
	"fmt"
	"os"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// checkModelFile refuses a model path the host would have to read for
// the plugin (a WASM plugin, or a subprocess plugin that cannot open
// files) when it is not a regular file: a directory given to --model is
// the user's mistake, not the plugin's or the host's.
func checkModelFile(path string, info host.Info) error {
	if path == "" || info.Capabilities.Has(abi.CapModelPath) {
		return nil // the plugin opens the path itself, and says what it wants
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil // Model checked that it exists
	}
	return exitcode.New(exitcode.Config, fmt.Errorf("%w: model %s is not a file (%s): plugin %s reads its model as one file",
		config.ErrConfig, path, describeMode(st.Mode()), info.Name), "pass --model FILE")
}

func describeMode(m os.FileMode) string {
	if m.IsDir() {
		return "a directory"
	}
	return m.Type().String()
}
