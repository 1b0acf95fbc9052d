package abi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Shared rings (ABI v1.1, [HostCapSharedRing] and [CapSharedRing]) carry a
// subprocess session's issue records and completions through memory both
// processes map, so that a sample reaches the other side without a system
// call when that side is polling. The session's gRPC stream stays: it
// carries everything else (flushes, completions with data, first tokens,
// errors) and the doorbells that wake a side that stopped polling.
//
// A ring file, created by the host and named in a RingAttach message:
//
//	0      "MLPRING1"
//	8      u32 layout version (RingLayoutVersion)
//	12     u32 issue ring slots (a power of two)
//	16     u32 completion ring slots (a power of two)
//	20     u32 record size (24)
//	4096   the issue ring (host → plugin): IssueRecord slots
//	...    the completion ring (plugin → host), at the next 4096-byte
//	       boundary: CompletionRecord slots, data_len always 0
//
// A ring: three counters on their own 64-byte lines, then the slots.
//
//	0      u64 head: records ever published (written by the producer)
//	64     u64 tail: records ever consumed (written by the consumer)
//	128    u32 consumer state: 0 polling, 1 asleep (see below)
//	192    slots: record i is at slot i mod slots
//
// Each ring has one producer and one consumer. The producer copies records
// into free slots, then stores head; the consumer copies them out, then
// stores tail. A consumer that found its ring empty for its spin time sets
// its state to asleep, checks the ring once more, and waits for a
// Doorbell message on the session stream; a producer that published and
// finds the consumer asleep sets it polling and sends a Doorbell. Either
// side may be hostile: counters out of range are an error, never a
// reason to read outside the slots.

// Ring file constants.
const (
	RingMagic         = "MLPRING1"
	RingLayoutVersion = 1
	ringPage          = 4096
	ringHead          = 0
	ringTail          = 64
	ringState         = 128
	ringSlots         = 192
)

// RingBatchMax is the most records a side puts in a ring at once. The
// rings are for latency: a query of one sample, or a few completions. A
// larger batch is throughput-bound, where a message's cost is spread over
// its records and two busy consumers polling would only take cores from
// the work; it goes as a message. A convention of this implementation,
// not a rule of the protocol: a consumer takes whatever it finds.
const RingBatchMax = 64

// Consumer states.
const (
	ringPolling = 0
	ringAsleep  = 1
)

// ErrRingCorrupt is wrapped by errors about a ring whose counters or file
// header do not make sense.
var ErrRingCorrupt = errors.New("shared ring corrupt")

// RingFileSize is the size of a ring file with these slot counts.
func RingFileSize(issueSlots, completionSlots uint32) int {
	return ringPage + ringRegion(issueSlots) + ringRegion(completionSlots)
}

func ringRegion(slots uint32) int {
	n := ringSlots + int(slots)*IssueRecordSize
	return (n + ringPage - 1) &^ (ringPage - 1)
}

// InitRingFile writes the header of a new, zeroed ring file. Slot counts
// must be powers of two; mem must be RingFileSize bytes.
func InitRingFile(mem []byte, issueSlots, completionSlots uint32) error {
	if !powerOfTwo(issueSlots) || !powerOfTwo(completionSlots) {
		return fmt.Errorf("ring slots %d and %d: want powers of two", issueSlots, completionSlots)
	}
	if len(mem) != RingFileSize(issueSlots, completionSlots) {
		return fmt.Errorf("ring file of %d bytes, want %d", len(mem), RingFileSize(issueSlots, completionSlots))
	}
	copy(mem, RingMagic)
	binary.LittleEndian.PutUint32(mem[8:], RingLayoutVersion)
	binary.LittleEndian.PutUint32(mem[12:], issueSlots)
	binary.LittleEndian.PutUint32(mem[16:], completionSlots)
	binary.LittleEndian.PutUint32(mem[20:], IssueRecordSize)
	return nil
}

func powerOfTwo(n uint32) bool { return n != 0 && n&(n-1) == 0 }

// OpenRings checks a mapped ring file's header and returns its two rings.
// mem must be 8-byte aligned (a mapping is) and stay mapped while they
// are used.
func OpenRings(mem []byte) (issue, completion *Ring, err error) {
	if len(mem) < ringPage || string(mem[:8]) != RingMagic {
		return nil, nil, fmt.Errorf("%w: not a ring file", ErrRingCorrupt)
	}
	if uintptr(unsafe.Pointer(&mem[0]))%8 != 0 {
		return nil, nil, fmt.Errorf("ring file mapped at an unaligned address")
	}
	le := binary.LittleEndian
	if v := le.Uint32(mem[8:]); v != RingLayoutVersion {
		return nil, nil, fmt.Errorf("%w: layout version %d, want %d", ErrRingCorrupt, v, RingLayoutVersion)
	}
	is, cs, size := le.Uint32(mem[12:]), le.Uint32(mem[16:]), le.Uint32(mem[20:])
	switch {
	case size != IssueRecordSize:
		return nil, nil, fmt.Errorf("%w: record size %d, want %d", ErrRingCorrupt, size, IssueRecordSize)
	case !powerOfTwo(is) || !powerOfTwo(cs) || is > 1<<24 || cs > 1<<24:
		return nil, nil, fmt.Errorf("%w: %d and %d slots", ErrRingCorrupt, is, cs)
	case len(mem) < RingFileSize(is, cs):
		return nil, nil, fmt.Errorf("%w: %d bytes for %d and %d slots", ErrRingCorrupt, len(mem), is, cs)
	}
	off := ringPage
	issue = newRing(mem[off:off+ringRegion(is)], is)
	off += ringRegion(is)
	completion = newRing(mem[off:off+ringRegion(cs)], cs)
	return issue, completion, nil
}

