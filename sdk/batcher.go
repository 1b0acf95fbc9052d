package sdk

import (
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
)

// pending is the batcher's queue: the issue records of any number of
// queries waiting to be put into a batch, oldest first, and when each
// group of them arrived. A batch leaves it when it is full or when its
// oldest sample has waited [Info.BatchTimeout].
type pending struct {
	recs []byte // records; the first head bytes are taken
	head int
	// arrivals are (end of an Issue's records, counted in bytes ever
	// pushed; when it arrived), oldest first.
	arrivals []arrival
	first    int   // arrivals[:first] are consumed
	pushed   int64 // bytes ever pushed
	taken    int64 // bytes ever taken
}

type arrival struct {
	end int64
	at  time.Time
}

// view returns the waiting records, oldest first; valid until the next
// push or take.
func (p *pending) view() abi.IssueRecords { return abi.IssueRecords(p.recs[p.head:]) }

// len returns the number of records waiting.
func (p *pending) len() int { return (len(p.recs) - p.head) / abi.IssueRecordSize }

// push appends the records of one Issue call, arrived at now.
func (p *pending) push(recs []byte, now time.Time) {
	if p.head > 0 && p.head >= len(p.recs)/2 {
		// Reuse the front: the tail is at most as long as what moves.
		n := copy(p.recs, p.recs[p.head:])
		p.recs, p.head = p.recs[:n], 0
	}
	if p.first > 0 && p.first >= len(p.arrivals)/2 {
		n := copy(p.arrivals, p.arrivals[p.first:])
		p.arrivals, p.first = p.arrivals[:n], 0
	}
	p.recs = append(p.recs, recs...)
	p.pushed += int64(len(recs))
	p.arrivals = append(p.arrivals, arrival{end: p.pushed, at: now})
}

// oldest returns when the oldest waiting record arrived; p is not empty.
func (p *pending) oldest() time.Time { return p.arrivals[p.first].at }

// take appends up to n records (all of them when n <= 0) to dst and
// removes them.
func (p *pending) take(dst []byte, n int) []byte {
	k := p.len()
	if n > 0 {
		k = min(k, n)
	}
	end := p.head + k*abi.IssueRecordSize
	dst = append(dst, p.recs[p.head:end]...)
	p.taken += int64(end - p.head)
	p.head = end
	for p.first < len(p.arrivals) && p.arrivals[p.first].end <= p.taken {
		p.first++
	}
	if p.head == len(p.recs) {
		p.recs, p.head = p.recs[:0], 0
		p.arrivals, p.first = p.arrivals[:0], 0
	}
	return dst
}

// clear drops every waiting record.
func (p *pending) clear() {
	p.taken += int64(len(p.recs) - p.head)
	p.recs, p.head = p.recs[:0], 0
	p.arrivals, p.first = p.arrivals[:0], 0
}
