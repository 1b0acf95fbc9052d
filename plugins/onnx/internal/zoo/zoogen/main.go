// Command zoogen writes the zoo's random-weight ResNet-50 v1.5 and
// MobileNetV2 models: go run ./plugins/onnx/internal/zoo/zoogen DIR.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: zoogen DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for name, m := range map[string][]byte{"resnet50.onnx": zoo.ResNet50(1), "mobilenetv2.onnx": zoo.MobileNetV2(1)} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, m, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("wrote %s (%d MiB)\n", path, len(m)>>20)
	}
}
