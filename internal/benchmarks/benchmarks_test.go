package benchmarks

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundsLoad(t *testing.T) {
	t.Parallel()
	// The official seeds of each round (the checker's MODEL_CONFIG and the
	// round's mlperf.conf agree on them).
	seeds := map[string]Seeds{
		"v5.1": {"1780908523862526354", "14771362308971278857", "18209322760996052031"},
		"v6.0": {"2465351861681999779", "14276810075590677512", "3936089224930324775"},
		"v6.1": {"2085463073848966840", "2747215439041700203", "16159082839903944936"},
	}
	for _, name := range RoundNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := LookupRound(name)
			require.NoError(t, err)
			assert.Equal(t, name, r.Name)
			assert.Equal(t, seeds[name], r.Seeds)
			assert.Equal(t, 10*time.Minute, r.MinDuration)
			assert.Equal(t, int64(10240), r.MaxAccuracyLogSize)
			assert.Len(t, r.SystemFields, 35)
			seen := map[string]bool{}
			for _, b := range r.All() {
				assert.False(t, seen[b.SubmissionName], "duplicate %s", b.SubmissionName)
				seen[b.SubmissionName] = true
				assert.Equal(t, name, b.Round)
				assert.Positive(t, b.DatasetSize, b.SubmissionName)
				assert.Positive(t, b.PerformanceSampleCount, b.SubmissionName)
				assert.Positive(t, b.Quality.Target(), b.SubmissionName)
				assert.NotEmpty(t, b.Required, b.SubmissionName)
				for _, a := range b.Audits {
					assert.NotEqual(t, Test("TEST05"), a, "TEST05 is retired")
				}
				for _, sc := range Scenarios() {
					if b.Name != "" {
						assert.NotEmpty(t, b.Settings[sc], "%s %s has mlperf.conf settings", b.SubmissionName, sc)
					}
				}
			}
			assert.True(t, seen[DemoName])
		})
	}
	_, err := LookupRound("v4.1")
	require.ErrorIs(t, err, ErrUnknownRound)
	assert.Contains(t, err.Error(), "v5.1, v6.0, v6.1")
}

func TestLookup(t *testing.T) {
	t.Parallel()
	r := MustRound("v6.1")
	tests := []struct {
		name, query, want, err string
	}{
		{name: "conf key", query: "resnet50", want: "resnet"},
		{name: "submission name", query: "resnet", want: "resnet"},
		{name: "accuracy level", query: "bert-99.9", want: "bert-99.9"},
		{name: "demo", query: DemoName, want: DemoName},
		// bert names bert-99 and bert-99.9: the user must pick.
		{name: "ambiguous conf key", query: "bert", err: "it names bert-99 and bert-99.9"},
		// retinanet left the suite in v6.1.
		{name: "not in round", query: "retinanet", err: `"retinanet" in round v6.1: want one of resnet, bert-99`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := r.Lookup(tt.query)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrUnknown)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, b.SubmissionName)
		})
	}
	_, err := MustRound("v6.0").Lookup("retinanet")
	assert.NoError(t, err, "retinanet is a v6.0 benchmark")
}

func setting(t *testing.T, s []Setting, key string) Setting {
	t.Helper()
	i := slices.IndexFunc(s, func(x Setting) bool { return x.Key == key })
	require.GreaterOrEqual(t, i, 0, "no %s in %v", key, s)
	return s[i]
}

func TestResNet50(t *testing.T) {
	t.Parallel()
	b, err := MustRound("v6.1").Lookup("resnet50")
	require.NoError(t, err)
	// The checker computes the target as 76.46 * 0.99 in float64.
	ref, frac := 76.46, 0.99
	assert.Equal(t, ref*frac, b.Quality.Target()) //nolint:testifylint // bit-exact on purpose
	assert.Equal(t, "acc >= 75.6954 (99% of 76.46)", b.Quality.String())
	assert.Equal(t, 1024, b.PerformanceSampleCount)
	assert.Equal(t, 50000, b.DatasetSize)
	assert.Equal(t, 24576, b.OfflineMinSamplesPerQuery)
	sc, ok := b.Requires(Edge)
	assert.True(t, ok)
	assert.Equal(t, []Scenario{SingleStream, MultiStream, Offline}, sc)
	_, ok = b.Requires(Datacenter)
	assert.False(t, ok, "resnet is edge-only in v6.1")
	assert.Equal(t, []Test{TEST01, TEST04}, b.Audits)
	assert.Equal(t, 15*time.Millisecond, b.LatencyConstraint[Server])
	assert.Equal(t, Setting{Key: "target_latency", Value: "15", Pattern: "resnet50.Server.target_latency"}, setting(t, b.Settings[Server], "target_latency"))
	assert.Equal(t, Setting{Key: "min_duration", Value: "600000", Pattern: "*.SingleStream.min_duration"}, setting(t, b.Settings[SingleStream], "min_duration"))
	assert.Equal(t, Setting{Key: "performance_sample_count_override", Value: "1024", Pattern: "resnet50.*.performance_sample_count_override"},
		setting(t, b.Settings[Offline], "performance_sample_count_override"))
	assert.Equal(t, "2085463073848966840", setting(t, b.Settings[Offline], "qsl_rng_seed").Value)
	assert.Equal(t, "4096", setting(t, b.AuditSettings[TEST01][Offline], "accuracy_log_sampling_target").Value)
	assert.Equal(t, "1", setting(t, b.AuditSettings[TEST04][Server], "performance_issue_same").Value)
}

func TestAuditValuesPerModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		round, bench string
		test         Test
		key, want    string
	}{
		{"v6.0", "retinanet", TEST01, "accuracy_log_sampling_target", "256"},
		{"v6.1", "3d-unet-99", TEST01, "accuracy_log_sampling_target", "64"},
		{"v6.1", "bert-99", TEST01, "accuracy_log_sampling_target", "4096"},
		{"v6.1", "llama2-70b-99.9", TEST06, "min_query_count", "100"},
	}
	for _, tt := range tests {
		t.Run(tt.round+" "+tt.bench, func(t *testing.T) {
			t.Parallel()
			b, err := MustRound(tt.round).Lookup(tt.bench)
			require.NoError(t, err)
			assert.Equal(t, tt.want, setting(t, b.AuditSettings[tt.test][Offline], tt.key).Value)
		})
	}
}

// TestAuditForEveryModel: LoadGen applies an audit.config for model "*",
// so TEST04's line for stable-diffusion-xl is in the file but never
// applies (as with the official LoadGen).
func TestAuditForEveryModel(t *testing.T) {
	t.Parallel()
	b, err := MustRound("v6.1").Lookup("stable-diffusion-xl")
	require.NoError(t, err)
	text, ok := b.AuditConfigText(TEST04)
	require.True(t, ok)
	assert.Contains(t, text, "stable-diffusion-xl.Offline.min_query_count = 500\n")
	assert.Contains(t, text, "*.Offline.performance_issue_same_index = 3\n")
	for _, s := range b.AuditSettings[TEST04][Offline] {
		assert.NotEqual(t, "min_query_count", s.Key)
	}
	_, ok = b.AuditConfigText(TEST01)
	assert.True(t, ok)
	_, ok = b.AuditConfigText(TEST06)
	assert.False(t, ok)
}

func TestSuitesPerRound(t *testing.T) {
	t.Parallel()
	v51, v61 := MustRound("v5.1"), MustRound("v6.1")
	for _, gone := range []string{"rnnt", "gptj-99"} {
		_, err := v61.Lookup(gone)
		assert.ErrorIs(t, err, ErrUnknown, gone)
	}
	dlrm, err := v51.Lookup("dlrm-v2-99")
	require.NoError(t, err)
	sc, ok := dlrm.Requires(Datacenter)
	assert.True(t, ok)
	assert.Equal(t, []Scenario{Server, Offline}, sc)
	llama, err := v61.Lookup("llama2-70b-99.9")
	require.NoError(t, err)
	assert.True(t, llama.LLM)
	assert.True(t, llama.Allows(Datacenter, Interactive))
	assert.Equal(t, TokenLimits{TTFT: 2 * time.Second, TPOT: 200 * time.Millisecond}, llama.TokenLatency[Server])
	qwen, err := v61.Lookup("qwen3-vl-235b-a22b")
	require.NoError(t, err)
	assert.Equal(t, 8000, qwen.AccuracySamples(Interactive))
	assert.Equal(t, 48289, qwen.AccuracySamples(Offline))
	assert.InDelta(t, 0.7878*0.99, qwen.TargetsFor(Interactive)[0].Target(), 1e-12)
	gpt, err := v61.Lookup("gpt-oss-120b")
	require.NoError(t, err)
	assert.Equal(t, 4395, gpt.AccuracySamples(Offline))
}

func TestDemo(t *testing.T) {
	t.Parallel()
	for _, name := range RoundNames() {
		r := MustRound(name)
		b, err := r.Lookup(DemoName)
		require.NoError(t, err)
		assert.True(t, b.Demo)
		assert.Equal(t, time.Second, r.MinDurationOf(b))
		assert.Equal(t, "1000", setting(t, b.Settings[SingleStream], "min_duration").Value)
		assert.Equal(t, "90", setting(t, b.Settings[SingleStream], "target_latency_percentile").Value, "the round's rule for every model")
		assert.Equal(t, r.Seeds.Schedule, setting(t, b.Settings[Server], "schedule_rng_seed").Value)
		dc, ok := b.Requires(Datacenter)
		assert.True(t, ok)
		assert.Equal(t, []Scenario{Server, Offline}, dc)
		assert.NotEmpty(t, b.AuditSettings[TEST01])
	}
}

