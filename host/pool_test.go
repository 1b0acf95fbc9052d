package host_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
)

// tally counts each id's completions and failures.
type tally struct {
	mu     sync.Mutex
	done   map[uint64]int
	failed map[uint64]string
	all    chan struct{}
	want   int
}

func newTally(want int) *tally {
	return &tally{done: map[uint64]int{}, failed: map[uint64]string{}, all: make(chan struct{}), want: want}
}

func (t *tally) Complete(batch []host.Completion) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range batch {
		t.done[c.ID]++
		if c.Status != abi.OK {
			t.failed[c.ID] = string(c.Data)
		}
	}
	if len(t.done) == t.want {
		select {
		case <-t.all:
		default:
			close(t.all)
		}
	}
}

func (t *tally) FirstTokens([]host.Completion) {}

func (t *tally) counts() (done, failed int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range t.done {
		done += n
	}
	return done, len(t.failed)
}

func records(from, n int) []abi.IssueRecord {
	recs := make([]abi.IssueRecord, n)
	for i := range recs {
		recs[i] = abi.IssueRecord{ID: uint64(from + i), Index: uint64(i % 7)}
	}
	return recs
}

func newPool(t *testing.T, cfg host.PoolConfig, backends ...host.Backend) *host.Pool {
	t.Helper()
	var members []host.PoolMember
	for i, b := range backends {
		members = append(members, host.PoolMember{Name: fmt.Sprintf("m%d", i), Backend: b})
	}
	p, err := host.NewPool(t.Context(), members, cfg)
	require.NoError(t, err)
	return p
}

func issuedCount(b *hosttest.Backend) int {
	recs, _ := b.Issued()
	return len(recs)
}

func TestPoolSpreadsByFreeCapacity(t *testing.T) {
	t.Parallel()
	slow, fast := hosttest.New(host.Info{Name: "slow"}), hosttest.New(host.Info{Name: "fast"})
	slow.HoldBack() // never completes until released: its 4 places stay full
	p := newPool(t, host.PoolConfig{Depth: 4}, slow, fast)
	tl := newTally(20)
	p.SetHandler(tl)
	require.NoError(t, p.Issue(t.Context(), records(0, 20)))
	// Round robin would have given each 10; the member that completes
	// takes everything past the held one's depth.
	require.Eventually(t, func() bool { return issuedCount(fast) == 16 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, 4, issuedCount(slow))
	slow.Release()
	<-tl.all
	done, failed := tl.counts()
	assert.Equal(t, 20, done, "every sample once")
	assert.Zero(t, failed)
	require.NoError(t, p.Close())
	assert.Contains(t, slow.Calls(), "Close")
	assert.Contains(t, fast.Calls(), "Close")
}

// heldPair makes a pool of depth of two fakes that complete nothing
// until released, and issues it n samples.
func heldPair(t *testing.T, a, b string, depth, n int) (_, _ *hosttest.Backend, _ *host.Pool, _ *tally) {
	t.Helper()
	ma, mb := hosttest.New(host.Info{Name: a}), hosttest.New(host.Info{Name: b})
	ma.HoldBack()
	mb.HoldBack()
	p := newPool(t, host.PoolConfig{Depth: depth}, ma, mb)
	tl := newTally(n)
	p.SetHandler(tl)
	require.NoError(t, p.Issue(t.Context(), records(0, n)))
	return ma, mb, p, tl
}

func TestPoolBacklogWaitsForRoom(t *testing.T) {
	t.Parallel()
	a, b, p, tl := heldPair(t, "a", "b", 3, 10)
	assert.Equal(t, 3, issuedCount(a))
	assert.Equal(t, 3, issuedCount(b))
	// Four wait in the pool; they go as the members make room.
	a.Release()
	b.Release()
	<-tl.all
	assert.Equal(t, 10, issuedCount(a)+issuedCount(b))
	done, _ := tl.counts()
	assert.Equal(t, 10, done)
	require.NoError(t, p.Close())
}

// timedBackend is a simulated device: every sample takes per on the
// first of its slots to be free. Run it under synctest, whose clock is
// fake.
type timedBackend struct {
	*hosttest.Backend
	per  time.Duration
	mu   sync.Mutex
	busy []time.Time
	h    host.Handler
}

func newTimed(name string, per time.Duration, slots int) *timedBackend {
	return &timedBackend{Backend: hosttest.New(host.Info{Name: name, MaxBatch: 1, MaxInFlight: slots}), per: per,
		busy: make([]time.Time, slots)}
}

func (b *timedBackend) SetHandler(h host.Handler) { b.mu.Lock(); b.h = h; b.mu.Unlock() }

func (b *timedBackend) Issue(_ context.Context, recs []abi.IssueRecord) error {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range recs {
		k := 0
		for i, t := range b.busy {
			if t.Before(b.busy[k]) {
				k = i
			}
		}
		end := b.busy[k]
		if end.Before(now) {
			end = now
		}
		end = end.Add(b.per)
		b.busy[k] = end
		h := b.h
		time.AfterFunc(end.Sub(now), func() { h.Complete([]host.Completion{{ID: r.ID, Status: abi.OK}}) })
	}
	return nil
}

func TestPoolSharesFollowRates(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// 1x and 3x: 1000 and 3000 samples/s on 4 slots each.
		slow, fast := newTimed("slow", 4*time.Millisecond, 4), newTimed("fast", 4*time.Millisecond/3, 4)
		p := newPool(t, host.PoolConfig{}, slow, fast)
		const n = 8000
		tl := newTally(n)
		p.SetHandler(tl)
		start := time.Now()
		require.NoError(t, p.Issue(t.Context(), records(0, n)))
		<-tl.all
		took := time.Since(start)
		st := p.Stats()
		require.Len(t, st.Members, 2)
		assert.InDelta(t, 0.25, st.Members[0].Share, 0.03, "the 1x member's share")
		assert.InDelta(t, 0.75, st.Members[1].Share, 0.03, "the 3x member's share")
		// The sum of the rates, 4000/s: 2 s; an even split would take 4 s.
		assert.InDelta(t, 2.0, took.Seconds(), 0.1)
		assert.InDelta(t, 1000, st.Members[0].Rate, 50)
		assert.InDelta(t, 3000, st.Members[1].Rate, 150)
		assert.Equal(t, int64(n), st.Members[0].Completed+st.Members[1].Completed)
		assert.Equal(t, int(st.Members[0].Completed), st.Members[0].Latency.Count)
		require.NoError(t, p.Close())
	})
}

