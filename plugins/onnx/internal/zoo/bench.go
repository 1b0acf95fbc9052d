package zoo

import (
	"math"
	"strconv"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// The models below have the inputs and outputs of an MLPerf benchmark's
// model (names, dtypes, shapes) and a few operators in between that read
// the answer the small generated data sets of the tests encode in their
// samples, so that an end-to-end run scores what the data set was made to
// score. Real weights are not reachable here; these models check the
// path from the reference data set to the official accuracy line, not a
// network. Each is documented with the encoding its data sets use.

// dim is a model input or output dimension: a size, or a named free one.
type dim struct {
	n     int64
	param string
}

func fixed(n int64) dim     { return dim{n: n} }
func free(param string) dim { return dim{param: param} }
func dims(ns ...int64) []dim {
	out := make([]dim, len(ns))
	for i, n := range ns {
		out[i] = fixed(n)
	}
	return out
}

func valueInfo(name string, elem onnxpb.DataType, ds ...dim) onnxpb.ValueInfo {
	v := onnxpb.ValueInfo{Name: name, ElemType: int32(elem), HasShape: true}
	for _, d := range ds {
		if d.param != "" {
			v.Shape = append(v.Shape, onnxpb.Dim{Param: d.param})
		} else {
			v.Shape = append(v.Shape, onnxpb.Dim{Value: d.n, HasValue: true})
		}
	}
	return v
}

// ints adds an int64 initializer.
func (b *builder) ints(dims []int64, v ...int64) string {
	name := b.name("i")
	b.inits = append(b.inits, onnxpb.Int64Tensor(name, dims, v))
	return name
}

// floats adds a float initializer.
func (b *builder) floats(dims []int64, v ...float32) string {
	name := b.name("f")
	b.inits = append(b.inits, onnxpb.FloatTensor(name, dims, v))
	return name
}

// named renames a value to an output's name with Identity.
func (b *builder) named(x, name string) {
	b.nodes = append(b.nodes, onnxpb.Node{Name: name, OpType: "Identity", Inputs: []string{x}, Outputs: []string{name}})
}

// cast converts x to elem.
func (b *builder) cast(x string, elem onnxpb.DataType) string {
	return b.node("Cast", []string{x}, onnxpb.IntAttr("to", int64(elem)))
}

// gather takes the constant indices idx of x along axis.
func (b *builder) gather(x string, axis int64, idx ...int64) string {
	return b.node("Gather", []string{x, b.ints([]int64{int64(len(idx))}, idx...)}, onnxpb.IntAttr("axis", axis))
}

func (b *builder) graph(name string, ins, outs []onnxpb.ValueInfo) []byte {
	return onnxpb.Encode(&onnxpb.Model{
		IRVersion: 8, Opsets: []onnxpb.Opset{{Version: opset}}, ProducerName: "mlperf-host zoo", HasGraph: true,
		Graph: onnxpb.Graph{Name: name, Nodes: b.nodes, Initializers: b.inits, Inputs: ins, Outputs: outs},
	})
}

// ImageNetClasses is the number of ImageNet classes; ResNet50Signature
// has one more, "background" at 0, as MLPerf's resnet50_v1.onnx.
const ImageNetClasses = 1000

// ClassAngle is the angle ResNet50Signature reads class c at: an image
// whose first two NCHW elements are cos and sin of it is class c.
func ClassAngle(c int) float64 { return 2 * math.Pi * float64(c) / ImageNetClasses }

// ResNet50Signature has the inputs and outputs of MLPerf's
// resnet50_v1.onnx: "input_tensor:0" float32 [N, 3, 224, 224] (NCHW) in,
// "ArgMax:0" int64 [N] and "softmax_tensor:0" float32 [N, 1001] out, class
// 0 "background". Its class is the nearest of 1000 angles to the one the
// image's first two elements (channel 0, row 0, columns 0 and 1) hold as
// cosine and sine: ClassAngle(c) answers c+1.
func ResNet50Signature() []byte {
	b := newBuilder(0)
	x := b.node("Flatten", []string{"input_tensor:0"}, onnxpb.IntAttr("axis", 1))
	x = b.gather(x, 1, 0, 1)
	w := make([]float32, 2*(ImageNetClasses+1))
	for c := range ImageNetClasses {
		w[2*(c+1)], w[2*(c+1)+1] = float32(math.Cos(ClassAngle(c))), float32(math.Sin(ClassAngle(c)))
	}
	logits := b.node("Gemm", []string{x, b.floats([]int64{ImageNetClasses + 1, 2}, w...)}, onnxpb.IntAttr("transB", 1))
	b.named(b.node("ArgMax", []string{logits}, onnxpb.IntAttr("axis", 1), onnxpb.IntAttr("keepdims", 0)), "ArgMax:0")
	b.named(b.node("Softmax", []string{logits}, onnxpb.IntAttr("axis", 1)), "softmax_tensor:0")
	return b.graph("resnet50_signature",
		[]onnxpb.ValueInfo{valueInfo("input_tensor:0", onnxpb.Float, free("N"), fixed(3), fixed(224), fixed(224))},
		[]onnxpb.ValueInfo{valueInfo("ArgMax:0", onnxpb.Int64, free("N")), valueInfo("softmax_tensor:0", onnxpb.Float, free("N"), fixed(ImageNetClasses+1))})
}

// RetinaNetSignature has the inputs and outputs of MLPerf's RetinaNet
// ONNX model (resnext50_32x4d_fpn.onnx): "images" float32 [1, 3, 800, 800]
// in; "boxes" float32 [K, 4] (xmin, ymin, xmax, ymax in pixels), "labels"
// int64 [K] and "scores" float32 [K] out, K = detections. Detection d is
// the image's flat elements 6d..6d+5: xmin, ymin, xmax, ymax, score,
// label.
func RetinaNetSignature(detections int) []byte {
	b := newBuilder(0)
	k := int64(detections)
	flat := make([]int64, 6*k)
	for i := range flat {
		flat[i] = int64(i)
	}
	x := b.node("Flatten", []string{"images"}, onnxpb.IntAttr("axis", 1))
	x = b.gather(x, 1, flat...)
	x = b.node("Reshape", []string{x, b.ints([]int64{2}, k, 6)})
	b.named(b.gather(x, 1, 0, 1, 2, 3), "boxes")
	b.named(b.cast(b.node("Reshape", []string{b.gather(x, 1, 5), b.ints([]int64{1}, k)}), onnxpb.Int64), "labels")
	b.named(b.node("Reshape", []string{b.gather(x, 1, 4), b.ints([]int64{1}, k)}), "scores")
	return b.graph("retinanet_signature",
		[]onnxpb.ValueInfo{valueInfo("images", onnxpb.Float, dims(1, 3, 800, 800)...)},
		[]onnxpb.ValueInfo{valueInfo("boxes", onnxpb.Float, fixed(k), fixed(4)), valueInfo("labels", onnxpb.Int64, fixed(k)),
			valueInfo("scores", onnxpb.Float, fixed(k))})
}

// BERTSeqLen is MLPerf BERT's sequence length.
const BERTSeqLen = 384

// BERTSignature has the inputs and outputs of MLPerf's BERT-Large ONNX
// model: "input_ids", "input_mask", "segment_ids" int64 [N, 384] in,
// "output_start_logits" and "output_end_logits" float32 [N, 384] out. A
// token of the context (segment 1, unmasked) whose id is answerFrom or
// more has start and end logit id-answerFrom+1, every other token 0: a
// context with one such token answers it.
func BERTSignature(answerFrom int64) []byte {
	b := newBuilder(0)
	ids := b.cast("input_ids", onnxpb.Float)
	score := b.node("Relu", []string{b.node("Sub", []string{ids, b.floats(nil, float32(answerFrom-1))})})
	score = b.node("Mul", []string{score, b.cast("segment_ids", onnxpb.Float)})
	score = b.node("Mul", []string{score, b.cast("input_mask", onnxpb.Float)})
	b.named(score, "output_start_logits")
	b.named(b.node("Identity", []string{score}), "output_end_logits")
	in := func(n string) onnxpb.ValueInfo {
		return valueInfo(n, onnxpb.Int64, free("batch_size"), fixed(BERTSeqLen))
	}
	out := func(n string) onnxpb.ValueInfo {
		return valueInfo(n, onnxpb.Float, free("batch_size"), fixed(BERTSeqLen))
	}
	return b.graph("bert_signature", []onnxpb.ValueInfo{in("input_ids"), in("input_mask"), in("segment_ids")},
		[]onnxpb.ValueInfo{out("output_start_logits"), out("output_end_logits")})
}

// KiTSClasses are 3D-UNet's classes: background, kidney, tumor.
const KiTSClasses = 3

// UNet3DSignature has the inputs and outputs of MLPerf's 3D-UNet (KiTS19)
// ONNX model for windows of roi³ voxels (the reference's 128): "input"
// float32 [N, 1, roi, roi, roi] in, "output" float32 [N, 3, roi, roi, roi]
// out. The score of class c at a voxel of value x is -(x-c)²: a volume
// whose voxels hold their class plus noise under one half is segmented
// exactly.
func UNet3DSignature(roi int64) []byte {
	b := newBuilder(0)
	var scores []string
	for c := range KiTSClasses {
		d := b.node("Sub", []string{"input", b.floats(nil, float32(c))})
		scores = append(scores, b.node("Mul", []string{b.node("Mul", []string{d, d}), b.floats(nil, -1)}))
	}
	b.named(b.node("Concat", scores, onnxpb.IntAttr("axis", 1)), "output")
	return b.graph("unet3d_signature",
		[]onnxpb.ValueInfo{valueInfo("input", onnxpb.Float, free("N"), fixed(1), fixed(roi), fixed(roi), fixed(roi))},
		[]onnxpb.ValueInfo{valueInfo("output", onnxpb.Float, free("N"), fixed(KiTSClasses), fixed(roi), fixed(roi), fixed(roi))})
}

// DLRMMultiHotSizes are the multi-hot sizes of DLRMv2's 26 sparse
// features (the reference's multihot Criteo day 23).
var DLRMMultiHotSizes = []int{3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1}

// DLRMDenseFeatures is DLRMv2's dense feature count.
const DLRMDenseFeatures = 13

// DLRMSignature has the inputs and output of a DLRMv2 graph over the
// reference's multi-hot Criteo form, one row per user-item pair:
// "dense" float32 [N, 13] and "sparse_0".."sparse_25" int64 [N, size]
// (DLRMMultiHotSizes) in, "prediction" float32 [N, 1] out. The prediction
// is the first dense feature; every sparse feature is read (its ids
// times zero weights are added).
func DLRMSignature() []byte {
	b := newBuilder(0)
	w := make([]float32, DLRMDenseFeatures)
	w[0] = 1
	pred := b.node("Gemm", []string{"dense", b.floats([]int64{1, DLRMDenseFeatures}, w...)}, onnxpb.IntAttr("transB", 1))
	ins := []onnxpb.ValueInfo{valueInfo("dense", onnxpb.Float, free("N"), fixed(DLRMDenseFeatures))}
	for k, size := range DLRMMultiHotSizes {
		name := "sparse_" + strconv.Itoa(k)
		ins = append(ins, valueInfo(name, onnxpb.Int64, free("N"), fixed(int64(size))))
		zero := b.node("MatMul", []string{b.cast(name, onnxpb.Float), b.floats([]int64{int64(size), 1}, make([]float32, size)...)})
		pred = b.node("Add", []string{pred, zero})
	}
	b.named(pred, "prediction")
	return b.graph("dlrm_signature", ins, []onnxpb.ValueInfo{valueInfo("prediction", onnxpb.Float, free("N"), fixed(1))})
}

// DLRMv3Signature has the inputs and outputs of a dlrm-v3 (HSTU) model
// over the synthetic streaming data set, one request a batch element:
// "uih_item_ids" int64 and "uih_ratings" float32 [N, history],
// "candidate_item_ids" int64 and "candidate_ratings" float32 [N,
// candidates] in; "predictions", "labels" and "weights" float32 [N,
// candidates] out, the three the reference's model returns per
// candidate. A candidate's prediction is its id / 1024, its label
// whether its rating is 3.5 or more, its weight 1; the history is fed
// and not read.
func DLRMv3Signature() []byte {
	b := newBuilder(0)
	ratings := "candidate_ratings"
	b.named(b.node("Mul", []string{b.cast("candidate_item_ids", onnxpb.Float), b.floats(nil, 1.0/1024)}), "predictions")
	// Clip(r - 2.5, 0, 1) is 1 from 3.5 up, below 1 under it; truncated
	// to an integer, the label.
	step := b.node("Clip", []string{b.node("Sub", []string{ratings, b.floats(nil, 2.5)}), b.floats(nil, 0), b.floats(nil, 1)})
	b.named(b.cast(b.cast(step, onnxpb.Int64), onnxpb.Float), "labels")
	b.named(b.node("Add", []string{b.node("Mul", []string{ratings, b.floats(nil, 0)}), b.floats(nil, 1)}), "weights")
	rows := func(name string, elem onnxpb.DataType, param string) onnxpb.ValueInfo {
		return valueInfo(name, elem, free("N"), free(param))
	}
	return b.graph("dlrmv3_signature",
		[]onnxpb.ValueInfo{rows("uih_item_ids", onnxpb.Int64, "H"), rows("uih_ratings", onnxpb.Float, "H"),
			rows("candidate_item_ids", onnxpb.Int64, "C"), rows(ratings, onnxpb.Float, "C")},
		[]onnxpb.ValueInfo{rows("predictions", onnxpb.Float, "C"), rows("labels", onnxpb.Float, "C"), rows("weights", onnxpb.Float, "C")})
}

// DecoderSignature is a decoder LLM's signature at a small vocabulary:
// "input_ids" int64 [N, T] in, "logits" float32 [N, T, vocab] out. The
// logit of token v after token t is t·v + v - v²/2, whose highest is
// v = t+1 (up to vocab-1): it counts up from the prompt's last token.
func DecoderSignature(vocab int) []byte {
	b := newBuilder(0)
	a, c := make([]float32, vocab), make([]float32, vocab)
	for v := range vocab {
		a[v], c[v] = float32(v), float32(v)-float32(v*v)/2
	}
	x := b.node("Unsqueeze", []string{b.cast("input_ids", onnxpb.Float), b.ints([]int64{1}, 2)})
	x = b.node("Mul", []string{x, b.floats([]int64{int64(vocab)}, a...)})
	b.named(b.node("Add", []string{x, b.floats([]int64{int64(vocab)}, c...)}), "logits")
	return b.graph("decoder_signature",
		[]onnxpb.ValueInfo{valueInfo("input_ids", onnxpb.Int64, free("N"), free("T"))},
		[]onnxpb.ValueInfo{valueInfo("logits", onnxpb.Float, free("N"), free("T"), fixed(int64(vocab)))})
}

// YOLO's model input edge, the cells YOLOSignature reads and its
// detection slots.
const (
	YOLOSize  = 640
	YOLOCell  = 32
	YOLOSlots = 8
)

// YOLOSignature has the input and output of the YOLOv11 ONNX export the
// YOLO benchmark runs: "images" float32 [1, 3, 640, 640] in, "output0"
// float32 [1, 84, 8400] out (per anchor cx, cy, w, h in input pixels,
// then 80 class scores). It reads the first plane averaged over cells of
// 32×32 pixels: class c < 8 is detected at anchor c, its cx, cy, w and h
// the cells of row 1+c, columns 1 to 4, times 640, its score the cell of
// column 5; every other score is 0.
func YOLOSignature() []byte {
	const classes, anchors, grid = 80, 8400, YOLOSize / YOLOCell
	b := newBuilder(0)
	x := b.node("AveragePool", []string{"images"}, onnxpb.IntsAttr("kernel_shape", YOLOCell, YOLOCell), onnxpb.IntsAttr("strides", YOLOCell, YOLOCell))
	x = b.node("Flatten", []string{x}, onnxpb.IntAttr("axis", 1))
	var idx []int64
	for c := range YOLOSlots {
		for k := range 5 {
			idx = append(idx, int64((1+c)*grid+1+k))
		}
	}
	x = b.gather(x, 1, idx...)
	x = b.node("Transpose", []string{b.node("Reshape", []string{x, b.ints([]int64{2}, YOLOSlots, 5)})}, onnxpb.IntsAttr("perm", 1, 0))
	boxes := b.node("Mul", []string{b.gather(x, 0, 0, 1, 2, 3), b.floats(nil, YOLOSize)})
	onehot := make([]float32, classes*YOLOSlots)
	for c := range YOLOSlots {
		onehot[c*YOLOSlots+c] = 1
	}
	scores := b.node("Mul", []string{b.floats([]int64{classes, YOLOSlots}, onehot...), b.gather(x, 0, 4)})
	x = b.node("Concat", []string{boxes, scores}, onnxpb.IntAttr("axis", 0))
	x = b.node("Pad", []string{x, b.ints([]int64{4}, 0, 0, 0, anchors-YOLOSlots)})
	b.named(b.node("Reshape", []string{x, b.ints([]int64{3}, 1, 4+classes, anchors)}), "output0")
	return b.graph("yolo_signature",
		[]onnxpb.ValueInfo{valueInfo("images", onnxpb.Float, dims(1, 3, YOLOSize, YOLOSize)...)},
		[]onnxpb.ValueInfo{valueInfo("output0", onnxpb.Float, dims(1, 4+classes, anchors)...)})
}

// RGATClasses are the classes of R-GAT's output (IGBH's 2983 labels).
const RGATClasses = 2983

// RGATSignature is a one-layer graph network with the inputs and output
// of an R-GAT over the IGBH neighbourhood form of the rgat benchmark, one
// seed paper a batch element: "seed" int64 [N, 1], "node_type" and
// "node_id" int64 [N, nodes], "features" float32 [N, nodes, features] and
// "edges" int64 [N, edges, 4] (hop, relation, source, destination) in;
// "prediction" int64 [N] out, the argmax of the 2983 class logits. One
// message-passing step at the seed: its value is its own first feature
// plus the second feature of the source of every edge into it (node 0),
// gathered by the edges' sources (GatherElements) and summed over the
// edges whose destination is the seed; the logit of class c is -(v-c)².
// A neighbourhood whose nodes' second features are 0 and whose seed's
// first feature is its class is classified right.
func RGATSignature(features int64) []byte {
	b := newBuilder(0)
	// The seed's own value [N, 1, 1]; each node's message [N, nodes, 1];
	// each edge's source and destination [N, edges, 1] and the message
	// it carries.
	self := b.gather(b.gather("features", 1, 0), 2, 0)
	message := b.gather("features", 2, 1)
	src, dst := b.gather("edges", 2, 2), b.gather("edges", 2, 3)
	sent := b.node("GatherElements", []string{message, src}, onnxpb.IntAttr("axis", 1))
	// 1 - dst, clipped at 0 by Relu: 1 for the edges into node 0, whose
	// messages the seed receives summed, [N, 1, 1].
	toSeed := b.node("Relu", []string{b.node("Sub", []string{b.floats(nil, 1), b.cast(dst, onnxpb.Float)})})
	received := b.node("MatMul", []string{b.node("Transpose", []string{toSeed}, onnxpb.IntsAttr("perm", 0, 2, 1)), sent})
	v := b.node("Reshape", []string{b.node("Add", []string{self, received}), b.ints([]int64{2}, -1, 1)})
	classes := make([]float32, RGATClasses)
	for c := range classes {
		classes[c] = float32(c)
	}
	d := b.node("Sub", []string{v, b.floats([]int64{RGATClasses}, classes...)})
	logits := b.node("Mul", []string{b.node("Mul", []string{d, d}), b.floats(nil, -1)})
	b.named(b.node("ArgMax", []string{logits}, onnxpb.IntAttr("axis", 1), onnxpb.IntAttr("keepdims", 0)), "prediction")
	rows := func(name string, elem onnxpb.DataType, ds ...dim) onnxpb.ValueInfo {
		return valueInfo(name, elem, append([]dim{free("N")}, ds...)...)
	}
	return b.graph("rgat_signature",
		[]onnxpb.ValueInfo{rows("seed", onnxpb.Int64, fixed(1)), rows("node_type", onnxpb.Int64, free("nodes")),
			rows("node_id", onnxpb.Int64, free("nodes")), rows("features", onnxpb.Float, free("nodes"), fixed(features)),
			rows("edges", onnxpb.Int64, free("edges"), fixed(4))},
		[]onnxpb.ValueInfo{valueInfo("prediction", onnxpb.Int64, free("N"))})
}

// SDXLSignature has the inputs and outputs of a Stable Diffusion XL
// pipeline exported whole at images of size×size: "latents" float32
// [N, 4, size/8, size/8] (the initial latents) and "caption" uint8
// [N, length] (the prompt's UTF-8 bytes) in, "image" float32 [N, 3,
// size, size] in [0, 1] out (the pipeline's image before the SUT's
// uint8 conversion). Channel c of pixel (y, x) is latents channel c at
// (y/8, x/8) times 1/4 plus 1/2, clipped to [0, 1]; the caption is fed
// and not read.
func SDXLSignature(size int) []byte {
	b := newBuilder(0)
	h := int64(size / 8)
	x := b.gather("latents", 1, 0, 1, 2)
	x = b.node("Add", []string{b.node("Mul", []string{x, b.floats(nil, 0.25)}), b.floats(nil, 0.5)})
	x = b.node("Clip", []string{x, b.floats(nil, 0), b.floats(nil, 1)})
	// Each latent cell becomes 8×8 pixels: copies along two new axes.
	x = b.node("Reshape", []string{x, b.ints([]int64{6}, -1, 3, h, 1, h, 1)})
	x = b.node("Concat", []string{x, x, x, x, x, x, x, x}, onnxpb.IntAttr("axis", 5))
	x = b.node("Concat", []string{x, x, x, x, x, x, x, x}, onnxpb.IntAttr("axis", 3))
	b.named(b.node("Reshape", []string{x, b.ints([]int64{4}, -1, 3, 8*h, 8*h)}), "image")
	return b.graph("sdxl_signature",
		[]onnxpb.ValueInfo{valueInfo("latents", onnxpb.Float, free("N"), fixed(4), fixed(h), fixed(h)),
			valueInfo("caption", onnxpb.Uint8, free("N"), free("L"))},
		[]onnxpb.ValueInfo{valueInfo("image", onnxpb.Float, free("N"), fixed(3), fixed(8*h), fixed(8*h))})
}

// WanSignature has the inputs and output of a Wan2.2 text-to-video
// pipeline exported whole for a latent of latentFrames frames of h×w
// (videos of 4(latentFrames-1)+1 frames of 8h×8w, the Wan VAE's
// scales): "prompt" uint8 [N, length] (the prompt's UTF-8 bytes) and
// "latents" float32 [N, 16, latentFrames, h, w] (the fixed initial
// latent) in, "video" float32 [N, frames, 8h, 8w, 3] in [0, 1] out (the
// pipeline's frames, which the reference SUT answers). Every pixel of
// every frame is the same colour: red the prompt's first byte / 255,
// green and blue latent elements 0 and 1 (channel 0's and 1's first)
// times 1/4 plus 1/2, clipped to [0, 1].
func WanSignature(latentFrames, h, w int64) []byte {
	const channels = 16
	frames, ph, pw := 4*(latentFrames-1)+1, 8*h, 8*w
	pixels := frames * ph * pw
	b := newBuilder(0)
	red := b.node("Mul", []string{b.cast(b.gather("prompt", 1, 0), onnxpb.Float), b.floats(nil, 1.0/255)})
	lat := b.gather(b.node("Flatten", []string{"latents"}, onnxpb.IntAttr("axis", 1)), 1, 0, latentFrames*h*w)
	lat = b.node("Clip", []string{b.node("Add", []string{b.node("Mul", []string{lat, b.floats(nil, 0.25)}), b.floats(nil, 0.5)}),
		b.floats(nil, 0), b.floats(nil, 1)})
	rgb := b.node("Concat", []string{red, lat}, onnxpb.IntAttr("axis", 1))
	// [N, 3, 1] × ones [1, pixels] is each colour at every pixel.
	x := b.node("MatMul", []string{b.node("Unsqueeze", []string{rgb, b.ints([]int64{1}, 2)}), b.floats([]int64{1, pixels}, ones(int(pixels))...)})
	x = b.node("Transpose", []string{x}, onnxpb.IntsAttr("perm", 0, 2, 1))
	b.named(b.node("Reshape", []string{x, b.ints([]int64{5}, -1, frames, ph, pw, 3)}), "video")
	return b.graph("wan_signature",
		[]onnxpb.ValueInfo{valueInfo("prompt", onnxpb.Uint8, free("N"), free("L")),
			valueInfo("latents", onnxpb.Float, free("N"), fixed(channels), fixed(latentFrames), fixed(h), fixed(w))},
		[]onnxpb.ValueInfo{valueInfo("video", onnxpb.Float, free("N"), fixed(frames), fixed(ph), fixed(pw), fixed(3))})
}

func ones(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
