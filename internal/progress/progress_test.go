package progress

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		elapsed, expected time.Duration
		want              string
	}{
		{name: "start", elapsed: 0, expected: time.Minute,
			want: "Offline [........................] 0s / 1m0s  issued 10  done 4  2.5/s"},
		{name: "half", elapsed: 30 * time.Second, expected: time.Minute,
			want: "Offline [############............] 30s / 1m0s  issued 10  done 4  2.5/s"},
		// Past the expected time (the query count is not reached yet) the bar stays full.
		{name: "overtime", elapsed: 90 * time.Second, expected: time.Minute,
			want: "Offline [########################] 1m30s / 1m0s  issued 10  done 4  2.5/s"},
		{name: "unknown", elapsed: 1500 * time.Millisecond, want: "Offline 1s  issued 10  done 4  2.5/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Line("Offline", Counts{Issued: 10, Completed: 4, Elapsed: tt.elapsed, Expected: tt.expected}, 2.5))
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the bar's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestBarRedrawsAndErases(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		var done atomic.Int64
		bar := New(&out, "Server", func() Counts {
			return Counts{Issued: done.Load() + 1, Completed: done.Load(), Expected: 10 * time.Second}
		}, time.Second)
		bar.Start(context.Background())
		for range 3 {
			done.Add(100)
			time.Sleep(time.Second)
			synctest.Wait()
		}
		bar.Stop()
		bar.Stop() // idempotent
		s := out.String()
		lines := strings.Split(strings.Trim(s, "\r"), "\r")
		assert.Len(t, lines, 4, "three redraws and the erase: %q", s)
		assert.Contains(t, lines[0], "1s / 10s  issued 101  done 100  100.0/s")
		assert.Contains(t, lines[2], "3s / 10s  issued 301  done 300  100.0/s")
		assert.Empty(t, strings.TrimSpace(lines[3]), "the last write erases the line")
	})
}

func TestBarStopsWithContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var out syncBuffer
		bar := New(&out, "x", func() Counts { return Counts{} }, 0)
		bar.Start(ctx)
		time.Sleep(time.Second)
		cancel()
		bar.Stop()
		assert.Contains(t, out.String(), "issued 0")
	})
}
