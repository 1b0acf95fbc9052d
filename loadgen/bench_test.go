package loadgen

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nullSUT completes every sample inside IssueQuery, reusing one response
// buffer: the cheapest SUT possible, so that what is measured is the
// LoadGen. It records, per query, when IssueQuery was entered and when it
// returned.
type nullSUT struct {
	resp    []QuerySampleResponse
	enter   []int64
	leave   []int64
	origin  time.Time
	record  bool
	payload []byte
}

func (s *nullSUT) Name() string                       { return "NullSUT" }
func (s *nullSUT) FlushQueries(context.Context) error { return nil }

func (s *nullSUT) IssueQuery(_ context.Context, samples []QuerySample, r *Responder) error {
	if s.record {
		s.enter = append(s.enter, int64(time.Since(s.origin)))
	}
	if cap(s.resp) < len(samples) {
		s.resp = make([]QuerySampleResponse, len(samples))
	}
	resp := s.resp[:len(samples)]
	for i, qs := range samples {
		resp[i] = QuerySampleResponse{ID: qs.ID, Data: s.payload}
	}
	err := r.QuerySamplesComplete(resp)
	if s.record {
		s.leave = append(s.leave, int64(time.Since(s.origin)))
	}
	return err
}

// BenchmarkResponderComplete is the completion hot path alone: one sample
// per call and batches of 64. It must not allocate.
func BenchmarkResponderComplete(b *testing.B) {
	for _, batch := range []int{1, 64} {
		b.Run("batch="+strconv.Itoa(batch), func(b *testing.B) {
			const n = 1 << 20
			r := &run{logs: &logs{}}
			s := smallSettings(Offline)
			e, _ := newEffective(s, 16, 16)
			q := querySchedule{samples: make([]uint64, n), perQuery: n, queries: 1}
			p := newPhase(r, &e, PerformanceOnly, q, 0, 0)
			p.start = time.Now()
			p.watermark.Store(n)
			r.resp.phase.Store(p)
			resp := make([]QuerySampleResponse, batch)
			next := 0
			b.ReportAllocs()
			for b.Loop() {
				if next+batch > n {
					b.StopTimer()
					for i := range p.state {
						p.state[i].Store(0)
					}
					p.remaining[0].Store(n)
					next = 0
					b.StartTimer()
				}
				for i := range resp {
					resp[i].ID = uint64(next + i)
				}
				next += batch
				if err := r.resp.QuerySamplesComplete(resp); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/sample")
		})
	}
}

// BenchmarkOffline runs a whole Offline performance test of 1M samples
// against the null SUT. samples/s is the rate from the first issue to the
// last completion; ns/op is the whole StartTest, logs included.
func BenchmarkOffline(b *testing.B) {
	const samples = 1 << 20
	s := DefaultTestSettings()
	s.Scenario = Offline
	s.MinDuration = 0
	s.MinQueryCount = samples
	dir := b.TempDir()
	// The median over iterations of the rate from first issue to last
	// completion: one run's window is a few milliseconds, so a single
	// preemption moves any one figure by an order of magnitude.
	var rates []float64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		res, err := StartTest(context.Background(), &nullSUT{}, &fakeQSL{total: 50000, perf: 1024}, s, LogSettings{OutDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		rates = append(rates, float64(res.Performance.SamplesCompleted)/res.Performance.Duration.Seconds())
	}
	runtime.ReadMemStats(&after)
	slices.Sort(rates)
	b.ReportMetric(rates[len(rates)/2], "samples/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*samples), "allocs/sample")
}

// BenchmarkOfflinePeakMemory reports the process's peak resident memory
// (VmHWM) after a 1M-sample Offline run. Run it alone in a fresh process
// (make bench does) so the peak is this run's.
func BenchmarkOfflinePeakMemory(b *testing.B) {
	const samples = 1_000_000
	s := DefaultTestSettings()
	s.Scenario = Offline
	s.MinDuration = 0
	s.MinQueryCount = samples
	dir := b.TempDir()
	for b.Loop() {
		if _, err := StartTest(context.Background(), &nullSUT{}, &fakeQSL{total: 50000, perf: 1024}, s, LogSettings{OutDir: dir}); err != nil {
			b.Fatal(err)
		}
	}
	if hwm, ok := peakRSS(); ok {
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(hwm)/samples, "peak-RSS-B/sample")
	}
}

// peakRSS reads VmHWM from /proc/self/status, in bytes.
func peakRSS() (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// BenchmarkSingleStreamOverhead measures the LoadGen's turnaround in
// SingleStream: from the null SUT's completion returning to the next
// IssueQuery, per query, reported as p50 and p99.
func BenchmarkSingleStreamOverhead(b *testing.B) {
	s := DefaultTestSettings()
	s.MinDuration = 0
	s.MinQueryCount = 200000
	s.SingleStreamExpectedLatency = time.Microsecond
	dir := b.TempDir()
	var gaps []int64
	for b.Loop() {
		sut := &nullSUT{record: true, origin: time.Now()}
		if _, err := StartTest(context.Background(), sut, &fakeQSL{total: 1024, perf: 1024}, s, LogSettings{OutDir: dir}); err != nil {
			b.Fatal(err)
		}
		gaps = gaps[:0]
		for k := 1; k < len(sut.enter); k++ {
			gaps = append(gaps, sut.enter[k]-sut.leave[k-1])
		}
	}
	slices.Sort(gaps)
	b.ReportMetric(float64(gaps[len(gaps)/2]), "p50-ns/query")
	b.ReportMetric(float64(gaps[len(gaps)*99/100]), "p99-ns/query")
}

// BenchmarkServerQPS runs one-second Server tests against the null SUT at
// rising target QPS and reports the highest that is VALID with a 1 ms
// latency bound at the 99th percentile, and the issue lateness (how late
// queries left against their scheduled times) at that rate.
func BenchmarkServerQPS(b *testing.B) {
	dir := b.TempDir()
	var best float64
	var late LatencyStats
	for b.Loop() {
		best = 0
		for _, qps := range []float64{50e3, 100e3, 200e3, 500e3, 1e6, 2e6, 3e6, 4e6, 5e6, 6e6, 8e6} {
			s := DefaultTestSettings()
			s.Scenario = Server
			s.ServerTargetQPS = qps
			s.ServerTargetLatency = time.Millisecond
			s.MinDuration = time.Second
			s.MinQueryCount = 1000
			res, err := StartTest(context.Background(), &nullSUT{}, &fakeQSL{total: 1024, perf: 1024}, s, LogSettings{OutDir: dir})
			if err != nil {
				b.Fatal(err)
			}
			// Every rate runs: on a shared machine a low rate can fail
			// (the issuer descheduled) where a higher one passes.
			if res.Valid && qps > best {
				best, late = qps, *res.Performance.IssueDelay
			}
		}
	}
	b.ReportMetric(best, "max-valid-QPS")
	b.ReportMetric(float64(late.At(0.50)), "issue-late-p50-ns")
	b.ReportMetric(float64(late.At(0.99)), "issue-late-p99-ns")
}
