package unet3d

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

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
	p.Array(dataset.Float32.Descr(), shape, dataset.Float32Bytes(image))
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

// FixtureCase is one case of a KiTS19 fixture: its shape, the ground truth
// and what the model answers, one class per voxel in C order.
type FixtureCase struct {
	Name      string
	D, H, W   int
	Truth     []byte
	Predicted []byte
}

// WriteKiTS writes KiTS19 as the 3D-UNet reference preprocesses it into
// dir: CASE.pkl ([image, label]; the image float32 [1, D, H, W] whose
// voxels are the predicted class plus a noise under 0.4, which the zoo's
// UNet3DSignature segments back), preprocessed_files.pkl and
// nifti/CASE/segmentation.nii.gz (the ground truth accuracy_kits.py
// reads).
func WriteKiTS(dir string, cases []FixtureCase) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var names []kitsFileCase
	for ci, c := range cases {
		n := c.D * c.H * c.W
		if len(c.Truth) != n || len(c.Predicted) != n {
			return fmt.Errorf("case %s: %d truth and %d predicted voxels for %dx%dx%d", c.Name, len(c.Truth), len(c.Predicted), c.D, c.H, c.W)
		}
		img := make([]float32, n)
		for v := range img {
			img[v] = float32(c.Predicted[v]) + 0.4*float32(math.Sin(float64(v*(ci+3))))
		}
		f, err := os.Create(filepath.Join(dir, c.Name+".pkl"))
		if err != nil {
			return err
		}
		err = writeKiTSCase(f, []int{1, c.D, c.H, c.W}, img, c.Truth)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := writeNIfTI(filepath.Join(dir, "nifti", c.Name, "segmentation.nii.gz"), [3]int{c.D, c.H, c.W}, c.Truth); err != nil {
			return err
		}
		names = append(names, kitsFileCase{name: c.Name, shape: []int{1, c.D, c.H, c.W}})
	}
	f, err := os.Create(filepath.Join(dir, kitsFileList))
	if err != nil {
		return err
	}
	err = writeKiTSFileList(f, names)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeNIfTI writes a gzipped NIfTI-1 uint8 volume (C-order labels of
// shape dims, stored first dimension fastest), as nibabel saves the
// reference's segmentations.
func writeNIfTI(path string, dims [3]int, labels []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	h := make([]byte, 352)
	le := binary.LittleEndian
	le.PutUint32(h[0:], 348)
	le.PutUint16(h[40:], 3)
	for i := range 3 {
		le.PutUint16(h[42+2*i:], uint16(dims[i]))
	}
	for i := 3; i < 8; i++ {
		le.PutUint16(h[42+2*i:], 1)
	}
	le.PutUint16(h[70:], 2) // DT_UINT8
	le.PutUint16(h[72:], 8) // bitpix
	for i := range 4 {
		le.PutUint32(h[76+4*i:], math.Float32bits(1)) // pixdim
	}
	le.PutUint32(h[108:], math.Float32bits(352)) // vox_offset
	copy(h[344:], "n+1\x00")
	d0, d1, d2 := dims[0], dims[1], dims[2]
	data := make([]byte, len(labels))
	for i := range d0 {
		for j := range d1 {
			for k := range d2 {
				data[i+d0*(j+d1*k)] = labels[(i*d1+j)*d2+k]
			}
		}
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(append(h, data...)); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
