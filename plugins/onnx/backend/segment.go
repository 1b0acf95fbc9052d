package backend

import (
	"context"
	"fmt"
	"math"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// segmenter runs a 3D-UNet over a whole volume as the KiTS19 reference
// does (vision/medical_imaging/3d-unet-kits19: base_SUT.py and
// inference_utils.py): windows of the model's region of interest with an
// overlap of one half, each window's scores weighted by a Gaussian
// importance patch and summed, divided by the summed weights, and the
// class of each voxel the first highest score, answered as uint8.
type segmenter struct {
	roi     int // the model's window edge (the reference's 128)
	classes int
	patch   []float32 // roi³ Gaussian weights
	// batch: the model's batch dimension is free, so windows run together.
	batch bool
	in    engine.TensorDesc
}

// segmentOverlap is the reference's SLIDE_OVERLAP_FACTOR.
const segmentOverlap = 0.5

// newSegmenter checks the model: one float32 input [N, 1, R, R, R] fed
// with volumes [1, D, H, W], and a float32 output [N, classes, R, R, R].
func newSegmenter(f feeds, ins, outs []engine.TensorDesc) (*segmenter, error) {
	if len(ins) != 1 || len(outs) < 1 {
		return nil, fmt.Errorf("response %s: the model has %d inputs and %d outputs; want one volume in, scores out", ResponseSegmentation, len(ins), len(outs))
	}
	in, out := ins[0], outs[0]
	if in.DType != engine.Float32 || len(in.Shape) != 5 || in.Shape[2] <= 0 || in.Shape[2] != in.Shape[3] || in.Shape[3] != in.Shape[4] {
		return nil, fmt.Errorf("response %s: input %v: want float32 [N, C, R, R, R], a cubic window", ResponseSegmentation, in)
	}
	if f.layout != stackSamples || f.in[0].from != engine.Float32 {
		return nil, fmt.Errorf("response %s: input %v: want float32 volumes [C, D, H, W] in the data set", ResponseSegmentation, in)
	}
	roi := int(in.Shape[2])
	if out.DType != engine.Float32 || len(out.Shape) != 5 || out.Shape[1] <= 0 || out.Shape[2] != int64(roi) || out.Shape[3] != int64(roi) || out.Shape[4] != int64(roi) {
		return nil, fmt.Errorf("response %s: output %v: want float32 [N, classes, %d, %d, %d]", ResponseSegmentation, out, roi, roi, roi)
	}
	if out.Shape[1] > 256 {
		return nil, fmt.Errorf("response %s: output %v: %d classes do not fit the uint8 answer", ResponseSegmentation, out, out.Shape[1])
	}
	return &segmenter{roi: roi, classes: int(out.Shape[1]), patch: gaussianPatch(roi), batch: in.Shape[0] < 0, in: in}, nil
}

// gaussianPatch is inference_utils.gaussian_kernel(n, 0.125·n) as float32:
// scipy's Gaussian window of n points, its 3D outer product, the cube root
// of it, divided by its largest value, all in float64.
func gaussianPatch(n int) []float32 {
	std := 0.125 * float64(n)
	g := make([]float64, n)
	for k := range g {
		x := float64(k) - float64(n-1)/2
		g[k] = math.Exp(-x * x / (2 * std * std))
	}
	v := make([]float64, n*n*n)
	hi := 0.0
	for a := range n {
		for b := range n {
			ab := g[a] * g[b]
			for c := range n {
				x := math.Cbrt(ab * g[c])
				v[(a*n+b)*n+c] = x
				hi = max(hi, x)
			}
		}
	}
	p := make([]float32, len(v))
	for i, x := range v {
		p[i] = float32(x / hi)
	}
	return p
}

// windowStarts are the reference's window origins along one axis of
// length dim: 0, stride, ... while a window fits.
func windowStarts(dim, roi int) []int {
	stride := int(float64(roi) * (1 - segmentOverlap))
	var out []int
	for i := 0; i < stride*((dim-roi)/stride+1); i += stride {
		out = append(out, i)
	}
	return out
}

// run segments one volume.
func (g *segmenter) run(ctx context.Context, sl *slot, s *sdk.Sample, c sdk.Completer) error {
	t := s.Tensors
	var shape []int
	var data []byte
	if len(t) > 0 {
		shape, data = t[0].Shape, t[0].Data
	}
	if len(shape) != 4 || shape[1] < g.roi || shape[2] < g.roi || shape[3] < g.roi {
		c.Fail(s.ID, fmt.Errorf("onnx: sample %d: volume %v: want [C, D, H, W] of at least the model's %d voxels a side (the reference pads them so)", s.Index, shape, g.roi))
		return nil
	}
	ch, d, h, w := shape[0], shape[1], shape[2], shape[3]
	vox := d * h * w
	result := make([]float32, g.classes*vox)
	norm := make([]float32, vox)
	r := g.roi
	type origin struct{ i, j, k int }
	var windows []origin
	for _, i := range windowStarts(d, r) {
		for _, j := range windowStarts(h, r) {
			for _, k := range windowStarts(w, r) {
				windows = append(windows, origin{i, j, k})
			}
		}
	}
	per := 1
	if g.batch {
		per = len(windows)
	}
	in := &sl.in[0]
	in.Name, in.DType = g.in.Name, g.in.DType
	for len(windows) > 0 {
		n := min(per, len(windows))
		batch := windows[:n]
		windows = windows[n:]
		in.Data = in.Data[:0]
		for _, o := range batch {
			for cc := range ch {
				for a := range r {
					for b := range r {
						off := ((cc*d+o.i+a)*h+o.j+b)*w + o.k
						in.Data = append(in.Data, data[4*off:4*(off+r)]...)
					}
				}
			}
		}
		in.Shape = append(in.Shape[:0], int64(n), int64(ch), int64(r), int64(r), int64(r))
		if err := sl.sess.Run(ctx, sl.in, sl.out); err != nil {
			return fmt.Errorf("onnx: sample %d: run %d windows: %w", s.Index, n, err)
		}
		out := sl.out[0].Data
		if len(out) != 4*n*g.classes*r*r*r {
			return fmt.Errorf("onnx: output %s of %d bytes for %d windows", sl.out[0].Name, len(out), n)
		}
		for wi, o := range batch {
			g.accumulate(result, norm, out[4*wi*g.classes*r*r*r:], o.i, o.j, o.k, h, w, vox)
		}
	}
	if !s.WantOutput {
		c.Complete(s.ID, nil, 0)
		return nil
	}
	c.Complete(s.ID, g.classify(result, norm, vox), 0)
	return nil
}

// accumulate adds one window's weighted scores (out: [classes][r][r][r])
// and weights at origin (i, j, k) of a volume [d][h][w], in float32, as
// numpy's result_slice += scores * patch; norm_map_slice += patch.
func (g *segmenter) accumulate(result, norm []float32, out []byte, i, j, k, h, w, vox int) {
	r := g.roi
	for cl := range g.classes {
		res := result[cl*vox:]
		for a := range r {
			for b := range r {
				row := ((i+a)*h+j+b)*w + k
				src := ((cl*r+a)*r + b) * r
				for e := range r {
					// The conversion keeps the product rounded apart
					// from the sum (no fused multiply-add), as numpy does.
					res[row+e] += float32(f32(out, src+e) * g.patch[(a*r+b)*r+e])
				}
			}
		}
	}
	for a := range r {
		for b := range r {
			row := ((i+a)*h+j+b)*w + k
			for e := range r {
				norm[row+e] += g.patch[(a*r+b)*r+e]
			}
		}
	}
}

// classify divides the scores by the weights and answers each voxel's
// first highest class as one byte (apply_norm_map, apply_argmax).
func (g *segmenter) classify(result, norm []float32, vox int) []byte {
	out := make([]byte, vox)
	for v := range vox {
		best, bestV := 0, result[v]/norm[v]
		for cl := 1; cl < g.classes && bestV == bestV; cl++ {
			if x := result[cl*vox+v] / norm[v]; x > bestV || x != x {
				best, bestV = cl, x
			}
		}
		out[v] = byte(best)
	}
	return out
}
