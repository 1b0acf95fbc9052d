package sdk

// sampleTable maps sample indices to loaded samples. Data sets number
// their samples 0..n-1, so the indices it is given are dense: those live
// in a slice indexed by the sample index, looked up without hashing on
// the hot path; an index far past the loaded count goes to a map, so that
// a sparse index cannot make the slice huge.
type sampleTable struct {
	dense  []loadedEntry // by index; an entry with no owner is not loaded
	sparse map[uint64]loadedEntry
	n      int // loaded samples, both places
}

// denseSlack is how far past twice the loaded count the slice may grow.
const denseSlack = 1024

// get returns the sample loaded at index i.
func (t *sampleTable) get(i uint64) (loadedEntry, bool) {
	if i < uint64(len(t.dense)) {
		if e := t.dense[i]; e.owner != nil {
			return e, true
		}
		return loadedEntry{}, false
	}
	if len(t.sparse) == 0 {
		return loadedEntry{}, false
	}
	e, ok := t.sparse[i]
	return e, ok
}

// put loads e at index i and returns the entry it replaced, if any. e has
// an owner.
func (t *sampleTable) put(i uint64, e loadedEntry) (old loadedEntry, replaced bool) {
	old, replaced = t.remove(i)
	t.n++
	if i < uint64(len(t.dense)) {
		t.dense[i] = e
		return old, replaced
	}
	if i < uint64(2*t.n+denseSlack) {
		t.dense = append(t.dense, make([]loadedEntry, int(i)+1-len(t.dense))...)
		t.dense[i] = e
		// Indices the slice now covers move out of the map: an index
		// lives in one place.
		for k, se := range t.sparse {
			if k < uint64(len(t.dense)) {
				t.dense[k] = se
				delete(t.sparse, k)
			}
		}
		return old, replaced
	}
	if t.sparse == nil {
		t.sparse = map[uint64]loadedEntry{}
	}
	t.sparse[i] = e
	return old, replaced
}

// remove unloads index i and returns what was loaded there.
func (t *sampleTable) remove(i uint64) (loadedEntry, bool) {
	if i < uint64(len(t.dense)) {
		e := t.dense[i]
		if e.owner == nil {
			return loadedEntry{}, false
		}
		t.dense[i] = loadedEntry{}
		t.n--
		return e, true
	}
	e, ok := t.sparse[i]
	if ok {
		delete(t.sparse, i)
		t.n--
	}
	return e, ok
}

// len returns how many samples are loaded.
func (t *sampleTable) len() int { return t.n }

// removeAll unloads every sample, calling f with each entry.
func (t *sampleTable) removeAll(f func(loadedEntry)) {
	for i, e := range t.dense {
		if e.owner != nil {
			f(e)
			t.dense[i] = loadedEntry{}
		}
	}
	for _, e := range t.sparse {
		f(e)
	}
	clear(t.sparse)
	t.dense, t.n = t.dense[:0], 0
}
