package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
)

// TransportPool is the transport of a [Pool]: several backends as one.
const TransportPool Transport = "pool"

// PoolMember is one backend of a [Pool]: a plugin opened on its own (one
// process per MIG instance or per card), whatever its transport.
type PoolMember struct {
	// Name names the member in logs, errors and the per-member report,
	// e.g. "simdevice#1" or "gpu-node-2". Names must differ.
	Name string
	// Backend is the opened member; the pool owns it from NewPool on and
	// closes it with the pool.
	Backend Backend
	// Options, when not nil, replace the Model's options at Load for this
	// member alone (its device, its partition, its batch size).
	Options map[string]string
	// Model, when not empty, replaces the Model's path at Load for this
	// member alone: a pool of different plugins loads each its own file.
	Model string
}

// PoolConfig is how a [Pool] dispatches. The zero value works.
type PoolConfig struct {
	// Name is the pool's name in Info and errors; "" means "pool".
	Name string
	// Depth is the most samples one member has in flight; the rest wait in
	// the pool until a member has room. 0 means twice what a member runs
	// at once (MaxBatch × MaxInFlight × Instances, a MaxBatch of 0 counted
	// as 256), at least 64.
	Depth int
	// CloseTimeout bounds how long Close waits for the samples still
	// waiting in the pool; 0 means DefaultCloseTimeout.
	CloseTimeout time.Duration
	// Logger receives the pool's diagnostics; nil discards them.
	Logger *slog.Logger
}

// Validate reports every field out of range.
func (c PoolConfig) Validate() error {
	var errs []error
	if c.Depth < 0 {
		errs = append(errs, fmt.Errorf("pool config: Depth %d is negative", c.Depth))
	}
	if c.CloseTimeout < 0 {
		errs = append(errs, fmt.Errorf("pool config: CloseTimeout %v is negative", c.CloseTimeout))
	}
	return errors.Join(errs...)
}

// PoolMemberError is the failure of one member of a pool, which ends the
// pool. It names the member and wraps what the member's backend said
// (usually a [*PluginError]).
type PoolMemberError struct {
	Pool   string
	Member string
	// Index is the member's position in the pool, from 0.
	Index int
	Err   error
}

// Error reads `pool "pool": member 1 "simdevice#1" failed: plugin "simdevice": process: exited: ...`.
func (e *PoolMemberError) Error() string {
	return fmt.Sprintf("pool %q: member %d %q failed: %v", e.Pool, e.Index, e.Member, e.Err)
}

// Unwrap returns Err.
func (e *PoolMemberError) Unwrap() error { return e.Err }

