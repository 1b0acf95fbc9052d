package backend

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// tensorSample makes a sample of named tensors, each given as its shape
// and bytes, in schema order.
func tensorSample(id uint64, schema []sdk.TensorSpec, shapes [][]int, data [][]byte) sdk.Sample {
	s := sdk.Sample{ID: id, Index: id, WantOutput: true}
	for i, t := range schema {
		s.Tensors = append(s.Tensors, sdk.Tensor{Name: t.Name, DType: t.DType, Shape: shapes[i], Data: data[i]})
		s.Data = append(s.Data, data[i]...)
	}
	return s
}

func f32s(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func i32s(v ...int) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(x)))
	}
	return b
}

func readF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// modelEngine is an engine the benchmark models run on: the go engine
// always, ONNX Runtime where it loads (ort_bench_test.go).
type modelEngine struct {
	name string
	load func(t *testing.T, m sdk.Model) *Backend
}

// modelEngines lists them; otherEngines is filled by the native tests.
func modelEngines(t *testing.T) []modelEngine {
	goEngine := modelEngine{name: "go", load: func(t *testing.T, m sdk.Model) *Backend {
		t.Helper()
		b := New(goengine.New())
		require.NoError(t, b.Load(context.Background(), m))
		t.Cleanup(func() { _ = b.Close() })
		return b
	}}
	out := []modelEngine{goEngine}
	for _, e := range otherEngines {
		if be, ok := e(t); ok {
			out = append(out, be)
		}
	}
	return out
}

var otherEngines []func(t *testing.T) (modelEngine, bool)

// loadBench loads a model for a benchmark on engine e, as the host does
// with ABI v1.2.
func loadBench(t *testing.T, e modelEngine, model []byte, benchmark string, schema []sdk.TensorSpec, opts map[string]string) *Backend {
	t.Helper()
	return e.load(t, sdk.Model{Bytes: model, Options: opts, Inputs: schema, Run: sdk.Run{Benchmark: benchmark}})
}

// forEngines runs f as a subtest per engine.
func forEngines(t *testing.T, f func(t *testing.T, e modelEngine)) {
	t.Helper()
	for _, e := range modelEngines(t) {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			f(t, e)
		})
	}
}

func infer(t *testing.T, b *Backend, samples ...sdk.Sample) *completer {
	t.Helper()
	c := newCompleter()
	require.NoError(t, b.Infer(context.Background(), sdk.Query{Samples: samples}, c))
	require.Empty(t, c.failed)
	return c
}

// TestResNet50Response: a resnet50 run answers the ImageNet class (the
// 1001-class model's less one) as a float32, with no option.
func TestResNet50Response(t *testing.T) {
	t.Parallel()
	forEngines(t, func(t *testing.T, e modelEngine) {
		schema := []sdk.TensorSpec{{Name: "input", DType: abi.Float32, Shape: []int{3, 224, 224}}}
		b := loadBench(t, e, zoo.ResNet50Signature(), "resnet50", schema, nil)
		var samples []sdk.Sample
		classes := []int{0, 1, 499, 998, 999}
		for i, c := range classes {
			img := make([]float32, 3*224*224)
			img[0], img[1] = float32(math.Cos(zoo.ClassAngle(c))), float32(math.Sin(zoo.ClassAngle(c)))
			samples = append(samples, tensorSample(uint64(i), schema, [][]int{{3, 224, 224}}, [][]byte{f32s(img...)}))
		}
		c := infer(t, b, samples...)
		for i, cl := range classes {
			assert.Equal(t, []float32{float32(cl)}, readF32(c.done[uint64(i)]), "sample %d", i)
		}
	})
}

// TestRetinaNetResponse: detections as [index, ymin, xmin, ymax, xmax,
// score, label] rows scaled to the 800×800 input, until the first score
// under 0.05; the model has no batch dimension, so images run one by one.
func TestRetinaNetResponse(t *testing.T) {
	t.Parallel()
	forEngines(t, func(t *testing.T, e modelEngine) {
		schema := []sdk.TensorSpec{{Name: "input", DType: abi.Float32, Shape: []int{3, 800, 800}}}
		b := loadBench(t, e, zoo.RetinaNetSignature(3), "retinanet", schema, nil)
		assert.Equal(t, 1, b.cfg.batch)
		img := make([]float32, 3*800*800)
		copy(img, []float32{80, 160, 400, 800, 0.9, 7, 0, 0, 800, 400, 0.5, 12, 1, 1, 2, 2, 0.01, 3})
		c := infer(t, b, tensorSample(5, schema, [][]int{{3, 800, 800}}, [][]byte{f32s(img...)}),
			tensorSample(6, schema, [][]int{{3, 800, 800}}, [][]byte{f32s(img...)}))
		assert.Equal(t, []float32{5, 0.2, 0.1, 1, 0.5, 0.9, 7, 5, 0, 0, 0.5, 1, 0.5, 12}, readF32(c.done[5]))
		assert.Len(t, c.done[6], 14*4)
	})
}

