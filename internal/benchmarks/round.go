package benchmarks

import (
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The round tables, extracted from the official mlcommons/inference
// repository by scripts/rounds/gen_rounds.py (see docs/submission.md).
//
//go:embed rounds/*.json
var roundFiles embed.FS

// Newest is the default round.
const Newest = "v6.1"

// RoundNames lists the rounds mlperf-host knows, oldest first.
func RoundNames() []string { return []string{"v5.1", "v6.0", "v6.1"} }

// Seeds are the official LoadGen seeds of a round.
type Seeds struct {
	QSL, SampleIndex, Schedule string
}

// Round is one MLPerf Inference round's rules: seeds, benchmarks, what
// the checker requires of a submission tree and where it looks.
type Round struct {
	Name string
	// LoadGenVersion is the official LoadGen VERSION.txt of the round's
	// commit ("6.0.17").
	LoadGenVersion string
	// Sources names where the table's facts come from.
	Sources map[string]string
	Seeds   Seeds
	// Paths are the checker's path templates ({division}, {submitter},
	// {system}, {benchmark}, {scenario}, {file}), keyed by the checker's
	// constant name in lower case ("performance_log_path").
	Paths map[string]string
	// Divisions, Availabilities: the values a system description may use.
	Divisions, Availabilities []string
	// SystemFields are the keys a system description must have;
	// MeaningfulFields those that must not be empty (or 0).
	SystemFields, MeaningfulFields []string
	// MeasurementsFields are the keys measurements.json must have, non
	// empty; MeasurementsFiles the files next to it.
	MeasurementsFields, MeasurementsFiles []string
	// PerformanceFiles, AccuracyFiles, CompliancePerformanceFiles and
	// TEST01AccuracyFiles are the file lists the checker compares.
	PerformanceFiles, AccuracyFiles, CompliancePerformanceFiles, TEST01AccuracyFiles []string
	// MaxAccuracyLogSize is the largest truncated accuracy log, in bytes.
	MaxAccuracyLogSize int64
	// MinDuration is every performance run's minimum min_duration.
	MinDuration time.Duration
	// ResultFields is the detail log key of each scenario's metric.
	ResultFields map[Scenario]string
	// AccuracyPatterns are the checker's regular expressions that read a
	// metric from accuracy.txt (Python syntax; RE2 accepts them).
	AccuracyPatterns map[Metric]string
	// EarlyStopping lists the scenarios judged by early stopping.
	EarlyStopping []Scenario
	// NetworkFields are the keys a system description with is_network
	// set must have as well.
	NetworkFields []string
	// ModelMapping maps benchmark directory names the checker accepts in
	// place of its own ("resnet50") to its names ("resnet").
	ModelMapping map[string]string
	// Power is what the checker's power checks accept.
	Power PowerRules

	benchmarks []Benchmark
}

// PowerRules are the tables of the checker's power checks
// (checks/power/power_checker.py and the constants of the files a power
// run holds).
type PowerRules struct {
	// PerformanceFiles are the files a power run's run_1 and ranging
	// directories hold besides the round's PerformanceFiles (spl.txt);
	// OptionalPerformanceFiles those they may hold.
	PerformanceFiles         []string `json:"performance_files"`
	OptionalPerformanceFiles []string `json:"optional_performance_files"`
	// PowerFiles are the files of the power directory (the PTD client's
	// and server's logs and session descriptions).
	PowerFiles []string `json:"power_files"`
	// PTDVersions are the PTD versions accepted; Meters the power
	// analyzers, by name, with their PTD device numbers.
	PTDVersions []string       `json:"ptd_versions"`
	Meters      map[string]int `json:"meters"`
	// ResultPaths are the files (relative to the performance directory)
	// whose checksums the session descriptions must record.
	ResultPaths []string `json:"result_paths"`
	// RangingErrors are the PTD errors tolerated during ranging;
	// TestingErrors those tolerated (as warnings) during testing;
	// TestingWarningsAsErrors the warnings (regular expressions) that fail
	// the testing phase.
	RangingErrors           []string `json:"ranging_errors"`
	TestingErrors           []string `json:"testing_errors"`
	TestingWarningsAsErrors []string `json:"testing_warnings_as_errors"`
	// TimeDeltaToleranceMS is the largest difference of a phase's start
	// between client and server.
	TimeDeltaToleranceMS int `json:"time_delta_tolerance_ms"`
	// Replies are the PTD replies expected to commands starting with a
	// prefix ({"SR,A", "Range A changed"}); ThirdStopReply the one expected
	// to the third Stop.
	Replies        [][2]string `json:"replies"`
	ThirdStopReply string      `json:"third_stop_reply"`
	// SourcesChecksums are the accepted checksum sets of the PTD client's
	// and server's sources.
	SourcesChecksums []map[string]string `json:"sources_checksums"`
}

// roundJSON is the file format scripts/rounds/gen_rounds.py writes.
type roundJSON struct {
	Round                      string                       `json:"round"`
	LoadGenVersion             string                       `json:"loadgen_version"`
	Sources                    map[string]string            `json:"sources"`
	Seeds                      map[string]string            `json:"seeds"`
	Paths                      map[string]string            `json:"paths"`
	Divisions                  []string                     `json:"divisions"`
	Availabilities             []string                     `json:"availabilities"`
	SystemFields               []string                     `json:"system_required_fields"`
	MeaningfulFields           []string                     `json:"system_meaningful_fields"`
	MeasurementsFields         []string                     `json:"measurements_fields"`
	MeasurementsFiles          []string                     `json:"measurements_files"`
	PerformanceFiles           []string                     `json:"performance_files"`
	AccuracyFiles              []string                     `json:"accuracy_files"`
	CompliancePerformanceFiles []string                     `json:"compliance_performance_files"`
	TEST01AccuracyFiles        []string                     `json:"test01_accuracy_files"`
	MaxAccuracyLogSize         int64                        `json:"max_accuracy_log_size"`
	MinDurationMS              int64                        `json:"min_duration_ms"`
	ResultFields               map[Scenario]string          `json:"result_fields"`
	AccuracyPatterns           map[Metric]string            `json:"accuracy_patterns"`
	EarlyStopping              []Scenario                   `json:"early_stopping_scenarios"`
	NetworkFields              []string                     `json:"system_network_fields"`
	ModelMapping               map[string]string            `json:"model_mapping"`
	Power                      PowerRules                   `json:"power"`
	MLPerfConf                 map[string]string            `json:"mlperf_conf"`
	AuditConfigs               map[string]map[string]string `json:"audit_configs"`
	Models                     []modelJSON                  `json:"models"`
}

type modelJSON struct {
	Name                string                                  `json:"name"`
	ConfName            string                                  `json:"conf_name"`
	Required            map[Category][]Scenario                 `json:"required"`
	Optional            map[Category][]Scenario                 `json:"optional"`
	Accuracy            []Quality                               `json:"accuracy"`
	AccuracyByScenario  map[Scenario][]Quality                  `json:"accuracy_by_scenario"`
	UpperLimits         []Limit                                 `json:"upper_limits"`
	DeltaPerc           map[Metric]float64                      `json:"delta_perc"`
	PerformanceSamples  int                                     `json:"performance_sample_count"`
	DatasetSize         int                                     `json:"dataset_size"`
	AccuracySampleCount map[string]int                          `json:"accuracy_sample_count"`
	LatencyConstraintNS map[Scenario]int64                      `json:"latency_constraint_ns"`
	MinQueries          map[Scenario]int                        `json:"min_queries"`
	OfflineMinSPQ       int                                     `json:"offline_min_samples_per_query"`
	TokenLimitsNS       map[Scenario]struct{ TTFT, TPOT int64 } `json:"token_latency_limits_ns"`
	LLM                 bool                                    `json:"llm"`
	Audits              []Test                                  `json:"audits"`
	ResultFields        map[Scenario]string                     `json:"result_fields"`
	AccuracyExtraFiles  map[string][]string                     `json:"accuracy_extra_files"`
}

// ErrUnknownRound is wrapped by LookupRound's error for a round not known.
var ErrUnknownRound = errors.New("unknown round")

// rounds parses the embedded tables once: they are constant data.
var rounds = sync.OnceValues(func() (map[string]*Round, error) {
	out := map[string]*Round{}
	for _, name := range RoundNames() {
		b, err := roundFiles.ReadFile("rounds/" + name + ".json")
		if err != nil {
			return nil, err
		}
		r, err := parseRound(b)
		if err != nil {
			return nil, fmt.Errorf("round %s: %w", name, err)
		}
		out[name] = r
	}
	return out, nil
})

// LookupRound returns the round named name ("v6.1").
//
// # Errors
//
// Wraps [ErrUnknownRound], naming the rounds known.
func LookupRound(name string) (*Round, error) {
	all, err := rounds()
	if err != nil {
		return nil, err
	}
	r, ok := all[name]
	if !ok {
		return nil, fmt.Errorf("%w %q: want one of %s", ErrUnknownRound, name, strings.Join(RoundNames(), ", "))
	}
	return r, nil
}

// MustRound returns the round named name, for the names RoundNames lists.
// It panics on any other: the tables are compiled in.
func MustRound(name string) *Round {
	r, err := LookupRound(name)
	if err != nil {
		panic(err)
	}
	return r
}

func parseRound(b []byte) (*Round, error) {
	var j roundJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, err
	}
	r := &Round{
		Name: j.Round, LoadGenVersion: j.LoadGenVersion, Sources: j.Sources,
		Seeds:     Seeds{QSL: j.Seeds["qsl_rng_seed"], SampleIndex: j.Seeds["sample_index_rng_seed"], Schedule: j.Seeds["schedule_rng_seed"]},
		Paths:     j.Paths,
		Divisions: j.Divisions, Availabilities: j.Availabilities,
		SystemFields: j.SystemFields, MeaningfulFields: j.MeaningfulFields,
		MeasurementsFields: j.MeasurementsFields, MeasurementsFiles: j.MeasurementsFiles,
		PerformanceFiles: j.PerformanceFiles, AccuracyFiles: j.AccuracyFiles,
		CompliancePerformanceFiles: j.CompliancePerformanceFiles, TEST01AccuracyFiles: j.TEST01AccuracyFiles,
		MaxAccuracyLogSize: j.MaxAccuracyLogSize, MinDuration: time.Duration(j.MinDurationMS) * time.Millisecond,
		ResultFields: j.ResultFields, AccuracyPatterns: j.AccuracyPatterns, EarlyStopping: j.EarlyStopping,
		NetworkFields: j.NetworkFields, ModelMapping: j.ModelMapping, Power: j.Power,
	}
	for _, m := range j.Models {
		b := Benchmark{
			Name: m.ConfName, SubmissionName: m.Name, Round: r.Name,
			DatasetSize: m.DatasetSize, PerformanceSampleCount: m.PerformanceSamples,
			Targets: m.Accuracy, byScen: m.AccuracyByScenario, Upper: m.UpperLimits, DeltaPct: m.DeltaPerc,
			Required: m.Required, Optional: m.Optional, MinQueries: m.MinQueries,
			OfflineMinSamplesPerQuery: m.OfflineMinSPQ, LLM: m.LLM, Audits: m.Audits,
			ResultFields: m.ResultFields, AccuracyExtraFiles: m.AccuracyExtraFiles,
		}
		describe(&b)
		if len(b.Targets) == 0 {
			for _, sc := range []Scenario{Offline, Server, Interactive} {
				if t, ok := m.AccuracyByScenario[sc]; ok {
					b.Targets = t
					break
				}
			}
		}
		if len(b.Targets) == 0 {
			return nil, fmt.Errorf("model %s: no accuracy target", m.Name)
		}
		b.Quality = b.Targets[0]
		if m.AccuracySampleCount != nil {
			b.AccuracySampleCount = map[Scenario]int{}
			for k, v := range m.AccuracySampleCount {
				if k == "*" {
					k = ""
				}
				b.AccuracySampleCount[Scenario(k)] = v
			}
		}
		if m.LatencyConstraintNS != nil {
			b.LatencyConstraint = map[Scenario]time.Duration{}
			for sc, ns := range m.LatencyConstraintNS {
				b.LatencyConstraint[sc] = time.Duration(ns)
			}
		}
		if m.TokenLimitsNS != nil {
			b.TokenLatency = map[Scenario]TokenLimits{}
			for sc, l := range m.TokenLimitsNS {
				b.TokenLatency[sc] = TokenLimits{TTFT: time.Duration(l.TTFT), TPOT: time.Duration(l.TPOT)}
			}
		}
		conf := m.ConfName
		if conf == "" {
			conf = "*"
		}
		b.Settings = resolveAll(j.MLPerfConf, conf)
		if b.HasInteractive() {
			b.Settings[Interactive] = interactiveSettings(j.MLPerfConf, b)
		}
		for _, t := range b.Audits {
			key := string(t)
			switch t {
			case TEST01, TEST08:
				key += "/" + m.ConfName
			case TEST07, TEST09:
				// One directory per model: its LoadGen name, else its
				// submission name.
				key += "/" + cmp.Or(m.ConfName, m.Name)
			}
			if lines, ok := j.AuditConfigs[key]; ok {
				b.setAudit(t, lines)
			}
		}
		r.benchmarks = append(r.benchmarks, b)
	}
	r.benchmarks = append(r.benchmarks, demo(r, j.MLPerfConf, j.AuditConfigs))
	return r, nil
}

