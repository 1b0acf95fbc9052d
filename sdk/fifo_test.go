package sdk

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFIFO(t *testing.T) {
	t.Parallel()
	// ops: a positive number is pushed, 0 pops; want is what the pops
	// return, in order.
	tests := []struct {
		name string
		ops  []int
		want []int
		left int
	}{
		{name: "empty", ops: nil, want: nil, left: 0},
		{name: "in order", ops: []int{1, 2, 3, 0, 0, 0}, want: []int{1, 2, 3}, left: 0},
		{name: "interleaved", ops: []int{1, 0, 2, 3, 0, 4, 0, 0}, want: []int{1, 2, 3, 4}, left: 0},
		// Draining resets the storage; pushing after that starts over.
		{name: "reuse after drain", ops: []int{1, 2, 0, 0, 3, 0}, want: []int{1, 2, 3}, left: 0},
		{name: "items left", ops: []int{1, 2, 3, 0}, want: []int{1}, left: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var f fifo[int]
			var got []int
			for _, op := range tt.ops {
				if op > 0 {
					f.push(op)
					continue
				}
				head := f.peek()
				v := f.pop()
				assert.Equal(t, head, v, "peek and pop disagree")
				got = append(got, v)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.left, f.len())
		})
	}
}

func TestFIFOReleasesPopped(t *testing.T) {
	t.Parallel()
	var f fifo[*job]
	f.push(&job{})
	f.push(&job{})
	f.pop()
	// The popped slot no longer holds the job, so the queue does not keep
	// it alive.
	assert.Nil(t, f.items[0])
	assert.Equal(t, 1, f.len())
}
