package sdxl

import "math"

// eigen returns the eigenvalues of the symmetric d×d matrix a (row-major,
// left unchanged) and, with vectors, its eigenvectors as the columns of
// a row-major d×d matrix: Householder's reduction to a tridiagonal
// matrix, then the QL algorithm with implicit shifts (the EISPACK tred2
// and tql2 procedures, as JAMA states them), O(d³).
func eigen(a []float64, d int, vectors bool) (values, vecs []float64) {
	// a is symmetric: it is its own transpose, which the procedures
	// work on.
	w := make([][]float64, d)
	for i := range w {
		w[i] = append([]float64(nil), a[i*d:i*d+d]...)
	}
	diag, off := make([]float64, d), make([]float64, d)
	tridiagonalize(w, diag, off)
	ql(w, diag, off, vectors)
	if !vectors {
		return diag, nil
	}
	vecs = make([]float64, d*d)
	for k, row := range w {
		for i, x := range row {
			vecs[i*d+k] = x
		}
	}
	return diag, vecs
}

// tridiagonalize reduces the symmetric w to tridiagonal form by
// Householder reflections: the diagonal into diag, the subdiagonal into
// off[1:], and w becomes the transpose of the accumulated orthogonal
// transformation (the procedure works on the transpose, so that its
// inner loops run along rows).
func tridiagonalize(w [][]float64, diag, off []float64) {
	n := len(w)
	for j := range n {
		diag[j] = w[j][n-1]
	}
	for i := n - 1; i > 0; i-- {
		var scale, h float64
		for k := range i {
			scale += math.Abs(diag[k])
		}
		if scale == 0 {
			off[i] = diag[i-1]
			for j := range i {
				diag[j] = w[j][i-1]
				w[j][i], w[i][j] = 0, 0
			}
			diag[i] = h
			continue
		}
		for k := range i {
			diag[k] /= scale
			h += diag[k] * diag[k]
		}
		f := diag[i-1]
		g := math.Sqrt(h)
		if f > 0 {
			g = -g
		}
		off[i] = scale * g
		h -= f * g
		diag[i-1] = f - g
		for j := range i {
			off[j] = 0
		}
		for j := range i {
			f = diag[j]
			w[i][j] = f
			g = off[j] + w[j][j]*f
			for k := j + 1; k < i; k++ {
				g += w[j][k] * diag[k]
				off[k] += w[j][k] * f
			}
			off[j] = g
		}
		f = 0
		for j := range i {
			off[j] /= h
			f += off[j] * diag[j]
		}
		hh := f / (h + h)
		for j := range i {
			off[j] -= hh * diag[j]
		}
		for j := range i {
			f, g = diag[j], off[j]
			for k := j; k < i; k++ {
				w[j][k] -= f*off[k] + g*diag[k]
			}
			diag[j] = w[j][i-1]
			w[j][i] = 0
		}
		diag[i] = h
	}
	// Accumulate the transformations.
	for i := 0; i < n-1; i++ {
		w[i][n-1] = w[i][i]
		w[i][i] = 1
		h := diag[i+1]
		if h != 0 {
			for k := 0; k <= i; k++ {
				diag[k] = w[i+1][k] / h
			}
			for j := 0; j <= i; j++ {
				var g float64
				for k := 0; k <= i; k++ {
					g += w[i+1][k] * w[j][k]
				}
				for k := 0; k <= i; k++ {
					w[j][k] -= g * diag[k]
				}
			}
		}
		for k := 0; k <= i; k++ {
			w[i+1][k] = 0
		}
	}
	for j := range n {
		diag[j] = w[j][n-1]
		w[j][n-1] = 0
	}
	w[n-1][n-1] = 1
	off[0] = 0
}

// ql diagonalizes the tridiagonal matrix (diag, off[1:]) by the QL
// algorithm with implicit shifts, the eigenvalues into diag; with
// vectors, w (the reduction's transformation, transposed) becomes the
// eigenvectors' transpose: eigenvector k is row k.
func ql(w [][]float64, diag, off []float64, vectors bool) {
	n := len(diag)
	for i := 1; i < n; i++ {
		off[i-1] = off[i]
	}
	off[n-1] = 0
	var f, tst1 float64
	const eps = 0x1p-52
	for l := range n {
		tst1 = math.Max(tst1, math.Abs(diag[l])+math.Abs(off[l]))
		m := l
		for m < n-1 && math.Abs(off[m]) > eps*tst1 {
			m++
		}
		if m > l {
			for iter := 0; iter < 64 && math.Abs(off[l]) > eps*tst1; iter++ {
				g := diag[l]
				p := (diag[l+1] - g) / (2 * off[l])
				r := math.Hypot(p, 1)
				if p < 0 {
					r = -r
				}
				diag[l] = off[l] / (p + r)
				diag[l+1] = off[l] * (p + r)
				dl1 := diag[l+1]
				h := g - diag[l]
				for i := l + 2; i < n; i++ {
					diag[i] -= h
				}
				f += h
				p = diag[m]
				c, c2, c3 := 1.0, 1.0, 1.0
				el1 := off[l+1]
				var s, s2 float64
				for i := m - 1; i >= l; i-- {
					c3, c2, s2 = c2, c, s
					g = c * off[i]
					h = c * p
					r = math.Hypot(p, off[i])
					off[i+1] = s * r
					s = off[i] / r
					c = p / r
					p = c*diag[i] - s*g
					diag[i+1] = h + s*(c*g+s*diag[i])
					if vectors {
						for k := range n {
							h = w[i+1][k]
							w[i+1][k] = s*w[i][k] + c*h
							w[i][k] = c*w[i][k] - s*h
						}
					}
				}
				p = -s * s2 * c3 * el1 * off[l] / dl1
				off[l] = s * p
				diag[l] = c * p
			}
		}
		diag[l] += f
		off[l] = 0
	}
}
