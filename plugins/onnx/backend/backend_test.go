package backend

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// completer records what a backend reports. It is safe for concurrent use.
type completer struct {
	mu     sync.Mutex
	done   map[uint64][]byte
	failed map[uint64]error
}

func newCompleter() *completer {
	return &completer{done: map[uint64][]byte{}, failed: map[uint64]error{}}
}

func (c *completer) Complete(id uint64, data []byte, _ int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.done[id]; dup {
		panic(fmt.Sprintf("sample %d completed twice", id))
	}
	c.done[id] = append([]byte(nil), data...)
}

func (c *completer) FirstToken(uint64, []byte) {}

func (c *completer) Fail(id uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed[id] = err
}

func loadFashion(t *testing.T, opts map[string]string) *Backend {
	t.Helper()
	b := New(goengine.New())
	require.NoError(t, b.Load(context.Background(), sdk.Model{Bytes: fashionmnist.Model(), Options: opts}))
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func argmax(logits []byte) int {
	best, bv := 0, float32(math.Inf(-1))
	for i := 0; i < len(logits)/4; i++ {
		v := math.Float32frombits(binary.LittleEndian.Uint32(logits[4*i:]))
		if v > bv {
			best, bv = i, v
		}
	}
	return best
}

func TestInfo(t *testing.T) {
	t.Parallel()
	info := New(goengine.New()).Info()
	assert.Equal(t, "onnx", info.Name)
	assert.Equal(t, Version, info.Version)
	assert.Contains(t, info.Description, "go")
	assert.Positive(t, info.MaxInFlight)
}

// TestInferMatchesReference runs the first 100 Fashion-MNIST images in
// queries of varied sizes (including one larger than the batch option)
// and checks every prediction against PyTorch's.
func TestInferMatchesReference(t *testing.T) {
	t.Parallel()
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	ref, err := fashionmnist.LoadReference()
	require.NoError(t, err)
	b := loadFashion(t, map[string]string{OptBatch: "8", OptThreads: "1"})
	require.NoError(t, b.Warmup(context.Background()))
	c := newCompleter()
	next := 0
	for _, size := range []int{1, 3, 8, 20, 68} {
		var q sdk.Query
		for range size {
			q.Samples = append(q.Samples, sdk.Sample{ID: uint64(1000 + next), Index: uint64(next), Data: set.Images[next], WantOutput: true})
			next++
		}
		require.NoError(t, b.Infer(context.Background(), q, c))
	}
	require.Empty(t, c.failed)
	require.Len(t, c.done, 100)
	for i := range 100 {
		logits := c.done[uint64(1000+i)]
		require.Len(t, logits, 40)
		assert.Equal(t, ref.Predictions[i], argmax(logits), "image %d", i)
	}
}

func TestInferSampleErrors(t *testing.T) {
	t.Parallel()
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	b := loadFashion(t, nil)
	c := newCompleter()
	q := sdk.Query{Samples: []sdk.Sample{
		{ID: 1, Data: set.Images[0], WantOutput: true},
		{ID: 2, Data: set.Images[1][:100], WantOutput: true},
		{ID: 3, Data: set.Images[2]},
	}}
	require.NoError(t, b.Infer(context.Background(), q, c))
	assert.Len(t, c.done[1], 40)
	assert.ErrorContains(t, c.failed[2], "100 bytes")
	assert.Empty(t, c.done[3], "a sample nobody logs completes without data")
	require.NoError(t, b.Infer(context.Background(), sdk.Query{}, c))
}

// TestConcurrentInstances runs queries from several goroutines on two
// sessions; run it with -race.
func TestConcurrentInstances(t *testing.T) {
	t.Parallel()
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	ref, err := fashionmnist.LoadReference()
	require.NoError(t, err)
	// The WASM build allows one instance (GOMAXPROCS is 1 there).
	instances := min(2, runtime.GOMAXPROCS(0))
	b := loadFashion(t, map[string]string{OptInstances: strconv.Itoa(instances), OptThreads: "1", OptBatch: "4"})
	c := newCompleter()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < 40; i += 4 {
				q := sdk.Query{Samples: []sdk.Sample{{ID: uint64(i), Data: set.Images[i], WantOutput: true}}}
				assert.NoError(t, b.Infer(context.Background(), q, c))
			}
		})
	}
	wg.Wait()
	require.Len(t, c.done, 40)
	for i := range 40 {
		assert.Equal(t, ref.Predictions[i], argmax(c.done[uint64(i)]))
	}
}

func TestInferWaitsForASessionUntilCanceled(t *testing.T) {
	t.Parallel()
	b := loadFashion(t, nil)
	held := <-b.slots // the only session is busy
	defer func() { b.slots <- held }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := b.Infer(ctx, sdk.Query{Samples: []sdk.Sample{{ID: 1}}}, newCompleter())
	require.ErrorIs(t, err, context.Canceled)
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "fashion.onnx")
	require.NoError(t, os.WriteFile(path, fashionmnist.Model(), 0o600))
	tests := []struct {
		name     string
		model    sdk.Model
		mentions string
	}{
		{name: "unknown engine", model: sdk.Model{Bytes: fashionmnist.Model(), Options: map[string]string{OptEngine: "ort"}}, mentions: "engine"},
		{name: "bad batch", model: sdk.Model{Bytes: fashionmnist.Model(), Options: map[string]string{OptBatch: "0"}}, mentions: "batch"},
		{name: "bad threads and instances", model: sdk.Model{Bytes: fashionmnist.Model(), Options: map[string]string{OptThreads: "x", OptInstances: "-2"}}, mentions: "instances"},
		{name: "no model", model: sdk.Model{}, mentions: "no model"},
		{name: "missing file", model: sdk.Model{Path: filepath.Join(dir, "nope.onnx")}, mentions: "read model"},
		{name: "not onnx", model: sdk.Model{Bytes: []byte("hello")}, mentions: "invalid onnx model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := New(goengine.New())
			err := b.Load(context.Background(), tt.model)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.mentions)
			require.NoError(t, b.Close())
		})
	}
	b := New(goengine.New())
	require.NoError(t, b.Load(context.Background(), sdk.Model{Path: path}))
	require.Error(t, b.Load(context.Background(), sdk.Model{Path: path}), "second Load")
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
}

func TestCallsBeforeLoad(t *testing.T) {
	t.Parallel()
	b := New(goengine.New())
	require.Error(t, b.Infer(context.Background(), sdk.Query{}, newCompleter()))
	require.Error(t, b.Warmup(context.Background()))
	require.NoError(t, b.Close())
}
