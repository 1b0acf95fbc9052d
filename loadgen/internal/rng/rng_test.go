package rng

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The vectors come from libstdc++ (GCC 12) and are quoted in issue 6.

func TestMT19937DefaultSeed(t *testing.T) {
	t.Parallel()
	g := NewMT19937(DefaultSeed)
	assert.Equal(t, uint32(3499211612), g.Uint32())
	g.Discard(9998)
	// The C++ standard requires the 10000th output of a default-constructed
	// mt19937 to be 4123659995.
	assert.Equal(t, uint32(4123659995), g.Uint32())
}

func TestMT19937SeedUsesLow32Bits(t *testing.T) {
	t.Parallel()
	a := NewMT19937(42)
	b := NewMT19937(42 + 1<<32)
	for range 1000 {
		require.Equal(t, a.Uint32(), b.Uint32())
	}
}

func TestDiscardMatchesDraws(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		skip uint64
	}{
		{name: "none", skip: 0},
		{name: "within a block", skip: 100},
		{name: "exactly one block", skip: 624},
		{name: "across blocks", skip: 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := NewMT19937(7), NewMT19937(7)
			a.Uint32() // start mid-block
			b.Uint32()
			for range tt.skip {
				a.Uint32()
			}
			b.Discard(tt.skip)
			assert.Equal(t, a.Uint32(), b.Uint32())
		})
	}
}

func TestUniformInt(t *testing.T) {
	t.Parallel()
	g := NewMT19937(42)
	want := []int{383, 815, 973, 187, 749, 798, 613, 611}
	got := make([]int, len(want))
	for i := range got {
		got[i] = UniformInt(g, 0, 1023)
	}
	assert.Equal(t, want, got)
}

func TestUniformUint64Bounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b uint64
	}{
		{name: "single value", a: 5, b: 5},
		{name: "small", a: 0, b: 2},
		{name: "odd range rejects", a: 10, b: 10 + 3_000_000_000},
		{name: "full engine range", a: 0, b: 1<<32 - 1},
		{name: "upscaled", a: 1, b: 1 << 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := NewMT19937(1)
			for range 2000 {
				v := UniformUint64(g, tt.a, tt.b)
				require.GreaterOrEqual(t, v, tt.a)
				require.LessOrEqual(t, v, tt.b)
			}
		})
	}
}

func TestExponentialGapsNs(t *testing.T) {
	t.Parallel()
	g := NewMT19937(42)
	want := []int64{15923005, 2026485, 15127241, 9084469}
	got := make([]int64, len(want))
	for i := range got {
		// The LoadGen converts seconds to nanoseconds by truncation.
		got[i] = int64(Exponential(g, 100.0) * 1e9)
	}
	assert.Equal(t, want, got)
}

func TestShuffle(t *testing.T) {
	t.Parallel()
	g := NewMT19937(42)
	x := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	Shuffle(g, x)
	assert.Equal(t, []int{1, 6, 7, 0, 5, 9, 8, 2, 3, 4}, x)
}

func TestShuffleIsPermutation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
	}{
		{name: "empty", n: 0},
		{name: "one", n: 1},
		{name: "odd pairs", n: 11},
		{name: "largest two-at-a-time", n: 65535},
		{name: "one at a time", n: 65536},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := make([]int, tt.n)
			for i := range x {
				x[i] = i
			}
			Shuffle(NewMT19937(3), x)
			seen := make([]bool, tt.n)
			for _, v := range x {
				require.False(t, seen[v])
				seen[v] = true
			}
		})
	}
}

func TestCanonicalRange(t *testing.T) {
	t.Parallel()
	g := NewMT19937(9)
	for range 10000 {
		v := Canonical(g)
		require.GreaterOrEqual(t, v, 0.0)
		require.Less(t, v, 1.0)
	}
	// Two engine outputs per call.
	a, b := NewMT19937(9), NewMT19937(9)
	Canonical(a)
	b.Discard(2)
	assert.Equal(t, a.Uint32(), b.Uint32())
}

func BenchmarkUniformInt(b *testing.B) {
	b.ReportAllocs()
	g := NewMT19937(1)
	for b.Loop() {
		UniformInt(g, 0, 1023)
	}
}

func BenchmarkExponential(b *testing.B) {
	b.ReportAllocs()
	g := NewMT19937(1)
	for b.Loop() {
		Exponential(g, 1000)
	}
}
