// Command gensamples writes a data set of synthetic image samples in the
// MLPerf reference's preprocessed form (one float32 .npy per sample and a
// val_map.txt naming them in order), for `make bench-cpu-harness`: both the
// C++ LoadGen + ONNX Runtime harness and `mlperf-host run` read it.
//
//	gensamples -out DIR [-n 256] [-shape 3,224,224]
//
// The pixel values are a fixed pattern (the benchmark's models have random
// weights, so real images would measure nothing more); every label is 0.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func main() {
	out := flag.String("out", "", "directory to write (created)")
	n := flag.Int("n", 256, "number of samples")
	shape := flag.String("shape", "3,224,224", "one sample's shape, comma-separated")
	flag.Parse()
	if err := run(*out, *n, *shape); err != nil {
		fmt.Fprintln(os.Stderr, "gensamples:", err)
		os.Exit(1)
	}
}

func run(out string, n int, shape string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	if n <= 0 {
		return fmt.Errorf("-n %d: want at least one sample", n)
	}
	spec := dataset.Spec{DType: dataset.Float32}
	for f := range strings.SplitSeq(shape, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return fmt.Errorf("-shape %q: %q is not a positive dimension", shape, f)
		}
		spec.Shape = append(spec.Shape, d)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	var valMap strings.Builder
	data := make([]byte, spec.Bytes())
	for s := range n {
		fill(data, s)
		name := fmt.Sprintf("sample_%05d", s)
		if err := writeSample(filepath.Join(out, name+".npy"), spec, data); err != nil {
			return err
		}
		fmt.Fprintf(&valMap, "%s 0\n", name)
	}
	if err := os.WriteFile(filepath.Join(out, "val_map.txt"), []byte(valMap.String()), 0o644); err != nil {
		return fmt.Errorf("write val_map.txt: %w", err)
	}
	return nil
}

// fill writes sample s's pattern: element i is ((i+s) mod 251)/251 - 0.5,
// roughly the range of a normalized image.
func fill(data []byte, s int) {
	for i := range len(data) / 4 {
		v := float32((i+s)%251)/251 - 0.5
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
}

func writeSample(path string, spec dataset.Spec, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create sample: %w", err)
	}
	if err := dataset.WriteNPY(f, spec, data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
