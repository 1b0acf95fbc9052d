//go:build linux || darwin

package ort

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// checkExternal checks every tensor of model whose data lies in an
// external file against dir (the model file's directory): a location
// inside it, a file that holds the whole range. ONNX Runtime reads the
// data itself, but a model given as bytes with no directory would have it
// read relative to the working directory, so that fails here naming the
// tensor and the file. It reports whether the model has external data.
func checkExternal(model []byte, dir string) (bool, error) {
	ext, err := onnxpb.ExternalTensors(model)
	if err != nil || len(ext) == 0 {
		return false, err
	}
	d, err := onnxpb.OpenExternalDir(dir)
	if err != nil {
		return false, err
	}
	defer d.Close()
	for i := range ext {
		if err := d.Check(&ext[i]); err != nil {
			return false, err
		}
	}
	return true, nil
}