// Ring is one side's handle on a shared ring: the producer's or the
// consumer's, never both. Push and Wake are the producer's, Drain and
// Consume the consumer's; each side calls its methods one at a time (the
// consumer's under the lock it gives Consume).
type Ring struct {
	head, tail *atomic.Uint64
	state      *atomic.Uint32
	slots      []byte
	n          uint64

	// The side's own counter, kept here: the shared copy is only written,
	// so that the other side cannot move it.
	published uint64
	consumed  uint64
	buf       []byte // the consumer's copy of the records it delivers
}

func newRing(region []byte, slots uint32) *Ring {
	return &Ring{
		head:  (*atomic.Uint64)(unsafe.Pointer(&region[ringHead])),
		tail:  (*atomic.Uint64)(unsafe.Pointer(&region[ringTail])),
		state: (*atomic.Uint32)(unsafe.Pointer(&region[ringState])),
		slots: region[ringSlots : ringSlots+int(slots)*IssueRecordSize],
		n:     uint64(slots),
	}
}

// Slots returns the ring's capacity in records.
func (r *Ring) Slots() int { return int(r.n) }

// Push copies as many whole 24-byte records of recs as there are free
// slots, publishes them and returns how many bytes it took.
func (r *Ring) Push(recs []byte) (int, error) {
	used := r.published - r.tail.Load()
	if used > r.n {
		return 0, fmt.Errorf("%w: the consumer's tail is %d records behind the head, in a ring of %d", ErrRingCorrupt, used, r.n)
	}
	k := min(r.n-used, uint64(len(recs)/IssueRecordSize))
	if k == 0 {
		return 0, nil
	}
	first := r.published % r.n
	a := min(k, r.n-first) // up to the end of the slots, then from the start
	copy(r.slots[first*IssueRecordSize:], recs[:a*IssueRecordSize])
	copy(r.slots, recs[a*IssueRecordSize:k*IssueRecordSize])
	r.published += k
	r.head.Store(r.published)
	return int(k) * IssueRecordSize, nil
}

// Wake reports whether the consumer is asleep, and sets it polling: the
// producer must then send it a Doorbell. Call it after Push.
func (r *Ring) Wake() bool {
	return r.state.Load() == ringAsleep && r.state.CompareAndSwap(ringAsleep, ringPolling)
}

// Drain hands every published record to deliver, in runs of at most max
// records, and returns how many records it handed over. The records are
// copied out of the ring first, so the producer cannot change them under
// deliver; the copy is reused by the next Drain.
func (r *Ring) Drain(max int, deliver func(recs []byte) error) (int, error) {
	total := 0
	for {
		avail := r.head.Load() - r.consumed
		if avail > r.n {
			return total, fmt.Errorf("%w: the producer's head is %d records past the tail, in a ring of %d", ErrRingCorrupt, avail, r.n)
		}
		k := min(avail, uint64(max))
		if k == 0 {
			return total, nil
		}
		first := r.consumed % r.n
		a := min(k, r.n-first)
		r.buf = append(r.buf[:0], r.slots[first*IssueRecordSize:(first+a)*IssueRecordSize]...)
		r.buf = append(r.buf, r.slots[:(k-a)*IssueRecordSize]...)
		r.consumed += k
		r.tail.Store(r.consumed)
		total += int(k)
		if err := deliver(r.buf); err != nil {
			return total, err
		}
	}
}

// sleep marks the consumer asleep unless records are waiting. True means
// asleep: wait for the producer's Doorbell.
func (r *Ring) sleep() bool {
	r.state.Store(ringAsleep)
	if r.head.Load() != r.consumed {
		// If the producer already set it polling, a Doorbell is on its way
		// and will find nothing: harmless.
		r.state.CompareAndSwap(ringAsleep, ringPolling)
		return false
	}
	return true
}

// RingPoll says how [Ring.Consume] waits for records.
type RingPoll struct {
	// Mu is held while draining: whoever else drains (a flush that must
	// see every record published before it) holds it too.
	Mu sync.Locker
	// Stop ends the loop; Wake is signalled on a Doorbell, and by the
	// owner when Quiet stops being true.
	Stop, Wake <-chan struct{}
	// Spin is how long an empty ring is polled before the consumer sleeps
	// and asks for a Doorbell.
	Spin time.Duration
	// Max bounds the records of one deliver call.
	Max int
	// Quiet, when set and true, says nothing can arrive (the host has no
	// sample in flight): the loop waits on Wake without polling and
	// without asking for a Doorbell, and the owner signals Wake when that
	// changes.
	Quiet func() bool
}

// Consume is the consumer's loop: it drains the ring into deliver, polls
// an empty ring for p.Spin, then sleeps until p.Wake (the Doorbell) and
// starts again, until p.Stop is closed or deliver fails.
func (r *Ring) Consume(p RingPoll, deliver func(recs []byte) error) error {
	var idle time.Time
	for {
		p.Mu.Lock()
		n, err := r.Drain(p.Max, deliver)
		p.Mu.Unlock()
		if err != nil {
			return err
		}
		if n > 0 {
			idle = time.Time{}
			continue
		}
		select {
		case <-p.Stop:
			return nil
		default:
		}
		if p.Quiet != nil && p.Quiet() {
			select {
			case <-p.Wake:
			case <-p.Stop:
				return nil
			}
			idle = time.Time{}
			continue
		}
		now := time.Now()
		if idle.IsZero() {
			idle = now
		}
		if now.Sub(idle) < p.Spin {
			runtime.Gosched()
			continue
		}
		p.Mu.Lock()
		asleep := r.sleep()
		p.Mu.Unlock()
		if asleep {
			select {
			case <-p.Wake:
			case <-p.Stop:
				return nil
			}
		}
		idle = time.Time{}
	}
}
