//go:build !wasip1

package sdk

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// outbox is the [SessionOutput] of a subprocess session: each worker's
// completer appends completions to its own [lane], events and the rest go
// to a pending batch, and one sender goroutine collects them all and
// sends them, so that whatever finished while a message was on its way
// shares the next one. Steady state allocates nothing: every batch keeps
// its storage.
type outbox struct {
	// maxData bounds the data of one message, maxRecords its completions;
	// maxOutput the output of one sample (what fits in one message under
	// the gRPC limit).
	maxData, maxRecords, maxOutput int

	// ring, once the host's shared rings are attached (and the backend
	// reports no first tokens, which must reach the host before their
	// completions), takes the completions without data.
	ring atomic.Pointer[abi.Ring]
	// tokens is set by the first first token a backend reports, whether
	// or not its Info said FirstTokens: from then on every completion
	// goes in messages, behind the first tokens sent before it (the host
	// reads the ring and the messages on different goroutines).
	tokens atomic.Bool

	// unread bounds what the host has not received: a host that stops
	// reading fails its session instead of growing the plugin.
	unread *unread

	mu      sync.Mutex
	pending outBatch // events, and completions from outside a lane
	lanes   []*lane
	closed  bool
	wake    chan struct{} // holds a token when pending or a lane is non-empty, or closed
}

var _ laneOutput = (*outbox)(nil)

// newOutbox returns an outbox whose messages are at most maxMessage bytes
// and that holds at most maxUnread bytes its host has not received (0:
// [abi.DefaultMaxUnreadBytes]).
func newOutbox(maxMessage int, maxUnread int64) *outbox {
	// Leave room for the records and the message framing.
	maxData := max(maxMessage/2, 1<<10)
	return &outbox{maxData: min(maxData, 4<<20), maxRecords: maxMessageRecords, maxOutput: maxMessage - 64<<10,
		unread: newUnread(maxUnread), wake: make(chan struct{}, 1)}
}

// unreadBytes is what the host has not received of the completions and
// first tokens produced so far; peakUnread the most it ever was.
func (o *outbox) unreadBytes() int64 { return o.unread.bytes.Load() }
func (o *outbox) peakUnread() int64  { return o.unread.peak.Load() }

// poke wakes the sender, unless a wake-up is already due.
func (o *outbox) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// signal wakes the sender when the batch just stopped being empty; o.mu
// is held.
func (o *outbox) signal(wasEmpty bool) {
	if wasEmpty {
		o.poke()
	}
}

func (o *outbox) newLane(mu *sync.Mutex) *lane {
	l := &lane{mu: mu, maxOutput: o.maxOutput, wake: o.poke, tokens: &o.tokens, unread: o.unread}
	o.mu.Lock()
	o.lanes = append(o.lanes, l)
	o.mu.Unlock()
	return l
}

func (o *outbox) Complete(id uint64, code abi.Code, data []byte, nTokens int64) {
	if o.unread.isFull() {
		return // the session failed: its host reads nothing
	}
	o.mu.Lock()
	wasEmpty, size := o.pending.empty(), o.pending.size()
	o.pending.appendCompletion(o.maxOutput, id, code, data, nTokens)
	n := o.pending.size() - size
	o.signal(wasEmpty)
	o.mu.Unlock()
	o.unread.add(n) // outside o.mu: when full, it adds the failure's event
}

func (o *outbox) FirstToken(id uint64, data []byte) {
	o.tokens.Store(true)
	if o.unread.isFull() {
		return
	}
	o.mu.Lock()
	wasEmpty, size := o.pending.empty(), o.pending.size()
	o.pending.appendFirstToken(o.maxOutput, id, data)
	n := o.pending.size() - size
	o.signal(wasEmpty)
	o.mu.Unlock()
	o.unread.add(n) // outside o.mu: when full, it adds the failure's event
}

func (o *outbox) Flushed(code abi.Code, message string) {
	o.event(outEvent{flushed: true, code: code, message: message})
}

func (o *outbox) Violation(_ uint64, err error) {
	o.event(outEvent{code: abi.Internal, message: "backend bug: " + err.Error()})
}

func (o *outbox) event(e outEvent) {
	o.mu.Lock()
	wasEmpty := o.pending.empty()
	o.pending.events = append(o.pending.events, e)
	o.signal(wasEmpty)
	o.mu.Unlock()
}

// close tells the sender to stop once it sent what is pending. Nothing
// may be added after it.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// pluginSender is the send side of the session stream.
type pluginSender interface {
	Send(*backendv1.PluginMessage) error
}