// setAudit records test t's audit.config lines and what LoadGen takes
// from them: it applies an audit.config for model "*".
func (b *Benchmark) setAudit(t Test, lines map[string]string) {
	if b.AuditConfigs == nil {
		b.AuditConfigs = map[Test]map[string]string{}
		b.AuditSettings = map[Test]map[Scenario][]Setting{}
	}
	b.AuditConfigs[t] = lines
	b.AuditSettings[t] = resolveAll(lines, "*")
	b.AuditSettings[t][Interactive] = b.AuditSettings[t][Server]
}

// interactiveSettings are the settings of b's Interactive runs: those
// mlperf.conf gives the model MODEL-interactive in Server. Where it names
// no such model (qwen3-vl in round 6.1), they are the model's Server
// settings with the checker's Interactive latency bound as target_latency
// and its Interactive sample count as performance_sample_count_override.
func interactiveSettings(lines map[string]string, b Benchmark) []Setting {
	name := b.ConfName(Interactive)
	for k := range lines {
		if strings.HasPrefix(k, name+".") {
			return resolve(lines, name, Server)
		}
	}
	out := resolve(lines, b.ConfName(Server), Server)
	set := func(key, value, from string) {
		s := Setting{Key: key, Value: value, From: from}
		if i := slices.IndexFunc(out, func(x Setting) bool { return x.Key == key }); i >= 0 {
			out[i] = s
			return
		}
		out = append(out, s)
		slices.SortFunc(out, func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
	}
	if d, ok := b.LatencyConstraint[Interactive]; ok {
		set("target_latency", strconv.FormatInt(d.Milliseconds(), 10), "the checker's Interactive latency bound")
	}
	if n, ok := b.AccuracySampleCount[Interactive]; ok {
		set("performance_sample_count_override", strconv.Itoa(n), "the checker's Interactive sample count")
	}
	return out
}

// resolveAll resolves conf lines for model in every scenario.
func resolveAll(lines map[string]string, model string) map[Scenario][]Setting {
	out := map[Scenario][]Setting{}
	for _, sc := range Scenarios() {
		out[sc] = resolve(lines, model, sc)
	}
	return out
}

// resolve returns the settings conf lines give model in scenario sc, with
// LoadGen's precedence: model.scenario, then *.scenario, then model.*,
// then *.*; sorted by key.
func resolve(lines map[string]string, model string, sc Scenario) []Setting {
	keys := map[string]bool{}
	for k := range lines {
		if parts := strings.SplitN(k, ".", 3); len(parts) == 3 {
			keys[parts[2]] = true
		}
	}
	var out []Setting
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		for _, p := range []string{model + "." + string(sc) + "." + key, "*." + string(sc) + "." + key,
			model + ".*." + key, "*.*." + key} {
			if v, ok := lines[p]; ok {
				out = append(out, Setting{Key: key, Value: v, Pattern: p})
				break
			}
		}
	}
	return out
}

