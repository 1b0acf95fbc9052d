package sdktest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// result is one completion as the host would receive it.
type result struct {
	code    abi.Code
	data    []byte
	nTokens int64
	times   int // completions of the id: exactly 1 is right
}

// recorder is the kit's [sdk.SessionOutput]: it keeps what a host would
// receive and lets the kit wait for it.
type recorder struct {
	mu         sync.Mutex
	cond       *sync.Cond
	results    map[uint64]*result
	firsts     map[uint64]int
	flushes    []abi.Code
	violations []string
	timedOut   bool
}

var _ sdk.SessionOutput = (*recorder)(nil)

func newRecorder() *recorder {
	r := &recorder{results: map[uint64]*result{}, firsts: map[uint64]int{}}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *recorder) Complete(id uint64, code abi.Code, data []byte, nTokens int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.results[id]
	if res == nil {
		res = &result{}
		r.results[id] = res
	}
	res.code, res.data, res.nTokens = code, slices.Clone(data), nTokens
	res.times++
	r.cond.Broadcast()
}

func (r *recorder) FirstToken(id uint64, _ []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if res := r.results[id]; res != nil {
		r.violations = append(r.violations, fmt.Sprintf("first token of sample id %d after its completion", id))
	}
	r.firsts[id]++
}

func (r *recorder) Flushed(code abi.Code, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushes = append(r.flushes, code)
	if code != abi.OK {
		r.violations = append(r.violations, fmt.Sprintf("flush failed: %s: %s", code, message))
	}
	r.cond.Broadcast()
}

func (r *recorder) Violation(_ uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.violations = append(r.violations, err.Error())
	r.cond.Broadcast()
}

// waitFor waits until cond holds (r.mu held while it runs) or timeout
// passes, and reports whether it holds.
func (r *recorder) waitFor(timeout time.Duration, cond func() bool) bool {
	timer := time.AfterFunc(timeout, func() {
		r.mu.Lock()
		r.timedOut = true
		r.mu.Unlock()
		r.cond.Broadcast()
	})
	defer timer.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timedOut = false
	for !cond() && !r.timedOut {
		r.cond.Wait()
	}
	return cond()
}

// waitIDs waits for a completion of each id.
func (r *recorder) waitIDs(timeout time.Duration, ids []uint64) error {
	ok := r.waitFor(timeout, func() bool {
		for _, id := range ids {
			if r.results[id] == nil {
				return false
			}
		}
		return true
	})
	if ok {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var missing []string
	for _, id := range ids {
		if r.results[id] == nil {
			missing = append(missing, fmt.Sprint(id))
		}
	}
	return fmt.Errorf("no completion within %v for sample ids %s", timeout, strings.Join(missing, ", "))
}

// get returns the completion of id.
func (r *recorder) get(id uint64) (result, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.results[id]
	if res == nil {
		return result{}, false
	}
	return *res, true
}

// takeViolations returns the backend bugs seen since the last call.
func (r *recorder) takeViolations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.violations
	r.violations = nil
	return v
}

// duplicates returns the ids completed more than once.
func (r *recorder) duplicates() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []uint64
	for id, res := range r.results {
		if res.times > 1 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func (r *recorder) flushCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.flushes)
}
