package report

import (
	"math"
	"slices"
)

// at returns the p-th percentile (a fraction) of sorted values by nearest
// rank, as the LoadGen reports them; p = 1 is the maximum.
func at(sorted []float64, p float64) float64 {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// latencies returns the sorted latencies of samples, in ns.
func latencies(s []Sample) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = float64(x.Latency)
	}
	slices.Sort(out)
	return out
}

// perQuery folds the samples of each query into one whose latency is the
// query's (its last sample's): MultiStream's latency is per query. Samples
// come sorted by schedule time, then query.
func perQuery(s []Sample) []Sample {
	var out []Sample
	for i, x := range s {
		if i > 0 && x.Query == s[i-1].Query && x.At == s[i-1].At {
			last := &out[len(out)-1]
			last.Latency = max(last.Latency, x.Latency)
			continue
		}
		out = append(out, x)
	}
	return out
}

// binCount picks how many time intervals a chart of n points gets: enough
// points per interval for a percentile to mean something, at most 100.
func binCount(n, perBin int) int {
	return max(5, min(100, n/perBin))
}

// binned groups values into n equal intervals of [0, end) by key.
func binned(n int, end float64, items int, key func(int) float64, val func(int) float64) [][]float64 {
	groups := make([][]float64, n)
	for i := range items {
		b := min(n-1, max(0, int(key(i)/end*float64(n))))
		groups[b] = append(groups[b], val(i))
	}
	return groups
}

// seriesPoints is a curve: [x, y] data values.
type seriesPoints = [][2]float64

// perBin returns, for each non-empty interval, its middle and the p-th
// percentile of its values.
func perBin(groups [][]float64, end float64, ps ...float64) []seriesPoints {
	out := make([]seriesPoints, len(ps))
	for i, g := range groups {
		if len(g) == 0 {
			continue
		}
		slices.Sort(g)
		x := end * (float64(i) + 0.5) / float64(len(groups))
		for j, p := range ps {
			out[j] = append(out[j], [2]float64{x, at(g, p)})
		}
	}
	return out
}

// maxY is the largest y of the curves.
func maxY(curves ...seriesPoints) float64 {
	m := 0.0
	for _, c := range curves {
		for _, p := range c {
			m = math.Max(m, p[1])
		}
	}
	return m
}
