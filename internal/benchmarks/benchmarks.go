package benchmarks

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Scenario is an MLPerf scenario name, spelled as in mlperf.conf.
type Scenario string

// The MLPerf scenarios.
const (
	SingleStream Scenario = "SingleStream"
	MultiStream  Scenario = "MultiStream"
	Server       Scenario = "Server"
	Offline      Scenario = "Offline"
)

// Scenarios lists every scenario in the order MLPerf documents them.
func Scenarios() []Scenario { return []Scenario{SingleStream, MultiStream, Server, Offline} }

// Category is a submission system category.
type Category string

// The categories of the submission rules.
const (
	Edge       Category = "edge"
	Datacenter Category = "datacenter"
)

// Test is a compliance test (audit) of the submission rules.
type Test string

// The compliance tests mlperf-host runs.
const (
	TEST01 Test = "TEST01" // accuracy verification: sampled responses in performance mode
	TEST04 Test = "TEST04" // caching detection: one sample index repeated
	TEST05 Test = "TEST05" // alternate random seeds
)

// Metric names a quality metric.
type Metric string

// The quality metrics of the table. Only Top1 has a checker in
// mlperf-host (package accuracy); the others are listed so that the table
// and the submission checker know the targets.
const (
	Top1  Metric = "acc"
	MAP   Metric = "mAP"
	F1    Metric = "F1"
	AUC   Metric = "AUC"
	DICE  Metric = "DICE"
	ROUGE Metric = "ROUGE1"
	WER   Metric = "WER"
	FID   Metric = "FID_SCORE"
)

// Quality is a benchmark's quality target: Fraction of the reference
// model's Reference score, both in the metric's own unit (percent for
// acc, mAP, F1, AUC, ROUGE).
type Quality struct {
	Metric    Metric
	Reference float64
	Fraction  float64
}

// Target returns the score a run must reach: Reference × Fraction.
func (q Quality) Target() float64 { return q.Reference * q.Fraction }

// String reads "acc ≥ 75.6954 (99% of 76.46)".
func (q Quality) String() string {
	return fmt.Sprintf("%s >= %.4f (%g%% of %g)", q.Metric, q.Target(), q.Fraction*100, q.Reference)
}

// Benchmark is one row of the table.
type Benchmark struct {
	// Name is the model key of mlperf.conf, e.g. "resnet50".
	Name string
	// SubmissionName is the benchmark's directory name in a submission
	// tree, e.g. "resnet".
	SubmissionName string
	Task           string
	Model          string
	Dataset        string
	// DatasetSize is the number of samples of the whole data set, run in
	// accuracy mode.
	DatasetSize int
	// PerformanceSampleCount is how many samples fit in memory for
	// performance mode (performance_sample_count_override).
	PerformanceSampleCount int
	Quality                Quality
	// ServerLatency is the Server scenario's latency bound; 0 when the
	// benchmark has no Server scenario bound.
	ServerLatency time.Duration
	// Required lists the scenarios a submission must have per category.
	Required map[Category][]Scenario
	// Compliance lists the audits a submission must include.
	Compliance []Test
	// Demo marks mlperf-host's own bundled benchmark, not an MLPerf one.
	Demo bool
	// Minimums overrides the MLPerf run minimums per scenario; nil for
	// the MLPerf benchmarks, which all use [OfficialMinimums].
	Minimums map[Scenario]Minimum
	// Tolerance is how much worse a compliance run's result may be than
	// the performance run's (TEST01, TEST05) or better (TEST04), as a
	// fraction; 0 means the official 0.10.
	Tolerance float64
}

// ComplianceTolerance returns b's Tolerance, or the official 0.10.
func (b Benchmark) ComplianceTolerance() float64 {
	if b.Tolerance > 0 {
		return b.Tolerance
	}
	return 0.10
}

// Minimum is what a valid performance run must reach in a scenario:
// both the duration and the query count (samples for Offline).
type Minimum struct {
	Duration time.Duration
	Queries  int
}

// OfficialMinimums returns the MLPerf Inference minimums for a scenario
// (the official mlperf.conf and submission checker); datasetSize caps
// Offline's sample count.
func OfficialMinimums(sc Scenario, datasetSize int) Minimum {
	switch sc {
	case SingleStream:
		return Minimum{10 * time.Minute, 1024}
	case MultiStream, Server:
		return Minimum{10 * time.Minute, 270336}
	}
	return Minimum{10 * time.Minute, min(24576, datasetSize)}
}

// Minimum returns the run minimums of scenario sc for b.
func (b Benchmark) Minimum(sc Scenario) Minimum {
	if m, ok := b.Minimums[sc]; ok {
		return m
	}
	return OfficialMinimums(sc, b.DatasetSize)
}

// Requires reports the scenarios category requires, in table order.
func (b Benchmark) Requires(c Category) []Scenario { return slices.Clone(b.Required[c]) }

// ErrUnknown is wrapped by Lookup's error for a name not in the table.
var ErrUnknown = errors.New("unknown benchmark")

