package sdk

// fifo is a first-in first-out queue that reuses its storage.
type fifo[T any] struct {
	items []T
	head  int
}

func (f *fifo[T]) len() int { return len(f.items) - f.head }

func (f *fifo[T]) push(v T) { f.items = append(f.items, v) }

// peek returns the oldest item; the queue is not empty.
func (f *fifo[T]) peek() T { return f.items[f.head] }

// pop removes and returns the oldest item; the queue is not empty.
func (f *fifo[T]) pop() T {
	var zero T
	v := f.items[f.head]
	f.items[f.head] = zero
	f.head++
	if f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	}
	return v
}
