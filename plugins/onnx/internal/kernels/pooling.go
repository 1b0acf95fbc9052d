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
// run n*C tasks on a Pool.
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
// path without bounds checks, the others maxWindow.
func maxPlane(s *PoolShape, in, out []float32) {
	// Output columns whose window lies inside the row: lo..hi-1.
	lo := ceilDiv(s.PadL, s.SW)
	hi := 0
	if last := s.W - 1 - (s.KW-1)*s.DW + s.PadL; last >= 0 {
		hi = min(s.OW, last/s.SW+1)
	}
	lo = min(lo, s.OW)
	hi = max(hi, lo)
	for oy := range s.OH {
		y0 := oy*s.SH - s.PadT
		orow := out[oy*s.OW : (oy+1)*s.OW]
		inside := y0 >= 0 && y0+(s.KH-1)*s.DH < s.H
		for ox := range s.OW {
			if !inside || ox < lo || ox >= hi {
				orow[ox] = maxWindow(in, s, y0, ox*s.SW-s.PadL)
				continue
			}
			x0 := ox*s.SW - s.PadL
			m := in[y0*s.W+x0]
			for ky := range s.KH {
				row := in[(y0+ky*s.DH)*s.W+x0:]
				row = row[:(s.KW-1)*s.DW+1]
				for kx := 0; kx < len(row); kx += s.DW {
					if v := row[kx]; v > m || v != v {
						m = v
					}
				}
			}
			orow[ox] = m
		}
	}
}
