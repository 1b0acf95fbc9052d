package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// The top-level keys. Settings (LoadGen's mlperf.conf keys) live under
// "settings.", plugin options under "options.<plugin>.".
const (
	KeyBenchmark = "benchmark"
	KeyScenario  = "scenario"
	KeyMode      = "mode"
	KeyPlugin    = "plugin"
	KeyModel     = "model"
	KeyDataset   = "dataset"
	KeyLabelMap  = "label_map"
	// KeyAudioFeatures is what a LibriSpeech data set's samples hold.
	KeyAudioFeatures = "audio_features"
	// KeyGraphSample is what an IGBH data set's samples hold.
	KeyGraphSample = "graph_sample"
	KeyOut         = "out"
	KeyMLPerfConf  = "mlperf_conf"
	KeyUserConf    = "user_conf"
	KeyProgress    = "progress"
	KeyCategory    = "category"
	KeyDivision    = "division"
	KeySubmitter   = "submitter"
	KeySystem      = "system"
	// KeyRound is the MLPerf Inference round whose rules apply.
	KeyRound = "round"
	// KeyCalibration is the closed division's calibration documentation
	// (documentation/calibration.md).
	KeyCalibration = "calibration"
	// KeyAccuracyOutput is how responses encode the predicted class for
	// the top-1 checker; "" means the benchmark's own.
	KeyAccuracyOutput = "accuracy_output"

	KeyHostInstances  = "host.instances"
	KeyHostTimeout    = "host.call_timeout"
	KeyHostMemory     = "host.memory_limit_mib"
	KeyHostGuard      = "host.guard"
	KeyHostPluginDirs = "host.plugin_dirs"
	KeyHostCacheDir   = "host.compilation_cache_dir"
	KeyHostRings      = "host.shared_rings"
	KeyHostRingSpin   = "host.ring_spin"
	// KeyHostCloseTimeout bounds how long a plugin may take to close.
	KeyHostCloseTimeout = "host.close_timeout"
	// KeyHostPIDNamespace runs each subprocess plugin in a PID namespace
	// of its own where Linux allows it (auto) or never (off).
	KeyHostPIDNamespace = "host.pid_namespace"
	// The engine behind WASM plugins' wasi-nn import (host.NN).
	KeyHostWasiNN        = "host.wasi_nn"
	KeyHostWasiNNLibrary = "host.wasi_nn_library"
	KeyHostWasiNNThreads = "host.wasi_nn_threads"
	// KeyHostLogLevel is the level of the plugins' and the host's log
	// lines shown on stderr.
	KeyHostLogLevel = "host.log_level"

	// PrefixSettings starts every LoadGen setting key.
	PrefixSettings = "settings."
	// PrefixOptions starts every plugin option key.
	PrefixOptions = "options."
	// PrefixSystemDesc starts the keys of the system description's
	// fields (systems/SYSTEM.json), e.g. system_desc.cooling.
	PrefixSystemDesc = "system_desc."
	// PrefixMeasurements starts the keys of measurements.json's fields,
	// e.g. measurements.weight_data_types.
	PrefixMeasurements = "measurements."

	// The accuracy.* keys are what a benchmark's scorer reads besides the
	// accuracy log (the official script's arguments): the ground truth,
	// the tokenizer's vocabulary, DLRM's aggregation trace, the
	// response's dtype. Empty: derived from the data set where it can be.
	KeyAccuracyTruth = "accuracy.truth"
	KeyAccuracyVocab = "accuracy.vocab"
	KeyAccuracyTrace = "accuracy.trace"
	KeyAccuracyDType = "accuracy.dtype"
	// KeyAccuracyPunkt is NLTK's punkt_tab/<language> directory, whose
	// parameters split an LLM's texts into sentences (ROUGE-Lsum); empty:
	// the embedded English ones.
	KeyAccuracyPunkt = "accuracy.punkt"
	// KeyAccuracyFeatures is the directory of the networks' outputs the
	// SDXL scorer computes FID and CLIP scores from (the reference
	// statistics, the generated images' Inception-v3 features, their CLIP
	// embeddings and their captions').
	KeyAccuracyFeatures = "accuracy.features"
	// KeyAccuracyProblems is LiveCodeBench's problems files, whose tests
	// deepseek-r1's and gpt-oss-120b's code answers run against.
	KeyAccuracyProblems = "accuracy.problems"
	// KeyTEST06EOS and KeyTEST06DType are the EOS tokens and the token
	// type TEST06 checks an LLM's outputs with.
	KeyTEST06EOS   = "test06.eos_token_id"
	KeyTEST06DType = "test06.dtype"
	// KeyTEST07Dataset is the data set TEST07 runs on (gpt-oss-120b's
	// GPQA compliance samples); KeyTEST07Script the command that scores
	// its log, as run_verification.py's --accuracy-script.
	KeyTEST07Dataset = "test07.dataset"
	KeyTEST07Script  = "test07.accuracy_script"
	// KeyAccuracyDataset is the data set submit's accuracy runs read where
	// the benchmark's accuracy set is not its performance set
	// (gpt-oss-120b's acc_eval_inputs).
	KeyAccuracyDataset = "accuracy.dataset"
)