func TestResultFieldsAndExtraFiles(t *testing.T) {
	t.Parallel()
	r := MustRound("v6.1")
	llama, err := r.Lookup("llama2-70b-99.9")
	require.NoError(t, err)
	assert.Equal(t, "result_tokens_per_second", llama.ResultField(r, Offline))
	assert.Equal(t, "early_stopping_latency_ss", llama.ResultField(r, SingleStream))
	wan, err := r.Lookup("wan-2.2-t2v-a14b")
	require.NoError(t, err)
	assert.Contains(t, wan.AccuracyExtraFiles["videos"], "130")
}

func TestCheckerModel(t *testing.T) {
	t.Parallel()
	r := MustRound("v5.1")
	tests := []struct {
		name, dir string
		extra     map[string]string
		want      string
		ok        bool
	}{
		{name: "the checker's own name", dir: "llama3.1-8b", want: "llama3.1-8b", ok: true},
		{name: "the round's mapping", dir: "resnet50", want: "resnet", ok: true},
		{name: "the round's mapping, llama", dir: "llama3_1-405b", want: "llama3.1-405b", ok: true},
		{name: "the submitter's mapping", dir: "llama3_1-70b-fp8_trtllm", extra: map[string]string{"llama3_1-70b-fp8_trtllm": "llama2-70b-99"},
			want: "llama2-70b-99", ok: true},
		{name: "guessed from a part", dir: "mobilenet-v2-int8", want: "resnet", ok: true},
		{name: "guessed, bert-99.9 before bert-99", dir: "x-bert-99.9-int8", want: "bert-99.9", ok: true},
		{name: "unknown", dir: "gptj-99", want: "gptj-99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, name, ok := r.CheckerModel(tt.dir, tt.extra)
			assert.Equal(t, tt.want, name)
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.want, b.SubmissionName)
			}
		})
	}
	assert.Equal(t, []string{"1.11.1"}, r.Power.PTDVersions)
	assert.Equal(t, 77, r.Power.Meters["YokogawaWT330_multichannel"])
	assert.Contains(t, r.Power.PowerFiles, "ptd_logs.txt")
	assert.NotEmpty(t, r.Power.SourcesChecksums)
	assert.Contains(t, r.NetworkFields, "network_type")
}

func TestResultOf(t *testing.T) {
	t.Parallel()
	r := MustRound("v5.1")
	llama, err := r.Lookup("llama2-70b-99")
	require.NoError(t, err)
	resnet, err := r.Lookup("resnet")
	require.NoError(t, err)
	log := map[string]float64{
		"result_samples_per_second": 371.4, "result_tokens_per_second": 101527, "result_completed_tokens_per_second": 99123,
		"result_completed_samples_per_sec": 360, "early_stopping_latency_ss": 513395, "early_stopping_latency_ms": 185351,
		"result_qps_without_loadgen_overhead": 2000, "effective_samples_per_query": 8, "result_mean_query_latency_ns": 4e6,
	}
	value := func(k string) (float64, bool) { v, ok := log[k]; return v, ok }
	tests := []struct {
		name     string
		b        Benchmark
		run, dir Scenario
		want     ResultMetric
	}{
		{name: "LLM Offline: tokens", b: llama, run: Offline, dir: Offline, want: ResultMetric{Key: "result_tokens_per_second", Value: 101527, Unit: "tokens/s"}},
		{name: "Interactive holds a Server run", b: llama, run: Server, dir: Interactive,
			want: ResultMetric{Key: "result_completed_tokens_per_second", Value: 99123, Unit: "tokens/s"}},
		{name: "SingleStream: the early-stopping estimate in ms", b: resnet, run: SingleStream, dir: SingleStream,
			want: ResultMetric{Key: "early_stopping_latency_ss", Value: 0.513395, Unit: "ms", Latency: true}},
		{name: "MultiStream from SingleStream", b: resnet, run: SingleStream, dir: MultiStream,
			want: ResultMetric{Key: "early_stopping_latency_ms", Value: 1.482808, Unit: "ms", Latency: true, Inferred: true}},
		{name: "Offline from SingleStream", b: resnet, run: SingleStream, dir: Offline,
			want: ResultMetric{Key: "result_qps_without_loadgen_overhead", Value: 2000, Unit: "samples/s", Inferred: true}},
		{name: "Offline from MultiStream", b: resnet, run: MultiStream, dir: Offline,
			want: ResultMetric{Key: "result_mean_query_latency_ns", Value: 2000, Unit: "samples/s", Inferred: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := r.ResultOf(tt.b, tt.run, tt.dir, value)
			require.NoError(t, err)
			assert.InDelta(t, tt.want.Value, got.Value, 1e-9)
			got.Value = tt.want.Value
			assert.Equal(t, tt.want, got)
		})
	}
	_, err = r.ResultOf(resnet, Offline, Offline, func(string) (float64, bool) { return 0, false })
	assert.ErrorContains(t, err, "no result result_samples_per_second")
}

func TestTEST08AuditConfig(t *testing.T) {
	t.Parallel()
	b, err := MustRound("v6.1").Lookup("dlrm-v3")
	require.NoError(t, err)
	text, ok := b.AuditConfigText(TEST08)
	require.True(t, ok)
	assert.Equal(t, "*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 4096\n*.*.mode = 2\n", text)
}
