package loadgen

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// poolSUT completes samples from several goroutines at once, in batches,
// out of order: the shape of a real accelerator backend. Its workers are
// started by start and joined by stop.
type poolSUT struct {
	work    chan []QuerySample
	r       atomic.Pointer[Responder]
	wg      sync.WaitGroup
	batch   int
	logged  atomic.Int64
	answers atomic.Int64
}

func newPoolSUT(workers, batch int) *poolSUT {
	s := &poolSUT{work: make(chan []QuerySample, 1024), batch: batch}
	for w := range workers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			resp := make([]QuerySampleResponse, 0, batch)
			for samples := range s.work {
				r := s.r.Load()
				// Answer back to front, a batch at a time.
				for i := len(samples) - 1; i >= 0; i-- {
					if r.ResponseLogged(samples[i].ID) {
						s.logged.Add(1)
					}
					resp = append(resp, QuerySampleResponse{ID: samples[i].ID, Data: []byte{byte(w)}})
					if len(resp) == cap(resp) || i == 0 {
						_ = r.QuerySamplesComplete(resp)
						s.answers.Add(int64(len(resp)))
						resp = resp[:0]
					}
				}
			}
		}()
	}
	return s
}

func (s *poolSUT) Name() string                       { return "PoolSUT" }
func (s *poolSUT) FlushQueries(context.Context) error { return nil }

func (s *poolSUT) IssueQuery(_ context.Context, samples []QuerySample, r *Responder) error {
	s.r.Store(r)
	// Split the query across the workers.
	for len(samples) > 0 {
		n := min(len(samples), 4*s.batch)
		s.work <- samples[:n]
		samples = samples[n:]
	}
	return nil
}

func (s *poolSUT) stop() {
	close(s.work)
	s.wg.Wait()
}

// TestHammerConcurrentCompletions runs in real time, with completions from
// eight goroutines racing each other and a progress poller; run it with
// -race. It checks counts, not validity: timing on a busy machine varies.
func TestHammerConcurrentCompletions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		scenario Scenario
		mode     Mode
	}{
		{name: "offline performance", scenario: Offline, mode: PerformanceOnly},
		{name: "offline submission", scenario: Offline, mode: SubmissionRun},
		{name: "server performance", scenario: Server, mode: PerformanceOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sut := newPoolSUT(8, 16)
			defer sut.stop()
			s := DefaultTestSettings()
			s.Scenario, s.Mode = tt.scenario, tt.mode
			s.MinDuration = 100 * time.Millisecond
			s.MinQueryCount = 500
			s.OfflineExpectedQPS = 200000
			s.ServerTargetQPS = 5000
			s.ServerTargetLatency = time.Second
			s.AccuracyLogProbability = 0.01
			rn, err := NewRun(sut, &fakeQSL{total: 2048, perf: 1024}, s, LogSettings{OutDir: t.TempDir()})
			require.NoError(t, err)

			stopPoll := make(chan struct{})
			polled := make(chan Progress)
			go func() {
				var last Progress
				defer func() { polled <- last }()
				for {
					select {
					case <-stopPoll:
						return
					default:
					}
					p := rn.Progress()
					if p.Running {
						assert.LessOrEqual(t, p.SamplesCompleted, int64(p.SamplesGenerated))
						last = p
					}
					time.Sleep(time.Millisecond)
				}
			}()
			res, err := rn.Start(context.Background())
			close(stopPoll)
			<-polled
			require.NoError(t, err)
			require.NotNil(t, res.Performance)
			assert.Zero(t, res.Performance.RuntimeErrors)
			assert.Empty(t, res.Errors)
			assert.Equal(t, sut.answers.Load(), int64(res.Performance.SamplesCompleted)+int64(res.AccuracySamples))
			if tt.scenario == Offline {
				assert.Equal(t, uint64(22000), res.Performance.SamplesCompleted)
			}
			assert.Positive(t, sut.logged.Load())
		})
	}
}