// freeFormPrefixes start keys whose last part is any name: a system
// description or measurements field.
var freeFormPrefixes = []string{PrefixSystemDesc, PrefixMeasurements}

// Modes are the values of the mode key.
const (
	ModePerformance = "performance"
	ModeAccuracy    = "accuracy"
	ModeSubmission  = "submission"
	ModeFindPeak    = "find-peak"
)

// keySpec describes one top-level key.
type keySpec struct {
	key, help string
	// def is the built-in default; "" for none.
	def string
	checker
}

// checker validates a value; allowed describes valid values for errors.
type checker struct {
	allowed string
	check   func(string) error
}

func oneOf(vals ...string) checker {
	return checker{"one of " + strings.Join(vals, ", "), func(v string) error {
		if !slices.Contains(vals, v) {
			return errBad
		}
		return nil
	}}
}

var errBad = fmt.Errorf("not allowed")

func anyString(string) error { return nil }

func nonEmpty(v string) error {
	if v == "" {
		return errBad
	}
	return nil
}

func intRange(lo, hi int) checker {
	return checker{fmt.Sprintf("an integer from %d to %d", lo, hi), func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		if n < lo || n > hi {
			return errBad
		}
		return nil
	}}
}

func duration(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return err
	}
	if d < 0 {
		return errBad
	}
	return nil
}

func scenarioNames() []string {
	var s []string
	for _, x := range benchmarks.RunScenarios() {
		s = append(s, string(x))
	}
	return s
}

// with returns k checked by c.
func with(k keySpec, c checker) keySpec {
	k.checker = c
	return k
}

