package loadgen

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// funcSUT adapts a function to SUT.
type funcSUT struct {
	issue func(ctx context.Context, samples []QuerySample, r *Responder) error
}

func (funcSUT) Name() string                       { return "FuncSUT" }
func (funcSUT) FlushQueries(context.Context) error { return nil }
func (s funcSUT) IssueQuery(ctx context.Context, samples []QuerySample, r *Responder) error {
	return s.issue(ctx, samples, r)
}

func completeAll(r *Responder, samples []QuerySample) error {
	resp := make([]QuerySampleResponse, len(samples))
	for i, s := range samples {
		resp[i] = QuerySampleResponse{ID: s.ID, Data: []byte{1}}
	}
	return r.QuerySamplesComplete(resp)
}

func smallSettings(sc Scenario) TestSettings {
	s := baseSettings()
	s.Scenario = sc
	s.MinDuration = 0
	s.MinQueryCount = 20
	s.ServerTargetQPS = 1000
	s.OfflineExpectedQPS = 10
	return s
}

func runSynctest(t *testing.T, sut SUT, s TestSettings, opts ...Option) (Result, string, error) {
	t.Helper()
	dir := t.TempDir()
	var res Result
	var err error
	synctest.Test(t, func(t *testing.T) {
		res, err = StartTest(context.Background(), sut, &fakeQSL{total: 32, perf: 16}, s, goldenLogSettings(dir), append([]Option{withSpin(0)}, opts...)...)
	})
	return res, string(readLog(t, dir, "detail.txt")), err
}

func TestInvalidResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		respond func(r *Responder, samples []QuerySample) error
		wantErr string
		wantLog string
	}{
		{
			name: "completed twice",
			respond: func(r *Responder, samples []QuerySample) error {
				require.NoError(t, completeAll(r, samples))
				return completeAll(r, samples)
			},
			wantErr: "Attempted to complete a sample twice.",
			wantLog: `"key": "error_runtime", "value": "Attempted to complete a sample twice."`,
		},
		{
			name: "unknown id",
			respond: func(r *Responder, samples []QuerySample) error {
				require.NoError(t, completeAll(r, samples))
				return r.QuerySamplesComplete([]QuerySampleResponse{{ID: 1 << 40}})
			},
			wantErr: "unknown sample",
			wantLog: "Received completion for an unknown sample. id: 1099511627776",
		},
		{
			name: "not issued yet",
			respond: func(r *Responder, samples []QuerySample) error {
				require.NoError(t, completeAll(r, samples))
				return r.QuerySamplesComplete([]QuerySampleResponse{{ID: samples[len(samples)-1].ID + 1}})
			},
			wantErr: "not issued yet",
			wantLog: "Received completion for a sample not issued yet.",
		},
		{
			name: "first token after completion",
			respond: func(r *Responder, samples []QuerySample) error {
				require.NoError(t, completeAll(r, samples))
				return r.FirstTokenComplete([]QuerySampleResponse{{ID: samples[0].ID}})
			},
			wantErr: "after sample was completed",
			wantLog: "Attempted to record token latency after sample was completed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var errMu sync.Mutex
			var sutErrs []error
			sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
				if err := tt.respond(r, samples); err != nil {
					errMu.Lock()
					sutErrs = append(sutErrs, err)
					errMu.Unlock()
				}
				return nil
			}}
			res, detail, err := runSynctest(t, sut, smallSettings(SingleStream))
			require.NoError(t, err)
			require.NotEmpty(t, sutErrs)
			assert.ErrorIs(t, sutErrs[0], ErrBadResponse)
			assert.Contains(t, sutErrs[0].Error(), tt.wantErr)
			assert.False(t, res.Valid)
			require.NotNil(t, res.Performance)
			assert.False(t, res.Performance.Valid)
			assert.Positive(t, res.Performance.RuntimeErrors)
			assert.Contains(t, res.Performance.InvalidReasons, sutErrorRecommendation)
			assert.NotEmpty(t, res.Errors)
			assert.Contains(t, detail, tt.wantLog)
			assert.Contains(t, detail, `"is_error": true`)
			assert.Contains(t, detail, `"key": "result_validity", "value": "INVALID"`)
		})
	}
}

// TestFailedSamples: a sample the SUT completes with Err ends like any
// other (the run finishes) but is logged as a runtime error and makes the
// run invalid; the other samples' responses are accepted.
func TestFailedSamples(t *testing.T) {
	t.Parallel()
	for _, sc := range []Scenario{SingleStream, Server, Offline} {
		t.Run(sc.String(), func(t *testing.T) {
			t.Parallel()
			sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
				resp := make([]QuerySampleResponse, len(samples))
				for i, s := range samples {
					resp[i] = QuerySampleResponse{ID: s.ID, Data: []byte{1}}
					if s.ID%7 == 3 {
						resp[i] = QuerySampleResponse{ID: s.ID, Err: errors.New("device lost")}
					}
				}
				return r.QuerySamplesComplete(resp)
			}}
			res, detail, err := runSynctest(t, sut, smallSettings(sc))
			require.NoError(t, err, "failed samples are the SUT's report, not a rejected response")
			require.NotNil(t, res.Performance)
			assert.False(t, res.Valid)
			assert.Positive(t, res.Performance.RuntimeErrors)
			assert.Contains(t, res.Performance.InvalidReasons, sutErrorRecommendation)
			assert.Regexp(t, `"key": "error_runtime", "value": "The SUT failed sample id: \d+: device lost"`, detail)
			assert.Contains(t, detail, `"key": "result_validity", "value": "INVALID"`)
		})
	}
}

