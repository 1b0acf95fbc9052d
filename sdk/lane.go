package sdk

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/abi"
)

// outBatch is what a sender sends next, in this order: first tokens,
// completions, then events.
type outBatch struct {
	recs, data   []byte
	frecs, fdata []byte
	events       []outEvent
}

// outEvent is a flush answer, the answer to a RingAttach, or a fatal
// session error.
type outEvent struct {
	flushed  bool
	attached bool
	code     abi.Code
	message  string
}

func (b *outBatch) empty() bool {
	return len(b.recs) == 0 && len(b.frecs) == 0 && len(b.events) == 0
}

// size is the bytes of the batch's records and outputs.
func (b *outBatch) size() int {
	return len(b.recs) + len(b.data) + len(b.frecs) + len(b.fdata)
}

func (b *outBatch) reset() {
	b.recs, b.data, b.frecs, b.fdata = b.recs[:0], b.data[:0], b.frecs[:0], b.fdata[:0]
	clear(b.events)
	b.events = b.events[:0]
}

// takeRecords moves the first tokens and completions of from to the end
// of b's and leaves from empty. Into an empty b they move by swapping the
// storage, without a copy.
func (b *outBatch) takeRecords(from *outBatch) {
	if len(b.frecs) == 0 {
		b.frecs, b.fdata, from.frecs, from.fdata = from.frecs, from.fdata, b.frecs, b.fdata
	} else {
		b.frecs, b.fdata = append(b.frecs, from.frecs...), append(b.fdata, from.fdata...)
	}
	if len(b.recs) == 0 {
		b.recs, b.data, from.recs, from.data = from.recs, from.data, b.recs, b.data
	} else {
		b.recs, b.data = append(b.recs, from.recs...), append(b.data, from.data...)
	}
	from.recs, from.data, from.frecs, from.fdata = from.recs[:0], from.data[:0], from.frecs[:0], from.fdata[:0]
}

// appendCompletion appends one completion; an output over maxOutput bytes
// becomes an [abi.ResourceExhausted] failure.
func (b *outBatch) appendCompletion(maxOutput int, id uint64, code abi.Code, data []byte, nTokens int64) {
	if len(data) > maxOutput {
		code, data = abi.ResourceExhausted, fmt.Appendf(nil,
			"the output of sample id %d has %d bytes, more than fit in one message (%d)", id, len(data), maxOutput)
	}
	b.recs, b.data = abi.AppendCompletion(b.recs, b.data, id, code, data, nTokens)
}

// appendFirstToken appends one first token; one over maxOutput bytes is
// sent empty.
func (b *outBatch) appendFirstToken(maxOutput int, id uint64, data []byte) {
	if len(data) > maxOutput {
		data = data[:0]
	}
	b.frecs, b.fdata = abi.AppendCompletion(b.frecs, b.fdata, id, abi.OK, data, 1)
}

// lane is one worker's private part of an output's pending batch. The
// worker's completer appends to it under its own lock, which it holds
// anyway to check the id, and the sender empties it under that lock when
// it collects a message: a completion takes no lock shared by the workers
// and no channel operation, except the wake-up of the sender when the
// lane stops being empty.
type lane struct {
	mu        *sync.Mutex // the completer's: guards batch
	batch     outBatch
	maxOutput int
	wake      func() // tells the sender there is something to collect
	// tokens is the output's: set before the first first token is
	// appended, it keeps completions out of the shared ring.
	tokens *atomic.Bool
	// unread is the output's count of what its host has not received.
	unread *unread
}

// laneOutput is a [SessionOutput] that collects completions from lanes.
type laneOutput interface {
	SessionOutput
	// newLane returns a lane guarded by mu, collected until the output
	// is closed.
	newLane(mu *sync.Mutex) *lane
}

// complete appends a completion; l.mu is held.
func (l *lane) complete(id uint64, code abi.Code, data []byte, nTokens int64) {
	if l.unread.isFull() {
		return // the session failed: its host reads nothing
	}
	wasEmpty, size := l.batch.empty(), l.batch.size()
	l.batch.appendCompletion(l.maxOutput, id, code, data, nTokens)
	l.unread.add(l.batch.size() - size)
	if wasEmpty {
		l.wake()
	}
}

// firstToken appends a first token; l.mu is held.
func (l *lane) firstToken(id uint64, data []byte) {
	if l.tokens != nil {
		l.tokens.Store(true)
	}
	if l.unread.isFull() {
		return
	}
	wasEmpty, size := l.batch.empty(), l.batch.size()
	l.batch.appendFirstToken(l.maxOutput, id, data)
	l.unread.add(l.batch.size() - size)
	if wasEmpty {
		l.wake()
	}
}
