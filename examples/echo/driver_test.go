package echo_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// A driver runs a backend the way a host does, over one transport: the
// SDK's Server in-process, the echo binary over go-plugin gRPC, or the
// echo module in wazero. The tests replay one scenario through each and
// compare what came back.
type driver interface {
	Info(t *testing.T) *backendv1.InfoResponse
	Load(t *testing.T, req *backendv1.LoadRequest) *backendv1.Status
	LoadSamples(t *testing.T, samples []sdk.LoadedSample) *backendv1.Status
	Warmup(t *testing.T) *backendv1.Status
	// Issue issues the queries and waits until each of their samples
	// completed, or the plugin failed, or the wait timed out.
	Issue(t *testing.T, queries ...[]abi.IssueRecord) []completion
	Flush(t *testing.T) *backendv1.Status
	UnloadSamples(t *testing.T, indices []uint64) *backendv1.Status
	Close(t *testing.T) *backendv1.Status
	// Events returns what the driver saw besides completions: backend
	// bugs reported, a session error, the plugin's exit.
	Events() []string
}

// completion is one completed sample as a host receives it.
type completion struct {
	ID      uint64
	Code    abi.Code
	Data    []byte
	NTokens int64
	First   int // first tokens received before it
}

// waitTimeout bounds every wait of a driver.
const waitTimeout = 30 * time.Second

// collector gathers completions and events from a transport's
// goroutines.
type collector struct {
	mu      sync.Mutex
	cond    *sync.Cond
	done    map[uint64]completion
	firsts  map[uint64]int
	events  []string
	flushes []*backendv1.Status
	dead    bool // the plugin failed: stop waiting
}

func newCollector() *collector {
	c := &collector{done: map[uint64]completion{}, firsts: map[uint64]int{}}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *collector) complete(id uint64, code abi.Code, data []byte, nTokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.done[id]; dup {
		c.events = append(c.events, fmt.Sprintf("host: sample id %d completed twice", id))
	}
	c.done[id] = completion{ID: id, Code: code, Data: slices.Clone(data), NTokens: nTokens, First: c.firsts[id]}
	c.cond.Broadcast()
}

func (c *collector) firstToken(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.firsts[id]++
}

func (c *collector) event(e string, fatal bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, e)
	c.dead = c.dead || fatal
	c.cond.Broadcast()
}

func (c *collector) flushed(st *backendv1.Status) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushes = append(c.flushes, st)
	c.cond.Broadcast()
}

func (c *collector) flushCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.flushes)
}

// waitFlush waits for the answer to flush number n (counted from 1).
func (c *collector) waitFlush(n int) *backendv1.Status {
	timer := time.AfterFunc(waitTimeout, func() { c.event("host: timed out", true) })
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.dead && len(c.flushes) < n {
		c.cond.Wait()
	}
	if len(c.flushes) < n {
		return &backendv1.Status{Code: uint32(abi.Aborted), Message: "no answer to the flush"}
	}
	return c.flushes[n-1]
}

func (c *collector) Events() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events)
}

// wait waits for the ids and returns their completions, in id order.
func (c *collector) wait(t *testing.T, ids []uint64) []completion {
	t.Helper()
	timer := time.AfterFunc(waitTimeout, func() { c.event("host: timed out", true) })
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.dead && slices.ContainsFunc(ids, func(id uint64) bool { _, ok := c.done[id]; return !ok }) {
		c.cond.Wait()
	}
	var out []completion
	for _, id := range ids {
		if r, ok := c.done[id]; ok {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b completion) int { return int(a.ID) - int(b.ID) })
	return out
}

func idsOf(queries [][]abi.IssueRecord) []uint64 {
	var ids []uint64
	for _, q := range queries {
		for _, r := range q {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func pack(q []abi.IssueRecord) []byte {
	var b []byte
	for _, r := range q {
		b = abi.AppendIssueRecord(b, r)
	}
	return b
}

// The echo plugin, built once per test binary by the first test that
// needs it: go's build cache makes later builds quick.
var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// TestMain removes the built plugins.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// built returns the paths of the echo binary and the echo WASM module.
func built(t *testing.T) (binary, module string) {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "echo-plugin-")
		if buildErr != nil {
			return
		}
		pkg := "github.com/mlperf-host/mlperf-host/examples/echo/cmd/echo"
		if buildErr = sdktest.GoBuild(filepath.Join(buildDir, "echo"), pkg, sdktest.Native); buildErr == nil {
			buildErr = sdktest.GoBuild(filepath.Join(buildDir, "echo.wasm"), pkg, sdktest.WASM)
		}
	})
	require.NoError(t, buildErr, "build the echo plugin")
	return filepath.Join(buildDir, "echo"), filepath.Join(buildDir, "echo.wasm")
}
