package bridge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// echoBackend completes every issued sample at once from a preallocated
// batch: the cheapest possible plugin, to measure the bridge alone.
type echoBackend struct {
	*hosttest.Backend
	h     host.Handler
	batch []host.Completion
}

func (e *echoBackend) SetHandler(h host.Handler) { e.h = h }

// Issue completes recs in batches of at most echoChunk, as a transport
// delivers them.
func (e *echoBackend) Issue(_ context.Context, recs []abi.IssueRecord) error {
	const echoChunk = 4096
	for len(recs) > 0 {
		n := min(len(recs), echoChunk)
		e.batch = e.batch[:0]
		for _, r := range recs[:n] {
			e.batch = append(e.batch, host.Completion{ID: r.ID})
		}
		e.h.Complete(e.batch)
		recs = recs[n:]
	}
	return nil
}

func memSet(t testing.TB, n int) dataset.Dataset {
	spec := dataset.Spec{DType: dataset.Uint8, Shape: []int{4}}
	var s [][]byte
	for i := range n {
		s = append(s, []byte{byte(i), 1, 2, 3})
	}
	d, err := dataset.NewMemory("mem", spec, s, nil)
	require.NoError(t, err)
	return d
}

func responder(t testing.TB, sut loadgen.SUT, qsl loadgen.QSL) *loadgen.Responder {
	r, err := loadgen.NewRun(sut, qsl, loadgen.DefaultTestSettings(), loadgen.LogSettings{OutDir: t.TempDir()})
	require.NoError(t, err)
	return r.Responder()
}

func TestQSL(t *testing.T) {
	t.Parallel()
	b := hosttest.New(host.Info{Name: "x"})
	q := NewQSL(b, memSet(t, 10), 4)
	assert.Equal(t, uint64(10), q.TotalSampleCount())
	assert.Equal(t, uint64(4), q.PerformanceSampleCount())
	assert.Equal(t, uint64(10), NewQSL(b, memSet(t, 10), 0).PerformanceSampleCount())
	name := q.Name()
	q.SetBenchmark("resnet")
	assert.Equal(t, "resnet ("+name+")", q.Name(), "qsl_name says the benchmark")
	require.NoError(t, q.LoadSamplesToRAM(context.Background(), []uint64{3, 5}))
	require.NoError(t, q.LoadSamplesToRAM(context.Background(), []uint64{6}))
	assert.ElementsMatch(t, []uint64{3, 5, 6}, b.Loaded(), "the plugin keeps what it was given until unloaded")
	assert.Equal(t, []string{"LoadSamples", "Warmup", "LoadSamples"}, b.Calls(), "one warm-up, after the first load")
	require.NoError(t, q.UnloadSamplesFromRAM(context.Background(), []uint64{6}))
	assert.ElementsMatch(t, []uint64{3, 5}, b.Loaded())
	require.Error(t, q.LoadSamplesToRAM(context.Background(), []uint64{10}))
}

func TestSUTCountsFailures(t *testing.T) {
	t.Parallel()
	b := hosttest.New(host.Info{Name: "x"})
	b.Status = func(r abi.IssueRecord) abi.Code {
		if r.Index == 2 {
			return abi.Internal
		}
		return abi.OK
	}
	s := NewSUT(b, "x")
	r := responder(t, s, NewQSL(b, memSet(t, 4), 0))
	require.NoError(t, s.IssueQuery(context.Background(), []loadgen.QuerySample{{ID: 1, Index: 1}, {ID: 2, Index: 2}}, r))
	st := s.Stats()
	assert.Equal(t, Stats{Issued: 2, Completed: 2, Failed: 1, Rejected: 2}, st, "before the run, LoadGen rejects the responses")
	require.ErrorContains(t, s.Err(), "1 samples failed")
	issued, _ := b.Issued()
	assert.Equal(t, []abi.IssueRecord{{ID: 1, Index: 1}, {ID: 2, Index: 2}}, issued)

	b.Fail(assert.AnError)
	require.Error(t, s.IssueQuery(context.Background(), []loadgen.QuerySample{{ID: 3}}, r))
}

