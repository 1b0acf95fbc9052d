package benchmarks

import (
	"fmt"
	"maps"
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
	// Interactive is a results directory of its own for some LLM
	// benchmarks: a LoadGen Server run under tighter latency bounds, set
	// by the mlperf.conf lines of the model "MODEL-interactive" (see
	// [Scenario.LoadGen] and [Benchmark.ConfName]).
	Interactive Scenario = "Interactive"
)

// Scenarios lists the scenarios LoadGen runs, in the order MLPerf
// documents them.
func Scenarios() []Scenario { return []Scenario{SingleStream, MultiStream, Server, Offline} }

// RunScenarios lists the scenarios a run may name: LoadGen's, then
// Interactive.
func RunScenarios() []Scenario { return append(Scenarios(), Interactive) }

// LoadGen returns the scenario LoadGen runs for s: Server for
// Interactive, s itself otherwise. Conf lines name it
// (MODEL-interactive.Server.KEY) and the logs write it
// (effective_scenario).
func (s Scenario) LoadGen() Scenario {
	if s == Interactive {
		return Server
	}
	return s
}

// Category is a submission system category: the system description's
// system_type.
type Category string

// The categories of the submission rules.
const (
	Edge           Category = "edge"
	Datacenter     Category = "datacenter"
	DatacenterEdge Category = "datacenter,edge"
)

// Categories lists the categories in the checker's order.
func Categories() []Category { return []Category{Edge, Datacenter, DatacenterEdge} }

// Test is a compliance test (audit) of the submission rules.
type Test string

// The compliance tests of rounds 5.1 to 6.1. TEST05 (alternate seeds) is
// retired since round 5.0 and no round here asks for it.
const (
	TEST01 Test = "TEST01" // accuracy verification: sampled responses in performance mode
	TEST04 Test = "TEST04" // caching detection: one sample index repeated
	TEST06 Test = "TEST06" // LLM output consistency: first token, EOS, token count
	TEST07 Test = "TEST07" // accuracy in performance mode over the whole data set (gpt-oss-120b)
	TEST08 Test = "TEST08" // streaming data set accuracy (dlrm-v3)
	TEST09 Test = "TEST09" // output token length in performance mode
)

// Metric names a quality metric as the submission checker does (the keys
// of its ACC_PATTERN table).
type Metric string

// Metrics named outside one benchmark's package (the runner's top-1, the
// detection and LLM families' shared ones), by the names a round's tables
// give them; a metric of one benchmark alone is named in its package.
const (
	Top1 Metric = "acc"
	MAP  Metric = "mAP"
	F1   Metric = "F1"
	AUC  Metric = "AUC"
	DICE Metric = "DICE"
	// The LLM benchmarks' metrics, in the rounds' patterns.
	ROUGE1          Metric = "ROUGE1"
	ROUGE2          Metric = "ROUGE2"
	ROUGEL          Metric = "ROUGEL"
	ROUGELSUM       Metric = "ROUGELSUM"
	GenLen          Metric = "GEN_LEN"
	TokensPerSample Metric = "TOKENS_PER_SAMPLE"
	ExactMatch      Metric = "exact_match"
)

// Quality is one quality target: Fraction of the reference model's
// Reference score, both in the metric's own unit (percent for acc, mAP,
// F1, AUC). Target is their product, as the checker computes it.
type Quality struct {
	Metric    Metric  `json:"metric"`
	Reference float64 `json:"reference"`
	Fraction  float64 `json:"fraction"`
}

// Target returns the score a run must reach: Reference × Fraction.
func (q Quality) Target() float64 { return q.Reference * q.Fraction }

// String reads "acc >= 75.6954 (99% of 76.46)".
func (q Quality) String() string {
	return fmt.Sprintf("%s >= %.4f (%g%% of %g)", q.Metric, q.Target(), q.Fraction*100, q.Reference)
}

// Limit is an upper bound on a metric (a generation length, say).
type Limit struct {
	Metric Metric  `json:"metric"`
	Limit  float64 `json:"limit"`
}

// Setting is one LoadGen setting of an official conf file (mlperf.conf or
// an audit.config) as it applies to one model and scenario: Pattern is the
// winning line's key ("resnet50.Server.target_latency"). From, when set,
// says where a setting no line of the file gives comes from (an
// Interactive bound of the round's checker).
type Setting struct {
	Key, Value, Pattern string
	From                string
}

// TokenLimits are the token latency bounds of an LLM benchmark's Server
// or Interactive run.
type TokenLimits struct {
	TTFT time.Duration
	TPOT time.Duration
}

