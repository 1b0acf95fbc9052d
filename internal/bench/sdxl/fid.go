package sdxl

import (
	"errors"
	"fmt"
	"math"
)

// Statistics are the mean and covariance of Inception-v3 features, as
// fid_score.py's calculate_activation_statistics computes them and
// val2014.npz holds them (mu, sigma).
type Statistics struct {
	Mu []float64
	// Sigma is the covariance, row-major [len(Mu)][len(Mu)].
	Sigma []float64
}

// NewStatistics computes the statistics of features [N][D] (one row an
// image's pool_3 activations) as np.mean(axis=0) and
// np.cov(rowvar=False) do: the mean, and the covariance about it over
// N-1.
//
// # Errors
//
// Refuses fewer than two rows and rows of different lengths.
func NewStatistics(features [][]float64) (Statistics, error) {
	if len(features) < 2 {
		return Statistics{}, fmt.Errorf("%d feature rows: the covariance needs two or more", len(features))
	}
	d := len(features[0])
	mu := make([]float64, d)
	for i, f := range features {
		if len(f) != d {
			return Statistics{}, fmt.Errorf("feature row %d: %d values, row 0 has %d", i, len(f), d)
		}
		for j, v := range f {
			mu[j] += v
		}
	}
	n := float64(len(features))
	for j := range mu {
		mu[j] /= n
	}
	sigma := make([]float64, d*d)
	c := make([]float64, d)
	for _, f := range features {
		for j, v := range f {
			c[j] = v - mu[j]
		}
		for a := range d {
			row := sigma[a*d : a*d+d]
			for b := a; b < d; b++ {
				row[b] += c[a] * c[b]
			}
		}
	}
	for a := range d {
		for b := a; b < d; b++ {
			sigma[a*d+b] /= n - 1
			sigma[b*d+a] = sigma[a*d+b]
		}
	}
	return Statistics{Mu: mu, Sigma: sigma}, nil
}

// Check reports whether s is a mean of D values and a D×D symmetric
// covariance.
func (s Statistics) Check() error {
	d := len(s.Mu)
	if d == 0 || len(s.Sigma) != d*d {
		return fmt.Errorf("statistics of %d means and %d covariances, want D and D×D", d, len(s.Sigma))
	}
	for a := range d {
		for b := range a {
			if x, y := s.Sigma[a*d+b], s.Sigma[b*d+a]; math.Abs(x-y) > 1e-9*math.Max(1, math.Max(math.Abs(x), math.Abs(y))) {
				return fmt.Errorf("covariance not symmetric at (%d, %d): %g and %g", a, b, x, y)
			}
		}
	}
	return nil
}

// ErrImaginary is FID's error when the product of the covariances has
// a square root far from real, where calculate_frechet_distance raises
// "Imaginary component".
var ErrImaginary = errors.New("imaginary component")

