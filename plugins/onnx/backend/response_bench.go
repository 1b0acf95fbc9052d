package backend

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// findOutput returns the index of the first output whose lower-case name
// holds one of the words, or -1.
func findOutput(outs []engine.TensorDesc, words ...string) int {
	for i, o := range outs {
		name := strings.ToLower(o.Name)
		for _, w := range words {
			if strings.Contains(name, w) {
				return i
			}
		}
	}
	return -1
}

// squadResponder answers a BERT feature's start and end logits
// interleaved (ResponseSQuAD). A model with one output [N, seq, 2] has
// them interleaved already.
type squadResponder struct {
	start, end int // -1, -1: one interleaved output, the first
}

// newSQuADResponder finds the start and end logits: the outputs named
// start and end, else the first two, else one [N, seq, 2] output.
func newSQuADResponder(outs []engine.TensorDesc) (responder, error) {
	r := squadResponder{start: findOutput(outs, "start"), end: findOutput(outs, "end")}
	if r.start < 0 || r.end < 0 || r.start == r.end {
		r.start, r.end = 0, 1
	}
	if len(outs) == 1 {
		if o := outs[0]; o.DType == engine.Float32 && len(o.Shape) == 3 && o.Shape[2] == 2 {
			return squadResponder{start: -1, end: -1}, nil
		}
		return nil, fmt.Errorf("response %s: output %v: want start and end logits [N, seq] (two outputs) or [N, seq, 2]", ResponseSQuAD, outs[0])
	}
	for _, i := range []int{r.start, r.end} {
		if outs[i].DType != engine.Float32 {
			return nil, fmt.Errorf("response %s: output %v: want float32 logits", ResponseSQuAD, outs[i])
		}
	}
	return r, nil
}

func (r squadResponder) appendResponse(dst []byte, rn *ran, i int) ([]byte, error) {
	if r.start < 0 {
		return append(dst, rn.part(rn.outs[0], i)...), nil
	}
	s, e := rn.part(rn.outs[r.start], i), rn.part(rn.outs[r.end], i)
	if len(s) != len(e) {
		return dst, fmt.Errorf("start logits of %d bytes, end logits of %d", len(s), len(e))
	}
	for k := 0; k+4 <= len(s); k += 4 {
		dst = append(dst, s[k:k+4]...)
		dst = append(dst, e[k:k+4]...)
	}
	return dst, nil
}

// detectionsResponder answers an image's detections as rows of seven
// float32 (ResponseDetections), as the reference's
// PostProcessOpenImagesRetinanet makes them from the model's boxes
// (xmin, ymin, xmax, ymax in pixels of the model input), labels and
// scores: rows until the first score under the threshold.
type detectionsResponder struct {
	boxes, labels, scores int
	height, width         float32
	threshold             float32
}

// detectionsNeedBatchOne reports whether the model's detections have no
// batch dimension (MLPerf's RetinaNet ONNX: boxes [K, 4]).
func detectionsNeedBatchOne(r detectionsResponder, outs []engine.TensorDesc) bool {
	return len(outs[r.boxes].Shape) == 2
}

// newDetectionsResponder finds the boxes, labels and scores outputs (by
// name, else in that order, the reference ONNX model's) and the image's
// height and width (the model's first input, NCHW or NHWC).
func newDetectionsResponder(c config, ins, outs []engine.TensorDesc) (detectionsResponder, error) {
	r := detectionsResponder{boxes: findOutput(outs, "box"), labels: findOutput(outs, "label", "class"), scores: findOutput(outs, "score"),
		threshold: float32(c.scoreThreshold)}
	if r.boxes < 0 || r.labels < 0 || r.scores < 0 {
		if len(outs) < 3 {
			return r, fmt.Errorf("response %s: the model has %d outputs; want boxes, labels and scores", ResponseDetections, len(outs))
		}
		r.boxes, r.labels, r.scores = 0, 1, 2
	}
	if b := outs[r.boxes]; b.DType != engine.Float32 || len(b.Shape) < 2 || b.Shape[len(b.Shape)-1] != 4 {
		return r, fmt.Errorf("response %s: boxes output %v: want float32 [..., 4]", ResponseDetections, b)
	}
	if s := outs[r.scores]; s.DType != engine.Float32 {
		return r, fmt.Errorf("response %s: scores output %v: want float32", ResponseDetections, s)
	}
	img := ins[0].Shape
	if len(img) != 4 {
		return r, fmt.Errorf("response %s: input %v: want an image [N, C, H, W] or [N, H, W, C]", ResponseDetections, ins[0])
	}
	h, w := img[2], img[3]
	if img[1] != 3 && img[3] == 3 {
		h, w = img[1], img[2]
	}
	if h <= 0 || w <= 0 {
		return r, fmt.Errorf("response %s: input %v: the height and width must be fixed to scale the boxes", ResponseDetections, ins[0])
	}
	r.height, r.width = float32(h), float32(w)
	return r, nil
}

