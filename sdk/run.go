package sdk

import (
	"time"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// Scenario is an MLPerf scenario, spelled as the LoadGen spells it.
type Scenario string

// The scenarios ([Server] is the plugin side of the ABI, hence the
// prefix).
const (
	ScenarioSingleStream Scenario = "SingleStream"
	ScenarioMultiStream  Scenario = "MultiStream"
	ScenarioServer       Scenario = "Server"
	ScenarioOffline      Scenario = "Offline"
)

// Mode is a LoadGen test mode.
type Mode string

// The modes.
const (
	PerformanceOnly     Mode = "PerformanceOnly"
	AccuracyOnly        Mode = "AccuracyOnly"
	SubmissionRun       Mode = "SubmissionRun"
	FindPeakPerformance Mode = "FindPeakPerformance"
)

// Run says what a model is loaded for ([Model.Run]): a backend may pick a
// scenario's engine, batch size or batching deadline from it.
type Run struct {
	// Benchmark is the mlperf.conf model name ("resnet50", "bert-99").
	Benchmark string
	Scenario  Scenario
	Mode      Mode
	Settings  TestSettings
}

// TestSettings are the LoadGen settings in effect for the run (mlperf.conf,
// user.conf and the user's overrides applied) that matter to a backend.
// Zero means unset.
type TestSettings struct {
	// TargetQPS is the Server scenario's target rate, or Offline's
	// expected rate.
	TargetQPS float64
	// TargetLatency is the Server scenario's latency bound, or the
	// SingleStream/MultiStream expected latency.
	TargetLatency time.Duration
	// TargetLatencyPercentile is the scenario's percentile (0.99 = p99).
	TargetLatencyPercentile float64
	// SamplesPerQuery is 1 for SingleStream and Server, the MultiStream
	// query size, 0 for Offline (one query of every sample).
	SamplesPerQuery uint64
	// PerformanceSampleCount is how many samples are loaded at once;
	// TotalSampleCount is the data set's size.
	PerformanceSampleCount, TotalSampleCount uint64
	MinDuration, MaxDuration                 time.Duration
	MinQueryCount, MaxQueryCount             uint64
	// MaxAsyncQueries bounds the queries in flight; 0 means no bound.
	MaxAsyncQueries uint64
	// UseTokenLatencies: an LLM run bounded by TTFTLatency (time to first
	// token) and TPOTLatency (time per output token).
	UseTokenLatencies        bool
	TTFTLatency, TPOTLatency time.Duration
}

// runFrom converts a LoadRequest's run; nil gives the zero Run.
func runFrom(r *backendv1.RunConfig) Run {
	if r == nil {
		return Run{}
	}
	s := r.GetSettings()
	d := func(ns uint64) time.Duration { return time.Duration(min(ns, 1<<63-1)) }
	return Run{
		Benchmark: r.GetBenchmark(), Scenario: Scenario(r.GetScenario()), Mode: Mode(r.GetMode()),
		Settings: TestSettings{
			TargetQPS: s.GetTargetQps(), TargetLatency: d(s.GetTargetLatencyNs()), TargetLatencyPercentile: s.GetTargetLatencyPercentile(),
			SamplesPerQuery: s.GetSamplesPerQuery(), PerformanceSampleCount: s.GetPerformanceSampleCount(),
			TotalSampleCount: s.GetTotalSampleCount(), MinDuration: d(s.GetMinDurationNs()), MaxDuration: d(s.GetMaxDurationNs()),
			MinQueryCount: s.GetMinQueryCount(), MaxQueryCount: s.GetMaxQueryCount(), MaxAsyncQueries: s.GetMaxAsyncQueries(),
			UseTokenLatencies: s.GetUseTokenLatencies(), TTFTLatency: d(s.GetTtftLatencyNs()), TPOTLatency: d(s.GetTpotLatencyNs()),
		},
	}
}

// LoadRequest is the wire form of m, as a host sends it: what a
// conformance kit or a test hands [Server.Load].
func (m Model) LoadRequest() *backendv1.LoadRequest {
	req := &backendv1.LoadRequest{ModelPath: m.Path, ModelBytes: m.Bytes, Options: m.Options}
	for _, t := range m.Inputs {
		in := &backendv1.TensorSpec{Name: t.Name, Dtype: string(t.DType)}
		for _, d := range t.Shape {
			in.Shape = append(in.Shape, int64(d))
		}
		req.Inputs = append(req.Inputs, in)
	}
	if m.Run != (Run{}) {
		s := m.Run.Settings
		ns := func(d time.Duration) uint64 { return uint64(max(d, 0)) }
		req.Run = &backendv1.RunConfig{Benchmark: m.Run.Benchmark, Scenario: string(m.Run.Scenario), Mode: string(m.Run.Mode),
			Settings: &backendv1.TestSettings{
				TargetQps: s.TargetQPS, TargetLatencyNs: ns(s.TargetLatency), TargetLatencyPercentile: s.TargetLatencyPercentile,
				SamplesPerQuery: s.SamplesPerQuery, PerformanceSampleCount: s.PerformanceSampleCount, TotalSampleCount: s.TotalSampleCount,
				MinDurationNs: ns(s.MinDuration), MaxDurationNs: ns(s.MaxDuration), MinQueryCount: s.MinQueryCount,
				MaxQueryCount: s.MaxQueryCount, MaxAsyncQueries: s.MaxAsyncQueries, UseTokenLatencies: s.UseTokenLatencies,
				TtftLatencyNs: ns(s.TTFTLatency), TpotLatencyNs: ns(s.TPOTLatency),
			}}
	}
	return req
}
