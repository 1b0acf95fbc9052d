package py

import "math"

// PandasNanMean is pandas' Series.mean of float64 cells, missing ones
// (present false) skipped as pandas' nanmean skips NaN: the cells summed
// by numpy's pairwise summation with the missing ones zero, divided by
// the count of those present (NaN when none is).
func PandasNanMean(cells []float64, present []bool) float64 {
	v := make([]float64, len(cells))
	n := 0
	for i, c := range cells {
		if present[i] {
			v[i] = c
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return numpyPairwiseSum(v) / float64(n)
}
