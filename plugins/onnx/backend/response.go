package backend

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// The values of the response option: what a sample's response holds.
// Each MLPerf benchmark's is the one its reference SUT writes and its
// official accuracy script reads (docs/benchmarks.md).
const (
	// ResponseOutputs answers each sample with its slice of every output,
	// concatenated in output order.
	ResponseOutputs = "outputs"
	// ResponseClass answers each sample with its predicted class as one
	// little-endian float32: the response MLPerf's ResNet-50 reference
	// writes and accuracy-imagenet.py reads (its default --dtype float32).
	ResponseClass = "class"
	// ResponseSQuAD answers a BERT feature with its start and end logits
	// interleaved, [seq][2] float32, as accuracy-squad.py reads them.
	ResponseSQuAD = "squad"
	// ResponseDetections answers an image with rows of seven float32,
	// [image index, ymin, xmin, ymax, xmax, score, label], the box in [0, 1]
	// of the model input's height and width: accuracy-openimages.py's
	// (and accuracy-coco.py's) rows.
	ResponseDetections = "detections"
	// ResponseYOLO answers an image with the rows of ResponseDetections
	// (the box in [0, 1] of the original image, the COCO category id) from
	// a YOLO export's output [N, 84, anchors], as the YOLO reference's
	// ultralytics predictor post-processes it (response_yolo.go).
	ResponseYOLO = "yolo"
	// ResponseSegmentation runs a 3D-UNet over a volume by sliding window
	// and answers the class of every voxel as uint8 (accuracy_kits.py).
	ResponseSegmentation = "segmentation"
	// ResponseDLRM answers a DLRM sample (rows of user-item pairs) with, per
	// pair, the click probability and the label as two float32: the
	// reference SUT's response, which accuracy-dlrm.py reads.
	ResponseDLRM = "dlrm"
	// ResponseDLRMv3 answers a dlrm-v3 request with float32 [ts_idx,
	// query_idx, predictions...] from the data set's ts_query tensor and
	// the model's predictions output, and in an accuracy run its labels
	// and weights outputs and the candidate count after them: the
	// reference SUT's responses, which accuracy.py and TEST08's
	// run_verification.py read (response_dlrmv3.go).
	ResponseDLRMv3 = "dlrmv3"
	// ResponseTokens generates tokens greedily with a decoder model, one
	// step per token, reports the first token as soon as it exists and
	// answers the generated token ids as int32 (the reference LLM SUTs').
	ResponseTokens = "tokens"
	// ResponseTranscript generates tokens as ResponseTokens does with an
	// encoder-decoder (Whisper): the sample feeds the encoder, the
	// decoder_prompt option starts the tokens, and the transcript is
	// answered as int64 indices into the Whisper benchmark's 42-label
	// alphabet (speech2text's reference SUT, accuracy_eval.py): the
	// tokens decoded into text with the tokenizer option's vocabulary,
	// or, without it, taken as those indices.
	ResponseTranscript = "transcript"
	// ResponseSDXL answers a text-to-image model's float32 [N, 3, H, W]
	// image in [0, 1] as uint8 [H, W, 3], each value (t × 255).round():
	// the SDXL reference SUT's response, which accuracy_coco.py reads
	// (response_sdxl.go).
	ResponseSDXL = "sdxl"
)

// responses lists the response option's values.
func responses() []string {
	return []string{ResponseOutputs, ResponseClass, ResponseSQuAD, ResponseDetections, ResponseYOLO, ResponseSegmentation, ResponseDLRM, ResponseDLRMv3, ResponseTokens, ResponseTranscript, ResponseSDXL}
}

// ran is one run of the model over a batch: its samples, the model's
// inputs and outputs, and where each sample's rows start in them
// (concatRows batches; nil when each sample is one element of the batch).
type ran struct {
	samples  []sdk.Sample
	ins      []engine.Tensor
	outs     []engine.Tensor
	rowStart []int
}

// part returns sample i's part of output o: its element of the batch, or
// its rows.
func (r *ran) part(o engine.Tensor, i int) []byte {
	if r.rowStart == nil {
		per := len(o.Data) / len(r.samples)
		return o.Data[i*per : (i+1)*per]
	}
	per := len(o.Data) / max(r.rowStart[len(r.samples)], 1)
	return o.Data[r.rowStart[i]*per : r.rowStart[i+1]*per]
}

