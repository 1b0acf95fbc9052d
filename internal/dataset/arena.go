package dataset

import (
	"context"
	"fmt"
)

// Arena holds loaded samples in one contiguous buffer: the QSL's memory
// for the samples of a run (LoadGen's LoadSamplesToRam). Lookup by sample
// index costs one slice index and no allocation.
type Arena struct {
	spec Spec
	size int
	buf  []byte
	// slot[index] is the sample's position in buf plus one; 0: not loaded.
	slot    []int32
	indices []uint64
}

// NewArena makes an empty arena for the samples of d.
func NewArena(d Dataset) *Arena {
	return &Arena{spec: d.Spec(), size: d.Spec().Bytes(), slot: make([]int32, d.Len())}
}

// Load reads the samples at indices from d into the arena, replacing what
// it held. Duplicate indices are loaded once. It checks ctx between
// samples.
func (a *Arena) Load(ctx context.Context, d Dataset, indices []uint64) error {
	a.Reset()
	need := 0
	for _, idx := range indices {
		if idx >= uint64(len(a.slot)) {
			return fmt.Errorf("load samples: index %d out of range [0, %d)", idx, len(a.slot))
		}
		if a.slot[idx] == 0 {
			need++
			a.slot[idx] = -1
		}
	}
	if cap(a.buf) < need*a.size {
		a.buf = make([]byte, need*a.size)
	}
	a.buf = a.buf[:need*a.size]
	n := 0
	for _, idx := range indices {
		if a.slot[idx] != -1 {
			continue
		}
		if err := ctx.Err(); err != nil {
			a.Reset()
			return fmt.Errorf("load samples: %w", err)
		}
		if err := d.ReadSample(int(idx), a.buf[n*a.size:(n+1)*a.size]); err != nil {
			a.Reset()
			return fmt.Errorf("load samples: %w", err)
		}
		n++
		a.slot[idx] = int32(n)
		a.indices = append(a.indices, idx)
	}
	return nil
}

// Reset forgets every loaded sample and keeps the buffer for reuse.
func (a *Arena) Reset() {
	for i := range a.slot {
		a.slot[i] = 0
	}
	a.indices = a.indices[:0]
	a.buf = a.buf[:0]
}

// Sample returns the bytes of a loaded sample, or nil when index is not
// loaded. The slice aliases the arena until the next Load or Reset.
func (a *Arena) Sample(index uint64) []byte {
	if index >= uint64(len(a.slot)) {
		return nil
	}
	s := int(a.slot[index])
	if s <= 0 {
		return nil
	}
	return a.buf[(s-1)*a.size : s*a.size : s*a.size]
}

// Loaded returns the loaded indices in load order; the caller must not
// modify it.
func (a *Arena) Loaded() []uint64 { return a.indices }

// Bytes returns the memory the loaded samples use.
func (a *Arena) Bytes() int { return len(a.buf) }
