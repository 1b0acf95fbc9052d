package py

import "math"

// NumpyMean is numpy.mean of float64 values: numpy's pairwise summation
// (blocks of 128 summed with eight accumulators, halves beyond), divided
// by the count.
func NumpyMean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return numpyPairwiseSum(v) / float64(len(v))
}

func numpyPairwiseSum(v []float64) float64 {
	n := len(v)
	switch {
	case n < 8:
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], v[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := range 8 {
				r[k] += v[i+k]
			}
		}
		s := (r[0] + r[1]) + (r[2] + r[3]) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += v[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return numpyPairwiseSum(v[:n2]) + numpyPairwiseSum(v[n2:])
}

// NumpyRound is numpy.round(x, decimals): x scaled, rounded half to
// even, scaled back.
func NumpyRound(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.RoundToEven(x*p) / p
}
