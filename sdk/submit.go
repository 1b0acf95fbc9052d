package sdk

import (
	"context"
	"sync"
)

// WaitSubmit runs one batch through s.Submit and waits until every sample
// of q was answered through c, or ctx ends: an Infer for a [Submitter],
// for callers that drive a backend directly.
func WaitSubmit(ctx context.Context, s Submitter, q Query, c Completer) error {
	w := &waitCompleter{Completer: c, open: len(q.Samples), done: make(chan struct{})}
	if w.open == 0 {
		return nil
	}
	if err := s.Submit(ctx, q, w); err != nil {
		return err
	}
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitCompleter counts the answers passed on to a Completer.
type waitCompleter struct {
	Completer
	mu   sync.Mutex
	open int
	done chan struct{}
}

func (w *waitCompleter) answered() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.open--
	if w.open == 0 {
		close(w.done)
	}
}

func (w *waitCompleter) Complete(id uint64, data []byte, nTokens int64) {
	w.Completer.Complete(id, data, nTokens)
	w.answered()
}

func (w *waitCompleter) Fail(id uint64, err error) {
	w.Completer.Fail(id, err)
	w.answered()
}
