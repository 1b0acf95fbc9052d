package benchmarks

import (
	"fmt"
	"strings"
)

// ResultMetric is a run's result as the round's submission checker
// reports it: the value its get_performance_metric_check reads and its
// summary prints.
type ResultMetric struct {
	// Key is the detail log key read ("result_tokens_per_second",
	// "early_stopping_latency_ss").
	Key string
	// Value is in Unit: "samples/s" or "tokens/s"; "ms" for SingleStream
	// and MultiStream (the checker's unit: the early-stopping estimate),
	// "s" for a video benchmark's.
	Value float64
	Unit  string
	// Latency marks a latency (lower is better).
	Latency bool
	// Inferred marks a result inferred from a run of another scenario:
	// Offline from SingleStream or MultiStream, MultiStream from
	// SingleStream.
	Inferred bool
}

// ResultOf returns the result of a run that logged scenario run (its
// effective_scenario) in a results directory of scenario dir, as the
// round's checker computes it: the round's result field of run's scenario
// (b's own where it has one: tokens per second for LLMs), in ms for
// SingleStream and MultiStream; a result inferred from another scenario's
// run converted as the checker converts it. value reads a number of the
// run's detail log.
//
// # Errors
//
// Naming the key the log lacks, or a scenario the round has no result
// field for.
func (r *Round) ResultOf(b Benchmark, run, dir Scenario, value func(key string) (float64, bool)) (ResultMetric, error) {
	field := r.ResultFields[run]
	if field == "" {
		return ResultMetric{}, fmt.Errorf("no result field for a %q run in round %s", run, r.Name)
	}
	if f, ok := b.ResultFields[run]; ok {
		field = f
	}
	v, ok := value(field)
	if !ok {
		return ResultMetric{}, fmt.Errorf("no result %s", field)
	}
	m := ResultMetric{Key: field, Value: v, Unit: "samples/s"}
	if strings.Contains(field, "tokens") {
		m.Unit = "tokens/s"
	}
	if run == SingleStream || run == MultiStream {
		m.Value, m.Unit, m.Latency = v/1e6, "ms", true
		if b.SubmissionName == "wan-2.2-t2v-a14b" {
			m.Value, m.Unit = m.Value/1e3, "s"
		}
	}
	if run == dir || (run == Server && dir == Interactive) {
		return m, nil
	}
	switch {
	case run == SingleStream && dir == Offline:
		m.Key, m.Unit, m.Latency, m.Inferred = "result_qps_without_loadgen_overhead", "samples/s", false, true
		if m.Value, ok = value(m.Key); !ok {
			return ResultMetric{}, fmt.Errorf("no %s to infer Offline from", m.Key)
		}
	case run == MultiStream && dir == Offline:
		spq, ok1 := value("effective_samples_per_query")
		mean, ok2 := value("result_mean_query_latency_ns")
		if !ok1 || !ok2 || mean == 0 {
			return ResultMetric{}, fmt.Errorf("no effective_samples_per_query and result_mean_query_latency_ns to infer Offline from")
		}
		m.Key, m.Value, m.Unit, m.Latency, m.Inferred = "result_mean_query_latency_ns", spq*1000/(mean/1e6), "samples/s", false, true
	case run == SingleStream && dir == MultiStream:
		// The checker takes SingleStream's 99th percentile estimate for 8
		// samples a query.
		es, ok := value("early_stopping_latency_ms")
		switch {
		case !ok:
			return ResultMetric{}, fmt.Errorf("no early_stopping_latency_ms to infer MultiStream from")
		case es == 0:
			return ResultMetric{}, fmt.Errorf("not enough queries for an early-stopping estimate to infer MultiStream from")
		}
		m.Key, m.Value, m.Inferred = "early_stopping_latency_ms", es*8/1e6, true
	}
	return m, nil
}
