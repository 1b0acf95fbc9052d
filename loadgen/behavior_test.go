package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIssueStops covers how a performance run ends, each with the detail
// log line the official LoadGen writes.
func TestIssueStops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings func(*TestSettings)
		service  time.Duration
		wantLog  string
		check    func(t *testing.T, p *PerformanceResult)
	}{
		{
			name: "naturally",
			settings: func(s *TestSettings) {
				s.MinDuration = 100 * time.Millisecond
			},
			service: time.Millisecond,
			wantLog: "Ending naturally: Minimum query count and test duration met.",
			check:   func(t *testing.T, p *PerformanceResult) { assert.Equal(t, uint64(101), p.QueriesIssued) },
		},
		{
			name:     "max query count",
			settings: func(s *TestSettings) { s.MinDuration = time.Second; s.MaxQueryCount = 30 },
			service:  time.Millisecond,
			wantLog:  "IssueQueryThread 0 Ending early: Max query count reached. query_count 30",
			check: func(t *testing.T, p *PerformanceResult) {
				assert.Equal(t, uint64(30), p.QueriesIssued)
				assert.False(t, p.MinQueriesMet)
			},
		},
		{
			name:     "max duration",
			settings: func(s *TestSettings) { s.MinDuration = time.Second; s.MaxDuration = 50 * time.Millisecond },
			service:  time.Millisecond,
			wantLog:  "IssueQueryThread 0 Ending early: Max test duration reached. duration_ns 51000000",
			check:    func(t *testing.T, p *PerformanceResult) { assert.False(t, p.MinDurationMet) },
		},
		{
			name: "ran out of generated queries",
			settings: func(s *TestSettings) {
				s.MinDuration = 100 * time.Millisecond
				s.MinQueryCount = 10
				s.SingleStreamExpectedLatency = 10 * time.Millisecond
			},
			service: 2 * time.Millisecond,
			wantLog: "Ending early: Ran out of generated queries to issue before the minimum query count and test duration were reached.",
			check:   func(t *testing.T, p *PerformanceResult) { assert.False(t, p.Valid) },
		},
		{
			name: "too many outstanding queries",
			settings: func(s *TestSettings) {
				s.Scenario = Server
				s.ServerTargetQPS = 1000
				s.ServerMaxAsyncQueries = 5
				s.MinDuration = 100 * time.Millisecond
			},
			service: 5 * time.Millisecond,
			wantLog: "IssueQueryThread 0 Ending early: Too many outstanding queries. issued 7 outstanding 6",
			check:   func(t *testing.T, p *PerformanceResult) { assert.Equal(t, uint64(7), p.QueriesIssued) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				sut := newFakeSUT(func(uint64) time.Duration { return tt.service })
				sut.start()
				defer sut.stop()
				s := baseSettings()
				tt.settings(&s)
				res, err := StartTest(context.Background(), sut, &fakeQSL{total: 64, perf: 16}, s, goldenLogSettings(dir), withSpin(0))
				require.NoError(t, err)
				require.NotNil(t, res.Performance)
				tt.check(t, res.Performance)
			})
			assert.Contains(t, string(readLog(t, dir, "detail.txt")), tt.wantLog)
		})
	}
}

// slowIssueSUT spends issueCost inside every IssueQuery, so Server queries
// pile up past their scheduled times, and answers inline.
type slowIssueSUT struct {
	issueCost time.Duration
	mu        sync.Mutex
	sizes     []int
}

func (s *slowIssueSUT) Name() string                       { return "SlowIssue" }
func (s *slowIssueSUT) FlushQueries(context.Context) error { return nil }
func (s *slowIssueSUT) IssueQuery(_ context.Context, samples []QuerySample, r *Responder) error {
	s.mu.Lock()
	s.sizes = append(s.sizes, len(samples))
	s.mu.Unlock()
	time.Sleep(s.issueCost)
	return completeAll(r, samples)
}

func TestServerCoalesceQueries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		coalesce  bool
		wantMulti bool
	}{
		{name: "coalesced", coalesce: true, wantMulti: true},
		{name: "one query per call", coalesce: false, wantMulti: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				sut := &slowIssueSUT{issueCost: 3 * time.Millisecond}
				s := baseSettings()
				s.Scenario = Server
				s.ServerTargetQPS = 1000
				s.ServerCoalesceQueries = tt.coalesce
				s.MinDuration = 200 * time.Millisecond
				res, err := StartTest(context.Background(), sut, &fakeQSL{total: 64, perf: 16}, s, goldenLogSettings(t.TempDir()), withSpin(0))
				require.NoError(t, err)
				p := res.Performance
				total, multi := 0, false
				for _, n := range sut.sizes {
					total += n
					multi = multi || n > 1
				}
				assert.Equal(t, tt.wantMulti, multi)
				assert.Equal(t, int(p.QueriesIssued), total, "every query issued once")
				assert.Equal(t, uint64(total), p.SamplesCompleted)
				// Latency counts from each query's own scheduled time.
				assert.GreaterOrEqual(t, p.Latency.Max, 3*time.Millisecond)
			})
		})
	}
}

