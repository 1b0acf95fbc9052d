package fashionmnist

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

var (
	//go:embed data/model.onnx
	model []byte
	//go:embed data/test-images-idx3-ubyte.gz
	imagesGz []byte
	//go:embed data/test-labels-idx1-ubyte.gz
	labelsGz []byte
	//go:embed data/reference.json
	referenceJSON []byte
)

// Classes names the ten Fashion-MNIST labels in label order.
func Classes() []string {
	return []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}
}

// Model returns a copy of the ONNX model's bytes.
func Model() []byte { return bytes.Clone(model) }

// Set is the embedded labeled test subset.
type Set struct {
	// Images holds one Rows×Cols byte slice per image.
	Images     [][]byte
	Labels     []byte
	Rows, Cols int
}

// Load decodes the embedded images and labels.
func Load() (*Set, error) {
	idims, pixels, err := ReadIDX(bytes.NewReader(imagesGz))
	if err != nil {
		return nil, fmt.Errorf("fashion-mnist images: %w", err)
	}
	ldims, labels, err := ReadIDX(bytes.NewReader(labelsGz))
	if err != nil {
		return nil, fmt.Errorf("fashion-mnist labels: %w", err)
	}
	if len(idims) != 3 || len(ldims) != 1 || idims[0] != ldims[0] {
		return nil, fmt.Errorf("fashion-mnist: image dims %v do not match label dims %v", idims, ldims)
	}
	s := &Set{Labels: labels, Rows: idims[1], Cols: idims[2]}
	size := s.Rows * s.Cols
	for i := range idims[0] {
		s.Images = append(s.Images, pixels[i*size:(i+1)*size:(i+1)*size])
	}
	return s, nil
}

// Reference is what PyTorch computed for the embedded subset.
type Reference struct {
	Producer         string      `json:"producer"`
	Epochs           int         `json:"epochs"`
	FullTestAccuracy float64     `json:"full_test_accuracy"`
	Subset           int         `json:"subset"`
	SubsetAccuracy   float64     `json:"subset_accuracy"`
	Predictions      []int       `json:"predictions"`
	LogitsFirst8     [][]float32 `json:"logits_first8"`
}

// LoadReference decodes the embedded PyTorch reference.
func LoadReference() (*Reference, error) {
	var r Reference
	if err := json.Unmarshal(referenceJSON, &r); err != nil {
		return nil, fmt.Errorf("fashion-mnist reference: %w", err)
	}
	return &r, nil
}

// ErrIDX reports a malformed IDX file.
var ErrIDX = errors.New("malformed idx file")

// maxIDXBytes bounds the decompressed payload ReadIDX accepts.
const maxIDXBytes = 64 << 20

// ReadIDX reads a gzipped IDX file of unsigned bytes (type 0x08): its
// dimensions and its data.
//
// # Errors
//
// Wraps [ErrIDX] for a bad magic number, a type other than unsigned byte,
// a size over 64 MiB, or data shorter or longer than the dimensions say;
// gzip errors are returned wrapped.
func ReadIDX(r io.Reader) ([]int, []byte, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, fmt.Errorf("gzip: %w", err)
	}
	defer zr.Close()
	var hdr [4]byte
	if _, err := io.ReadFull(zr, hdr[:]); err != nil {
		return nil, nil, fmt.Errorf("%w: header: %w", ErrIDX, err)
	}
	if hdr[0] != 0 || hdr[1] != 0 || hdr[2] != 0x08 || hdr[3] == 0 || hdr[3] > 4 {
		return nil, nil, fmt.Errorf("%w: magic % x (want 00 00 08 and 1 to 4 dims)", ErrIDX, hdr)
	}
	dims := make([]int, hdr[3])
	size := 1
	for i := range dims {
		var d uint32
		if err := binary.Read(zr, binary.BigEndian, &d); err != nil {
			return nil, nil, fmt.Errorf("%w: dims: %w", ErrIDX, err)
		}
		if d == 0 || int64(size)*int64(d) > maxIDXBytes {
			return nil, nil, fmt.Errorf("%w: dims %v: zero or over %d bytes", ErrIDX, dims[:i+1], maxIDXBytes)
		}
		dims[i] = int(d)
		size *= int(d)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, nil, fmt.Errorf("%w: data for dims %v: %w", ErrIDX, dims, err)
	}
	if n, _ := zr.Read(hdr[:1]); n != 0 {
		return nil, nil, fmt.Errorf("%w: data past dims %v", ErrIDX, dims)
	}
	return dims, data, nil
}