// run is the sender: it sends pending batches until close, or until ctx
// ends or a send fails (the stream is gone).
func (o *outbox) run(ctx context.Context, s pluginSender) error {
	var batch outBatch
	m := newOutMessages()
	for {
		select {
		case <-o.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
		closed := o.collect(&batch)
		if err := o.send(s, m, &batch); err != nil {
			return err
		}
		o.unread.sent(batch.size())
		batch.reset()
		if closed {
			return nil
		}
	}
}

// collect moves everything pending to the empty batch and says whether
// the outbox is closed. Events are taken before the lanes: a completion
// that came before an event (the flush answer after the calls it waited
// for) is in this batch, and precedes the event.
func (o *outbox) collect(batch *outBatch) (closed bool) {
	o.mu.Lock()
	o.pending, *batch = *batch, o.pending
	lanes := o.lanes
	closed = o.closed
	o.mu.Unlock()
	for _, l := range lanes {
		l.mu.Lock()
		batch.takeRecords(&l.batch)
		l.mu.Unlock()
	}
	return closed
}

// outMessages are the reused outgoing messages. gRPC marshals a message
// before Send returns, and the SDK installs no stats handler that could
// keep it.
type outMessages struct {
	completions, firstTokens, flushed, failed, attached, doorbell *backendv1.PluginMessage
	c, f                                                          *backendv1.Completions
	fd                                                            *backendv1.FlushDone
	se                                                            *backendv1.SessionError
	ra                                                            *backendv1.RingAttached
}

func newOutMessages() *outMessages {
	m := &outMessages{c: &backendv1.Completions{}, f: &backendv1.Completions{}, fd: &backendv1.FlushDone{Status: &backendv1.Status{}},
		se: &backendv1.SessionError{Status: &backendv1.Status{}}, ra: &backendv1.RingAttached{Status: &backendv1.Status{}}}
	m.completions = &backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Completions{Completions: m.c}}
	m.firstTokens = &backendv1.PluginMessage{Kind: &backendv1.PluginMessage_FirstTokens{FirstTokens: m.f}}
	m.flushed = &backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Flushed{Flushed: m.fd}}
	m.failed = &backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Error{Error: m.se}}
	m.attached = &backendv1.PluginMessage{Kind: &backendv1.PluginMessage_RingAttached{RingAttached: m.ra}}
	m.doorbell = &backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Doorbell{Doorbell: &backendv1.Doorbell{}}}
	return m
}

// maxMessageRecords caps the completions of one message. When the host
// falls behind, completions pile up between two sends; one message of
// them all (hundreds of thousands in an Offline run) would make the host
// allocate, fault in and scan megabytes per message, and slows it down
// further. 4096 records are 96 KiB, and the cost of a message spread over
// 4096 samples is too small to see.
const maxMessageRecords = 4096

// send sends one batch: first tokens, completions (into the completion
// ring when attached, they have no data and are at most abi.RingBatchMax,
// as far as it has room; the rest split so that no message carries more than maxRecords completions
// or maxData bytes of data, unless one record alone does), then the
// events.
func (o *outbox) send(s pluginSender, m *outMessages, b *outBatch) error {
	if err := o.sendRecords(s, m.firstTokens, m.f, b.frecs, b.fdata); err != nil {
		return err
	}
	recs := b.recs
	if r := o.ring.Load(); r != nil && !o.tokens.Load() && len(b.data) == 0 && len(recs) > 0 && len(recs) <= abi.RingBatchMax*abi.CompletionRecordSize {
		n, err := r.Push(recs)
		if err != nil {
			return fmt.Errorf("completion ring: %w", err)
		}
		recs = recs[n:]
		if n > 0 && r.Wake() {
			if err := s.Send(m.doorbell); err != nil {
				return err
			}
		}
	}
	if err := o.sendRecords(s, m.completions, m.c, recs, b.data); err != nil {
		return err
	}
	for _, e := range b.events {
		msg := m.failed
		m.se.Status.Code, m.se.Status.Message = uint32(e.code), e.message
		switch {
		case e.flushed:
			msg = m.flushed
			m.fd.Status.Code, m.fd.Status.Message = uint32(e.code), e.message
		case e.attached:
			msg = m.attached
			m.ra.Status.Code, m.ra.Status.Message = uint32(e.code), e.message
		}
		if err := s.Send(msg); err != nil {
			return err
		}
	}
	return nil
}

func (o *outbox) sendRecords(s pluginSender, msg *backendv1.PluginMessage, c *backendv1.Completions, recs, data []byte) error {
	for len(recs) > 0 {
		n, size := 0, 0
		for off := 0; off < len(recs); off += abi.CompletionRecordSize {
			l := int(binary.LittleEndian.Uint32(recs[off+12:]))
			if n > 0 && (size+l > o.maxData || n == o.maxRecords) {
				break
			}
			n++
			size += l
		}
		c.Records, c.Data = recs[:n*abi.CompletionRecordSize], data[:size]
		err := s.Send(msg)
		c.Records, c.Data = nil, nil
		if err != nil {
			return err
		}
		recs, data = recs[n*abi.CompletionRecordSize:], data[size:]
	}
	return nil
}
