package host

import (
	"sync"
	"sync/atomic"
)

// state is the life of one backend: serving, failed or closed. The first
// failure wins; Done closes once.
type state struct {
	done   chan struct{}
	closed atomic.Bool // done is closed
	mu     sync.Mutex
	err    error
}

func newState() *state { return &state{done: make(chan struct{})} }

// fail ends the backend with err unless it has already ended, and reports
// whether err was the first.
func (s *state) fail(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false
	}
	s.err = err
	s.closed.Store(true)
	close(s.done)
	return true
}

// Err returns nil while serving, else what ended the backend.
func (s *state) Err() error {
	if !s.closed.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Done is closed when the backend ends.
func (s *state) Done() <-chan struct{} { return s.done }
