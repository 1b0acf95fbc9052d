package sdktest

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// spy watches, through [sdk.ServerConfig.Observe], how the SDK drives the
// backend: the order of calls, the size of each Infer (or Submit) call,
// how many run at once, when each started and whether each sample carries
// the tensors it was loaded with.
type spy struct {
	b sdk.Backend
	// units weighs a sample in a batch: the backend's BatchSizer, else 1.
	units func(sdk.LoadedSample) int
	// loaded returns a sample as the kit loaded it.
	loaded func(index uint64) (sdk.LoadedSample, bool)

	mu       sync.Mutex
	calls    []string // calls in order, a run of Infer (or Submit) calls once
	closes   int
	problems []string // calls after Close, samples whose tensors changed
	batches  []batch

	infers      atomic.Int64
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
	maxBatch    atomic.Int64 // the largest call, in units
	emptyCalls  atomic.Int64
}

// batch is one Infer or Submit call as it started.
type batch struct {
	at    time.Time
	ids   []uint64
	units int
}

func newSpy(b sdk.Backend, loaded func(uint64) (sdk.LoadedSample, bool)) *spy {
	s := &spy{b: b, loaded: loaded, units: func(sdk.LoadedSample) int { return 1 }}
	if bs, ok := b.(sdk.BatchSizer); ok {
		s.units = func(ls sdk.LoadedSample) int { return max(1, bs.Units(ls)) }
	}
	return s
}

// observe is the server's [sdk.ServerConfig.Observe].
func (s *spy) observe(c sdk.Call) {
	if c.Done {
		if c.Query != nil {
			s.inFlight.Add(-1)
		}
		return
	}
	s.note(c.Method)
	switch c.Method {
	case "Close":
		s.mu.Lock()
		s.closes++
		s.mu.Unlock()
	case "Infer", "Submit":
		s.call(c.Query)
	}
}

func (s *spy) note(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closes > 0 {
		s.problems = append(s.problems, call+" after Close")
	}
	if n := len(s.calls); n == 0 || s.calls[n-1] != call {
		s.calls = append(s.calls, call)
	}
}

// call records one Infer or Submit call and checks its samples' tensors.
func (s *spy) call(q *sdk.Query) {
	s.infers.Add(1)
	raise(&s.maxInFlight, s.inFlight.Add(1))
	if len(q.Samples) == 0 {
		s.emptyCalls.Add(1)
	}
	b := batch{at: time.Now()}
	var problems []string
	for _, smp := range q.Samples {
		b.ids = append(b.ids, smp.ID)
		ls, ok := s.loaded(smp.Index)
		if !ok {
			continue
		}
		b.units += s.units(ls)
		if p := sameTensors(ls, smp); p != "" {
			problems = append(problems, p)
		}
	}
	raise(&s.maxBatch, int64(b.units))
	s.mu.Lock()
	s.batches = append(s.batches, b)
	s.problems = append(s.problems, problems...)
	s.mu.Unlock()
}

// sameTensors says how a sample's tensors in a call differ from those it
// was loaded with; "" when they do not.
func sameTensors(ls sdk.LoadedSample, smp sdk.Sample) string {
	if !bytes.Equal(ls.Data, smp.Data) {
		return fmt.Sprintf("sample index %d reached the backend with other bytes than it was loaded with: a backend must not write to its samples", smp.Index)
	}
	if len(ls.Tensors) != len(smp.Tensors) {
		return fmt.Sprintf("sample index %d reached the backend with %d tensors, it was loaded with %d", smp.Index, len(smp.Tensors), len(ls.Tensors))
	}
	for k, t := range ls.Tensors {
		g := smp.Tensors[k]
		if g.Name != t.Name || g.DType != t.DType || !slices.Equal(g.Shape, t.Shape) || !bytes.Equal(g.Data, t.Data) {
			return fmt.Sprintf("sample index %d: tensor %d reached the backend as %s %s%v (%d bytes), it was loaded as %s %s%v (%d bytes)",
				smp.Index, k, g.Name, g.DType, g.Shape, len(g.Data), t.Name, t.DType, t.Shape, len(t.Data))
		}
	}
	return ""
}

// batchesSince returns the calls recorded after the first n.
func (s *spy) batchesSince(n int) []batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.batches[min(n, len(s.batches)):])
}

func (s *spy) batchCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.batches)
}

// raise sets v to n if n is larger.
func raise(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if n <= old || v.CompareAndSwap(old, n) {
			return
		}
	}
}
