package kernels

import (
	"sync"
	"sync/atomic"
)

// Pool runs the kernels' parallel loops on a fixed set of worker
// goroutines and owns each worker's scratch memory. A Pool with one thread
// starts no goroutine. The goroutines live until Close.
//
// A Pool runs one parallel loop at a time: For is not safe for concurrent
// use (a session runs one model at a time).
type Pool struct {
	threads int
	scratch []Scratch
	wake    []chan *job
	wg      sync.WaitGroup // joins the workers at Close
	once    sync.Once
	job     job
	// shared is scratch one parallel loop's tasks share (a GEMM's packed
	// B); only the loop that set it up uses it.
	shared []float32
}

// Tasker is a parallel loop body: Run does task number task with the
// calling worker's scratch memory. Implementations are usually pointers to
// structs planned once, so that a loop allocates nothing.
type Tasker interface {
	Run(task int, s *Scratch)
}

// Scratch is one worker's reusable memory. Buffers grow on demand and are
// kept.
type Scratch struct {
	packB []float32
	tile  []float32
	cols  []float32
	ep    tileEpilogue
	one   [1]float32
	simd  simdScratch //nolint:unused // read by the WASM build's SIMD kernels (simd_wasm.go)
}

// buf returns a slice of n elements from *b, growing it when needed.
func buf(b *[]float32, n int) []float32 {
	if cap(*b) < n {
		*b = make([]float32, n)
	}
	return (*b)[:n]
}

type job struct {
	fn    Tasker
	tasks int
	next  atomic.Int64
	done  sync.WaitGroup
}

// NewPool starts a pool of threads workers (at least 1).
func NewPool(threads int) *Pool {
	threads = max(threads, 1)
	p := &Pool{threads: threads, scratch: make([]Scratch, threads)}
	p.wake = make([]chan *job, threads-1)
	for i := range p.wake {
		ch := make(chan *job)
		p.wake[i] = ch
		p.wg.Add(1)
		go p.worker(ch, &p.scratch[i+1])
	}
	return p
}

// Threads is the number of threads the pool runs loops on.
func (p *Pool) Threads() int { return p.threads }

func (p *Pool) worker(ch chan *job, s *Scratch) {
	defer p.wg.Done()
	for j := range ch {
		j.run(s)
		j.done.Done()
	}
}

func (j *job) run(s *Scratch) {
	for {
		t := int(j.next.Add(1)) - 1
		if t >= j.tasks {
			return
		}
		j.fn.Run(t, s)
	}
}

// For calls fn.Run(task, scratch) for every task in [0, tasks), spreading
// the tasks over the pool's threads, and returns when all are done. fn
// must only use the scratch it is given.
func (p *Pool) For(tasks int, fn Tasker) {
	if tasks <= 0 {
		return
	}
	helpers := min(p.threads, tasks) - 1
	if helpers == 0 {
		for t := range tasks {
			fn.Run(t, &p.scratch[0])
		}
		return
	}
	j := &p.job
	j.fn, j.tasks = fn, tasks
	j.next.Store(0)
	j.done.Add(helpers)
	for i := range helpers {
		p.wake[i] <- j
	}
	j.run(&p.scratch[0])
	j.done.Wait()
	j.fn = nil
}

// minParallelWork is the work (in multiply-adds or elements touched)
// below which ForWork runs a loop on the calling goroutine: waking
// workers costs microseconds.
const minParallelWork = 1 << 17

// ForWork is For for a loop whose total work is about work operations:
// small loops run inline on the caller.
func (p *Pool) ForWork(tasks, work int, fn Tasker) {
	if work < minParallelWork || p.threads == 1 {
		for t := range tasks {
			fn.Run(t, &p.scratch[0])
		}
		return
	}
	p.For(tasks, fn)
}

// Close stops the workers and waits for them. It is idempotent.
func (p *Pool) Close() {
	p.once.Do(func() {
		for _, ch := range p.wake {
			close(ch)
		}
		p.wg.Wait()
	})
}