// Pool is several backends run as one SUT: the same plugin opened once
// per device or partition, or different plugins. It is itself a
// [Backend], so the LoadGen, the data set and the accuracy checks see one
// system.
//
// Every control call (Load, LoadSamples, UnloadSamples, Warmup, Flush)
// goes to every member, at once. Issue spreads a query's samples by each
// member's free capacity: a member takes samples while it has fewer than
// its depth in flight and than its measured rate's share of the work
// outstanding, and among those with room the pool picks the one whose
// queue would drain first at its measured rate ((in flight + 1) /
// samples per second while busy); samples no member has room for wait in
// the pool and go to the first member that completes some. A fast member
// thus takes a larger share, and a slow one never holds the end of an
// Offline query. Completions of every member reach the pool's Handler.
//
// A member that fails ends the pool with a [*PoolMemberError] naming it:
// its samples in flight fail, as do those waiting in the pool; the other
// members finish theirs and are closed cleanly by Close.
type Pool struct {
	name    string
	cfg     PoolConfig
	log     *slog.Logger
	ctx     context.Context // never canceled: the dispatcher's
	epoch   time.Time
	members []*poolMember
	st      *state
	handler atomic.Pointer[handlerRef]

	infoMu sync.Mutex
	info   Info

	scratch sync.Pool // *[][]abi.IssueRecord, one batch per member

	mu      sync.Mutex // guards the fields below and the members' counters
	backlog ring[pending]
	// arrived holds, for each sample at a member, when it reached the
	// pool (ns since epoch): its latency on that member.
	arrived map[uint64]int64
	rr      int // where the next tie-break starts
	closing bool
	drained chan struct{} // closed when closing and the backlog is empty

	wake      chan struct{}
	stop      chan struct{}
	bg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// pending is a sample waiting in the pool for a member with room.
type pending struct {
	rec     abi.IssueRecord
	arrived int64
}

var (
	_ Backend = (*Pool)(nil)
	_ killer  = (*Pool)(nil)
)

// NewPool makes one backend of members, which the pool owns from now on
// (Close closes them, also when NewPool fails). ctx is the base of the
// pool's dispatcher goroutine and is never canceled by the pool.
//
// # Errors
//
// No member, a member without a name or a backend, two members of one
// name, a bad config.
func NewPool(ctx context.Context, members []PoolMember, cfg PoolConfig) (_ *Pool, err error) {
	defer func() {
		if err != nil {
			for _, m := range members {
				if m.Backend != nil {
					_ = m.Backend.Close()
				}
			}
		}
	}()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(members) == 0 {
		return nil, errors.New("pool: no member")
	}
	if cfg.Name == "" {
		cfg.Name = "pool"
	}
	if cfg.CloseTimeout == 0 {
		cfg.CloseTimeout = DefaultCloseTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Pool{
		name: cfg.Name, cfg: cfg, log: log, ctx: context.WithoutCancel(ctx), epoch: time.Now(), st: newState(),
		arrived: map[uint64]int64{}, drained: make(chan struct{}), wake: make(chan struct{}, 1), stop: make(chan struct{}),
	}
	seen := map[string]bool{}
	for i, m := range members {
		switch {
		case m.Name == "":
			return nil, fmt.Errorf("pool: member %d has no name", i)
		case m.Backend == nil:
			return nil, fmt.Errorf("pool: member %d %q has no backend", i, m.Name)
		case seen[m.Name]:
			return nil, fmt.Errorf("pool: two members are named %q", m.Name)
		}
		seen[m.Name] = true
		pm := &poolMember{pool: p, idx: i, name: m.Name, b: m.Backend, options: m.Options, model: m.Model}
		p.members = append(p.members, pm)
	}
	n := len(p.members)
	p.scratch.New = func() any { s := make([][]abi.IssueRecord, n); return &s }
	p.handler.Store(&handlerRef{discard})
	p.refreshInfo()
	for _, m := range p.members {
		m.b.SetHandler(m)
	}
	p.bg.Add(1 + n)
	go p.dispatch()
	for _, m := range p.members {
		go p.watch(m)
	}
	return p, nil
}

// Members returns the members' names and what each plugin said of
// itself, in pool order.
func (p *Pool) Members() []PoolMemberInfo {
	out := make([]PoolMemberInfo, len(p.members))
	for i, m := range p.members {
		out[i] = PoolMemberInfo{Name: m.name, Info: m.b.Info()}
	}
	return out
}

// PoolMemberInfo names one member and describes its plugin.
type PoolMemberInfo struct {
	Name string
	Info Info
}

// Info describes the pool: its name, the members' plugins, capabilities
// (Flush, Warmup and first tokens when any member has them; the others
// when all do), every member's devices (renumbered in pool order), the
// largest MaxBatch and the sum of MaxInFlight.
func (p *Pool) Info() Info {
	p.infoMu.Lock()
	defer p.infoMu.Unlock()
	return p.info
}

// refreshInfo recomputes Info from the members' (after Load, whose
// options may change their limits).
func (p *Pool) refreshInfo() {
	info := Info{Name: p.name, Transport: TransportPool, Instances: 1, ABIMajor: abi.Major, ABIMinor: abi.Minor}
	const anyOf = abi.CapFlush | abi.CapWarmup | abi.CapFirstToken
	all := ^abi.Capability(0)
	var versions, names []string
	for i, m := range p.members {
		mi := m.b.Info()
		info.Capabilities |= mi.Capabilities & anyOf
		all &= mi.Capabilities
		if i == 0 || mi.ABIMinor < info.ABIMinor {
			info.ABIMinor = mi.ABIMinor
		}
		for _, d := range mi.Devices {
			d.ID = len(info.Devices)
			info.Devices = append(info.Devices, d)
		}
		info.MaxBatch = max(info.MaxBatch, mi.MaxBatch)
		info.MaxInFlight += mi.MaxInFlight * max(mi.Instances, 1)
		names = append(names, m.name+"="+mi.Name)
		if !slices.Contains(versions, mi.Version) {
			versions = append(versions, mi.Version)
		}
		p.mu.Lock()
		m.depth = p.depthOf(mi)
		p.mu.Unlock()
	}
	info.Capabilities |= all &^ anyOf
	info.Version = strings.Join(versions, "+")
	info.Description = fmt.Sprintf("pool of %d: %s", len(p.members), strings.Join(names, ", "))
	if first := p.members[0].b.Info(); first.Facts != nil && p.homogeneous() {
		info.Facts = first.Facts
	}
	p.infoMu.Lock()
	p.info = info
	p.infoMu.Unlock()
}

// homogeneous reports whether every member runs the same plugin.
func (p *Pool) homogeneous() bool {
	first := p.members[0].b.Info()
	for _, m := range p.members[1:] {
		if mi := m.b.Info(); mi.Name != first.Name || mi.Version != first.Version {
			return false
		}
	}
	return true
}

// depthOf is how many samples a member with info i may have in flight.
func (p *Pool) depthOf(i Info) int {
	if p.cfg.Depth > 0 {
		return p.cfg.Depth
	}
	batch := i.MaxBatch
	if batch <= 0 {
		batch = 256
	}
	return max(64, 2*batch*max(i.MaxInFlight, 1)*max(i.Instances, 1))
}

// SetHandler sets where every member's completions go.
func (p *Pool) SetHandler(h Handler) {
	if h == nil {
		h = discard
	}
	p.handler.Store(&handlerRef{h})
}

// Done is closed when a member failed or the pool was closed.
func (p *Pool) Done() <-chan struct{} { return p.st.Done() }

// Err returns the [*PoolMemberError] of the member that failed, or
// [ErrClosed] after Close.
func (p *Pool) Err() error { return p.st.Err() }

// Load loads every member, at once: each with its own options and model
// file when it has them.
func (p *Pool) Load(ctx context.Context, m Model) error {
	err := p.each(ctx, "load", func(ctx context.Context, pm *poolMember) error {
		mm := m
		if pm.options != nil {
			mm.Options = pm.options
		}
		if pm.model != "" {
			mm.Path, mm.Bytes = pm.model, nil
		}
		return pm.b.Load(ctx, mm)
	})
	p.refreshInfo()
	return err
}

// LoadSamples loads the samples into every member, at once, and starts
// the members' statistics afresh (see [Pool.Stats]).
func (p *Pool) LoadSamples(ctx context.Context, samples []Sample) error {
	p.mu.Lock()
	for _, m := range p.members {
		m.resetWindow()
	}
	p.mu.Unlock()
	return p.each(ctx, "load samples", func(ctx context.Context, pm *poolMember) error {
		return pm.b.LoadSamples(ctx, samples)
	})
}

// UnloadSamples unloads the samples from every member.
func (p *Pool) UnloadSamples(ctx context.Context, indices []uint64) error {
	return p.each(ctx, "unload samples", func(ctx context.Context, pm *poolMember) error {
		return pm.b.UnloadSamples(ctx, indices)
	})
}

// Warmup warms every member up.
func (p *Pool) Warmup(ctx context.Context) error {
	return p.each(ctx, "warm-up", func(ctx context.Context, pm *poolMember) error { return pm.b.Warmup(ctx) })
}

// Flush flushes every member. Samples still waiting in the pool go to
// the members as they make room, after the flush.
func (p *Pool) Flush(ctx context.Context) error {
	if err := p.st.Err(); err != nil {
		return err
	}
	return p.each(ctx, "flush", func(ctx context.Context, pm *poolMember) error { return pm.b.Flush(ctx) })
}

// each runs f on every member at once and joins their errors, each
// naming its member.
func (p *Pool) each(ctx context.Context, op string, f func(context.Context, *poolMember) error) error {
	if err := p.st.Err(); err != nil {
		return err
	}
	errs := make([]error, len(p.members))
	var wg sync.WaitGroup
	for i, m := range p.members {
		wg.Go(func() {
			if err := f(ctx, m); err != nil {
				errs[i] = &PoolMemberError{Pool: p.name, Member: m.name, Index: m.idx, Err: fmt.Errorf("%s: %w", op, err)}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// now is the time since the pool's epoch, in ns.
func (p *Pool) now() int64 { return int64(time.Since(p.epoch)) }
