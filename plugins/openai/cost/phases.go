package cost

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// spent is what a phase cost: requests, wall time, this process's CPU.
type spent struct {
	n    int
	wall time.Duration
	cpu  time.Duration
}

func (s spent) cpuPer() time.Duration  { return s.cpu / time.Duration(max(s.n, 1)) }
func (s spent) wallPer() time.Duration { return s.wall / time.Duration(max(s.n, 1)) }
func (s spent) rate() float64          { return float64(s.n) / s.wall.Seconds() }

// median is the median of rounds' CPU and, apart, of their wall time,
// per request, as one phase of all their requests.
func median(rounds []spent) spent {
	var n int
	cpu, wall := make([]time.Duration, len(rounds)), make([]time.Duration, len(rounds))
	for i, r := range rounds {
		n += r.n
		cpu[i], wall[i] = r.cpuPer(), r.wallPer()
	}
	slices.Sort(cpu)
	slices.Sort(wall)
	return spent{n: n, cpu: cpu[len(cpu)/2] * time.Duration(n), wall: wall[len(wall)/2] * time.Duration(n)}
}

// measure runs f and returns its wall and CPU time.
func measure(n int, f func() error) (spent, error) {
	cpu0, t0 := cpuTime(), time.Now()
	err := f()
	return spent{n: n, wall: time.Since(t0), cpu: cpuTime() - cpu0}, err
}

// serial sends n requests one after another; firsts are their first
// tokens' times.
func serial(ctx context.Context, c client, n int) (s spent, firsts []int64, err error) {
	firsts = make([]int64, n)
	s, err = measure(n, func() error {
		for k := range n {
			if err := c.do(ctx, k, firsts); err != nil {
				return err
			}
		}
		return nil
	})
	return s, firsts, err
}

// offline sends n requests from workers goroutines, each sending the
// next as soon as its last is done.
func offline(ctx context.Context, c client, n, workers int) (spent, error) {
	firsts := make([]int64, n)
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		first atomic.Pointer[error]
	)
	return measure(n, func() error {
		for range workers {
			wg.Go(func() {
				for {
					k := int(next.Add(1) - 1)
					if k >= n || first.Load() != nil {
						return
					}
					if err := c.do(ctx, k, firsts); err != nil {
						first.CompareAndSwap(nil, &err)
						return
					}
				}
			})
		}
		wg.Wait()
		if p := first.Load(); p != nil {
			return *p
		}
		return nil
	})
}

// poisson is one Server step: n requests at exponential gaps of mean
// 1/rate, each sent on a goroutine of its own when due.
type poisson struct {
	spent
	firsts []int64
	// late is how far the last completion came after the last
	// arrival's scheduled time.
	late time.Duration
	// last is the last arrival's scheduled time from the start.
	last time.Duration
}

// keptUp says the client kept up with the arrivals: the last completion
// within 5% (and 5 ms) of the schedule's length after the last arrival.
func (p poisson) keptUp() bool { return p.late <= p.last/20+5*time.Millisecond }

// arrivals are n Poisson arrival times from the start, at rate a second.
func arrivals(rate float64, n int, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 1))
	at := make([]time.Duration, n)
	var t float64
	for i := range at {
		t += rng.ExpFloat64() / rate
		at[i] = time.Duration(t * float64(time.Second))
	}
	return at
}

// paced sends n requests one at a time, each no earlier than its Poisson
// arrival at rate: the machine idles between them, as at a low Server
// rate, and no client's requests overlap (the floor's included).
func paced(ctx context.Context, c client, rate float64, n int, seed uint64) ([]int64, error) {
	at := arrivals(rate, n, seed)
	firsts := make([]int64, n)
	start := time.Now()
	for k := range n {
		if d := time.Until(start.Add(at[k])); d > 0 {
			time.Sleep(d)
		}
		if err := c.do(ctx, k, firsts); err != nil {
			return nil, err
		}
	}
	return firsts, nil
}

func server(ctx context.Context, c client, rate float64, n int, seed uint64) (poisson, error) {
	at := arrivals(rate, n, seed)
	p := poisson{firsts: make([]int64, n), last: at[n-1]}
	var (
		wg    sync.WaitGroup
		first atomic.Pointer[error]
		end   atomic.Int64
	)
	s, err := measure(n, func() error {
		start := time.Now()
		for k := range n {
			if d := time.Until(start.Add(at[k])); d > 0 {
				time.Sleep(d)
			}
			wg.Go(func() {
				if err := c.do(ctx, k, p.firsts); err != nil {
					first.CompareAndSwap(nil, &err)
				}
				now := time.Since(start)
				for {
					e := end.Load()
					if int64(now) <= e || end.CompareAndSwap(e, int64(now)) {
						break
					}
				}
			})
		}
		wg.Wait()
		if e := first.Load(); e != nil {
			return *e
		}
		return nil
	})
	p.spent, p.late = s, time.Duration(end.Load())-p.last
	return p, err
}
