package loadgen

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// offlineSettings makes one Offline query of n samples.
func offlineSettings(n uint64, mode Mode) TestSettings {
	s := smallSettings(Offline)
	s.Mode = mode
	s.MinQueryCount = n
	s.OfflineExpectedQPS = 1
	return s
}

// countEntries counts the detail log's lines holding s.
func countEntries(detail, s string) int { return strings.Count(detail, s) }

// TestAbortEndsOffline: a SUT whose backend dies after a few samples of a
// big Offline query aborts the test; the LoadGen neither waits for the
// rest nor logs them one by one.
func TestAbortEndsOffline(t *testing.T) {
	t.Parallel()
	cause := errors.New("backend crashed")
	tests := []struct {
		mode   Mode
		issued int // the first pass's query: the loaded set in accuracy mode
	}{
		{PerformanceOnly, 1 << 20},
		{SubmissionRun, 1024},
		{AccuracyOnly, 1024},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			t.Parallel()
			issues := 0
			sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
				issues++
				require.NoError(t, completeAll(r, samples[:10]))
				r.Abort(cause)
				r.Abort(errors.New("a second cause is ignored"))
				return nil
			}}
			dir := t.TempDir()
			res, err := StartTest(context.Background(), sut, &fakeQSL{total: 1024, perf: 1024},
				offlineSettings(1<<20, tt.mode), goldenLogSettings(dir))
			require.ErrorIs(t, err, ErrAborted)
			require.ErrorIs(t, err, cause)
			assert.Equal(t, "the SUT aborted the test: backend crashed", err.Error())
			assert.False(t, res.Valid)
			assert.Equal(t, 1, issues, "nothing runs after the abort")
			detail := string(readLog(t, dir, "detail.txt"))
			assert.Equal(t, 1, countEntries(detail, "The SUT aborted the test: backend crashed; samples issued: "+
				strconv.Itoa(tt.issued)+", not completed (counted as failed): "+strconv.Itoa(tt.issued-10)), detail)
			assert.NotContains(t, detail, "a second cause")
			assert.NotContains(t, detail, "the run was canceled")
			assert.Less(t, len(detail), 64<<10, "the log does not grow with the samples left")
		})
	}
}

// TestAbortStopsWaiting: Abort from another goroutine wakes the issuing
// loop of a Server run waiting for its next query and the drain waiting
// for samples in flight, at once rather than after the drain timeout.
func TestAbortStopsWaiting(t *testing.T) {
	t.Parallel()
	s := smallSettings(Server)
	s.ServerTargetQPS = 1 // a query a second
	s.MinQueryCount = 1000
	dir := t.TempDir()
	var err error
	var took time.Duration
	synctest.Test(t, func(t *testing.T) {
		var resp *Responder
		issued := make(chan struct{}, 1000) // made in the bubble: waiting on it is durable
		sut := funcSUT{issue: func(_ context.Context, _ []QuerySample, r *Responder) error {
			resp = r
			issued <- struct{}{} // never completed
			return nil
		}}
		go func() {
			<-issued
			<-issued
			resp.Abort(errors.New("gave up"))
		}()
		start := time.Now()
		_, err = StartTest(context.Background(), sut, &fakeQSL{total: 32, perf: 16}, s, goldenLogSettings(dir),
			withSpin(0), WithDrainTimeout(time.Hour))
		took = time.Since(start)
	})
	require.ErrorIs(t, err, ErrAborted)
	assert.Less(t, took, 10*time.Second, "the abort ends the run, not the query count or the drain timeout")
	detail := string(readLog(t, dir, "detail.txt"))
	assert.Contains(t, detail, "The SUT aborted the test: gave up; samples issued: 2, not completed (counted as failed): 2")
}

// TestAbortOutsideTest: Abort before and after a test does nothing.
func TestAbortOutsideTest(t *testing.T) {
	t.Parallel()
	var resp *Responder
	sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
		resp = r
		return completeAll(r, samples)
	}}
	dir := t.TempDir()
	run, err := NewRun(sut, &fakeQSL{total: 32, perf: 16}, smallSettings(Offline), goldenLogSettings(dir))
	require.NoError(t, err)
	run.Responder().Abort(errors.New("too early"))
	res, err := run.Start(context.Background())
	require.NoError(t, err)
	assert.True(t, res.Valid)
	resp.Abort(nil) // too late
	assert.NotContains(t, string(readLog(t, dir, "detail.txt")), "aborted")
}

// TestSampleErrorLimit: a SUT failing every sample of a big query gets
// the first failures logged one by one and the rest counted in one entry.
func TestSampleErrorLimit(t *testing.T) {
	t.Parallel()
	const n = 100_000
	tests := []struct {
		name   string
		opts   []Option
		logged int
	}{
		{name: "default", logged: DefaultSampleErrorLimit},
		{name: "limit 3", opts: []Option{WithSampleErrorLimit(3)}, logged: 3},
		{name: "unlimited", opts: []Option{WithSampleErrorLimit(-1)}, logged: n},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
				resp := make([]QuerySampleResponse, len(samples))
				for i, s := range samples {
					resp[i] = QuerySampleResponse{ID: s.ID, Err: errors.New("out of memory")}
				}
				return r.QuerySamplesComplete(resp)
			}}
			dir := t.TempDir()
			res, err := StartTest(context.Background(), sut, &fakeQSL{total: 1024, perf: 1024}, offlineSettings(n, PerformanceOnly),
				goldenLogSettings(dir), tt.opts...)
			require.NoError(t, err)
			assert.False(t, res.Valid)
			detail := string(readLog(t, dir, "detail.txt"))
			assert.Equal(t, tt.logged, countEntries(detail, "The SUT failed sample id: "))
			if tt.logged < n {
				assert.Equal(t, 1, countEntries(detail, " more sample errors were not logged"))
				assert.Contains(t, detail, strconv.Itoa(n-tt.logged)+" more sample errors were not logged: a test logs the first "+strconv.Itoa(tt.logged))
				assert.Less(t, len(detail), 64<<10)
				assert.LessOrEqual(t, len(res.Errors), tt.logged+8, "the summary's error list is bounded too")
			}
		})
	}
}