func TestCompletionOfOldSample(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var first []QuerySample
	var oldErr error
	sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = append([]QuerySample(nil), samples...)
		} else if oldErr == nil && samples[0].ID > first[len(first)-1].ID+40 {
			// A performance query: answer an accuracy sample again.
			oldErr = r.QuerySamplesComplete([]QuerySampleResponse{{ID: first[0].ID}})
		}
		return completeAll(r, samples)
	}}
	s := smallSettings(SingleStream)
	s.Mode = SubmissionRun
	res, detail, err := runSynctest(t, sut, s)
	require.NoError(t, err)
	require.Error(t, oldErr)
	assert.Contains(t, detail, "Received completion for an old sample. Min expected id: 32 Actual id: 0")
	assert.False(t, res.Valid)
}

func TestCanceledRunWritesLogs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		var held []QuerySample
		var r *Responder
		var mu sync.Mutex
		sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, resp *Responder) error {
			mu.Lock()
			defer mu.Unlock()
			held, r = append(held, samples...), resp
			return nil // never completes
		}}
		s := smallSettings(Server)
		s.MinDuration = 10 * time.Second
		go func() {
			time.Sleep(time.Second)
			cancel(errors.New("operator pressed ^C"))
		}()
		res, err := StartTest(ctx, sut, &fakeQSL{total: 32, perf: 16}, s, goldenLogSettings(dir), withSpin(0), WithDrainTimeout(100*time.Millisecond))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "operator pressed ^C")
		assert.False(t, res.Valid)
		require.NotNil(t, res.Performance)
		assert.Equal(t, uint64(0), res.Performance.SamplesCompleted)

		// The SUT answers after the run: rejected, counted, no panic.
		mu.Lock()
		late := r.QuerySamplesComplete([]QuerySampleResponse{{ID: held[0].ID}})
		mu.Unlock()
		require.ErrorIs(t, late, ErrRunEnded)
		assert.Equal(t, int64(1), r.Late())
		assert.False(t, r.ResponseLogged(held[0].ID))
	})
	detail := string(readLog(t, dir, "detail.txt"))
	assert.Contains(t, detail, "Ending early: the run was canceled: operator pressed ^C")
	assert.Contains(t, detail, "Encountered incomplete samples at the end of a series of queries. count: ")
	summary := string(readLog(t, dir, "summary.txt"))
	assert.Contains(t, summary, "Result is : INVALID")
	assert.Contains(t, summary, "ERROR")
	assert.True(t, strings.HasSuffix(string(readLog(t, dir, "accuracy.json")), "\n]\n"))
}

func TestIssueQueryError(t *testing.T) {
	t.Parallel()
	sut := funcSUT{issue: func(context.Context, []QuerySample, *Responder) error {
		return errors.New("device lost")
	}}
	res, detail, err := runSynctest(t, sut, smallSettings(Offline))
	require.NoError(t, err)
	assert.False(t, res.Valid)
	assert.Contains(t, detail, "Ending early: IssueQuery failed: device lost")
}

func TestQSLLoadError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		qsl := &fakeQSL{total: 32, perf: 16, loadErr: errors.New("disk full")}
		_, err := StartTest(context.Background(), newFakeSUT(nil), qsl, smallSettings(Offline), goldenLogSettings(dir), withSpin(0))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "disk full")
	})
	assert.Contains(t, string(readLog(t, dir, "detail.txt")), "LoadSamplesToRAM failed: disk full")
}

func TestStartTestRejects(t *testing.T) {
	t.Parallel()
	bad := DefaultTestSettings()
	bad.Scenario = Server
	bad.ServerTargetQPS = 0
	tests := []struct {
		name     string
		settings TestSettings
		ls       LogSettings
		want     error
	}{
		{name: "invalid settings", settings: bad, ls: LogSettings{OutDir: t.TempDir()}, want: ErrInvalidSettings},
		{name: "no output directory", settings: DefaultTestSettings(), ls: LogSettings{}, want: ErrNoOutDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := StartTest(context.Background(), newFakeSUT(nil), &fakeQSL{total: 4, perf: 4}, tt.settings, tt.ls)
			require.ErrorIs(t, err, tt.want)
		})
	}
	t.Run("output directory missing", func(t *testing.T) {
		t.Parallel()
		_, err := StartTest(context.Background(), newFakeSUT(nil), &fakeQSL{total: 4, perf: 4}, DefaultTestSettings(), LogSettings{OutDir: t.TempDir() + "/nope"})
		require.Error(t, err)
	})
	t.Run("started twice", func(t *testing.T) {
		t.Parallel()
		s := smallSettings(Offline)
		rn, err := NewRun(newFakeSUT(nil), &fakeQSL{total: 4, perf: 4}, s, LogSettings{OutDir: t.TempDir()})
		require.NoError(t, err)
		_, err = rn.Start(context.Background())
		require.NoError(t, err)
		_, err = rn.Start(context.Background())
		require.ErrorIs(t, err, ErrStarted)
	})
}

func TestCalibrateSpin(t *testing.T) {
	t.Parallel()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	spin := calibrateSpin(timer)
	assert.GreaterOrEqual(t, spin, minSpin)
	assert.LessOrEqual(t, spin, maxSpin)
}
