package kernels

// PackedA is a left-hand GEMM operand packed into panels of the
// micro-kernel's row count: panel p holds rows p*mr.. as K groups of mr
// values (zero-padded past M). Conv and Gemm weights are packed once at
// load.
type PackedA struct {
	M, K int
	mr   int
	data []float32
	// splat marks the WASM SIMD kernels' other layout: 6-row panels with
	// each value repeated 4 times (simd_wasm.go), which only their GEMM
	// reads.
	splat bool //nolint:unused // read by the WASM build's SIMD kernels (simd_wasm.go)
}

// PackedASize is the number of float32s PackA needs for an m×k matrix with
// the given GEMM.
func (g *Gemm) PackedASize(m, k int) int { return ceilDiv(m, g.kern.mr) * g.kern.mr * k }

// PackA packs the m×k matrix a into dst (grown when too small) for this
// GEMM's micro-kernel.
func (g *Gemm) PackA(dst []float32, a Mat, m, k int) PackedA {
	mr := g.kern.mr
	dst = buf(&dst, g.PackedASize(m, k))
	for p := 0; p*mr < m; p++ {
		panel := dst[p*mr*k : (p+1)*mr*k]
		rows := min(mr, m-p*mr)
		for r := range mr {
			if r >= rows {
				for kk := range k {
					panel[kk*mr+r] = 0
				}
				continue
			}
			src := (p*mr + r) * a.RS
			for kk := range k {
				panel[kk*mr+r] = a.Data[src+kk*a.CS]
			}
		}
	}
	return PackedA{M: m, K: k, mr: mr, data: dst}
}

// panel returns the packed A values of row panel p for k steps
// [k0, k0+kc).
func (pa *PackedA) panel(p, k0, kc int) []float32 {
	base := p*pa.mr*pa.K + k0*pa.mr
	return pa.data[base : base+kc*pa.mr]
}

// BSource supplies the right-hand GEMM operand (K×N per batch item) by
// packing blocks of it.
type BSource interface {
	// PackB packs rows [k0, k0+kc) and columns [j0, j0+nc) of batch item
	// b into dst as panels of nr columns: panel q holds kc groups of nr
	// values, zero-padded past column j0+nc.
	PackB(dst []float32, b, k0, kc, j0, nc, nr int)
}

// MatSource is a BSource over a strided matrix; batch item b starts
// BatchStride elements after item b-1.
type MatSource struct {
	M           Mat
	BatchStride int
}

// PackB implements BSource.
func (s *MatSource) PackB(dst []float32, b, k0, kc, j0, nc, nr int) {
	m := s.M
	base := b * s.BatchStride
	for q := 0; q*nr < nc; q++ {
		panel := dst[q*kc*nr : (q+1)*kc*nr]
		cols := min(nr, nc-q*nr)
		jbase := j0 + q*nr
		for kk := range kc {
			row := panel[kk*nr : kk*nr+nr]
			src := base + (k0+kk)*m.RS + jbase*m.CS
			if m.CS == 1 {
				copy(row[:cols], m.Data[src:src+cols])
			} else {
				for c := range cols {
					row[c] = m.Data[src+c*m.CS]
				}
			}
			clear(row[cols:])
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Data returns the packed storage, for reuse as the next PackA's dst.
func (pa *PackedA) Data() []float32 { return pa.data }