// keySpecs returns the top-level keys in the order config show prints them.
func keySpecs() []keySpec {
	str := func(allowed string, check func(string) error) checker { return checker{allowed, check} }
	return append([]keySpec{
		with(keySpec{key: KeyRound, def: benchmarks.Newest, help: "MLPerf Inference round whose rules apply (seeds, benchmarks, tree layout)"},
			oneOf(benchmarks.RoundNames()...)),
		with(keySpec{key: KeyBenchmark, def: benchmarks.DemoName, help: "benchmark of the round's table (submission name, or mlperf.conf model name)"},
			oneOf(benchmarks.AllNames()...)),
		with(keySpec{key: KeyScenario, def: string(benchmarks.Offline), help: "MLPerf scenario"}, oneOf(scenarioNames()...)),
		with(keySpec{key: KeyMode, def: ModePerformance, help: "what the run measures"},
			oneOf(ModePerformance, ModeAccuracy, ModeSubmission, ModeFindPeak)),
		{key: KeyPlugin, def: "onnx", help: "plugin name (searched in host.plugin_dirs) or path", checker: str("a plugin name or path", nonEmpty)},
		{key: KeyModel, help: "model file the plugin loads; empty: the benchmark's bundled model", checker: str("a path", anyString)},
		{key: KeyDataset, help: "data set: a directory of .npy files or a compact .mlph file; empty: the bundled one", checker: str("a path", anyString)},
		{key: KeyLabelMap, help: "label map of a .npy directory (default DIR/val_map.txt)", checker: str("a path", anyString)},
		with(keySpec{key: KeyAudioFeatures, def: "audio", help: "LibriSpeech samples (whisper): audio (float32 samples) or Whisper's log-mel features, mel128 or mel80"},
			oneOf("audio", "mel128", "mel80")),
		with(keySpec{key: KeyGraphSample, def: "seed", help: "IGBH samples (rgat): seed (the paper's node id) or neighbourhood (its sampled neighbourhood with the nodes' features)"},
			oneOf("seed", "neighbourhood")),
		{key: KeyOut, def: "mlperf-results", help: "directory the logs are written to", checker: str("a path", nonEmpty)},
		{key: KeyMLPerfConf, help: "mlperf.conf (the rules) to apply over the built-in table", checker: str("a path", anyString)},
		{key: KeyUserConf, help: "user.conf (your tuning) to apply over mlperf.conf", checker: str("a path", anyString)},
		with(keySpec{key: KeyAccuracyOutput, help: "how responses encode the class for top-1 (default: the benchmark's)"},
			oneOf("", "class-float32", "class-int32", "class-int64", "logits-float32")),
		with(keySpec{key: KeyProgress, def: "auto", help: "progress bar: auto (only on a terminal), always, never"},
			oneOf("auto", "always", "never")),
		with(keySpec{key: KeyCategory, def: string(benchmarks.Edge), help: "submission category (the system_type)"},
			oneOf(string(benchmarks.Edge), string(benchmarks.Datacenter), string(benchmarks.DatacenterEdge))),
		with(keySpec{key: KeyDivision, def: "open", help: "submission division"}, oneOf("closed", "open", "network")),
		{key: KeyCalibration, help: "calibration documentation (Markdown) of the closed division's submission", checker: str("a path", anyString)},
		{key: KeySubmitter, def: "mlperf-host", help: "submitter (organization) name in the submission tree", checker: str("a name without /", pathSafe)},
		{key: KeySystem, def: "local", help: "system name in the submission tree", checker: str("a name without /", pathSafe)},
		{key: KeyAccuracyDataset, help: "data set of submit's accuracy runs (gpt-oss-120b: acc_eval_inputs; default: the dataset key's)", checker: str("a path", anyString)},
		{key: KeyAccuracyTruth, help: "ground truth the benchmark's scorer reads (--truth of `accuracy`; default: the data set's)", checker: str("a path", anyString)},
		{key: KeyAccuracyVocab, help: "tokenizer file the scorer reads: BERT's vocab.txt, an LLM's tokenizer.json, whisper's normalizers/english.json", checker: str("a path", anyString)},
		{key: KeyAccuracyTrace, help: "DLRM aggregation trace the scorer reads with a day-23 ground truth", checker: str("a path", anyString)},
		{key: KeyAccuracyDType, help: "response dtype where the official script takes one (default: the script's)", checker: str("a dtype name", anyString)},
		{key: KeyAccuracyProblems, help: "LiveCodeBench's problems files, separated by commas (code_generation_lite's test.jsonl; gpt-oss-120b: test.jsonl to test6.jsonl), deepseek-r1's and gpt-oss-120b's code answers are tested against", checker: str("a path", anyString)},
		{key: KeyAccuracyPunkt, help: "NLTK punkt_tab/<language> directory an LLM scorer splits sentences with (default: the embedded English parameters)", checker: str("a path", anyString)},
		{key: KeyAccuracyFeatures, help: "stable-diffusion-xl: directory of the Inception-v3 statistics and features and CLIP embeddings the FID and CLIP scores are computed from", checker: str("a path", anyString)},
		{key: KeyTEST06EOS, help: "EOS token ids TEST06 checks an LLM's outputs with, comma-separated (default: the model's generation config's)",
			checker: str("comma-separated non-negative integers", uintList)},
		with(keySpec{key: KeyTEST06DType, def: "int32", help: "token type of an LLM's outputs, for TEST06"}, oneOf("int64", "int32", "int16", "float32")),
		{key: KeyTEST07Dataset, help: "data set of TEST07's run (gpt-oss-120b: acc_eval_compliance_gpqa; default: the dataset key's)", checker: str("a path", anyString)},
		{key: KeyTEST07Script, help: "command that scores TEST07's log ({accuracy_log}: its path), as the official run_verification.py's --accuracy-script (default: mlperf-host's scorer of the benchmark)",
			checker: str("a shell command", anyString)},
		with(keySpec{key: KeyHostInstances, def: "0", help: "WASM instances (0: one per CPU)"}, intRange(0, 1024)),
		{key: KeyHostTimeout, def: "5m", help: "longest call into a plugin", checker: str("a Go duration such as 30s or 5m", duration)},
		with(keySpec{key: KeyHostMemory, def: "0", help: "memory cap of each WASM instance in MiB (0: the manifest's, else 1024)"}, intRange(0, 65536)),
		with(keySpec{key: KeyHostGuard, def: "loops", help: "hang protection of WASM plugins"}, oneOf("loops", "strict", "off")),
		{key: KeyHostPluginDirs, help: "plugin directories, comma-separated (default ./plugins, the XDG data dir, next to the binary)", checker: str("comma-separated paths", anyString)},
		{key: KeyHostCacheDir, help: "WASM compilation cache (default the user cache dir)", checker: str("a path", anyString)},
		with(keySpec{key: KeyHostRings, def: "auto", help: "shared-memory rings for a subprocess plugin's samples and completions (ABI v1.1): auto offers them to a plugin that reports no first tokens (an LLM's completions go by messages, and polling its issue ring takes cores from its requests), on to every plugin, off to none"}, oneOf("auto", "on", "off")),
		{key: KeyHostRingSpin, def: "200us", help: "how long host and plugin poll an empty shared ring before they sleep (0: never poll)",
			checker: str("a Go duration such as 200us", duration)},
		{key: KeyHostCloseTimeout, def: "10s", help: "longest a plugin may take to finish its samples and close before it is stopped",
			checker: str("a Go duration such as 10s", duration)},
		with(keySpec{key: KeyHostPIDNamespace, def: "auto", help: "run each subprocess plugin in a PID namespace of its own, so every process it starts dies with it: auto (where Linux allows it) or off"},
			oneOf("auto", "off")),
		with(keySpec{key: KeyHostWasiNN, def: "ort", help: "engine behind WASM plugins' wasi-nn import: ort (ONNX Runtime, when its library loads) or off"},
			oneOf("ort", "off")),
		{key: KeyHostWasiNNLibrary, help: "ONNX Runtime library for wasi-nn (default: beside the binary, then bin/plugins/onnx-ort, then the loader's path)",
			checker: str("a path", anyString)},
		with(keySpec{key: KeyHostWasiNNThreads, def: "1", help: "intra-op threads of each wasi-nn session (one per WASM instance)"}, intRange(1, 1024)),
		with(keySpec{key: KeyHostLogLevel, def: "warn", help: "plugin and host log lines shown on stderr: debug, info, warn or error"},
			oneOf("debug", "info", "warn", "error")),
	}, append(append(poolKeySpecs(), remoteKeySpecs()...), calibrateKeySpecs()...)...)
}

