package dataset

import (
	"context"
	"fmt"
)

// Arena holds loaded samples in one contiguous buffer: the QSL's memory
// for the samples of a run (LoadGen's LoadSamplesToRam). Lookup by sample
// index costs two slice indexes and no allocation.
type Arena struct {
	schema Schema
	buf    []byte
	// slot[index] is the sample's position in pos plus one; 0: not loaded.
	slot []int32
	// pos[k] is the k-th loaded sample: where its bytes are, and its
	// tensors.
	pos     []arenaSample
	indices []uint64
}

type arenaSample struct {
	off, n  int
	layouts []TensorLayout
}

// NewArena makes an empty arena for the samples of d.
func NewArena(d Dataset) *Arena {
	return &Arena{schema: d.Schema(), slot: make([]int32, d.Len())}
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
		if a.slot[idx] != 0 {
			continue
		}
		shapes, err := d.Shapes(int(idx))
		if err != nil {
			a.Reset()
			return fmt.Errorf("load samples: %w", err)
		}
		layouts, n := a.schema.Layout(shapes)
		a.pos = append(a.pos, arenaSample{off: need, n: n, layouts: layouts})
		a.indices = append(a.indices, idx)
		a.slot[idx] = int32(len(a.pos))
		need += n
	}
	if cap(a.buf) < need {
		a.buf = make([]byte, need)
	}
	a.buf = a.buf[:need]
	for k, idx := range a.indices {
		if err := ctx.Err(); err != nil {
			a.Reset()
			return fmt.Errorf("load samples: %w", err)
		}
		p := a.pos[k]
		if err := d.ReadSample(int(idx), a.buf[p.off:p.off+p.n]); err != nil {
			a.Reset()
			return fmt.Errorf("load samples: %w", err)
		}
	}
	return nil
}

// Reset forgets every loaded sample and keeps the buffer for reuse.
func (a *Arena) Reset() {
	for _, idx := range a.indices {
		a.slot[idx] = 0
	}
	a.indices = a.indices[:0]
	clear(a.pos)
	a.pos = a.pos[:0]
	a.buf = a.buf[:0]
}

// Sample returns the bytes of a loaded sample, or nil when index is not
// loaded. The slice aliases the arena until the next Load or Reset.
func (a *Arena) Sample(index uint64) []byte {
	p, ok := a.at(index)
	if !ok {
		return nil
	}
	return a.buf[p.off : p.off+p.n : p.off+p.n]
}

// Layout returns where each tensor of a loaded sample lies in its bytes,
// in schema order, or nil when index is not loaded. The caller must not
// modify it.
func (a *Arena) Layout(index uint64) []TensorLayout {
	p, ok := a.at(index)
	if !ok {
		return nil
	}
	return p.layouts
}

func (a *Arena) at(index uint64) (arenaSample, bool) {
	if index >= uint64(len(a.slot)) {
		return arenaSample{}, false
	}
	s := int(a.slot[index])
	if s <= 0 {
		return arenaSample{}, false
	}
	return a.pos[s-1], true
}

// Schema returns the schema of the arena's data set.
func (a *Arena) Schema() Schema { return a.schema }

// Loaded returns the loaded indices in load order; the caller must not
// modify it.
func (a *Arena) Loaded() []uint64 { return a.indices }

// Bytes returns the memory the loaded samples use.
func (a *Arena) Bytes() int { return len(a.buf) }
