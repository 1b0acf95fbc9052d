package host

import "github.com/mlperf-host/mlperf-host/abi"

// callTracker checks the ids a WASM guest completes during one issue call:
// each id of the call exactly once. Guests usually complete in issue order,
// which costs one comparison per id; other orders build an index once per
// call.
type callTracker struct {
	ids     []uint64
	done    []bool
	next    int // every position before next is done
	left    int
	index   map[uint64]int
	indexed bool
}

// reset starts tracking the samples of one call.
func (t *callTracker) reset(recs []abi.IssueRecord) {
	t.ids = t.ids[:0]
	for _, r := range recs {
		t.ids = append(t.ids, r.ID)
	}
	t.done = append(t.done[:0], make([]bool, len(recs))...)
	t.next, t.left, t.indexed = 0, len(recs), false
}

// outcome of completing one id.
type outcome int

const (
	completed outcome = iota
	unknownID
	duplicateID
)

func (t *callTracker) find(id uint64) (int, bool) {
	if !t.indexed {
		if t.index == nil {
			t.index = make(map[uint64]int, len(t.ids))
		}
		clear(t.index)
		for i, v := range t.ids {
			t.index[v] = i
		}
		t.indexed = true
	}
	i, ok := t.index[id]
	return i, ok
}

// complete marks id done.
func (t *callTracker) complete(id uint64) outcome {
	i := t.next
	if i >= len(t.ids) || t.ids[i] != id {
		var ok bool
		if i, ok = t.find(id); !ok {
			return unknownID
		}
		if t.done[i] {
			return duplicateID
		}
	}
	t.done[i] = true
	t.left--
	for t.next < len(t.done) && t.done[t.next] {
		t.next++
	}
	return completed
}

// pending reports whether id belongs to the call and is not done yet.
func (t *callTracker) pending(id uint64) bool {
	if t.next < len(t.ids) && t.ids[t.next] == id {
		return true
	}
	i, ok := t.find(id)
	return ok && !t.done[i]
}

// takeLeft returns the ids not completed and marks them done.
func (t *callTracker) takeLeft() []uint64 {
	if t.left == 0 {
		return nil
	}
	var left []uint64
	for i := t.next; i < len(t.ids); i++ {
		if !t.done[i] {
			left = append(left, t.ids[i])
			t.done[i] = true
		}
	}
	t.next, t.left = len(t.ids), 0
	return left
}
