package rng

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff

	// DefaultSeed is the seed of a default-constructed std::mt19937.
	DefaultSeed = 5489
)

// MT19937 is the 32-bit Mersenne Twister, std::mt19937. The zero value is
// not usable; create one with [NewMT19937].
type MT19937 struct {
	state [mtN]uint32
	index int
}

// NewMT19937 returns an engine seeded like std::mt19937(seed). As in
// libstdc++, where the engine's result type is 64 bits wide on LP64
// platforms, only the low 32 bits of seed are used.
func NewMT19937(seed uint64) *MT19937 {
	m := &MT19937{}
	m.Seed(seed)
	return m
}

// Seed reseeds the engine, like std::mt19937::seed.
func (m *MT19937) Seed(seed uint64) {
	m.state[0] = uint32(seed)
	for i := 1; i < mtN; i++ {
		prev := m.state[i-1]
		m.state[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	m.index = mtN
}

// twist regenerates the whole state block, as libstdc++ does once every 624
// outputs.
func (m *MT19937) twist() {
	s := &m.state
	for k := 0; k < mtN-mtM; k++ {
		y := s[k]&mtUpperMask | s[k+1]&mtLowerMask
		s[k] = s[k+mtM] ^ y>>1 ^ (-(y & 1) & mtMatrixA)
	}
	for k := mtN - mtM; k < mtN-1; k++ {
		y := s[k]&mtUpperMask | s[k+1]&mtLowerMask
		s[k] = s[k+mtM-mtN] ^ y>>1 ^ (-(y & 1) & mtMatrixA)
	}
	y := s[mtN-1]&mtUpperMask | s[0]&mtLowerMask
	s[mtN-1] = s[mtM-1] ^ y>>1 ^ (-(y & 1) & mtMatrixA)
	m.index = 0
}

// Uint32 returns the next output of the engine.
func (m *MT19937) Uint32() uint32 {
	if m.index >= mtN {
		m.twist()
	}
	y := m.state[m.index]
	m.index++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Discard advances the engine by n outputs, like std::mt19937::discard.
func (m *MT19937) Discard(n uint64) {
	for n > 0 {
		if m.index >= mtN {
			m.twist()
		}
		step := min(n, uint64(mtN-m.index))
		m.index += int(step)
		n -= step
	}
}
