package host

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// ringSlots is the capacity of each of a session's two shared rings:
// 16384 records, 384 KiB, four Session messages' worth.
const ringSlots = 16384

// hostRing is the host's side of a session's shared rings (ABI v1.1): it
// produces into the issue ring (under the backend's mu, in Issue) and a
// poller goroutine consumes the completion ring. Until the plugin
// attaches, and whenever the issue ring is full, records go as messages.
type hostRing struct {
	path              string
	unmap             func() error
	issue, completion *abi.Ring
	active            atomic.Bool // the plugin attached: use the rings
	wake              chan struct{}
	halt              chan struct{}
	haltOnce          sync.Once
	removeOnce        sync.Once
	// issued and completed count the records that went through the rings.
	issued, completed atomic.Int64

	mu    sync.Mutex   // the completion ring's consumer lock
	batch []Completion // the deliveries' scratch; mu is held
}

// newHostRing creates a ring file in dir and maps it.
func newHostRing(dir string) (_ *hostRing, err error) {
	f, err := os.CreateTemp(dir, abi.SharedMemoryPrefix+"ring-*")
	if err != nil {
		return nil, fmt.Errorf("create ring file: %w", err)
	}
	defer func() {
		_ = f.Close()
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	size := abi.RingFileSize(ringSlots, ringSlots)
	if err := f.Truncate(int64(size)); err != nil {
		return nil, fmt.Errorf("size ring file %s: %w", f.Name(), err)
	}
	mem, unmap, err := mapRingFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("map ring file %s: %w", f.Name(), err)
	}
	if err := abi.InitRingFile(mem, ringSlots, ringSlots); err != nil {
		_ = unmap()
		return nil, err
	}
	issue, completion, err := abi.OpenRings(mem)
	if err != nil {
		_ = unmap()
		return nil, err
	}
	return &hostRing{path: f.Name(), unmap: unmap, issue: issue, completion: completion,
		wake: make(chan struct{}, 1), halt: make(chan struct{})}, nil
}

// attachMessage is the RingAttach offer.
func (r *hostRing) attachMessage(spin int64) *backendv1.HostMessage {
	return &backendv1.HostMessage{Kind: &backendv1.HostMessage_RingAttach{RingAttach: &backendv1.RingAttach{
		Path: r.path, Size: uint64(abi.RingFileSize(ringSlots, ringSlots)), SpinNs: uint64(max(spin, 0)),
	}}}
}

// ring wakes the poller: the plugin rang the doorbell.
func (r *hostRing) ring() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// stop ends the poller.
func (r *hostRing) stop() { r.haltOnce.Do(func() { close(r.halt) }) }

// removeFile unlinks the ring file: once both sides mapped it, or when
// the plugin cannot.
func (r *hostRing) removeFile() error {
	var err error
	r.removeOnce.Do(func() {
		if e := os.Remove(r.path); e != nil && !errors.Is(e, os.ErrNotExist) {
			err = e
		}
	})
	return err
}

// release unmaps the rings and removes the file; nothing may use them
// after.
func (r *hostRing) release(log *slog.Logger, plugin string) error {
	r.stop()
	log.Debug("shared rings released", "plugin", plugin, "attached", r.active.Load(),
		"issued_through_ring", r.issued.Load(), "completed_through_ring", r.completed.Load())
	return errors.Join(r.removeFile(), r.unmap())
}

// ringOffered reports whether the session offers the plugin shared rings:
// both sides can share them, and the plugin reports no first tokens
// unless the host was told to offer them anyway.
func (b *processBackend) ringOffered() bool {
	caps := b.info.Capabilities
	return sharedRingSupported && !b.cfg.DisableSharedRing && caps.Has(abi.CapSharedRing) &&
		(b.cfg.SharedRingFirstTokens || !caps.Has(abi.CapFirstToken))
}

