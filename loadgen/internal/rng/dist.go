package rng

import "math"

// engineRange is urng.max() - urng.min() for std::mt19937.
const engineRange = math.MaxUint32

// UniformUint64 returns a value uniformly distributed on [a, b], drawing from
// g exactly as libstdc++'s std::uniform_int_distribution does with a 32-bit
// engine: Lemire's nearly divisionless method with one 64-bit multiply when
// the range fits in 32 bits (GCC 11 and later), plain draws when the range
// is the engine's, and libstdc++'s recursive upscaling above it.
func UniformUint64(g *MT19937, a, b uint64) uint64 {
	urange := b - a
	switch {
	case urange < engineRange:
		return a + uint64(lemire32(g, uint32(urange+1)))
	case urange == engineRange:
		return a + uint64(g.Uint32())
	default:
		// Upscaling: combine a recursive draw for the high part with one
		// engine output for the low 32 bits, rejecting wrap-around.
		const erange = uint64(engineRange) + 1
		for {
			tmp := erange * UniformUint64(g, 0, urange/erange)
			ret := tmp + uint64(g.Uint32())
			if ret <= urange && ret >= tmp {
				return a + ret
			}
		}
	}
}

// lemire32 maps engine outputs to [0, n) with libstdc++'s _S_nd.
func lemire32(g *MT19937, n uint32) uint32 {
	product := uint64(g.Uint32()) * uint64(n)
	low := uint32(product)
	if low < n {
		threshold := -n % n
		for low < threshold {
			product = uint64(g.Uint32()) * uint64(n)
			low = uint32(product)
		}
	}
	return uint32(product >> 32)
}

// UniformInt returns a value uniformly distributed on [a, b] like
// std::uniform_int_distribution<int>(a, b) (libstdc++ computes in the
// unsigned type shared with the engine, so the draws match
// [UniformUint64]).
func UniformInt(g *MT19937, a, b int) int {
	return a + int(UniformUint64(g, 0, uint64(b)-uint64(a)))
}

// Canonical returns std::generate_canonical<double, 53>(g): two engine
// outputs combined as lo + hi*2^32 in double arithmetic, scaled by 2^-64,
// and clamped below 1.
func Canonical(g *MT19937) float64 {
	const r = 4294967296.0 // 2^32
	sum := float64(g.Uint32())
	sum += float64(g.Uint32()) * r
	ret := sum / (r * r)
	if ret >= 1 {
		ret = math.Nextafter(1, 0)
	}
	return ret
}

// UniformReal returns std::uniform_real_distribution<double>(a, b)(g).
func UniformReal(g *MT19937, a, b float64) float64 {
	return Canonical(g)*(b-a) + a
}

// Exponential returns std::exponential_distribution<double>(lambda)(g), in
// the units of 1/lambda.
func Exponential(g *MT19937, lambda float64) float64 {
	return -math.Log(1-Canonical(g)) / lambda
}
