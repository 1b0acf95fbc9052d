package backend

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// The reference's ultralytics predictor: confidence and IoU thresholds,
// detections kept, the class offset of class-wise NMS, and the letterbox
// edge.
const (
	yoloConf   = 0.001
	yoloIoU    = 0.7
	yoloMaxDet = 300
	yoloMaxNMS = 30000
	yoloMaxWH  = 7680
	yoloSize   = 640
	// yoloShapeTensor is the data set's tensor of the original image's
	// height and width (int32 [2]).
	yoloShapeTensor = "orig_shape"
)

// yoloCOCO are the COCO category ids of YOLO's 80 classes.
var yoloCOCO = [80]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27, 28,
	31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60,
	61, 62, 63, 64, 65, 67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90}

// yoloResponder answers an image with rows of seven float32
// (ResponseYOLO) from a YOLOv8/v11 export's output [N, 4+80, anchors]
// (cx, cy, w, h in pixels of the 640×640 letterboxed input, then the
// class scores), as the reference's ultralytics predictor does:
// non_max_suppression, scale_boxes back to the original image (the data
// set's orig_shape tensor) and the rows yolo_loadgen.py packs.
type yoloResponder struct {
	out, anchors int
}

func newYOLOResponder(outs []engine.TensorDesc) (yoloResponder, error) {
	o := outs[0]
	if o.DType != engine.Float32 || len(o.Shape) != 3 || int(o.Shape[1]) != 4+len(yoloCOCO) || o.Shape[2] <= 0 {
		return yoloResponder{}, fmt.Errorf("response %s: output %v: want float32 [N, %d, anchors]", ResponseYOLO, o, 4+len(yoloCOCO))
	}
	return yoloResponder{anchors: int(o.Shape[2])}, nil
}

// yoloDet is one candidate: its box (x1, y1, x2, y2), score and class.
type yoloDet struct {
	box   [4]float32
	score float32
	class int
}

func (r yoloResponder) appendResponse(dst []byte, rn *ran, i int) ([]byte, error) {
	out := rn.part(rn.outs[r.out], i)
	if len(out) != 4*(4+len(yoloCOCO))*r.anchors {
		return dst, fmt.Errorf("output of %d bytes for %d anchors", len(out), r.anchors)
	}
	h, w, err := yoloShape(rn, i)
	if err != nil {
		return dst, err
	}
	at := func(row, a int) float32 { return f32(out, row*r.anchors+a) }
	var cands []yoloDet
	for a := range r.anchors {
		best, cls := at(4, a), 0
		for c := 1; c < len(yoloCOCO); c++ {
			if v := at(4+c, a); v > best {
				best, cls = v, c
			}
		}
		if !(best > yoloConf) {
			continue
		}
		cx, cy, bw, bh := at(0, a), at(1, a), at(2, a), at(3, a)
		cands = append(cands, yoloDet{box: [4]float32{cx - bw/2, cy - bh/2, cx + bw/2, cy + bh/2}, score: best, class: cls})
	}
	// Highest scores first (torch's sort is not stable; ties keep anchor
	// order here).
	slices.SortStableFunc(cands, func(a, b yoloDet) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	cands = cands[:min(len(cands), yoloMaxNMS)]
	kept := yoloNMS(cands)
	gain := math.Min(float64(yoloSize)/float64(h), float64(yoloSize)/float64(w))
	padX := float32(math.RoundToEven((float64(yoloSize)-float64(w)*gain)/2 - 0.1))
	padY := float32(math.RoundToEven((float64(yoloSize)-float64(h)*gain)/2 - 0.1))
	g := float32(gain)
	clip := func(v float32, hi int) float32 { return max(0, min(v, float32(hi))) }
	for _, d := range kept {
		x1, y1 := clip((d.box[0]-padX)/g, w), clip((d.box[1]-padY)/g, h)
		x2, y2 := clip((d.box[2]-padX)/g, w), clip((d.box[3]-padY)/g, h)
		for _, v := range []float32{float32(rn.samples[i].Index), y1 / float32(h), x1 / float32(w), y2 / float32(h), x2 / float32(w), d.score, yoloCOCO[d.class]} {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
	}
	return dst, nil
}

// yoloNMS is torchvision's nms over boxes offset by class (class-wise),
// the candidates in descending score: a box is kept unless one kept
// before overlaps it by an IoU over yoloIoU; at most yoloMaxDet.
func yoloNMS(cands []yoloDet) []yoloDet {
	var kept []yoloDet
	off := func(d yoloDet) [4]float32 {
		o := float32(d.class * yoloMaxWH)
		return [4]float32{d.box[0] + o, d.box[1] + o, d.box[2] + o, d.box[3] + o}
	}
	area := func(b [4]float32) float32 { return (b[2] - b[0]) * (b[3] - b[1]) }
	for _, c := range cands {
		if len(kept) == yoloMaxDet {
			break
		}
		cb := off(c)
		keep := true
		for _, k := range kept {
			kb := off(k)
			iw := max(0, min(cb[2], kb[2])-max(cb[0], kb[0]))
			ih := max(0, min(cb[3], kb[3])-max(cb[1], kb[1]))
			inter := iw * ih
			if inter/(area(cb)+area(kb)-inter) > yoloIoU {
				keep = false
				break
			}
		}
		if keep {
			kept = append(kept, c)
		}
	}
	return kept
}

// yoloShape reads sample i's original height and width from its
// orig_shape tensor.
func yoloShape(rn *ran, i int) (h, w int, err error) {
	for _, t := range rn.samples[i].Tensors {
		if t.Name == yoloShapeTensor && len(t.Data) == 8 {
			h, w = int(int32(binary.LittleEndian.Uint32(t.Data))), int(int32(binary.LittleEndian.Uint32(t.Data[4:])))
			if h > 0 && w > 0 {
				return h, w, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("sample %d: response %s needs the data set's %s tensor, int32 [2] height and width", rn.samples[i].Index, ResponseYOLO, yoloShapeTensor)
}
