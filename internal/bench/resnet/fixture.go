package resnet

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The writers below make small data sets in the reference forms, for the
// end-to-end tests: the answer each sample should get is encoded in it as
// the benchmark signature models of the onnx plugin's zoo
// (plugins/onnx/internal/zoo/bench.go) read it, so that a run scores what
// the data set was made to score.

// ImageNetClassAngle is the angle an image of class c holds (the zoo's
// ResNet50Signature reads it back): 2πc/1000.
func ImageNetClassAngle(c int) float64 { return 2 * math.Pi * float64(c) / 1000 }

// WriteImageNet writes ImageNet as the ResNet-50 reference preprocesses
// it: ILSVRC2012_val_NNNNNNNN.JPEG.npy, float32 [3, 224, 224] (NCHW), and
// val_map.txt with labels; image i holds class predicted[i] (its first
// two elements the cosine and sine of its angle).
func WriteImageNet(dir string, predicted, labels []int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var vm bytes.Buffer
	spec := dataset.Spec{DType: dataset.Float32, Shape: []int{3, 224, 224}}
	img := make([]float32, spec.Elements())
	for i, c := range predicted {
		name := fmt.Sprintf("ILSVRC2012_val_%08d.JPEG", i+1)
		img[0], img[1] = float32(math.Cos(ImageNetClassAngle(c))), float32(math.Sin(ImageNetClassAngle(c)))
		for k := 2; k < len(img); k++ {
			img[k] = float32((i*31+k*7)%255)/255 - 0.5
		}
		if err := dataset.WriteNPYFile(filepath.Join(dir, name+".npy"), spec, dataset.Float32Bytes(img)); err != nil {
			return err
		}
		fmt.Fprintf(&vm, "%s %d\n", name, labels[i])
	}
	return os.WriteFile(filepath.Join(dir, "val_map.txt"), vm.Bytes(), 0o644)
}
