package host

import (
	"math/bits"
	"slices"
)

// idSet is the set of sample ids a subprocess plugin has in flight. The
// LoadGen numbers samples consecutively, so the ids in flight at one time
// lie in a narrow window that slides forward: a bitmap over that window
// makes add and remove one bit operation each, with no hashing and no
// allocation once the window is sized. Ids that do not fit the window (far
// below it, or more than idSetMaxWords*64 above its start) go to a map, so
// any uint64 works, just slower.
//
// Not safe for concurrent use; the backend's mutex guards it.
type idSet struct {
	base  uint64   // the id of bit 0 of words[0]; a multiple of 64
	words []uint64 // the window
	lo    int      // words[:lo] are all zero
	n     int      // ids in the window
	far   map[uint64]struct{}
}

// idSetMaxWords caps the window at 2 MiB of bitmap, 16 Mi ids wide.
const idSetMaxWords = 1 << 18

// len returns how many ids are in the set.
func (s *idSet) len() int { return s.n + len(s.far) }

// add puts id in the set; false if it was there already.
func (s *idSet) add(id uint64) bool {
	if len(s.far) > 0 {
		if _, ok := s.far[id]; ok {
			return false
		}
	}
	if s.n == 0 {
		// The window is empty (every word is zero): start it at id.
		s.base, s.lo = id&^63, 0
	}
	if id >= s.base && s.fit(id) {
		w, bit := (id-s.base)>>6, uint64(1)<<(id&63)
		if s.words[w]&bit != 0 {
			return false
		}
		s.words[w] |= bit
		s.n++
		return true
	}
	if s.far == nil {
		s.far = make(map[uint64]struct{})
	}
	s.far[id] = struct{}{}
	return true
}

// fit makes the window reach id (id >= s.base), sliding or growing it;
// false if that would make it wider than idSetMaxWords.
func (s *idSet) fit(id uint64) bool {
	w := (id - s.base) >> 6
	if w < uint64(len(s.words)) {
		return true
	}
	span := w - uint64(s.lo) + 1 // words from the first live one to id's
	if span > idSetMaxWords {
		return false
	}
	size := len(s.words)
	if span > uint64(size/2) {
		// Live ids would fill more than half of the window after sliding
		// it: double it, so that slides stay rare.
		size = int(min(max(2*span, 64), idSetMaxWords))
	}
	live := s.words[s.lo:]
	if size != len(s.words) {
		grown := make([]uint64, size)
		copy(grown, live)
		s.words = grown
	} else {
		n := copy(s.words, live)
		clear(s.words[n:])
	}
	s.base += uint64(s.lo) * 64
	s.lo = 0
	return true
}

// remove takes id out of the set; false if it was not there.
func (s *idSet) remove(id uint64) bool {
	if id >= s.base && id-s.base < uint64(len(s.words))*64 {
		w, bit := (id-s.base)>>6, uint64(1)<<(id&63)
		if s.words[w]&bit != 0 {
			s.words[w] &^= bit
			s.n--
			if s.n == 0 {
				s.lo = 0
			} else if int(w) == s.lo {
				for s.words[s.lo] == 0 {
					s.lo++
				}
			}
			return true
		}
	}
	if _, ok := s.far[id]; ok {
		delete(s.far, id)
		return true
	}
	return false
}

// has reports whether id is in the set.
func (s *idSet) has(id uint64) bool {
	if id >= s.base && id-s.base < uint64(len(s.words))*64 {
		if s.words[(id-s.base)>>6]&(uint64(1)<<(id&63)) != 0 {
			return true
		}
	}
	_, ok := s.far[id]
	return ok
}

// drain empties the set and returns its ids, sorted, appended to dst.
func (s *idSet) drain(dst []uint64) []uint64 {
	start := len(dst)
	for i := s.lo; i < len(s.words) && s.n > 0; i++ {
		for w := s.words[i]; w != 0; w &= w - 1 {
			dst = append(dst, s.base+uint64(i)*64+uint64(bits.TrailingZeros64(w)))
			s.n--
		}
		s.words[i] = 0
	}
	for id := range s.far {
		dst = append(dst, id)
	}
	clear(s.far)
	s.n, s.lo = 0, 0
	slices.Sort(dst[start:])
	return dst
}