// TestPoolEndIsBalanced: while much waits, both members stay full (200
// samples each); as the work runs out a slow member takes only its
// rate's share of what is left, so both finish together. Refilling
// whichever member made room would leave the slow one 200 samples
// (0.2 s) to finish alone: 0.6 s.
func TestPoolEndIsBalanced(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// 1000 and 3000 samples/s on 4 slots each.
		slow, fast := newTimed("slow", 4*time.Millisecond, 4), newTimed("fast", 4*time.Millisecond/3, 4)
		p := newPool(t, host.PoolConfig{Depth: 200}, slow, fast)
		// Measure the rates first, as an Offline run's warm-up queries would.
		warm := newTally(400)
		p.SetHandler(warm)
		for i := range 400 {
			require.NoError(t, p.Issue(t.Context(), records(i, 1)))
			time.Sleep(time.Millisecond / 2)
		}
		<-warm.all
		const n = 2000
		tl := newTally(n)
		p.SetHandler(tl)
		start := time.Now()
		require.NoError(t, p.Issue(t.Context(), records(400, n)))
		<-tl.all
		// 2000 samples at 4000/s: 0.5 s.
		assert.InDelta(t, 0.5, time.Since(start).Seconds(), 0.05)
		require.NoError(t, p.Close())
	})
}

func TestPoolLowLoadPrefersTheFasterMember(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		slow, fast := newTimed("slow", 3*time.Millisecond, 1), newTimed("fast", time.Millisecond, 1)
		p := newPool(t, host.PoolConfig{}, slow, fast)
		const n = 400
		tl := newTally(n)
		p.SetHandler(tl)
		// One sample every 2 ms: the fast member is always free first.
		for i := range n {
			require.NoError(t, p.Issue(t.Context(), records(i, 1)))
			time.Sleep(2 * time.Millisecond)
		}
		<-tl.all
		st := p.Stats()
		assert.Greater(t, st.Members[1].Share, 0.9, "once measured, the faster idle member takes the samples")
		assert.Equal(t, time.Millisecond, st.Members[1].Latency.P50)
		require.NoError(t, p.Close())
	})
}

