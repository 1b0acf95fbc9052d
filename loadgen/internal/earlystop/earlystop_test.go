package earlystop

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// discarded replays the official SingleStream/MultiStream loop: the number
// of highest-latency queries the early-stopping estimate may ignore.
func discarded(queries int64, p float64) (hMin, t int64) {
	f := NewFinder()
	hMin = f.MinPassing(1, p, 0, 0.99)
	t = 1
	if queries < hMin+1 {
		return hMin, 0
	}
	for i := int64(2); i < queries+1; i++ {
		if h := f.MinPassing(i, p, 0, 0.99); queries < h+i {
			t = i - 1
			break
		}
	}
	return hMin, t
}

func TestMinPassingOfficialFigures(t *testing.T) {
	t.Parallel()
	// From an official SingleStream summary: "Processed at least 64 queries
	// (659). Would discard 47 highest latency queries." and "would need to
	// process at least 662 total queries" for the 99th percentile.
	hMin, tt := discarded(659, 0.90)
	assert.Equal(t, int64(63), hMin)
	assert.Equal(t, int64(48), tt)
	hMin99, _ := discarded(659, 0.99)
	assert.Equal(t, int64(661), hMin99)
	// From the official LoadGen rebuilt with GCC 12, 200000 SingleStream
	// queries: "Would discard 19686 highest latency queries."
	_, tt = discarded(200000, 0.90)
	assert.Equal(t, int64(19687), tt)
}

func TestMinPassingMonotone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    float64
	}{
		{name: "p90", p: 0.90},
		{name: "p99", p: 0.99},
		{name: "p97", p: 0.97},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := NewFinder()
			prev := int64(0)
			for over := int64(0); over < 200; over++ {
				h := f.MinPassing(over, tt.p, 0, 0.99)
				assert.GreaterOrEqual(t, h, prev, "t=%d", over)
				prev = h
				// Cached answers are returned as is.
				assert.Equal(t, h, f.MinPassing(over, tt.p, 0, 0.99))
			}
		})
	}
}

func TestOddsBounds(t *testing.T) {
	t.Parallel()
	// With no over-latency query, odds are p^h.
	assert.InDelta(t, 0.9*0.9*0.9, odds(3, 0, 0.9, 0), 1e-9)
	assert.InDelta(t, 1.0, odds(1, 1000, 0.5, 0), 1e-6)
}

func BenchmarkEarlyStoppingServer(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewFinder().MinPassing(2700, 0.99, 0, 0.99)
	}
}
