package benchmarks

import (
	"slices"
	"strconv"
	"time"
)

// DemoName is the bundled demo benchmark's name.
const DemoName = "fashion-mnist"

// demoMinQueries are the demo's min_query_count settings: what early
// stopping needs to accept a run with no query over the bound at the
// scenario's percentile; Offline's is the data set (a sample count:
// LoadGen's Offline has one query).
var demoMinQueries = map[Scenario]int{SingleStream: 256, MultiStream: 662, Server: 1024, Offline: 1000}

// demo returns the bundled Fashion-MNIST benchmark as a row of round r.
// It follows the round's rules where they are not about a model: the
// mlperf.conf lines for every model (seeds, percentiles, samples per
// query), and, being an image classifier, ResNet-50's audits with their
// audit.config values. Its own rules: runs of a second, not of ten
// minutes, so that a whole submission runs in minutes on a laptop, and a
// Server bound of 100 ms (RetinaNet's): its WASM CNN answers in about 3 ms,
// but a shared or virtualized machine adds tails well past ResNet-50's
// 15 ms (p99 31 ms at 20 QPS measured under SCHED_FIFO on a loaded 2-core
// VM), and the demo's Server run should be VALID wherever it runs.
func demo(r *Round, conf map[string]string, audits map[string]map[string]string) Benchmark {
	vision := []Scenario{SingleStream, MultiStream, Offline}
	b := Benchmark{
		Name: DemoName, SubmissionName: DemoName, Round: r.Name, Demo: true,
		Task: "image classification (demo)", Model: "Fashion-MNIST CNN (plugins/onnx/fashionmnist)",
		Dataset:     "Fashion-MNIST test, first 1000 images",
		DatasetSize: 1000, PerformanceSampleCount: 1000,
		// The reference is PyTorch FP32's top-1 on the bundled subset.
		Quality:           Quality{Top1, 88.70, 0.99},
		DeltaPct:          map[Metric]float64{Top1: 1},
		LatencyConstraint: map[Scenario]time.Duration{Server: 100 * time.Millisecond},
		Required: map[Category][]Scenario{
			Edge: vision, Datacenter: {Server, Offline}, DatacenterEdge: append(slices.Clone(vision), Server),
		},
		// The checker's minimums, as for an MLPerf benchmark: queries where
		// early stopping does not judge (Offline: its one query), and
		// Offline's samples per query in the closed division.
		MinQueries:                map[Scenario]int{Offline: 1},
		OfflineMinSamplesPerQuery: demoMinQueries[Offline],
		Audits:                    []Test{TEST01, TEST04},
		MinDuration:               time.Second,
	}
	b.Targets = []Quality{b.Quality}
	// Lines per scenario: under LoadGen's precedence *.Scenario.key beats
	// fashion-mnist.*.key.
	own := map[string]string{
		DemoName + ".Server.target_latency": strconv.FormatInt(b.LatencyConstraint[Server].Milliseconds(), 10),
	}
	for sc, n := range demoMinQueries {
		prefix := DemoName + "." + string(sc) + "."
		own[prefix+"min_query_count"] = strconv.Itoa(n)
		own[prefix+"min_duration"] = strconv.FormatInt(b.MinDuration.Milliseconds(), 10)
		own[prefix+"performance_sample_count_override"] = strconv.Itoa(b.PerformanceSampleCount)
	}
	lines := map[string]string{}
	for k, v := range conf {
		lines[k] = v
	}
	for k, v := range own {
		lines[k] = v
	}
	b.Settings = resolveAll(lines, DemoName)
	if a, ok := audits["TEST01/resnet50"]; ok {
		b.setAudit(TEST01, a)
	}
	if a, ok := audits["TEST04"]; ok {
		b.setAudit(TEST04, a)
	}
	return b
}