// Benchmark is one row of a round's table.
type Benchmark struct {
	// Name is the LoadGen model name of mlperf.conf and user.conf, e.g.
	// "resnet50"; empty for benchmarks mlperf.conf does not list.
	Name string
	// SubmissionName is the benchmark's name in the checker and its
	// directory in a submission tree, e.g. "resnet" or "bert-99.9".
	SubmissionName string
	// Round is the round the row belongs to ("v6.1").
	Round string
	// Task, Model and Dataset describe the benchmark for people.
	Task, Model, Dataset string
	// DatasetSize is the number of samples of the whole data set.
	DatasetSize int
	// AccuracySampleCount is how many samples an accuracy run covers per
	// scenario ("" for every scenario); DatasetSize where absent.
	AccuracySampleCount map[Scenario]int
	// PerformanceSampleCount is how many samples a performance run must
	// load (the checker's minimum).
	PerformanceSampleCount int
	// Quality is the first quality target; Targets all of them, which
	// TargetsFor narrows per scenario.
	Quality  Quality
	Targets  []Quality
	byScen   map[Scenario][]Quality
	Upper    []Limit
	DeltaPct map[Metric]float64
	// LatencyConstraint is the largest target_latency a run of the
	// scenario may use, per scenario.
	LatencyConstraint map[Scenario]time.Duration
	// TokenLatency is the TTFT/TPOT bound of an LLM's Server and
	// Interactive runs.
	TokenLatency map[Scenario]TokenLimits
	// Required and Optional list the scenarios per category. A category
	// absent from Required is one the benchmark is not part of.
	Required map[Category][]Scenario
	Optional map[Category][]Scenario
	// MinQueries is the checker's minimum query count per scenario
	// (checked where early stopping does not apply: Offline).
	MinQueries map[Scenario]int
	// OfflineMinSamplesPerQuery is the closed division's minimum Offline
	// query size.
	OfflineMinSamplesPerQuery int
	// LLM marks a benchmark whose runs must log token latencies.
	LLM bool
	// ResultFields replaces the round's metric key for some scenarios
	// (tokens per second for LLMs).
	ResultFields map[Scenario]string
	// AccuracyExtraFiles are the directories of the accuracy directory
	// and the file names (without extension) they must hold (the images
	// of a text-to-image benchmark).
	AccuracyExtraFiles map[string][]string
	// Audits lists the compliance tests a closed submission must include.
	Audits []Test
	// Settings are the official mlperf.conf's settings for each scenario.
	Settings map[Scenario][]Setting
	// AuditConfigs are the lines (pattern = value) of the official
	// audit.config of each test (a test absent: the round publishes none
	// for the model); AuditSettings what LoadGen takes from them in each
	// scenario. LoadGen applies an audit.config for model "*", so a line
	// naming a model never applies.
	AuditConfigs  map[Test]map[string]string
	AuditSettings map[Test]map[Scenario][]Setting
	// EOSTokenIDs are an LLM's end-of-sequence token ids (its tokenizer's
	// and generation config's), which TEST06 checks outputs with.
	EOSTokenIDs []int64
	// Demo marks mlperf-host's own bundled benchmark, not an MLPerf one.
	Demo bool
	// MinDuration replaces the round's minimum run duration; 0 for the
	// MLPerf benchmarks. Only the demo sets it.
	MinDuration time.Duration
}

// Requires reports the scenarios category requires, in table order, and
// whether the benchmark belongs to the category at all.
func (b Benchmark) Requires(c Category) ([]Scenario, bool) {
	s, ok := b.Required[c]
	return slices.Clone(s), ok
}

// Allows reports whether sc may be submitted in category c: required or
// optional.
func (b Benchmark) Allows(c Category, sc Scenario) bool {
	return slices.Contains(b.Required[c], sc) || slices.Contains(b.Optional[c], sc)
}

// TargetsFor returns the quality targets of scenario sc.
func (b Benchmark) TargetsFor(sc Scenario) []Quality {
	if t, ok := b.byScen[sc]; ok {
		return slices.Clone(t)
	}
	return slices.Clone(b.Targets)
}

// AccuracySamples returns how many samples an accuracy run of sc covers.
func (b Benchmark) AccuracySamples(sc Scenario) int {
	if n, ok := b.AccuracySampleCount[sc]; ok {
		return n
	}
	if n, ok := b.AccuracySampleCount[""]; ok {
		return n
	}
	return b.DatasetSize
}

// ResultField returns the detail log key of scenario sc's metric under
// round r's rules.
func (b Benchmark) ResultField(r *Round, sc Scenario) string {
	if f, ok := b.ResultFields[sc]; ok {
		return f
	}
	return r.ResultFields[sc]
}

// ConfName returns the model name b's conf lines use in scenario sc:
// "MODEL-interactive" for Interactive, else its mlperf.conf model name
// (its submission name when mlperf.conf lists none).
func (b Benchmark) ConfName(sc Scenario) string {
	name := b.Name
	if name == "" {
		name = b.SubmissionName
	}
	if sc == Interactive {
		return name + InteractiveSuffix
	}
	return name
}

// InteractiveSuffix ends the mlperf.conf model name of a benchmark's
// Interactive runs ("llama3_1-8b-interactive").
const InteractiveSuffix = "-interactive"

// HasInteractive reports whether some category of the round submits b's
// Interactive scenario.
func (b Benchmark) HasInteractive() bool {
	for _, cat := range Categories() {
		if b.Allows(cat, Interactive) {
			return true
		}
	}
	return false
}

// Audited reports whether b's closed submissions include test t.
func (b Benchmark) Audited(t Test) bool { return slices.Contains(b.Audits, t) }

// AuditConfigText returns the audit.config of test t as a file, one
// "pattern = value" line per setting, sorted; false when the round
// publishes none for b.
func (b Benchmark) AuditConfigText(t Test) (string, bool) {
	lines, ok := b.AuditConfigs[t]
	if !ok {
		return "", false
	}
	var sb strings.Builder
	for _, k := range slices.Sorted(maps.Keys(lines)) {
		sb.WriteString(k + " = " + lines[k] + "\n")
	}
	return sb.String(), true
}
