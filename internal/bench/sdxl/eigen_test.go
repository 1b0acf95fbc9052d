package sdxl

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEigen: A·v = λ·v for each eigenpair of random symmetric matrices
// (one with a repeated eigenvalue, one singular), the eigenvectors
// orthonormal, and the eigenvalues alone the same.
func TestEigen(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	random := func(d int) []float64 {
		a := make([]float64, d*d)
		for i := range d {
			for j := 0; j <= i; j++ {
				a[i*d+j] = rng.NormFloat64()
				a[j*d+i] = a[i*d+j]
			}
		}
		return a
	}
	for _, tc := range []struct {
		name string
		d    int
		a    []float64
	}{
		{name: "one", d: 1, a: []float64{5}},
		{name: "diagonal", d: 3, a: []float64{2, 0, 0, 0, 2, 0, 0, 0, 7}},
		{name: "singular", d: 3, a: []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{name: "random 7", d: 7, a: random(7)},
		{name: "random 40", d: 40, a: random(40)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := tc.d
			values, vecs := eigen(tc.a, d, true)
			for k := range d {
				for i := range d {
					var av float64
					for j := range d {
						av += tc.a[i*d+j] * vecs[j*d+k]
					}
					require.InDelta(t, values[k]*vecs[i*d+k], av, 1e-10, "pair %d row %d", k, i)
				}
				for l := range d {
					var dot float64
					for i := range d {
						dot += vecs[i*d+k] * vecs[i*d+l]
					}
					want := 0.0
					if k == l {
						want = 1
					}
					require.InDelta(t, want, dot, 1e-10)
				}
			}
			alone, _ := eigen(tc.a, d, false)
			slices.Sort(alone)
			slices.Sort(values)
			assert.InDeltaSlice(t, values, alone, 1e-12)
			var tr, sum float64
			for i := range d {
				tr += tc.a[i*d+i]
				sum += values[i]
			}
			assert.InDelta(t, tr, sum, 1e-10*math.Max(1, math.Abs(tr)))
		})
	}
}