// uintList is "" or comma-separated non-negative integers.
func uintList(v string) error {
	_, err := ParseIDs(v)
	return err
}

// ParseIDs reads comma-separated non-negative integers (test06.eos_token_id);
// nil for "".
func ParseIDs(v string) ([]int64, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []int64
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 63)
		if err != nil {
			return nil, err
		}
		out = append(out, int64(n))
	}
	return out, nil
}

func pathSafe(v string) error {
	if v == "" || strings.ContainsAny(v, `/\`) || v == "." || v == ".." {
		return errBad
	}
	return nil
}

func specFor(key string) (keySpec, bool) {
	for _, k := range keySpecs() {
		if k.key == key {
			return k, true
		}
	}
	return keySpec{}, false
}

// TopLevelKeys lists the keys config accepts besides settings.* and
// options.*.
func TopLevelKeys() []string {
	var keys []string
	for _, k := range keySpecs() {
		keys = append(keys, k.key)
	}
	return keys
}

// settingKind is how a LoadGen setting's value is written.
type settingKind int

const (
	kindUint settingKind = iota
	kindFloat
	kindBool // 0 or 1
	kindMode // 0 to 3
)

// settingKinds lists the mlperf.conf keys LoadGen reads (after
// model.scenario.), with how their values are written. Durations are
// integer milliseconds, as in mlperf.conf.
var settingKinds = map[string]settingKind{
	"qsl_rng_seed": kindUint, "sample_index_rng_seed": kindUint, "schedule_rng_seed": kindUint,
	"accuracy_log_rng_seed": kindUint, "accuracy_log_probability": kindFloat, "accuracy_log_sampling_target": kindUint,
	"test05": kindBool, "test05_qsl_rng_seed": kindUint, "test05_sample_index_rng_seed": kindUint, "test05_schedule_rng_seed": kindUint,
	"target_latency_percentile": kindFloat, "target_latency": kindFloat, "target_qps": kindFloat, "target_duration": kindUint,
	"min_duration": kindUint, "max_duration": kindUint, "min_query_count": kindUint, "max_query_count": kindUint,
	"mode": kindMode, "performance_sample_count_override": kindUint, "accuracy_sample_count_override": kindUint, "samples_per_query": kindUint,
	"max_async_queries": kindUint, "coalesce_queries": kindBool, "print_timestamps": kindBool,
	"performance_issue_unique": kindBool, "performance_issue_same": kindBool, "performance_issue_same_index": kindUint,
	"sample_concatenate_permutation": kindBool, "use_token_latencies": kindBool, "ttft_latency": kindUint, "tpot_latency": kindUint,
	"infer_token_latencies": kindBool, "token_latency_scaling_factor": kindUint, "constant_gen": kindBool,
	"num_issue_query_threads": kindUint, "use_grouped_qsl": kindBool, "find_peak_qps_decimals_of_precision": kindUint,
	"find_peak_qps_boundary_step_size": kindFloat,
}

// SettingKeys lists the LoadGen setting names config accepts, sorted.
func SettingKeys() []string {
	keys := make([]string, 0, len(settingKinds))
	for k := range settingKinds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkSetting validates a settings.* value and says what is allowed.
func checkSetting(name, v string) (string, error) {
	kind, ok := settingKinds[name]
	if !ok {
		return "a LoadGen setting: " + strings.Join(SettingKeys(), ", "), fmt.Errorf("unknown setting %q", name)
	}
	switch kind {
	case kindUint:
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return "a non-negative integer", err
		}
		return checkRange(name, float64(n))
	case kindFloat:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "a number", err
		}
		return checkRange(name, f)
	case kindBool:
		if v != "0" && v != "1" {
			return "0 or 1", errBad
		}
	case kindMode:
		if len(v) != 1 || v[0] < '0' || v[0] > '3' {
			return "0 (SubmissionRun) to 3 (FindPeakPerformance)", errBad
		}
	}
	return "", nil
}