func TestPoolMemberFailure(t *testing.T) {
	t.Parallel()
	good, bad, p, tl := heldPair(t, "good", "bad", 2, 6) // 2 at each, 2 waiting
	crash := &host.PluginError{Plugin: "bad", Op: "process", Err: fmt.Errorf("%w: pid 42 exited with signal: killed", host.ErrCrashed)}
	bad.Fail(crash)
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the pool did not fail with its member")
	}
	var me *host.PoolMemberError
	require.ErrorAs(t, p.Err(), &me)
	assert.Equal(t, "m1", me.Member)
	assert.Equal(t, 1, me.Index)
	require.ErrorIs(t, p.Err(), host.ErrCrashed)
	var pe *host.PluginError
	require.ErrorAs(t, p.Err(), &pe, "the member's own error, for the exit code")
	assert.Equal(t, `pool "pool": member 1 "m1" failed: plugin "bad": process: exited: pid 42 exited with signal: killed`, p.Err().Error())
	// Issue refuses; the failed member's samples and the waiting ones
	// failed; the good member's finish when it is closed.
	require.ErrorIs(t, p.Issue(t.Context(), records(100, 1)), host.ErrCrashed)
	_, failed := tl.counts()
	assert.Equal(t, 4, failed)
	good.Release()
	<-tl.all
	done, failed := tl.counts()
	assert.Equal(t, 6, done, "every sample once")
	assert.Equal(t, 4, failed)
	require.NoError(t, p.Close())
	assert.Contains(t, good.Calls(), "Close", "the good member is closed cleanly")
	assert.Contains(t, bad.Calls(), "Close")
}

func TestPoolControlCallsReachEveryMember(t *testing.T) {
	t.Parallel()
	a := hosttest.New(host.Info{Name: "x", Capabilities: abi.CapFlush | abi.CapModelPath, MaxBatch: 8, MaxInFlight: 2,
		Devices: []host.Device{{ID: 0, Name: "gpu0"}}})
	b := hosttest.New(host.Info{Name: "y", Capabilities: abi.CapWarmup, MaxBatch: 32, MaxInFlight: 3,
		Devices: []host.Device{{ID: 0, Name: "aic0"}, {ID: 1, Name: "aic1"}}})
	p, err := host.NewPool(t.Context(), []host.PoolMember{
		{Name: "gpu", Backend: a, Options: map[string]string{"device": "0"}},
		{Name: "aic", Backend: b, Model: "model.qpc"},
	}, host.PoolConfig{Name: "hetero"})
	require.NoError(t, err)
	info := p.Info()
	assert.Equal(t, "hetero", info.Name)
	assert.Equal(t, host.TransportPool, info.Transport)
	assert.Equal(t, abi.CapFlush|abi.CapWarmup, info.Capabilities, "flush and warm-up from any; model path only from all")
	assert.Equal(t, 32, info.MaxBatch)
	assert.Equal(t, 5, info.MaxInFlight)
	require.Len(t, info.Devices, 3)
	assert.Equal(t, []int{0, 1, 2}, []int{info.Devices[0].ID, info.Devices[1].ID, info.Devices[2].ID})
	assert.Equal(t, "pool of 2: gpu=x, aic=y", info.Description)
	assert.Equal(t, []string{"gpu", "aic"}, []string{p.Members()[0].Name, p.Members()[1].Name})

	ctx := t.Context()
	require.NoError(t, p.Load(ctx, host.Model{Path: "model.onnx", Options: map[string]string{"threads": "4"}}))
	assert.Equal(t, host.Model{Path: "model.onnx", Options: map[string]string{"device": "0"}}, a.Model())
	assert.Equal(t, host.Model{Path: "model.qpc", Options: map[string]string{"threads": "4"}}, b.Model())
	require.NoError(t, p.LoadSamples(ctx, []host.Sample{{Index: 3, Data: []byte("abc")}}))
	assert.Equal(t, []uint64{3}, a.Loaded())
	assert.Equal(t, []uint64{3}, b.Loaded())
	require.NoError(t, p.Warmup(ctx))
	require.NoError(t, p.Flush(ctx))
	require.NoError(t, p.UnloadSamples(ctx, []uint64{3}))
	require.NoError(t, p.Close())
	require.ErrorIs(t, p.Err(), host.ErrClosed)
	for _, m := range []*hosttest.Backend{a, b} {
		assert.Equal(t, []string{"Load", "LoadSamples", "Warmup", "Flush", "UnloadSamples", "Close"}, m.Calls())
	}
}

