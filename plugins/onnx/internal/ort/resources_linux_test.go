package ort

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// threads counts the process's threads.
func threads(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	return len(ents)
}

// rss is the process's resident set in bytes, after a full GC.
func rss(t *testing.T) int {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	require.NoError(t, err)
	f := strings.Fields(string(b))
	require.GreaterOrEqual(t, len(f), 2)
	pages, err := strconv.Atoi(f[1])
	require.NoError(t, err)
	return pages * os.Getpagesize()
}

// cycle loads the Fashion-MNIST model, runs it once and closes it.
func cycle(t *testing.T, e *Engine, m []byte, threads int) {
	t.Helper()
	s, err := e.Load(context.Background(), m, engine.Options{Threads: threads})
	require.NoError(t, err)
	in, ok := zeroInputs(s, 1<<20)
	require.True(t, ok)
	require.NoError(t, s.Run(context.Background(), in, make([]engine.Tensor, len(s.Outputs()))))
	require.NoError(t, s.Close())
}

// TestIntraOpThreads checks SetIntraOpNumThreads (24), as opposed to
// SetInterOpNumThreads (25) beside it: a session with T threads adds T-1
// workers to the process (ONNX Runtime runs on the caller too), and Close
// joins them.
func TestIntraOpThreads(t *testing.T) {
	// Not parallel: it counts the process's threads, and parallel tests
	// start only after the sequential ones.
	e := newEngine(t)
	m := fashionmnist.Model()
	cycle(t, e, m, 1) // load the library and let the Go runtime settle
	tests := []struct {
		name    string
		threads int
	}{
		{name: "one thread", threads: 1},
		{name: "four threads", threads: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := threads(t)
			s, err := e.Load(context.Background(), m, engine.Options{Threads: tt.threads})
			require.NoError(t, err)
			during := threads(t)
			require.NoError(t, s.Close())
			after := threads(t)
			// The Go runtime may start a thread of its own meanwhile.
			assert.GreaterOrEqual(t, during-before, tt.threads-1)
			assert.LessOrEqual(t, during-before, tt.threads)
			assert.LessOrEqual(t, after-before, 1, "ONNX Runtime's workers end with the session")
		})
	}
}

// TestNoLeaks loads, runs and closes the Fashion-MNIST model many times:
// the resident set must stay flat. A leaked session would keep at least
// its 0.4 MB of weights, so 300 leaks would show as 120 MB or more.
func TestNoLeaks(t *testing.T) {
	// Not parallel: it measures the process's memory.
	if testing.Short() {
		t.Skip("-short: 300 session cycles")
	}
	e := newEngine(t)
	m := fashionmnist.Model()
	for range 30 { // warm up ONNX Runtime's and Go's allocators
		cycle(t, e, m, 1)
	}
	start, startThreads := rss(t), threads(t)
	for range 300 {
		cycle(t, e, m, 1)
	}
	end := rss(t)
	t.Logf("rss %.1f MB -> %.1f MB over 300 cycles", float64(start)/1e6, float64(end)/1e6)
	assert.Less(t, end-start, 16<<20)
	assert.LessOrEqual(t, threads(t)-startThreads, 1)
}
