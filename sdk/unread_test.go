//go:build !wasip1

package sdk

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
)

// A host that never reads: nothing is collected while the backend
// completes. The outbox holds at most its limit (and the completion that
// passed it), drops the rest, and fails the session once, naming why.
func TestOutboxBoundsUnreadCompletions(t *testing.T) {
	t.Parallel()
	const limit, output = 10 << 10, 100
	perCompletion := int64(abi.CompletionRecordSize + output)
	for _, tt := range []struct {
		name     string
		complete func(o *outbox, l *lane, id uint64)
	}{
		{"lane", func(_ *outbox, l *lane, id uint64) { l.complete(id, abi.OK, make([]byte, output), 0) }},
		{"outbox", func(o *outbox, _ *lane, id uint64) { o.Complete(id, abi.OK, make([]byte, output), 0) }},
		{"first tokens", func(o *outbox, _ *lane, id uint64) { o.FirstToken(id, make([]byte, output)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := newOutbox(1<<20, limit)
			var causes []error
			o.unread.onFull = func(err error) { causes = append(causes, err) }
			var mu sync.Mutex
			l := o.newLane(&mu)
			mu.Lock()
			for id := range uint64(1000) {
				tt.complete(o, l, id)
			}
			mu.Unlock()
			assert.LessOrEqual(t, o.peakUnread(), limit+perCompletion)
			assert.Greater(t, o.peakUnread(), int64(limit))
			require.Len(t, causes, 1)
			err := o.unread.failed()
			require.ErrorIs(t, err, causes[0])
			assert.Equal(t, abi.ResourceExhausted, CodeOf(err))
			assert.Contains(t, err.Error(), "stopped reading")
			assert.Contains(t, err.Error(), abi.MaxUnreadBytesEnv)

			o.close()
			rec := &recordingSender{}
			require.NoError(t, o.run(t.Context(), rec))
			got := rec.got()
			assert.Len(t, got, int(o.peakUnread()/perCompletion), "the completions held, no more")
			assert.Zero(t, o.unreadBytes(), "all sent")
		})
	}
}

func TestOutboxUnderItsLimitFailsNothing(t *testing.T) {
	t.Parallel()
	o := newOutbox(1<<20, 10<<10)
	rec := &recordingSender{}
	for round := range 20 {
		for i := range 50 {
			o.Complete(uint64(round*50+i), abi.OK, make([]byte, 100), 0)
		}
		var b outBatch
		o.collect(&b)
		require.NoError(t, o.send(rec, newOutMessages(), &b))
		o.unread.sent(b.size())
	}
	assert.NoError(t, o.unread.failed(), "a host that reads holds 50 completions at a time")
	assert.Zero(t, o.unreadBytes())
	assert.Len(t, rec.got(), 1000)
}