// ErrUnknown is wrapped by Lookup's error for a name not in the table.
var ErrUnknown = errors.New("unknown benchmark")

// All returns the round's benchmarks in the checker's order, then the
// demo.
func (r *Round) All() []Benchmark { return slices.Clone(r.benchmarks) }

// Lookup returns the benchmark named name: its submission name
// ("bert-99"), or its mlperf.conf model name when only one benchmark has
// it ("resnet50").
//
// # Errors
//
// Wraps [ErrUnknown], naming the benchmarks of the round.
func (r *Round) Lookup(name string) (Benchmark, error) {
	for _, b := range r.benchmarks {
		if b.SubmissionName == name {
			return b, nil
		}
	}
	var found []Benchmark
	for _, b := range r.benchmarks {
		if b.Name == name {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Benchmark{}, fmt.Errorf("%w %q in round %s: want one of %s", ErrUnknown, name, r.Name, strings.Join(r.Names(), ", "))
	}
	var alts []string
	for _, b := range found {
		alts = append(alts, b.SubmissionName)
	}
	return Benchmark{}, fmt.Errorf("%w %q in round %s: it names %s; pick one", ErrUnknown, name, r.Name, strings.Join(alts, " and "))
}

// CheckerModel returns the benchmark a results directory named dir
// stands for, as the checker's get_mlperf_model reads the name: the
// checker's own name, else the round's model mapping ("resnet50"), else
// the submitter's (open/SUBMITTER/model_mapping.json, extra), else the
// name the checker guesses from a part of it ("mobilenet-edge" is
// resnet). name is the checker's name for it, whether or not the round
// has such a benchmark; ok reports whether it has.
func (r *Round) CheckerModel(dir string, extra map[string]string) (b Benchmark, name string, ok bool) {
	name = r.checkerName(dir, extra)
	for _, b := range r.benchmarks {
		if b.SubmissionName == name {
			return b, name, true
		}
	}
	return Benchmark{}, name, false
}

func (r *Round) checkerName(dir string, extra map[string]string) string {
	for _, b := range r.benchmarks {
		if b.SubmissionName == dir {
			return dir
		}
	}
	if m := r.ModelMapping[dir]; m != "" {
		return m
	}
	if m := extra[dir]; m != "" {
		return m
	}
	guess := dir
	switch {
	case strings.Contains(dir, "mobilenet"), strings.Contains(dir, "efficientnet"), strings.Contains(dir, "resnet50"):
		guess = "resnet"
	case strings.Contains(dir, "bert-99.9"):
		guess = "bert-99.9"
	case strings.Contains(dir, "bert-99"):
		guess = "bert-99"
	case strings.Contains(dir, "llama3_1-405b"):
		guess = "llama3.1-405b"
	}
	if m, ok := r.ModelMapping[guess]; ok {
		return m
	}
	return guess
}

// Names lists the benchmarks' submission names, in table order.
func (r *Round) Names() []string {
	names := make([]string, len(r.benchmarks))
	for i, b := range r.benchmarks {
		names[i] = b.SubmissionName
	}
	return names
}

// AllNames lists every name Lookup accepts in some round: submission
// names and mlperf.conf model names, sorted.
func AllNames() []string {
	set := map[string]bool{}
	for _, n := range RoundNames() {
		for _, b := range MustRound(n).benchmarks {
			set[b.SubmissionName] = true
			if b.Name != "" {
				set[b.Name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// MinDurationOf returns the minimum min_duration of b's performance runs:
// the demo's own, else the round's.
func (r *Round) MinDurationOf(b Benchmark) time.Duration {
	if b.MinDuration > 0 {
		return b.MinDuration
	}
	return r.MinDuration
}

// Path fills one of the checker's path templates.
func (r *Round) Path(template string, division, submitter, system, benchmark, scenario string) string {
	return strings.NewReplacer("{division}", division, "{submitter}", submitter, "{system}", system,
		"{benchmark}", benchmark, "{scenario}", scenario).Replace(r.Paths[template])
}
