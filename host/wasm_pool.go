package host

import (
	"context"
	"fmt"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
)

// Issue splits the query into chunks of at most chunkMax samples, spread
// over the instances, and queues them. It copies the records and never
// blocks on the guest.
func (b *wasmBackend) Issue(ctx context.Context, samples []abi.IssueRecord) error {
	if err := b.ready(ctx); err != nil {
		return err
	}
	n := len(samples)
	if n == 0 {
		return nil
	}
	per := min(b.chunkMax, (n+len(b.insts)-1)/len(b.insts))
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		return ErrClosed
	}
	chunks := 0
	for off := 0; off < n; off += per {
		c := b.newChunk()
		c.recs = append(c.recs[:0], samples[off:min(off+per, n)]...)
		b.queue.push(c)
		chunks++
	}
	b.mu.Unlock()
	if chunks == 1 {
		b.cond.Signal()
	} else {
		b.cond.Broadcast()
	}
	return nil
}

// newChunk takes a chunk from the free list; b.mu is held.
func (b *wasmBackend) newChunk() *chunk {
	if k := len(b.free); k > 0 {
		c := b.free[k-1]
		b.free = b.free[:k-1]
		return c
	}
	return &chunk{recs: make([]abi.IssueRecord, 0, b.chunkMax)}
}

func (b *wasmBackend) recycle(c *chunk) {
	b.mu.Lock()
	b.free = append(b.free, c)
	b.mu.Unlock()
}

// Flush asks every instance to call the guest's flush export before its
// next issue call. WASM guests complete every sample inside issue, so
// nothing waits: Flush returns at once.
func (b *wasmBackend) Flush(ctx context.Context) error {
	if err := b.ready(ctx); err != nil {
		return err
	}
	if !b.info.Capabilities.Has(abi.CapFlush) {
		return nil
	}
	for _, in := range b.insts {
		if in.flush != nil {
			in.flushPending.Store(true)
		}
	}
	b.cond.Broadcast()
	return nil
}

// work is the loop of one instance's worker: take a chunk, run it.
func (b *wasmBackend) work(in *wasmInstance) {
	defer b.workers.Done()
	for {
		b.mu.Lock()
		for b.queue.len() == 0 && !b.closing && !in.flushPending.Load() {
			b.cond.Wait()
		}
		c, ok := b.queue.pop()
		closing := b.closing
		b.mu.Unlock()
		in.busy.Lock()
		if in.flushPending.Swap(false) && b.st.Err() == nil {
			if _, err := in.call(opFlush, in.flush); err != nil {
				in.log.Error("flush failed", "err", err)
			}
		}
		if !ok {
			in.busy.Unlock()
			if closing {
				return
			}
			continue
		}
		if err := b.st.Err(); err != nil || in.dead {
			if err == nil {
				err = b.deadErr(opIssue)
			}
			b.failIDs(idsOf(c.recs), abi.Aborted, err.Error())
		} else {
			in.run(c)
		}
		in.busy.Unlock()
		b.recycle(c)
	}
}

// deadErr is the error for a call on an instance that trapped before.
func (b *wasmBackend) deadErr(op callOp) error {
	if err := b.st.Err(); err != nil {
		return err
	}
	return &PluginError{Plugin: b.name, Op: op.String(), Err: fmt.Errorf("%w: instance is dead", ErrTrap)}
}

// watch is the watchdog: it fails the run when a call into an instance
// outlives Config.CallTimeout, and stops that call as the guard allows.
func (b *wasmBackend) watch() {
	defer close(b.watchDone)
	period := min(max(b.cfg.CallTimeout/8, time.Millisecond), time.Second)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-b.stopWatch:
			return
		case <-t.C:
		}
		now := int64(time.Since(b.epoch))
		for _, in := range b.insts {
			if start := in.callStart.Load(); start != 0 && time.Duration(now-start) > b.cfg.CallTimeout {
				b.hang(in, time.Duration(now-start))
			}
		}
	}
}

// hang reports an instance stuck in a call and stops it.
func (b *wasmBackend) hang(in *wasmInstance, running time.Duration) {
	if in.abort.Swap(true) {
		return
	}
	op := callOp(in.callOp.Load())
	stop := map[Guard]string{
		GuardLoops:  "the host stops it at its next loop iteration",
		GuardStrict: "the host closes it",
		GuardOff:    "the host cannot stop it (guard off): exit the process",
	}[b.guard]
	err := &PluginError{Plugin: b.name, Op: fmt.Sprintf("%s (instance %d)", op, in.idx), Err: fmt.Errorf(
		"%w: the call has been running for %v, past the %v deadline: the guest is stuck (an endless loop?); %s%s",
		ErrHang, running.Round(time.Millisecond), b.cfg.CallTimeout, stop, lastWords(in.stdout, in.stderr))}
	b.fatal(err)
	b.abandon(in, err)
}

// abandon stops the call in progress on in, as the guard allows, and
// fails the samples it had not completed. The caller set in.abort.
func (b *wasmBackend) abandon(in *wasmInstance, err error) {
	in.mu.Lock()
	in.abandoned = true
	left := in.tracker.takeLeft()
	in.mu.Unlock()
	b.failIDs(left, abi.DeadlineExceeded, err.Error())
	if b.guard == GuardStrict {
		_ = in.mod.CloseWithExitCode(b.ctx, 124)
	}
}