func TestPoolControlErrorsNameTheMember(t *testing.T) {
	t.Parallel()
	a, b := hosttest.New(host.Info{Name: "a"}), hosttest.New(host.Info{Name: "b"})
	p := newPool(t, host.PoolConfig{}, a, b)
	b.Fail(errors.New("no device"))
	err := p.Load(t.Context(), host.Model{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `member 1 "m1" failed: load: no device`)
	require.NoError(t, p.Close())
}

func TestNewPoolRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		members func() []host.PoolMember
		cfg     host.PoolConfig
		want    string
	}{
		{name: "no member", members: func() []host.PoolMember { return nil }, want: "pool: no member"},
		{name: "no name", members: func() []host.PoolMember {
			return []host.PoolMember{{Backend: hosttest.New(host.Info{})}}
		}, want: "pool: member 0 has no name"},
		{name: "no backend", members: func() []host.PoolMember {
			return []host.PoolMember{{Name: "x"}}
		}, want: `pool: member 0 "x" has no backend`},
		{name: "same name twice", members: func() []host.PoolMember {
			return []host.PoolMember{{Name: "x", Backend: hosttest.New(host.Info{})}, {Name: "x", Backend: hosttest.New(host.Info{})}}
		}, want: `pool: two members are named "x"`},
		{name: "negative depth", members: func() []host.PoolMember {
			return []host.PoolMember{{Name: "x", Backend: hosttest.New(host.Info{})}}
		}, cfg: host.PoolConfig{Depth: -1}, want: "pool config: Depth -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ms := tc.members()
			_, err := host.NewPool(t.Context(), ms, tc.cfg)
			require.EqualError(t, err, tc.want)
			for _, m := range ms {
				if fb, ok := m.Backend.(*hosttest.Backend); ok {
					assert.Contains(t, fb.Calls(), "Close", "a refused pool closes its members")
				}
			}
		})
	}
}

func TestPoolKill(t *testing.T) {
	t.Parallel()
	a := hosttest.New(host.Info{Name: "a"})
	a.HoldBack()
	p := newPool(t, host.PoolConfig{Depth: 1}, a)
	tl := newTally(3)
	p.SetHandler(tl)
	require.NoError(t, p.Issue(t.Context(), records(0, 3)))
	assert.True(t, host.Kill(p, errors.New("second interrupt")))
	require.ErrorIs(t, p.Err(), host.ErrStopped)
	_, failed := tl.counts()
	assert.Equal(t, 2, failed, "the samples waiting in the pool fail at once")
	require.NoError(t, p.Close())
	<-tl.all
}

func TestPoolStatsWindow(t *testing.T) {
	t.Parallel()
	a, b := hosttest.New(host.Info{Name: "a"}), hosttest.New(host.Info{Name: "b"})
	p := newPool(t, host.PoolConfig{}, a, b)
	tl := newTally(10)
	p.SetHandler(tl)
	require.NoError(t, p.Issue(t.Context(), records(0, 10)))
	<-tl.all
	st := p.Stats()
	assert.Equal(t, int64(10), st.Members[0].Completed+st.Members[1].Completed)
	assert.InDelta(t, 1.0, st.Members[0].Share+st.Members[1].Share, 1e-9)
	assert.Equal(t, "a", st.Members[0].Plugin)
	require.NoError(t, p.LoadSamples(t.Context(), nil))
	st = p.Stats()
	assert.Zero(t, st.Members[0].Completed+st.Members[1].Completed, "a new loadable set starts the window afresh")
	assert.Equal(t, int64(10), st.Members[0].Total+st.Members[1].Total, "the totals stay")
	require.NoError(t, p.Close())
}

// Many issuers at once, members completing from their own goroutines:
// every sample completes exactly once (run with -race).
func TestPoolHammer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		members := []host.Backend{newTimed("a", 50*time.Microsecond, 2), newTimed("b", 20*time.Microsecond, 3), newTimed("c", time.Millisecond, 1)}
		p := newPool(t, host.PoolConfig{Depth: 8}, members...)
		const issuers, per = 8, 500
		tl := newTally(issuers * per)
		p.SetHandler(tl)
		var wg sync.WaitGroup
		for g := range issuers {
			wg.Go(func() {
				for i := range per / 10 {
					assert.NoError(t, p.Issue(t.Context(), records(g*per+i*10, 10)))
					time.Sleep(100 * time.Microsecond)
				}
			})
		}
		wg.Wait()
		<-tl.all
		done, failed := tl.counts()
		assert.Equal(t, issuers*per, done)
		assert.Zero(t, failed)
		require.NoError(t, p.Close())
	})
}