// TestBERTResponse: BERT's three int32 tensors (NVIDIA's preprocessed
// form) feed the int64 model inputs; the answer is the start and end
// logits interleaved.
func TestBERTResponse(t *testing.T) {
	t.Parallel()
	forEngines(t, func(t *testing.T, e modelEngine) {
		schema := []sdk.TensorSpec{{Name: "input_ids", DType: abi.Int32, Shape: []int{384}},
			{Name: "input_mask", DType: abi.Int32, Shape: []int{384}}, {Name: "segment_ids", DType: abi.Int32, Shape: []int{384}}}
		b := loadBench(t, e, zoo.BERTSignature(100), "bert", schema, nil)
		ids, mask, seg := make([]int, 384), make([]int, 384), make([]int, 384)
		for i := range 20 {
			ids[i], mask[i] = 5, 1
			seg[i] = min(1, i/10)
		}
		ids[3], ids[15] = 120, 103 // an answer-range id in the question does not count
		sh := [][]int{{384}, {384}, {384}}
		c := infer(t, b, tensorSample(0, schema, sh, [][]byte{i32s(ids...), i32s(mask...), i32s(seg...)}))
		got := readF32(c.done[0])
		require.Len(t, got, 768)
		for i := range 384 {
			want := float32(0)
			if i == 15 {
				want = 4
			}
			assert.Equal(t, [2]float32{want, want}, [2]float32{got[2*i], got[2*i+1]}, "token %d", i)
		}
	})
}

// TestSegmentationResponse: a volume larger than the window is segmented
// window by window into one uint8 class per voxel.
func TestSegmentationResponse(t *testing.T) {
	t.Parallel()
	forEngines(t, func(t *testing.T, e modelEngine) {
		schema := []sdk.TensorSpec{{Name: "image", DType: abi.Float32, Shape: []int{1, -1, -1, -1}}}
		b := loadBench(t, e, zoo.UNet3DSignature(8), "3d-unet", schema, nil)
		for _, sh := range [][]int{{1, 8, 8, 8}, {1, 16, 8, 12}} {
			n := sh[1] * sh[2] * sh[3]
			vol, want := make([]float32, n), make([]byte, n)
			for v := range n {
				want[v] = byte((v * 7 / 5) % 3)
				vol[v] = float32(want[v]) + 0.3*float32(math.Sin(float64(v)))
			}
			c := infer(t, b, tensorSample(1, schema, [][]int{sh}, [][]byte{f32s(vol...)}))
			assert.Equal(t, want, c.done[1], "volume %v", sh)
		}
		c := newCompleter()
		small := tensorSample(2, schema, [][]int{{1, 4, 8, 8}}, [][]byte{f32s(make([]float32, 256)...)})
		require.NoError(t, b.Infer(context.Background(), sdk.Query{Samples: []sdk.Sample{small}}, c))
		assert.ErrorContains(t, c.failed[2], "at least the model's 8 voxels a side")
	})
}

// TestGaussianPatch: the Gaussian weights are 1 at the middle (both middle
// voxels of an even window) and fall off symmetrically.
func TestGaussianPatch(t *testing.T) {
	t.Parallel()
	p := gaussianPatch(4)
	at := func(a, b, c int) float32 { return p[(a*4+b)*4+c] }
	assert.InDelta(t, 1, at(1, 1, 1), 1e-7)
	assert.InDelta(t, 1, at(2, 2, 2), 1e-7)
	assert.Equal(t, at(0, 1, 2), at(3, 2, 1)) //nolint:testifylint // exact: the same computation
	assert.Less(t, at(0, 0, 0), at(1, 1, 1))
	assert.Equal(t, []int{0, 64, 128}, windowStarts(256, 128))
	assert.Equal(t, []int{0}, windowStarts(191, 128))
}

