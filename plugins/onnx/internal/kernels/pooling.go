package kernels

import "math"

// PoolShape describes a 2-D max or average pooling over NCHW tensors. The
// output size is given (it depends on ceil_mode); windows that run past
// the padded input are clipped.
type PoolShape struct {
	C, H, W                int
	KH, KW                 int
	SH, SW                 int
	DH, DW                 int // dilations (max pooling only)
	PadT, PadL, PadB, PadR int
	OH, OW                 int
	// CountIncludePad makes average pooling divide by the window size
	// including padding (clipped to the padded input), not by the number
	// of input elements under it.
	CountIncludePad bool
}

// PoolKind selects max or average pooling.
type PoolKind uint8

// The pooling kinds.
const (
	MaxPool PoolKind = iota
	AvgPool
)

// PoolTask pools one (image, channel) plane per task; set its fields and
// run n*C tasks on a Pool, or run it with Gemm.RunPool.
type PoolTask struct {
	Kind  PoolKind
	Shape PoolShape
	X, Y  []float32
}

// Run implements Tasker.
func (t *PoolTask) Run(task int, _ *Scratch) {
	s := &t.Shape
	in := t.X[task*s.H*s.W : (task+1)*s.H*s.W]
	out := t.Y[task*s.OH*s.OW : (task+1)*s.OH*s.OW]
	if t.Kind == MaxPool {
		maxPlane(s, in, out)
		return
	}
	for oy := range s.OH {
		y0 := oy*s.SH - s.PadT
		for ox := range s.OW {
			x0 := ox*s.SW - s.PadL
			if t.Kind == MaxPool {
				out[oy*s.OW+ox] = maxWindow(in, s, y0, x0)
			} else {
				out[oy*s.OW+ox] = avgWindow(in, s, y0, x0)
			}
		}
	}
}

func maxWindow(in []float32, s *PoolShape, y0, x0 int) float32 {
	m := float32(math.Inf(-1))
	for ky := range s.KH {
		iy := y0 + ky*s.DH
		if iy < 0 || iy >= s.H {
			continue
		}
		row := in[iy*s.W : (iy+1)*s.W]
		for kx := range s.KW {
			ix := x0 + kx*s.DW
			if ix >= 0 && ix < s.W && (row[ix] > m || row[ix] != row[ix]) {
				m = row[ix]
			}
		}
	}
	return m
}

func avgWindow(in []float32, s *PoolShape, y0, x0 int) float32 {
	y1 := min(y0+s.KH, s.H+s.PadB)
	x1 := min(x0+s.KW, s.W+s.PadR)
	padded := (y1 - y0) * (x1 - x0)
	ys, ye := max(y0, 0), min(y1, s.H)
	xs, xe := max(x0, 0), min(x1, s.W)
	var sum float32
	for iy := ys; iy < ye; iy++ {
		for _, v := range in[iy*s.W+xs : iy*s.W+xe] {
			sum += v
		}
	}
	n := (ye - ys) * (xe - xs)
	if s.CountIncludePad {
		n = padded
	}
	if n <= 0 {
		return 0
	}
	return sum / float32(n)
}

// GlobalAvgTask averages each of its planes of Size elements: task i
// writes Y[i] = mean(X[i*Size:(i+1)*Size]).
type GlobalAvgTask struct {
	Size int
	X, Y []float32
}

// Run implements Tasker.
func (t *GlobalAvgTask) Run(task int, _ *Scratch) {
	var sum float32
	for _, v := range t.X[task*t.Size : (task+1)*t.Size] {
		sum += v
	}
	t.Y[task] = sum / float32(t.Size)
}

// maxPlane max-pools one plane: windows wholly inside the input take a
// path without bounds checks (specialized for 2×2 and 3×3; Go's max
// propagates NaN as maxWindow does), the others maxWindow.
func maxPlane(s *PoolShape, in, out []float32) {
	// Output columns whose window lies inside the row: lo..hi-1.
	lo := ceilDiv(s.PadL, s.SW)
	hi := 0
	if last := s.W - 1 - (s.KW-1)*s.DW + s.PadL; last >= 0 {
		hi = min(s.OW, last/s.SW+1)
	}
	lo = min(lo, s.OW)
	hi = max(hi, lo)
	plain := s.DH == 1 && s.DW == 1
	for oy := range s.OH {
		y0 := oy*s.SH - s.PadT
		orow := out[oy*s.OW : (oy+1)*s.OW]
		if y0 < 0 || y0+(s.KH-1)*s.DH >= s.H {
			for ox := range orow {
				orow[ox] = maxWindow(in, s, y0, ox*s.SW-s.PadL)
			}
			continue
		}
		for ox := 0; ox < lo; ox++ {
			orow[ox] = maxWindow(in, s, y0, ox*s.SW-s.PadL)
		}
		for ox := hi; ox < s.OW; ox++ {
			orow[ox] = maxWindow(in, s, y0, ox*s.SW-s.PadL)
		}
		x0 := lo*s.SW - s.PadL
		mid := orow[lo:hi]
		switch {
		case plain && s.KH == 2 && s.KW == 2:
			r0, r1 := in[y0*s.W:(y0+1)*s.W], in[(y0+1)*s.W:(y0+2)*s.W]
			for i := range mid {
				x := x0 + i*s.SW
				mid[i] = max(r0[x], r0[x+1], r1[x], r1[x+1])
			}
		case plain && s.KH == 3 && s.KW == 3:
			r0, r1, r2 := in[y0*s.W:(y0+1)*s.W], in[(y0+1)*s.W:(y0+2)*s.W], in[(y0+2)*s.W:(y0+3)*s.W]
			for i := range mid {
				x := x0 + i*s.SW
				a, b, c := r0[x:x+3:x+3], r1[x:x+3:x+3], r2[x:x+3:x+3]
				mid[i] = max(a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2])
			}
		default:
			for i := range mid {
				mid[i] = maxWindow(in, s, y0, x0+i*s.SW)
			}
		}
	}
}

// RunPool runs a PoolTask over planes planes with the GEMM's kernel set:
// its whole-call max pooling when it has one for the shape (the WASM
// build's SIMD kernel), else the task on the pool's threads.
func (g *Gemm) RunPool(pool *Pool, t *PoolTask, planes int) {
	if g.whole != nil && g.whole.maxPool != nil && t.Kind == MaxPool && g.whole.maxPool(t, planes, &pool.scratch[0]) {
		return
	}
	s := &t.Shape
	pool.ForWork(planes, planes*s.OH*s.OW*s.KH*s.KW, t)
}
