package host

import (
	"encoding/binary"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIDSetBasics(t *testing.T) {
	var s idSet
	require.True(t, s.add(5))
	require.False(t, s.add(5), "a duplicate")
	require.True(t, s.add(1<<62), "far above the window")
	require.True(t, s.add(0))
	require.False(t, s.add(1<<62))
	require.Equal(t, 3, s.len())
	require.True(t, s.has(0))
	require.True(t, s.has(1<<62))
	require.False(t, s.has(6))
	require.False(t, s.remove(6))
	require.True(t, s.remove(5))
	require.False(t, s.remove(5), "removed twice")
	require.Equal(t, []uint64{0, 1 << 62}, s.drain(nil))
	require.Zero(t, s.len())
	require.False(t, s.remove(0))
	require.True(t, s.add(0), "usable after drain")
}

// TestIDSetSlidingWindow is the Server pattern: ids issued in order, each
// completed a few hundred ids later. The window must slide, not grow with
// the ids ever issued, and no id may go to the map.
func TestIDSetSlidingWindow(t *testing.T) {
	var s idSet
	const lag = 300
	for id := uint64(1000); id < 1000+1<<20; id++ {
		require.True(t, s.add(id))
		if id >= 1000+lag {
			require.True(t, s.remove(id-lag))
		}
	}
	require.Equal(t, lag, s.len())
	require.Empty(t, s.far)
	require.LessOrEqual(t, len(s.words), 64, "the window grew with the ids issued")
}

// TestIDSetOfflineQuery is one large query completed out of order.
func TestIDSetOfflineQuery(t *testing.T) {
	var s idSet
	const n = 1 << 20
	for id := range uint64(n) {
		require.True(t, s.add(id))
	}
	require.Empty(t, s.far)
	for id := uint64(n - 1); id < n; id -= 2 { // odd ids, from the top
		require.True(t, s.remove(id))
	}
	require.Equal(t, n/2, s.len())
	ids := s.drain(nil)
	require.Len(t, ids, n/2)
	require.True(t, slices.IsSorted(ids))
	require.Equal(t, uint64(n-2), ids[len(ids)-1])
}

func TestIDSetWindowCap(t *testing.T) {
	var s idSet
	require.True(t, s.add(0))
	top := uint64(idSetMaxWords*64 + 64)
	require.True(t, s.add(top), "past the cap: kept in the map")
	require.Contains(t, s.far, top)
	require.LessOrEqual(t, len(s.words), idSetMaxWords)
	require.True(t, s.remove(0))
	require.True(t, s.add(top+1), "the window restarts at the next id once empty")
	require.True(t, s.has(top))
	require.False(t, s.add(top), "a duplicate across map and window")
	require.Equal(t, []uint64{top, top + 1}, s.drain(nil))
}

// FuzzIDSet checks idSet against a map: a sequence of adds and removes of
// ids near a moving base, with some far away.
func FuzzIDSet(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0x81, 0x82, 0x40, 0xc1})
	f.Add(binary.LittleEndian.AppendUint64([]byte{0xff, 7}, 1<<40))
	f.Fuzz(func(t *testing.T, ops []byte) {
		var s idSet
		model := map[uint64]struct{}{}
		var base uint64
		for i := 0; i < len(ops); i++ {
			op := ops[i]
			id := base + uint64(op&0x3f)
			switch {
			case op == 0xff && i+8 < len(ops): // jump the base
				base = binary.LittleEndian.Uint64(ops[i+1:])
				i += 8
				continue
			case op&0xc0 == 0xc0: // a far id
				id = base + uint64(op&0x3f)<<30
			}
			if op&0x80 != 0 {
				_, want := model[id]
				delete(model, id)
				require.Equal(t, want, s.remove(id), "remove %d", id)
			} else {
				_, there := model[id]
				model[id] = struct{}{}
				require.Equal(t, !there, s.add(id), "add %d", id)
			}
			if op&0x3f == 0x3f {
				base += 64
			}
			require.Equal(t, len(model), s.len())
			_, want := model[id]
			require.Equal(t, want, s.has(id))
		}
		require.Equal(t, slices.Sorted(maps.Keys(model)), s.drain(nil))
		require.Zero(t, s.len())
	})
}

// BenchmarkIDSet: one add and one remove per sample, the Offline pattern
// (a whole query added, then removed) against a map.
func BenchmarkIDSet(b *testing.B) {
	const n = 1 << 16
	b.Run("bitmap", func(b *testing.B) {
		var s idSet
		for b.Loop() {
			for id := range uint64(n) {
				s.add(id)
			}
			for id := range uint64(n) {
				s.remove(id)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sample")
	})
	b.Run("map", func(b *testing.B) {
		m := map[uint64]struct{}{}
		for b.Loop() {
			for id := range uint64(n) {
				m[id] = struct{}{}
			}
			for id := range uint64(n) {
				delete(m, id)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sample")
	})
}