// TestDLRMResponse: DLRM samples of different row counts run as one batch
// of rows; each answers a probability and a label per row.
func TestDLRMResponse(t *testing.T) {
	t.Parallel()
	forEngines(t, func(t *testing.T, e modelEngine) {
		schema := []sdk.TensorSpec{{Name: "dense", DType: abi.Float32, Shape: []int{-1, 13}}}
		for k, size := range zoo.DLRMMultiHotSizes {
			schema = append(schema, sdk.TensorSpec{Name: "sparse_" + strconv.Itoa(k), DType: abi.Int32, Shape: []int{-1, size}})
		}
		schema = append(schema, sdk.TensorSpec{Name: "labels", DType: abi.Int32, Shape: []int{-1, 1}})
		b := loadBench(t, e, zoo.DLRMSignature(), "dlrm-v2", schema, nil)
		sample := func(id uint64, rows int) sdk.Sample {
			var shapes [][]int
			var data [][]byte
			dense := make([]float32, 13*rows)
			var labels []int
			for r := range rows {
				dense[13*r] = float32(r+1) / 10
				labels = append(labels, r%2)
			}
			shapes, data = append(shapes, []int{rows, 13}), append(data, f32s(dense...))
			for _, size := range zoo.DLRMMultiHotSizes {
				ids := make([]int, rows*size)
				for i := range ids {
					ids[i] = 1000 + i
				}
				shapes, data = append(shapes, []int{rows, size}), append(data, i32s(ids...))
			}
			shapes, data = append(shapes, []int{rows, 1}), append(data, i32s(labels...))
			return tensorSample(id, schema, shapes, data)
		}
		c := infer(t, b, sample(0, 3), sample(1, 2))
		assert.InDeltaSlice(t, []float32{0.1, 0, 0.2, 1, 0.3, 0}, readF32(c.done[0]), 1e-6)
		assert.InDeltaSlice(t, []float32{0.1, 0, 0.2, 1}, readF32(c.done[1]), 1e-6)
	})
}

// TestTokensResponse: an LLM run generates greedily, reports the first
// token first, stops at the end-of-sequence token (answered last) or at
// max_new_tokens, and answers int32 ids with their count.
func TestTokensResponse(t *testing.T) {
	t.Parallel()
	forEngines(t, func(t *testing.T, e modelEngine) {
		schema := []sdk.TensorSpec{{Name: "input_ids", DType: abi.Int32, Shape: []int{-1}}}
		b := loadBench(t, e, zoo.DecoderSignature(64), "llama2-70b", schema, map[string]string{OptEOSTokenID: "60"})
		assert.Equal(t, 1024, b.cfg.maxNewTokens, "llama2-70b's reference length")
		c := &tokenCompleter{completer: newCompleter()}
		p := func(id uint64, ids ...int) sdk.Sample {
			return tensorSample(id, schema, [][]int{{len(ids)}}, [][]byte{i32s(ids...)})
		}
		require.NoError(t, b.Infer(context.Background(), sdk.Query{Samples: []sdk.Sample{p(0, 9, 3, 55), p(1, 59)}}, c))
		assert.Equal(t, i32s(56, 57, 58, 59, 60), c.done[0])
		assert.Equal(t, i32s(56), c.first[0])
		assert.Equal(t, int64(5), c.tokens[0])
		// The first token is never EOS: after 59 comes the best of the others
		// (59 and 61 tie; the first wins), then EOS.
		assert.Equal(t, i32s(59, 60), c.done[1])

		b = loadBench(t, e, zoo.DecoderSignature(64), "llama3_1-8b", schema, map[string]string{OptMaxNewTokens: "3"})
		c = &tokenCompleter{completer: newCompleter()}
		require.NoError(t, b.Infer(context.Background(), sdk.Query{Samples: []sdk.Sample{p(0, 10)}}, c))
		assert.Equal(t, i32s(11, 12, 13), c.done[0])
	})
}

// tokenCompleter records first tokens and token counts too.
type tokenCompleter struct {
	*completer
	first  map[uint64][]byte
	tokens map[uint64]int64
}

func (c *tokenCompleter) FirstToken(id uint64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		c.first = map[uint64][]byte{}
	}
	if _, dup := c.first[id]; dup {
		panic("first token twice")
	}
	if _, done := c.done[id]; done {
		panic("first token after completion")
	}
	c.first[id] = append([]byte(nil), data...)
}

