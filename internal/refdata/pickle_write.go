package refdata

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// pickler writes values as pickle protocol 4 does with numpy 1.x: the
// fixtures' KiTS19 cases and file list, byte for byte what
// pickle.dump([image, label], f, protocol=4) writes, without frames and
// memo entries (which readers do not need).
type pickler struct {
	b []byte
}

func (p *pickler) op(b ...byte) { p.b = append(p.b, b...) }

func (p *pickler) str(s string) {
	if len(s) < 256 {
		p.op(0x8c, byte(len(s)))
	} else {
		p.op('X')
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(len(s)))
	}
	p.b = append(p.b, s...)
}

func (p *pickler) int(v int) {
	switch {
	case v >= 0 && v < 256:
		p.op('K', byte(v))
	case v >= 0 && v < 65536:
		p.op('M')
		p.b = binary.LittleEndian.AppendUint16(p.b, uint16(v))
	default:
		p.op('J')
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(int32(v)))
	}
}

func (p *pickler) global(module, name string) {
	p.str(module)
	p.str(name)
	p.op(0x93)
}

func (p *pickler) bytes(b []byte) {
	if len(b) < 256 {
		p.op('C', byte(len(b)))
	} else {
		p.op(0x8e)
		p.b = binary.LittleEndian.AppendUint64(p.b, uint64(len(b)))
	}
	p.b = append(p.b, b...)
}

// array writes a numpy array as ndarray.__reduce__ makes it.
func (p *pickler) array(dt dataset.DType, shape []int, data []byte) {
	p.global("numpy.core.multiarray", "_reconstruct")
	p.global("numpy", "ndarray")
	p.int(0)
	p.op(0x85) // TUPLE1
	p.bytes([]byte("b"))
	p.op(0x87, 'R') // TUPLE3, REDUCE
	p.op('(')
	p.int(1)
	p.op('(')
	for _, d := range shape {
		p.int(d)
	}
	p.op('t')
	descr := dt.Descr()
	p.global("numpy", "dtype")
	p.str(descr[1:])
	p.op(0x89, 0x88, 0x87, 'R') // False, True, TUPLE3, REDUCE
	p.op('(')
	p.int(3)
	p.str(descr[:1])
	p.op('N', 'N', 'N')
	p.int(-1)
	p.int(-1)
	p.int(0)
	p.op('t', 'b')
	p.op(0x89) // not Fortran
	p.bytes(data)
	p.op('t', 'b')
}

func (p *pickler) write(w io.Writer) error {
	_, err := w.Write(append([]byte{0x80, 4}, append(p.b, '.')...))
	return err
}

// writeKiTSCase writes a case pickle: [image, label].
func writeKiTSCase(w io.Writer, shape []int, image []float32, label []byte) error {
	if len(image) != len(label) {
		return fmt.Errorf("kits case: %d image voxels, %d label voxels", len(image), len(label))
	}
	var p pickler
	p.op(']', '(')
	img := make([]byte, 0, 4*len(image))
	for _, v := range image {
		img = binary.LittleEndian.AppendUint32(img, math.Float32bits(v))
	}
	p.array(dataset.Float32, shape, img)
	p.array(dataset.Uint8, shape, label)
	p.op('e')
	return p.write(w)
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
	var p pickler
	p.op('}', '(')
	p.str("file_list")
	p.op(']', '(')
	for _, c := range cases {
		p.str(c.name)
	}
	p.op('e')
	p.str("cases")
	p.op('}', '(')
	affine := make([]byte, 0, 8*len(kitsAffine))
	for _, v := range kitsAffine {
		affine = binary.LittleEndian.AppendUint64(affine, math.Float64bits(v))
	}
	for _, c := range cases {
		p.str(c.name)
		p.op('}', '(')
		p.str("image_shape")
		p.op('(')
		for _, d := range c.shape {
			p.int(d)
		}
		p.op('t')
		p.str("reshaped_affine")
		p.array(dataset.Float64, []int{4, 4}, affine)
		p.op('u')
	}
	p.op('u', 'u')
	return p.write(w)
}