// FID is the Fréchet distance between the Gaussians of two statistics,
// calculate_frechet_distance's ||mu1 - mu2||² + Tr(sigma1) + Tr(sigma2)
// - 2 Tr(sqrtm(sigma1 sigma2)).
//
// # Notes
//
// The trace of the square root is computed as the sum of the square
// roots of the eigenvalues of Lᵀ sigma2 L (sigma1 = L Lᵀ, Cholesky), or
// of √sigma1 sigma2 √sigma1 where sigma1 is singular: the same
// eigenvalues as sigma1 sigma2's (both covariances positive
// semi-definite), by Householder's tridiagonal reduction and the QL
// algorithm (eigen), where scipy's
// sqrtm takes the whole root through a Schur decomposition and the
// script keeps its real part: the two agree to rounding. A negative
// eigenvalue (rounding, or a singular product) contributes its root's
// real part, 0.
//
// # Errors
//
// Refuses statistics of different sizes and a covariance that is not
// symmetric; wraps ErrImaginary where an eigenvalue is negative beyond
// rounding, so that the root's imaginary part is not negligible (the
// script's 1e-3).
func FID(s1, s2 Statistics) (float64, error) {
	for _, s := range []Statistics{s1, s2} {
		if err := s.Check(); err != nil {
			return 0, err
		}
	}
	d := len(s1.Mu)
	if len(s2.Mu) != d {
		return 0, fmt.Errorf("statistics of %d and %d features", d, len(s2.Mu))
	}
	var dist, tr1, tr2 float64
	for i := range d {
		diff := s1.Mu[i] - s2.Mu[i]
		dist += diff * diff
		tr1 += s1.Sigma[i*d+i]
		tr2 += s2.Sigma[i*d+i]
	}
	m := similar(s1.Sigma, s2.Sigma, d)
	for a := range d { // symmetric up to rounding: make it so
		for b := range a {
			v := (m[a*d+b] + m[b*d+a]) / 2
			m[a*d+b], m[b*d+a] = v, v
		}
	}
	var trRoot, imag float64
	values, _ := eigen(m, d, false)
	for _, l := range values {
		if l >= 0 {
			trRoot += math.Sqrt(l)
		} else {
			imag += math.Sqrt(-l)
		}
	}
	if imag > 1e-3 {
		return 0, fmt.Errorf("%w: %g", ErrImaginary, imag)
	}
	return dist + tr1 + tr2 - 2*trRoot, nil
}

// similar returns a symmetric matrix with the eigenvalues of a·b, a and
// b covariances: Lᵀ b L where a = L Lᵀ (Cholesky), or, where a is
// singular, √a b √a.
func similar(a, b []float64, d int) []float64 {
	if l, ok := cholesky(a, d); ok {
		lt := make([]float64, d*d)
		for i := range d {
			for j := range d {
				lt[i*d+j] = l[j*d+i]
			}
		}
		return mul(lt, mul(b, l, d), d)
	}
	root := sqrtPSD(a, d)
	return mul(mul(root, b, d), root, d)
}

// cholesky is the lower triangular L of a = L Lᵀ; false where a is not
// positive definite, a pivot at or under 1e-10 of the largest diagonal
// element (a covariance of fewer rows than features), which would
// amplify rounding.
func cholesky(a []float64, d int) ([]float64, bool) {
	var top float64
	for i := range d {
		top = math.Max(top, a[i*d+i])
	}
	l := make([]float64, d*d)
	for j := range d {
		lj := l[j*d : j*d+j]
		s := a[j*d+j]
		for _, x := range lj {
			s -= x * x
		}
		if s <= 1e-10*top {
			return nil, false
		}
		ljj := math.Sqrt(s)
		l[j*d+j] = ljj
		for i := j + 1; i < d; i++ {
			li := l[i*d : i*d+j]
			s := a[i*d+j]
			for k, x := range li {
				s -= x * lj[k]
			}
			l[i*d+j] = s / ljj
		}
	}
	return l, true
}

// sqrtPSD is the square root of a symmetric positive semi-definite
// matrix: V √Λ Vᵀ, negative eigenvalues (rounding) taken as 0.
func sqrtPSD(a []float64, d int) []float64 {
	lambda, v := eigen(a, d, true)
	out := make([]float64, d*d)
	for k, l := range lambda {
		r := math.Sqrt(max(l, 0))
		if r == 0 {
			continue
		}
		for i := range d {
			vi := v[i*d+k] * r
			if vi == 0 {
				continue
			}
			row := out[i*d : i*d+d]
			for j := range d {
				row[j] += vi * v[j*d+k]
			}
		}
	}
	return out
}

// mul is the product of two d×d matrices.
func mul(a, b []float64, d int) []float64 {
	out := make([]float64, d*d)
	for i := range d {
		row := out[i*d : i*d+d]
		for k := range d {
			aik := a[i*d+k]
			if aik == 0 {
				continue
			}
			bk := b[k*d : k*d+d]
			for j := range d {
				row[j] += aik * bk[j]
			}
		}
	}
	return out
}