func TestTest05OverridesSeedsAndMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		s := smallSettings(Offline)
		s.Mode = AccuracyOnly
		s.Test05 = true
		s.Test05QSLRNGSeed, s.Test05SampleIndexRNGSeed, s.Test05ScheduleRNGSeed = 11, 22, 33
		res, err := StartTest(context.Background(), newFakeSUT(nil), &fakeQSL{total: 32, perf: 16}, s, goldenLogSettings(dir), withSpin(0))
		require.NoError(t, err)
		assert.Equal(t, PerformanceOnly, res.Mode)
		require.Len(t, res.Warnings, 1)
	})
	detail := string(readLog(t, dir, "detail.txt"))
	assert.Contains(t, detail, "Test05 flag detected Overriding random seeds")
	assert.Contains(t, detail, `"key": "effective_qsl_rng_seed", "value": 11,`)
	assert.Contains(t, detail, `"key": "effective_schedule_rng_seed", "value": 33,`)
}

func TestPerformanceIssueSameRun(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		qsl := &fakeQSL{total: 32, perf: 16}
		var mu sync.Mutex
		seen := map[uint64]bool{}
		sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
			mu.Lock()
			for _, s := range samples {
				seen[s.Index] = true
			}
			mu.Unlock()
			return completeAll(r, samples)
		}}
		s := smallSettings(SingleStream)
		s.PerformanceIssueSame = true
		s.PerformanceIssueSameIndex = 3
		s.MinQueryCount = 100 // early stopping needs 64 at the 90th percentile
		res, err := StartTest(context.Background(), sut, qsl, s, goldenLogSettings(t.TempDir()), withSpin(0))
		require.NoError(t, err)
		assert.Len(t, seen, 1)
		assert.True(t, seen[qsl.loads[0][3]], "issued %v, loaded %v", seen, qsl.loads)
		assert.True(t, res.Valid)
	})
}

func TestPrintTimestampsAndTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var console bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		sut := newFakeSUT(serviceTime(time.Millisecond, 0))
		sut.start()
		defer sut.stop()
		s := baseSettings()
		s.Scenario = Server
		s.ServerTargetQPS = 200
		s.MinDuration = 100 * time.Millisecond
		s.PrintTimestamps = true
		ls := goldenLogSettings(dir)
		ls.Console = &console
		ls.EnableTrace = true
		ls.Suffix = "_x"
		ls.PrefixWithDatetime = true
		_, err := StartTest(context.Background(), sut, &fakeQSL{total: 32, perf: 16}, s, ls, withSpin(0))
		require.NoError(t, err)
	})
	assert.Contains(t, console.String(), "Loadgen :: Perf mode start. system_clock Timestamp = 946684800\n")
	assert.Contains(t, console.String(), "Loadgen :: PerfClock/system_clock ratio = 1.0000\n")
	names, err := filepath.Glob(filepath.Join(dir, "mlperf_log_2000-01-01T00:00:00Z_*"))
	require.NoError(t, err)
	require.Len(t, names, 4)
	trace, err := os.ReadFile(filepath.Join(dir, "mlperf_log_2000-01-01T00:00:00Z_trace_x.json"))
	require.NoError(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(trace, &doc), "the trace is valid JSON")
	var samples, counters int
	for _, ev := range doc.TraceEvents {
		switch ev["name"] {
		case "Sample":
			samples++
		case "Latency":
			counters++
		}
	}
	assert.Equal(t, 2*counters, samples, "a begin and an end per Server sample")
	assert.Positive(t, counters)
}

func TestResponseLoggedFollowsMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mode   Mode
		prob   float64
		wantOK func(logged, total int) bool
	}{
		{name: "accuracy logs all", mode: AccuracyOnly, wantOK: func(l, n int) bool { return l == n }},
		{name: "performance logs none", mode: PerformanceOnly, wantOK: func(l, _ int) bool { return l == 0 }},
		{name: "sampled", mode: PerformanceOnly, prob: 0.5, wantOK: func(l, n int) bool { return l > n/4 && l < 3*n/4 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var logged, total int
			synctest.Test(t, func(t *testing.T) {
				sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
					for _, s := range samples {
						total++
						if r.ResponseLogged(s.ID) {
							logged++
						}
					}
					return completeAll(r, samples)
				}}
				s := smallSettings(Offline)
				s.Mode = tt.mode
				s.MinQueryCount = 200
				s.AccuracyLogProbability = tt.prob
				_, err := StartTest(context.Background(), sut, &fakeQSL{total: 32, perf: 16}, s, goldenLogSettings(dir), withSpin(0))
				require.NoError(t, err)
			})
			assert.True(t, tt.wantOK(logged, total), "%d of %d logged", logged, total)
			acc := string(readLog(t, dir, "accuracy.json"))
			assert.Equal(t, logged, strings.Count(acc, "seq_id"))
		})
	}
}

func TestProgressString(t *testing.T) {
	t.Parallel()
	p := Progress{Running: true, Mode: PerformanceOnly, Scenario: Server, SamplesGenerated: 100, SamplesIssued: 40,
		SamplesCompleted: 30, Elapsed: 1500 * time.Millisecond, MinDuration: time.Minute}
	assert.Equal(t, "Server PerformanceOnly: 40/100 samples issued, 30 completed, 1.5s elapsed of 1m0s", p.String())
}