func (r detectionsResponder) appendResponse(dst []byte, rn *ran, i int) ([]byte, error) {
	boxes, scores := rn.part(rn.outs[r.boxes], i), rn.part(rn.outs[r.scores], i)
	lo := rn.outs[r.labels]
	labels := rn.part(lo, i)
	k := len(scores) / 4
	if len(boxes) != 16*k || len(labels) != k*lo.DType.Size() {
		return dst, fmt.Errorf("%d scores, %d box bytes and %d label bytes do not make detections", k, len(boxes), len(labels))
	}
	row := func(v ...float32) {
		for _, x := range v {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
		}
	}
	for d := range k {
		score := f32(scores, d)
		if score < r.threshold {
			break
		}
		label := float32(classValue(lo.DType, labels[d*lo.DType.Size():]))
		xmin, ymin, xmax, ymax := f32(boxes, 4*d), f32(boxes, 4*d+1), f32(boxes, 4*d+2), f32(boxes, 4*d+3)
		row(float32(rn.samples[i].Index), ymin/r.height, xmin/r.width, ymax/r.height, xmax/r.width, score, label)
	}
	return dst, nil
}

// f32 reads the k-th float32 of b.
func f32(b []byte, k int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])) }

// dlrmResponder answers, per user-item pair of a DLRM sample, the click
// probability and the label as two float32 (ResponseDLRM); without a
// labels tensor in the data set, the probability alone.
type dlrmResponder struct {
	out int
	// label is the labels tensor's index in the sample, -1 for none.
	label int
}

// newDLRMResponder checks the model's output (one float32 per row) and
// finds the data set's labels tensor (option label_tensor).
func newDLRMResponder(c config, outs []engine.TensorDesc, schema []sdk.TensorSpec) (responder, error) {
	o := outs[0]
	if o.DType != engine.Float32 || perSample(o) != 1 {
		return nil, fmt.Errorf("response %s: output %v: want one float32 probability per row", ResponseDLRM, o)
	}
	r := dlrmResponder{label: -1}
	for i, t := range schema {
		if t.Name == c.labelTensor {
			r.label = i
		}
	}
	if r.label < 0 && c.labelTensorSet {
		names := make([]string, len(schema))
		for i, t := range schema {
			names[i] = t.Name
		}
		return nil, fmt.Errorf("option %s=%q: the data set's tensors are %s", OptLabelTensor, c.labelTensor, strings.Join(names, ", "))
	}
	return r, nil
}

func (r dlrmResponder) appendResponse(dst []byte, rn *ran, i int) ([]byte, error) {
	probs := rn.part(rn.outs[r.out], i)
	if r.label < 0 {
		return append(dst, probs...), nil
	}
	t := rn.samples[i].Tensors[r.label]
	n := len(probs) / 4
	dt, ok := engineDType(t.DType)
	if !ok || t.Elements() != n {
		return dst, fmt.Errorf("labels tensor %s %s%v for %d rows", t.Name, t.DType, t.Shape, n)
	}
	size := dt.Size()
	for k := range n {
		dst = append(dst, probs[4*k:4*k+4]...)
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(classValue(dt, t.Data[k*size:]))))
	}
	return dst, nil
}