// offerRing creates the session's rings and queues the offer, the
// session's first message; the session goes on with messages alone when
// the host cannot create them.
func (b *processBackend) offerRing() {
	r, err := newHostRing(sharedMemoryDir(b.cfg.SharedMemoryDir))
	if err != nil {
		b.cfg.Logger.Warn("no shared rings for the session; using messages", "plugin", b.name, "err", err)
		return
	}
	b.ring = r
	b.mu.Lock()
	b.sendq.push(sendItem{msg: r.attachMessage(int64(b.cfg.RingSpin))})
	b.mu.Unlock()
}

// ringAttached takes the plugin's answer to the offer: on OK it starts
// consuming the completion ring.
func (b *processBackend) ringAttached(st *backendv1.Status) {
	r := b.ring
	if r == nil || r.active.Load() {
		b.cfg.Logger.Warn("plugin answered a ring offer that was not made", "plugin", b.name)
		return
	}
	if err := r.removeFile(); err != nil {
		b.cfg.Logger.Warn("removing ring file", "path", r.path, "err", err)
	}
	if err := statusErr(abi.Code(st.GetCode()), st.GetMessage()); err != nil {
		b.cfg.Logger.Info("plugin did not attach the shared rings; using messages", "plugin", b.name, "err", err)
		return
	}
	r.active.Store(true)
	b.bg.Add(1)
	go b.pollRing(r)
}

// pollRing consumes the completion ring until the backend closes or
// fails.
func (b *processBackend) pollRing(r *hostRing) {
	defer b.bg.Done()
	p := abi.RingPoll{Mu: &r.mu, Stop: r.halt, Wake: r.wake, Spin: max(b.cfg.RingSpin, 0), Max: issueChunk,
		// With nothing in flight nothing can complete: wait for Issue to
		// say otherwise (admit wakes the poller) instead of polling.
		Quiet: func() bool { return b.inflightN.Load() == 0 }}
	if err := r.completion.Consume(p, b.ringDeliver(r)); err != nil {
		b.fatal(&PluginError{Plugin: b.name, Op: "session", Err: fmt.Errorf("%w: completion ring: %v", ErrProtocol, err)})
	}
}

// ringDeliver returns the delivery of completion ring records; r.mu is
// held when it runs.
func (b *processBackend) ringDeliver(r *hostRing) func([]byte) error {
	return func(recs []byte) error {
		r.completed.Add(int64(len(recs) / abi.CompletionRecordSize))
		r.batch = b.deliver(recs, nil, false, r.batch)
		return nil
	}
}

// drainRing delivers what the completion ring holds: before a flush's
// answer, which follows the completions the plugin put in the ring.
func (b *processBackend) drainRing() {
	r := b.ring
	if r == nil || !r.active.Load() {
		return
	}
	r.mu.Lock()
	_, err := r.completion.Drain(issueChunk, b.ringDeliver(r))
	r.mu.Unlock()
	if err != nil {
		b.fatal(&PluginError{Plugin: b.name, Op: "session", Err: fmt.Errorf("%w: completion ring: %v", ErrProtocol, err)})
	}
}

// pushRing puts as much of buf (packed issue records) as fits in the
// issue ring and returns the rest, moved to the start of buf; b.mu is
// held. A ring full or not attached, or a chunk of more than
// abi.RingBatchMax records, leaves buf as it is.
func (b *processBackend) pushRing(buf []byte) ([]byte, error) {
	r := b.ring
	if r == nil || !r.active.Load() || len(buf) > abi.RingBatchMax*abi.IssueRecordSize {
		return buf, nil
	}
	k, err := r.issue.Push(buf)
	if err != nil {
		return buf, fmt.Errorf("%w: issue ring: %v", ErrProtocol, err)
	}
	r.issued.Add(int64(k / abi.IssueRecordSize))
	if k > 0 && r.issue.Wake() {
		b.sendq.push(sendItem{doorbell: true})
	}
	return buf[:copy(buf, buf[k:])], nil
}
