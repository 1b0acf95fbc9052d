package loadgen

import (
	"context"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// fakeQSL is a data set of total samples that records what is loaded.
type fakeQSL struct {
	total, perf uint64
	mu          sync.Mutex
	loads       [][]uint64
	unloads     int
	loadErr     error
}

func (q *fakeQSL) Name() string                   { return "FakeQSL" }
func (q *fakeQSL) TotalSampleCount() uint64       { return q.total }
func (q *fakeQSL) PerformanceSampleCount() uint64 { return q.perf }

func (q *fakeQSL) LoadSamplesToRAM(_ context.Context, idx []uint64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.loads = append(q.loads, append([]uint64(nil), idx...))
	return q.loadErr
}

func (q *fakeQSL) UnloadSamplesFromRAM(context.Context, []uint64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.unloads++
	return nil
}

// fakeSUT answers every sample after a deterministic service time, one
// sample at a time in issue order, on one worker goroutine: under
// testing/synctest its timing, and so every log byte, is reproducible.
// With no service time it completes inline, inside IssueQuery.
type fakeSUT struct {
	service func(idx uint64) time.Duration
	// tokens > 0 sends a first token after a quarter of the service time
	// and completes with that many tokens.
	tokens int64

	mu      sync.Mutex
	queue   []QuerySample
	r       *Responder
	wake    chan struct{}
	done    chan struct{}
	stopped chan struct{}
	flushes int
	issues  int
}

func newFakeSUT(service func(uint64) time.Duration) *fakeSUT {
	return &fakeSUT{service: service, wake: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
}

// start runs the worker until stop; tests must call stop.
func (s *fakeSUT) start() {
	go func() {
		defer close(s.stopped)
		for {
			s.mu.Lock()
			if len(s.queue) == 0 {
				s.mu.Unlock()
				select {
				case <-s.wake:
					continue
				case <-s.done:
					return
				}
			}
			qs := s.queue[0]
			s.queue = s.queue[1:]
			r := s.r
			s.mu.Unlock()
			s.serve(r, qs)
		}
	}()
}

func (s *fakeSUT) stop() {
	close(s.done)
	<-s.stopped
}

func sampleData(idx uint64) []byte {
	return binary.LittleEndian.AppendUint32(nil, uint32(idx*7+3))
}

func (s *fakeSUT) serve(r *Responder, qs QuerySample) {
	d := s.service(qs.Index)
	if s.tokens > 0 {
		time.Sleep(d / 4)
		_ = r.FirstTokenComplete([]QuerySampleResponse{{ID: qs.ID, Data: []byte{0xAB}}})
		time.Sleep(d - d/4)
	} else if d > 0 {
		time.Sleep(d)
	}
	_ = r.QuerySamplesComplete([]QuerySampleResponse{{ID: qs.ID, Data: sampleData(qs.Index), NTokens: s.tokens}})
}

func (s *fakeSUT) Name() string { return "FakeSUT" }

func (s *fakeSUT) IssueQuery(_ context.Context, samples []QuerySample, r *Responder) error {
	s.mu.Lock()
	s.issues++
	if s.service == nil {
		s.mu.Unlock()
		resp := make([]QuerySampleResponse, len(samples))
		for i, qs := range samples {
			resp[i] = QuerySampleResponse{ID: qs.ID, Data: sampleData(qs.Index), NTokens: s.tokens}
		}
		return r.QuerySamplesComplete(resp)
	}
	s.r = r
	s.queue = append(s.queue, samples...)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

func (s *fakeSUT) FlushQueries(context.Context) error {
	s.mu.Lock()
	s.flushes++
	s.mu.Unlock()
	return nil
}

// goldenLogSettings writes to dir with everything that varies between
// machines pinned.
func goldenLogSettings(dir string) LogSettings {
	return LogSettings{
		OutDir:   dir,
		Location: time.UTC,
		PID:      4242,
		Version: VersionInfo{
			Version: "test", GitRevision: "0000000", BuildDateLocal: "2000-01-01T00:00:00",
			BuildDateUTC: "2000-01-01T00:00:00", GitCommitDate: "2000-01-01T00:00:00", GitLog: "", GitStatus: "",
			FileSHA1: map[string]string{"/loadgen.go": "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		},
	}
}

// checkGolden compares got with testdata/<name>.golden, or rewrites it
// with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./loadgen/... -update")
	require.Equal(t, string(want), string(got), "%s differs from the golden file; rerun with -update if the change is intended", path)
}

func readLog(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "mlperf_log_"+name))
	require.NoError(t, err)
	return b
}
