package py

import "math/bits"

// Generator is numpy's default random generator, numpy.random.default_rng
// (PCG64 seeded through a SeedSequence): the draws MLPerf's evaluation
// scripts make with it, in the same order, give the same numbers.
type Generator struct {
	hi, lo       uint64 // the 128-bit LCG state
	incHi, incLo uint64
	// buffered is the upper half of the last 64-bit draw, which
	// next_uint32 hands out before drawing again.
	buffered    uint32
	hasBuffered bool
}

// The SeedSequence hashing constants.
const (
	ssInitA    = 0x43b0d7e5
	ssMultA    = 0x931e8875
	ssInitB    = 0x8b51f9dd
	ssMultB    = 0x58f38ded
	ssMixMultL = 0xca01f9dd
	ssMixMultR = 0x4973f715
	ssXShift   = 16
	ssPoolSize = 4
)

// PCG's default 128-bit multiplier.
const (
	pcgMultHi = 2549297995355413924
	pcgMultLo = 4865540595714422341
)

// NewGenerator is numpy.random.default_rng(seed) for a seed of 0 or
// more.
func NewGenerator(seed uint64) *Generator {
	var entropy []uint32
	for n := seed; n > 0; n >>= 32 {
		entropy = append(entropy, uint32(n))
	}
	if len(entropy) == 0 {
		entropy = []uint32{0}
	}
	pool := seedPool(entropy)
	// generate_state(4, uint64): 8 words from the pool, paired low first.
	hashConst := uint32(ssInitB)
	var words [8]uint32
	for i := range words {
		v := pool[i%ssPoolSize]
		v ^= hashConst
		hashConst *= ssMultB
		v *= hashConst
		v ^= v >> ssXShift
		words[i] = v
	}
	st := func(i int) uint64 { return uint64(words[2*i]) | uint64(words[2*i+1])<<32 }
	g := &Generator{}
	// pcg64_set_seed: the state from words 0-1 (high, low), the stream
	// from words 2-3; then pcg's srandom.
	initHi, initLo := st(0), st(1)
	seqHi, seqLo := st(2), st(3)
	g.incHi = seqHi<<1 | seqLo>>63
	g.incLo = seqLo<<1 | 1
	g.step()
	var c uint64
	g.lo, c = bits.Add64(g.lo, initLo, 0)
	g.hi, _ = bits.Add64(g.hi, initHi, c)
	g.step()
	return g
}

// seedPool is SeedSequence's mix_entropy into its pool of four words.
func seedPool(entropy []uint32) [ssPoolSize]uint32 {
	var pool [ssPoolSize]uint32
	hashConst := uint32(ssInitA)
	hashmix := func(v uint32) uint32 {
		v ^= hashConst
		hashConst *= ssMultA
		v *= hashConst
		v ^= v >> ssXShift
		return v
	}
	mix := func(x, y uint32) uint32 {
		r := ssMixMultL*x - ssMixMultR*y
		return r ^ r>>ssXShift
	}
	for i := range pool {
		if i < len(entropy) {
			pool[i] = hashmix(entropy[i])
		} else {
			pool[i] = hashmix(0)
		}
	}
	for src := range pool {
		for dst := range pool {
			if src != dst {
				pool[dst] = mix(pool[dst], hashmix(pool[src]))
			}
		}
	}
	for src := ssPoolSize; src < len(entropy); src++ {
		for dst := range pool {
			pool[dst] = mix(pool[dst], hashmix(entropy[src]))
		}
	}
	return pool
}

// step advances the LCG: state = state*mult + inc (mod 2^128).
func (g *Generator) step() {
	hi, lo := bits.Mul64(g.lo, pcgMultLo)
	hi += g.hi*pcgMultLo + g.lo*pcgMultHi
	var c uint64
	g.lo, c = bits.Add64(lo, g.incLo, 0)
	g.hi, _ = bits.Add64(hi, g.incHi, c)
}

// Uint64 is the next 64-bit draw (PCG's XSL RR output).
func (g *Generator) Uint64() uint64 {
	g.step()
	return bits.RotateLeft64(g.hi^g.lo, -int(g.hi>>58))
}

// Uint32 is numpy's next_uint32: the low half of a 64-bit draw, then its
// high half.
func (g *Generator) Uint32() uint32 {
	if g.hasBuffered {
		g.hasBuffered = false
		return g.buffered
	}
	v := g.Uint64()
	g.buffered, g.hasBuffered = uint32(v>>32), true
	return uint32(v)
}

// Seeds is integers(0, 2**32, size=n): n draws of next_uint32.
func (g *Generator) Seeds(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(g.Uint32())
	}
	return out
}

// Index is integers(0, n) for 0 < n ≤ 2^32, the index choice(a) draws
// from a sequence of n elements: Lemire's bounded draw of next_uint32
// as numpy does it.
func (g *Generator) Index(n int) int {
	rng := uint32(n - 1)
	if rng == 0 {
		return 0
	}
	if rng == 1<<32-1 {
		return int(g.Uint32())
	}
	excl := uint64(rng) + 1
	m := uint64(g.Uint32()) * excl
	if leftover := uint32(m); uint64(leftover) < excl {
		threshold := uint32((uint64(1<<32-1) - uint64(rng)) % excl)
		for leftover < threshold {
			m = uint64(g.Uint32()) * excl
			leftover = uint32(m)
		}
	}
	return int(m >> 32)
}