// BenchmarkIssueComplete runs whole Offline tests through the bridge
// against a backend that completes every sample at once: the LoadGen and
// the bridge's issue and completion paths, per sample.
func BenchmarkIssueComplete(b *testing.B) {
	be := &echoBackend{Backend: hosttest.New(host.Info{Name: "x"})}
	s := NewSUT(be, "x")
	q := NewQSL(be, memSet(b, 64), 0)
	settings := loadgen.DefaultTestSettings()
	settings.Scenario = loadgen.Offline
	settings.MinDuration = time.Second
	settings.OfflineExpectedQPS = 1e6
	dir := b.TempDir()
	b.ReportAllocs()
	var samples int64
	for b.Loop() {
		before := s.Stats().Completed
		// The run is INVALID (it ends long before min_duration); what
		// counts is that every sample went through.
		_, err := loadgen.StartTest(b.Context(), s, q, settings, loadgen.LogSettings{OutDir: dir})
		require.NoError(b, err)
		require.NoError(b, s.Err())
		require.Zero(b, s.Stats().Rejected)
		samples += s.Stats().Completed - before
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(samples), "ns/sample")
}

// refuseSecond takes the first part of a query and refuses the next.
type refuseSecond struct {
	*echoBackend
	calls int
}

func (b *refuseSecond) Issue(ctx context.Context, recs []abi.IssueRecord) error {
	b.calls++
	if b.calls == 2 {
		return errors.New("the plugin went away")
	}
	return b.echoBackend.Issue(ctx, recs)
}

// TestIssueQueryInParts: a large query reaches the plugin in parts of
// issueChunk; when the plugin refuses a later part, the samples already
// in flight complete and the bridge aborts the test: it ends at once,
// INVALID, with one error naming the cause instead of one per sample the
// plugin never got.
func TestIssueQueryInParts(t *testing.T) {
	t.Parallel()
	be := &refuseSecond{echoBackend: &echoBackend{Backend: hosttest.New(host.Info{Name: "x"})}}
	s := NewSUT(be, "x")
	q := NewQSL(be, memSet(t, 64), 0)
	settings := loadgen.DefaultTestSettings()
	settings.Scenario = loadgen.Offline
	settings.MinDuration = 10 * time.Millisecond
	settings.OfflineExpectedQPS = 1e6
	dir := t.TempDir()
	res, err := loadgen.StartTest(t.Context(), s, q, settings, loadgen.LogSettings{OutDir: dir})
	require.ErrorIs(t, err, loadgen.ErrAborted)
	require.ErrorContains(t, err, "the plugin refused the rest of a query after 4096 of its 11000 samples: the plugin went away")
	assert.False(t, res.Valid)
	st := s.Stats()
	assert.Equal(t, Stats{Issued: issueChunk, Completed: issueChunk}, st, "the first part went through, nothing failed one by one")
	assert.Equal(t, 2, be.calls, "no part after the refused one")
	detail, rerr := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	require.NoError(t, rerr)
	assert.Contains(t, string(detail), "not completed (counted as failed): 6904")
}

// TestFirstFailureAborts: the first sample the plugin fails aborts the
// test; the failures of the same batch are logged, the test ends.
func TestFirstFailureAborts(t *testing.T) {
	t.Parallel()
	b := hosttest.New(host.Info{Name: "x"})
	b.Status = func(r abi.IssueRecord) abi.Code {
		if r.ID%2 == 1 {
			return abi.Internal
		}
		return abi.OK
	}
	s := NewSUT(b, "x")
	q := NewQSL(b, memSet(t, 64), 0)
	settings := loadgen.DefaultTestSettings()
	settings.Scenario = loadgen.SingleStream
	settings.MinDuration = 0
	settings.MinQueryCount = 1000
	res, err := loadgen.StartTest(t.Context(), s, q, settings, loadgen.LogSettings{OutDir: t.TempDir()})
	require.ErrorIs(t, err, loadgen.ErrAborted)
	require.ErrorContains(t, err, "1 samples failed and 0 responses were rejected; first: sample 1: INTERNAL")
	assert.False(t, res.Valid)
	assert.Equal(t, int64(2), s.Stats().Issued, "the second query failed and no third was issued")
}
