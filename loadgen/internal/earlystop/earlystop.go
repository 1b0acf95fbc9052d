package earlystop

import (
	"math"
	"sort"
)

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

func logBeta(x, y int64) float64 {
	return lgamma(float64(x)) + lgamma(float64(y)) - lgamma(float64(x+y))
}

// hypergeometric2F1A1 is the Gaussian hypergeometric function 2F1(1, b; c;
// x) summed term by term until a term falls below 2^-33.
func hypergeometric2F1A1(b, c int64, x float64) float64 {
	const tolerance = 1.0 / (1 << 33)
	term, result := 1.0, 1.0
	for i := int64(0); math.Abs(term) > tolerance; i++ {
		term *= float64(b+i) * x / float64(c+i)
		result += term
	}
	return result
}

// betaRegularized is I_x(a, b) through the hypergeometric form.
func betaRegularized(x float64, a, b int64) float64 {
	return math.Exp(float64(a)*math.Log(x)+float64(b-1)*math.Log(1-x)-logBeta(a, b)) /
		float64(a) * hypergeometric2F1A1(1-b, 1+a, x/(x-1))
}

// odds is the probability of t or fewer over-latency queries among h + t
// when each query is under latency with probability p - d.
func odds(h, t int64, p, d float64) float64 {
	return betaRegularized(p-d, h, 1+t)
}

// searchMinPassing binary-searches [minH, maxH] for the smallest h with
// odds(h, t, p, d) < 1 - c, returning maxH when none qualifies.
func searchMinPassing(minH, maxH, t int64, p, d, c float64) int64 {
	count := maxH - minH
	for count > 0 {
		step := count / 2
		h := minH + step
		if odds(h, t, p, d) < 1-c {
			count = step
		} else {
			minH = h + 1
			count -= step + 1
		}
	}
	return minH
}

type cacheKey struct{ p, d, c float64 }

// Finder is the official MinPassingQueriesFinder: it remembers the answers
// it gave for each (p, d, c) and interpolates the search bounds of the next
// t from the nearest two below it. Its answers depend on that history, as
// the official's do, so create one per early stopping estimate, as the
// official LoadGen does.
type Finder struct {
	caches map[cacheKey]*cache
}

// cache maps t to h, kept sorted by t.
type cache struct {
	ts []int64
	hs []int64
}

// NewFinder returns a Finder with empty caches.
func NewFinder() *Finder {
	return &Finder{caches: make(map[cacheKey]*cache)}
}

// MinPassing returns the minimum h such that odds(h, t, p, d) <= 1 - c: the
// number of under-latency queries needed, with t over the bound, to claim
// the p-th percentile with confidence c (tolerance d).
func (f *Finder) MinPassing(t int64, p, d, c float64) int64 {
	k := cacheKey{p, d, c}
	ch := f.caches[k]
	if ch == nil {
		ch = &cache{}
		f.caches[k] = ch
	}
	// it is the position of the first cached t' >= t (std::map::lower_bound).
	it := sort.Search(len(ch.ts), func(i int) bool { return ch.ts[i] >= t })
	if it < len(ch.ts) && ch.ts[it] == t {
		return ch.hs[it]
	}
	x0, y0 := int64(-1), int64(0)
	x1, y1 := int64(0), int64(math.Ceil(math.Log(1-c)/math.Log(p-d)))
	if it > 0 {
		it--
		x1, y1 = ch.ts[it], ch.hs[it]
	}
	if it > 0 {
		it--
		x0, y0 = ch.ts[it], ch.hs[it]
	}
	minSlope := (p - d) / (1 - p + d)
	maxSlope := float64((y1 - y0) * (x1 - x0))
	minH := int64(float64(t-x1)*minSlope + float64(y1))
	maxH := int64(float64(t-x1)*maxSlope + float64(y1) + 1)
	h := searchMinPassing(minH, maxH, t, p, d, c)
	pos := sort.Search(len(ch.ts), func(i int) bool { return ch.ts[i] >= t })
	ch.ts = append(ch.ts, 0)
	ch.hs = append(ch.hs, 0)
	copy(ch.ts[pos+1:], ch.ts[pos:])
	copy(ch.hs[pos+1:], ch.hs[pos:])
	ch.ts[pos], ch.hs[pos] = t, h
	return h
}