func (c *tokenCompleter) Complete(id uint64, data []byte, n int64) {
	c.completer.Complete(id, data, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tokens == nil {
		c.tokens = map[uint64]int64{}
	}
	c.tokens[id] = n
}

// TestDLRMv3Response: a dlrm-v3 request answers its key, then per
// candidate the prediction, and in an accuracy run the labels, the
// weights and the candidate count (the signature model's: id / 1024,
// rating ≥ 3.5, 1).
func TestDLRMv3Response(t *testing.T) {
	t.Parallel()
	schema := []sdk.TensorSpec{
		{Name: "ts_query", DType: abi.Int64, Shape: []int{2}}, {Name: "user_id", DType: abi.Int64, Shape: []int{1}},
		{Name: "uih_item_ids", DType: abi.Int64, Shape: []int{-1}}, {Name: "uih_ratings", DType: abi.Float32, Shape: []int{-1}},
		{Name: "candidate_item_ids", DType: abi.Int64, Shape: []int{-1}}, {Name: "candidate_ratings", DType: abi.Float32, Shape: []int{-1}},
	}
	sample := func(id uint64, ts, q int64, ids []int64, ratings ...float32) sdk.Sample {
		return tensorSample(id, schema, [][]int{{2}, {1}, {2}, {2}, {len(ratings)}, {len(ratings)}},
			[][]byte{i64s(ts, q), i64s(7), i64s(11, 12), f32s(4, 5), i64s(ids...), f32s(ratings...)})
	}
	tests := []struct {
		name string
		mode sdk.Mode
		want [][]float32
	}{
		{name: "accuracy", mode: sdk.AccuracyOnly, want: [][]float32{{0, 3, 0.875, 0.25, 0.5, 0, 1, 1, 1, 1, 1, 3}, {1, 0, 0.125, 1, 1, 1}}},
		{name: "performance", mode: sdk.PerformanceOnly, want: [][]float32{{0, 3, 0.875, 0.25, 0.5}, {1, 0, 0.125}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			forEngines(t, func(t *testing.T, e modelEngine) {
				b := e.load(t, sdk.Model{Bytes: zoo.DLRMv3Signature(), Inputs: schema, Run: sdk.Run{Benchmark: "dlrm-v3", Mode: tt.mode}})
				c := infer(t, b, sample(0, 0, 3, []int64{896, 256, 512}, 1, 3.5, 5), sample(1, 1, 0, []int64{128}, 4))
				for i, want := range tt.want {
					assert.InDeltaSlice(t, want, readF32(c.done[uint64(i)]), 1e-6, "request %d", i)
				}
			})
		})
	}
}

// TestDLRMv3ResponseErrors: the key tensor and, in an accuracy run, the
// labels and weights outputs are required.
// TestRGATResponse: an rgat sample (a seed paper's neighbourhood, of its
// own node and edge counts) answers the signature model's class, the
// seed's first feature plus its in-neighbours' second features, as one
// int64: the outputs, no option.
func TestRGATResponse(t *testing.T) {
	t.Parallel()
	const features = 3
	schema := []sdk.TensorSpec{
		{Name: "seed", DType: abi.Int64, Shape: []int{1}}, {Name: "node_type", DType: abi.Int64, Shape: []int{-1}},
		{Name: "node_id", DType: abi.Int64, Shape: []int{-1}}, {Name: "features", DType: abi.Float32, Shape: []int{-1, features}},
		{Name: "edges", DType: abi.Int64, Shape: []int{-1, 4}},
	}
	// Node k's second feature is k; the edges run k → 0 and, past
	// them, 1 → k, which the seed does not receive.
	sample := func(id uint64, class float32, nodes int) sdk.Sample {
		feats := make([]float32, nodes*features)
		feats[0] = class
		var edges []int64
		for k := 1; k < nodes; k++ {
			feats[k*features+1] = float32(k)
			edges = append(edges, 0, 0, int64(k), 0)
		}
		for k := 2; k < nodes; k++ {
			edges = append(edges, 1, 0, 1, int64(k))
		}
		return tensorSample(id, schema, [][]int{{1}, {nodes}, {nodes}, {nodes, features}, {len(edges) / 4, 4}},
			[][]byte{i64s(int64(10 + id)), i64s(make([]int64, nodes)...), i64s(make([]int64, nodes)...), f32s(feats...), i64s(edges...)})
	}
	forEngines(t, func(t *testing.T, e modelEngine) {
		b := loadBench(t, e, zoo.RGATSignature(features), "rgat", schema, nil)
		c := infer(t, b, sample(0, 7, 3), sample(1, 2972, 5))
		assert.Equal(t, i64s(7+1+2), c.done[0])
		assert.Equal(t, i64s(2972+1+2+3+4), c.done[1])
	})
}

func TestDLRMv3ResponseErrors(t *testing.T) {
	t.Parallel()
	key := sdk.TensorSpec{Name: "ts_query", DType: abi.Int64, Shape: []int{2}}
	feeds := []sdk.TensorSpec{{Name: "uih_item_ids", DType: abi.Int64, Shape: []int{-1}}, {Name: "uih_ratings", DType: abi.Float32, Shape: []int{-1}},
		{Name: "candidate_item_ids", DType: abi.Int64, Shape: []int{-1}}, {Name: "candidate_ratings", DType: abi.Float32, Shape: []int{-1}}}
	tests := []struct {
		name     string
		model    []byte
		schema   []sdk.TensorSpec
		mentions string
	}{
		{name: "no key", model: zoo.DLRMv3Signature(), schema: feeds, mentions: "no tensor ts_query (its tensors: uih_item_ids"},
		{name: "key not int64 [2]", model: zoo.DLRMv3Signature(), schema: append([]sdk.TensorSpec{{Name: "ts_query", DType: abi.Int32, Shape: []int{2}}}, feeds...),
			mentions: "ts_query is int32[2], want int64 [2]"},
		{name: "no labels output", model: withoutOutput(t, zoo.DLRMv3Signature(), "labels"), schema: append([]sdk.TensorSpec{key}, feeds...),
			mentions: "response dlrmv3 in AccuracyOnly: the model has no output labels (its outputs: predictions, weights)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := New(goengine.New())
			t.Cleanup(func() { _ = b.Close() })
			err := b.Load(context.Background(), sdk.Model{Bytes: tt.model, Inputs: tt.schema, Run: sdk.Run{Benchmark: "dlrm-v3", Mode: sdk.AccuracyOnly}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.mentions)
		})
	}
}

// withoutOutput is model less its output name.
func withoutOutput(t *testing.T, model []byte, name string) []byte {
	t.Helper()
	m, err := onnxpb.Decode(model)
	require.NoError(t, err)
	m.Graph.Outputs = slices.DeleteFunc(m.Graph.Outputs, func(v onnxpb.ValueInfo) bool { return v.Name == name })
	return onnxpb.Encode(m)
}

// TestSDXLResponse: a stable-diffusion-xl run answers the image as uint8
// [H, W, 3] by default: the signature model's pixel from its latents
// cell, l/4 + 1/2 clipped, times 255 rounded half to even; samples of
// captions of different lengths in one query.
func TestSDXLResponse(t *testing.T) {
	t.Parallel()
	schema := []sdk.TensorSpec{{Name: "caption", DType: abi.Uint8, Shape: []int{-1}}, {Name: "latents", DType: abi.Float32, Shape: []int{4, 2, 2}}}
	// Channel c of cell k: 0.5 + 0.25·lat is (k+4c)/16, a value times
	// 255 of a .5 fraction at k+4c = 2 (31.875 is not; 2·255/16 = 31.875).
	lat := make([]float32, 16)
	for c := range 4 {
		for k := range 4 {
			lat[4*c+k] = (float32(k+4*c)/16 - 0.5) * 4
		}
	}
	lat[0] = -3 // clipped to 0
	forEngines(t, func(t *testing.T, e modelEngine) {
		b := e.load(t, sdk.Model{Bytes: zoo.SDXLSignature(16), Inputs: schema, Run: sdk.Run{Benchmark: "stable-diffusion-xl", Mode: sdk.AccuracyOnly}})
		c := infer(t, b,
			tensorSample(0, schema, [][]int{{3}, {4, 2, 2}}, [][]byte{[]byte("cat"), f32s(lat...)}),
			tensorSample(1, schema, [][]int{{5}, {4, 2, 2}}, [][]byte{[]byte("a dog"), f32s(lat...)}))
		for id := range uint64(2) {
			img := c.done[id]
			require.Len(t, img, 16*16*3, "sample %d", id)
			for y := range 16 {
				for x := range 16 {
					k := 2*(y/8) + x/8
					for ch := range 3 {
						v := float32(k+4*ch) / 16
						if k == 0 && ch == 0 {
							v = 0
						}
						want := byte(math.RoundToEven(float64(v * 255)))
						require.Equal(t, want, img[3*(16*y+x)+ch], "sample %d pixel (%d, %d) channel %d", id, x, y, ch)
					}
				}
			}
		}
	})
}