// responder turns a batch's outputs into each sample's response.
type responder interface {
	// appendResponse appends sample i's response to dst.
	appendResponse(dst []byte, r *ran, i int) ([]byte, error)
}

// outputsResponder answers every output's slice (ResponseOutputs).
type outputsResponder struct{}

func (outputsResponder) appendResponse(dst []byte, r *ran, i int) ([]byte, error) {
	for _, o := range r.outs {
		dst = append(dst, r.part(o, i)...)
	}
	return dst, nil
}

// outputIndex returns the index of the output called name, with an error
// listing the outputs when there is none.
func outputIndex(outs []engine.TensorDesc, opt, name string) (int, error) {
	names := make([]string, len(outs))
	for i, o := range outs {
		names[i] = o.Name
		if o.Name == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("option %s=%q: the model's outputs are %s", opt, name, strings.Join(names, ", "))
}

// perSample is the number of elements of one sample in output o (its
// dimensions past the batch); negative when one is free.
func perSample(o engine.TensorDesc) int {
	n := 1
	for _, d := range o.Shape[min(1, len(o.Shape)):] {
		n *= int(d)
	}
	return n
}

// classResponder answers the predicted class (ResponseClass).
type classResponder struct {
	// out is the index of the output the class comes from; offset is
	// added to the class (-1 for a model whose class 0 is "background",
	// as MLPerf's 1001-class ResNet-50 graphs).
	out    int
	offset int
}

// imagenetBackground is the score count of a classifier whose class 0 is
// "background" (MLPerf's ResNet-50 graphs): their class is one more than
// ImageNet's.
const imagenetBackground = 1001

// newClassResponder checks the class options against the model's
// outputs. Without class_offset, a model that has 1001 scores per sample
// gets -1.
func newClassResponder(c config, outs []engine.TensorDesc) (responder, error) {
	r := classResponder{offset: c.classOffset}
	if c.classOutput != "" {
		var err error
		if r.out, err = outputIndex(outs, OptClassOutput, c.classOutput); err != nil {
			return nil, err
		}
	}
	o := outs[r.out]
	per := perSample(o)
	switch {
	case per == 1 && o.DType.Size() > 0:
		// The class itself, as ArgMax outputs it.
	case o.DType == engine.Float32:
		// Scores (logits or probabilities): the class is the first highest.
	default:
		return nil, fmt.Errorf("output %v: want one class per sample or float32 scores", o)
	}
	if !c.classOffsetSet {
		for _, o := range outs {
			if o.DType == engine.Float32 && perSample(o) == imagenetBackground {
				r.offset = -1
			}
		}
	}
	return r, nil
}

func (r classResponder) appendResponse(dst []byte, rn *ran, i int) ([]byte, error) {
	o := rn.outs[r.out]
	data := rn.part(o, i)
	var cls int64
	switch per := len(data); {
	case per == o.DType.Size():
		cls = classValue(o.DType, data)
	case o.DType == engine.Float32 && per > 0:
		cls = argmaxFloat32(data)
	default:
		return dst, fmt.Errorf("output %s: %d bytes per sample, want one class or float32 scores", o.Name, per)
	}
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(cls+int64(r.offset)))), nil
}

// classValue reads one element as a class index.
func classValue(dt engine.DType, b []byte) int64 {
	switch dt {
	case engine.Float32:
		return int64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case engine.Int32:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case engine.Int64:
		return int64(binary.LittleEndian.Uint64(b))
	case engine.Int8:
		return int64(int8(b[0]))
	}
	return int64(b[0])
}

// argmaxFloat32 is numpy's argmax: the index of the first highest value,
// a NaN counting as highest.
func argmaxFloat32(b []byte) int64 {
	best, bestV := 0, math.Float32frombits(binary.LittleEndian.Uint32(b))
	for i := 4; i+4 <= len(b) && bestV == bestV; i += 4 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
		if v > bestV || v != v {
			best, bestV = i/4, v
		}
	}
	return int64(best)
}
