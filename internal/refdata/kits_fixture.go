package refdata

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// writeKiTSCase writes a case pickle: [image, label].
func writeKiTSCase(w io.Writer, shape []int, image []float32, label []byte) error {
	if len(image) != len(label) {
		return fmt.Errorf("kits case: %d image voxels, %d label voxels", len(image), len(label))
	}
	var p pickle.Writer
	p.Op(']', '(')
	img := make([]byte, 0, 4*len(image))
	for _, v := range image {
		img = binary.LittleEndian.AppendUint32(img, math.Float32bits(v))
	}
	p.Array(dataset.Float32.Descr(), shape, img)
	p.Array(dataset.Uint8.Descr(), shape, label)
	p.Op('e')
	return p.Encode(w)
}

// kitsFileCase is a case's entry of preprocessed_files.pkl.
type kitsFileCase struct {
	name  string
	shape []int // the image's, [1, D, H, W]
}

// kitsAffine is the reshaped_affine the fixtures' cases carry: the
// reference's target spacing (1.6, 1.2, 1.2 mm) on the diagonal.
var kitsAffine = [16]float64{1.6, 0, 0, 0, 0, 1.2, 0, 0, 0, 0, 1.2, 0, 0, 0, 0, 1}

// writeKiTSFileList writes preprocessed_files.pkl as the reference's
// preprocess.py does: {"file_list": names, "cases": {name:
// {"image_shape": (1, D, H, W), "reshaped_affine": float64 [4, 4]}}}.
func writeKiTSFileList(w io.Writer, cases []kitsFileCase) error {
	var p pickle.Writer
	p.Op('}', '(')
	p.Str("file_list")
	p.Op(']', '(')
	for _, c := range cases {
		p.Str(c.name)
	}
	p.Op('e')
	p.Str("cases")
	p.Op('}', '(')
	affine := make([]byte, 0, 8*len(kitsAffine))
	for _, v := range kitsAffine {
		affine = binary.LittleEndian.AppendUint64(affine, math.Float64bits(v))
	}
	for _, c := range cases {
		p.Str(c.name)
		p.Op('}', '(')
		p.Str("image_shape")
		p.Op('(')
		for _, d := range c.shape {
			p.Int(d)
		}
		p.Op('t')
		p.Str("reshaped_affine")
		p.Array(dataset.Float64.Descr(), []int{4, 4}, affine)
		p.Op('u')
	}
	p.Op('u', 'u')
	return p.Encode(w)
}