// Lookup returns the benchmark named name (its mlperf.conf key or its
// submission name).
func Lookup(name string) (Benchmark, error) {
	for _, b := range All() {
		if b.Name == name || b.SubmissionName == name {
			return b, nil
		}
	}
	return Benchmark{}, fmt.Errorf("%w %q: want one of %s", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Names lists the benchmarks' mlperf.conf keys in table order.
func Names() []string {
	all := All()
	names := make([]string, len(all))
	for i, b := range all {
		names[i] = b.Name
	}
	return names
}

// DemoName is the bundled demo benchmark's name.
const DemoName = "fashion-mnist"

var (
	vision = map[Category][]Scenario{
		Edge:       {SingleStream, MultiStream, Offline},
		Datacenter: {Server, Offline},
	}
	edgeSSOffline = func(dc ...Scenario) map[Category][]Scenario {
		return map[Category][]Scenario{Edge: {SingleStream, Offline}, Datacenter: dc}
	}
)

// All returns the table: the MLPerf Inference benchmarks mlperf-host knows
// (figures from the official mlperf.conf and submission checker), then the
// demo benchmark.
func All() []Benchmark {
	return []Benchmark{
		{
			Name: "resnet50", SubmissionName: "resnet", Task: "image classification", Model: "ResNet50-v1.5",
			Dataset: "ImageNet 2012 validation (224x224)", DatasetSize: 50000, PerformanceSampleCount: 1024,
			Quality: Quality{Top1, 76.46, 0.99}, ServerLatency: 15 * time.Millisecond,
			Required: vision, Compliance: []Test{TEST01, TEST04, TEST05},
		},
		{
			Name: "retinanet", SubmissionName: "retinanet", Task: "object detection", Model: "RetinaNet",
			Dataset: "OpenImages (800x800)", DatasetSize: 24781, PerformanceSampleCount: 64,
			Quality: Quality{MAP, 37.55, 0.99}, ServerLatency: 100 * time.Millisecond,
			Required: vision, Compliance: []Test{TEST01, TEST05},
		},
		{
			Name: "bert", SubmissionName: "bert-99", Task: "language processing", Model: "BERT-large",
			Dataset: "SQuAD v1.1 (seq 384)", DatasetSize: 10833, PerformanceSampleCount: 10833,
			Quality: Quality{F1, 90.874, 0.99}, ServerLatency: 130 * time.Millisecond,
			Required: edgeSSOffline(Server, Offline), Compliance: []Test{TEST01, TEST05},
		},
		{
			Name: "3d-unet", SubmissionName: "3d-unet-99", Task: "medical image segmentation", Model: "3D-UNet",
			Dataset: "KiTS 2019", DatasetSize: 43, PerformanceSampleCount: 43,
			Quality:  Quality{DICE, 0.86170, 0.99},
			Required: edgeSSOffline(Offline), Compliance: []Test{TEST01, TEST05},
		},
		{
			Name: "rnnt", SubmissionName: "rnnt", Task: "speech to text", Model: "RNN-T",
			Dataset: "LibriSpeech dev-clean", DatasetSize: 2513, PerformanceSampleCount: 2513,
			Quality: Quality{WER, 7.452, 0.99}, ServerLatency: time.Second,
			Required: edgeSSOffline(Server, Offline), Compliance: []Test{TEST01, TEST05},
		},
		{
			Name: "gptj", SubmissionName: "gptj-99", Task: "summarization", Model: "GPT-J 6B",
			Dataset: "CNN-DailyMail", DatasetSize: 13368, PerformanceSampleCount: 13368,
			Quality: Quality{ROUGE, 42.9865, 0.99}, ServerLatency: 20 * time.Second,
			Required: edgeSSOffline(Server, Offline), Compliance: []Test{TEST05},
		},
		{
			Name: "dlrm-v2", SubmissionName: "dlrm-v2-99", Task: "recommendation", Model: "DLRM-DCNv2",
			Dataset: "Criteo multi-hot", DatasetSize: 330067, PerformanceSampleCount: 204800,
			Quality: Quality{AUC, 80.31, 0.99}, ServerLatency: 60 * time.Millisecond,
			Required: map[Category][]Scenario{Datacenter: {Server, Offline}}, Compliance: []Test{TEST01, TEST05},
		},
		{
			Name: "stable-diffusion-xl", SubmissionName: "stable-diffusion-xl", Task: "text to image", Model: "SDXL 1.0",
			Dataset: "COCO-2014", DatasetSize: 5000, PerformanceSampleCount: 5000,
			Quality: Quality{FID, 23.01085758, 1}, ServerLatency: 20 * time.Second,
			Required: edgeSSOffline(Server, Offline), Compliance: []Test{TEST01, TEST04, TEST05},
		},
		{
			Name: DemoName, SubmissionName: DemoName, Task: "image classification (demo)",
			Model: "Fashion-MNIST CNN (plugins/onnx/fashionmnist)", Dataset: "Fashion-MNIST test, first 1000 images",
			DatasetSize: 1000, PerformanceSampleCount: 1000,
			// The reference is PyTorch FP32's top-1 on the bundled subset.
			Quality: Quality{Top1, 88.70, 0.99}, ServerLatency: 15 * time.Millisecond,
			Required: vision, Compliance: []Test{TEST01, TEST04, TEST05}, Demo: true,
			// The demo's own rules: runs of seconds, not of ten minutes, so
			// that a whole submission runs in minutes on a laptop. The
			// query counts are what early stopping needs to accept a run
			// with no query over the bound at the scenario's percentile.
			Minimums: map[Scenario]Minimum{
				SingleStream: {time.Second, 256}, MultiStream: {time.Second, 662},
				Server: {time.Second, 1024}, Offline: {time.Second, 1000},
			},
			// Second-long runs on a shared machine vary more than ten-minute
			// ones: the demo's compliance runs may differ by half.
			Tolerance: 0.5,
		},
	}
}
