package acceltest

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Batching describes an accelerator plugin for [Batching.Test]: a backend
// on a fake runtime whose every batch takes device time, so that
// one-sample queries pile up while the slots are busy.
type Batching struct {
	// New returns an unloaded backend on a fresh fake runtime and a
	// function counting the batches the fake ran.
	New func(t *testing.T) (b sdk.Backend, batches func() int)
	// Model echoes samples of SampleSize bytes; Options are Load's.
	Model      []byte
	SampleSize int
	Options    map[string]string
	// MaxBatch and MaxInFlight are the limits Load should answer.
	MaxBatch, MaxInFlight int
}

// serverRun is ResNet-50's Server run as the host describes it at Load.
var serverRun = &backendv1.RunConfig{Benchmark: "resnet50", Scenario: string(sdk.ScenarioServer), Mode: string(sdk.PerformanceOnly),
	Settings: &backendv1.TestSettings{TargetLatencyNs: uint64(15 * time.Millisecond), SamplesPerQuery: 1}}

// Test checks that the SDK batches for the plugin in Server: Load answers
// one slot's batch as MaxBatch and its slots as MaxInFlight, and
// one-sample queries issued while the slots are busy run together, fewer
// batches than queries, every sample answered once with its output. In
// Offline (and with an older host that does not say the scenario) each
// query runs alone.
func (c Batching) Test(t *testing.T) {
	const queries = 48
	for _, tt := range []struct {
		name    string
		run     *backendv1.RunConfig
		batched bool
	}{
		{name: "Server batches across queries", run: serverRun, batched: true},
		{name: "Offline runs each query alone", run: &backendv1.RunConfig{Scenario: string(sdk.ScenarioOffline)}},
		{name: "a host that does not say the scenario"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, batches := c.New(t)
			srv := sdk.NewServer(b, sdk.ServerConfig{})
			t.Cleanup(func() { srv.Close() })
			info := srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
			require.Equal(t, abi.OK, abi.Code(info.GetStatus().GetCode()), info.GetStatus().GetMessage())
			load := srv.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: c.Model, Options: c.Options, Run: tt.run})
			require.Equal(t, abi.OK, abi.Code(load.GetStatus().GetCode()), load.GetStatus().GetMessage())
			assert.Equal(t, uint32(c.MaxBatch), load.GetMaxBatch(), "one slot's batch")
			assert.Equal(t, uint32(c.MaxInFlight), load.GetMaxInFlight(), "the slots")
			ls := srv.LoadSamples(t.Context(), Loaded(Seq(queries), c.SampleSize), nil)
			require.Equal(t, abi.OK, abi.Code(ls.GetStatus().GetCode()), ls.GetStatus().GetMessage())

			before := batches()
			out := newSessionLog()
			sess, err := srv.OpenSession(t.Context(), out)
			require.NoError(t, err)
			for i := range uint64(queries) {
				require.NoError(t, sess.Issue(abi.AppendIssueRecord(nil, abi.IssueRecord{ID: IDBase + i, Index: i, Flags: abi.FlagWantOutput})))
			}
			sess.End()
			ran := batches() - before
			out.check(t, queries, c.SampleSize)
			if tt.batched {
				assert.Less(t, ran, queries, "one-sample queries issued while the slots were busy ran together")
				assert.GreaterOrEqual(t, ran, queries/c.MaxBatch, "no batch over MaxBatch")
			} else {
				assert.Equal(t, queries, ran, "each query ran alone")
			}
		})
	}
}

// sessionLog is an sdk.SessionOutput that keeps each sample's answers.
type sessionLog struct {
	mu      sync.Mutex
	codes   map[uint64][]abi.Code
	outputs map[uint64][]byte
}

func newSessionLog() *sessionLog {
	return &sessionLog{codes: map[uint64][]abi.Code{}, outputs: map[uint64][]byte{}}
}

func (l *sessionLog) Complete(id uint64, code abi.Code, data []byte, _ int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.codes[id] = append(l.codes[id], code)
	l.outputs[id] = append([]byte(nil), data...)
}

func (l *sessionLog) FirstToken(uint64, []byte)    {}
func (l *sessionLog) Flushed(abi.Code, string)     {}
func (l *sessionLog) Violation(id uint64, _ error) { l.Complete(id, abi.Internal, nil, 0) }

// check asserts that samples 0..n-1 were each answered once, OK, with
// their bytes echoed.
func (l *sessionLog) check(t *testing.T, n, size int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	require.Len(t, l.codes, n)
	for i := range uint64(n) {
		id := IDBase + i
		if assert.Equal(t, []abi.Code{abi.OK}, l.codes[id], "sample id %d: %s", id, l.outputs[id]) {
			assert.Equal(t, SampleBytes(i, size), l.outputs[id], "sample id %d", id)
		}
	}
}
