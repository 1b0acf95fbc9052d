package resnet

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the predicted class as one float32 (4 bytes), the class index of val_map.txt (0–999)"

// ScorerName is the top-1 scorer's name (`accuracy --scorer imagenet`):
// accuracy-imagenet.py's, which the runner scores resnet50 and the demo
// with, against the data set's labels.
const ScorerName = "imagenet"

// Output is how a classification response encodes its prediction.
type Output string

// The response encodings.
const (
	// ClassFloat32: the predicted class as a float32 (the reference
	// ResNet-50 SUT's, and accuracy-imagenet.py's default).
	ClassFloat32 Output = "class-float32"
	ClassInt32   Output = "class-int32"
	ClassInt64   Output = "class-int64"
	// LogitsFloat32: one float32 score per class; the prediction is the
	// first highest (the bundled Fashion-MNIST model's).
	LogitsFloat32 Output = "logits-float32"
)

// Outputs lists the encodings.
func Outputs() []Output { return []Output{ClassFloat32, ClassInt32, ClassInt64, LogitsFloat32} }

// ParseOutput reads an encoding name.
func ParseOutput(s string) (Output, error) {
	for _, o := range Outputs() {
		if string(o) == s {
			return o, nil
		}
	}
	names := make([]string, 0, 4)
	for _, o := range Outputs() {
		names = append(names, string(o))
	}
	return "", fmt.Errorf("output encoding %q: want one of %s", s, strings.Join(names, ", "))
}

// notAClass is the prediction of a response that names no class: it
// matches no label.
const notAClass = -1

// Predict decodes the predicted class of one response; a float32 class
// that is no class index (NaN, negative, too large) is [notAClass].
func (o Output) Predict(data []byte) (int, error) {
	switch o {
	case ClassFloat32:
		if len(data) < 4 {
			return 0, fmt.Errorf("%d bytes, want a float32", len(data))
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(data))
		if f != f || f < 0 || f > math.MaxInt32 {
			// NaN, negative, past any class: the plugin's answer is
			// wrong (the log is the right one), scored as a wrong class,
			// as an int32 class out of range is.
			return notAClass, nil
		}
		return int(f), nil
	case ClassInt32:
		if len(data) < 4 {
			return 0, fmt.Errorf("%d bytes, want an int32", len(data))
		}
		return int(int32(binary.LittleEndian.Uint32(data))), nil
	case ClassInt64:
		if len(data) < 8 {
			return 0, fmt.Errorf("%d bytes, want an int64", len(data))
		}
		return int(int64(binary.LittleEndian.Uint64(data))), nil
	case LogitsFloat32:
		if len(data) < 4 || len(data)%4 != 0 {
			return 0, fmt.Errorf("%d bytes, want float32 logits", len(data))
		}
		best, bestV := 0, float32(math.Inf(-1))
		for i := 0; i < len(data); i += 4 {
			v := math.Float32frombits(binary.LittleEndian.Uint32(data[i:]))
			if v > bestV {
				best, bestV = i/4, v
			}
		}
		return best, nil
	}
	return 0, fmt.Errorf("unknown output encoding %q", o)
}

// Result is the score of an accuracy log.
type Result struct {
	// Good is the number of correct predictions among Total distinct
	// samples; Duplicates counts entries for samples already scored.
	Good, Total, Duplicates int
	// Accuracy is Good/Total in percent.
	Accuracy float64
	// Target is the quality target in percent; Pass says whether Accuracy
	// reaches it.
	Target float64
	Pass   bool
	// DatasetSize is the number of labels; Complete says whether every
	// sample of the data set was scored, as an accuracy run must.
	DatasetSize int
	Complete    bool
}

// Text is the accuracy.txt line the submission checker reads:
// "accuracy=88.700%, good=887, total=1000".
func (r Result) Text() string {
	return fmt.Sprintf("accuracy=%.3f%%, good=%d, total=%d", r.Accuracy, r.Good, r.Total)
}

// Top1 scores a classification accuracy log against labels (labels[i] is
// sample i's class) and quality (a Top1 quality in percent). Entries for a
// sample already scored are counted as duplicates and not scored again,
// as accuracy-imagenet.py does.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log, a qsl_idx without a label, or a
// response that does not decode as out.
func Top1(r io.Reader, labels []int, out Output, quality benchmarks.Quality) (Result, error) {
	if quality.Metric != benchmarks.Top1 {
		return Result{}, fmt.Errorf("top-1 cannot check a %s quality target", quality.Metric)
	}
	seen := make([]bool, len(labels))
	res := Result{Target: quality.Target(), DatasetSize: len(labels)}
	err := accuracy.ReadLog(r, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(labels)) {
			return fmt.Errorf("%w: qsl_idx %d has no label (the data set has %d)", accuracy.ErrLog, e.QSLIdx, len(labels))
		}
		if seen[e.QSLIdx] {
			res.Duplicates++
			return nil
		}
		seen[e.QSLIdx] = true
		p, err := out.Predict(e.Data)
		if err != nil {
			return fmt.Errorf("%w: qsl_idx %d: response as %s: %w", accuracy.ErrLog, e.QSLIdx, out, err)
		}
		res.Total++
		if p == labels[e.QSLIdx] {
			res.Good++
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if res.Total > 0 {
		res.Accuracy = 100 * float64(res.Good) / float64(res.Total)
	}
	res.Complete = res.Total == len(labels)
	res.Pass = res.Complete && res.Accuracy >= res.Target
	return res, nil
}
