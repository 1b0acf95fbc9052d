package loadgen

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rulesConf has the shape of the official mlperf.conf: wildcards, per-model
// overrides, seeds and token keys.
const rulesConf = `# The format of this config file is 'key = value'.
resnet50.*.performance_sample_count_override = 1024
*.*.qsl_rng_seed = 1780908523862526354
*.*.sample_index_rng_seed = 14771362308971278857
*.*.schedule_rng_seed = 18209322760996052031
*.*.test05_qsl_rng_seed = 7975553102935885558
*.SingleStream.target_latency_percentile = 90
*.SingleStream.min_duration = 600000
*.MultiStream.target_latency_percentile = 99
*.MultiStream.samples_per_query = 8
*.MultiStream.min_query_count = 662
*.Server.target_latency = 10
*.Server.target_latency_percentile = 99
*.Server.target_duration = 0
resnet50.Server.target_latency = 15
llama2-70b.*.use_token_latencies = 1
llama2-70b.Server.ttft_latency = 2000
llama2-70b.Server.tpot_latency = 200
resnet50.Offline.min_query_count = 24576
*.SingleStream.target_latency = 10
*.Server.target_qps = 1.0
*.Offline.target_qps = 1.0
`

func mustParse(t *testing.T, content, name string) *Config {
	t.Helper()
	c, err := ParseConfig(strings.NewReader(content), name)
	require.NoError(t, err)
	return c
}

func TestConfigApplyRules(t *testing.T) {
	t.Parallel()
	rules := mustParse(t, rulesConf, "mlperf.conf")
	user := mustParse(t, "resnet50.Server.target_qps = 2500\n*.*.qsl_rng_seed = 1\nresnet50.Server.coalesce_queries = 1\n", "user.conf")

	s, err := rules.Apply(DefaultTestSettings(), "resnet50", Server, MLPerfConf)
	require.NoError(t, err)
	s, err = user.Apply(s, "resnet50", Server, UserConf)
	require.NoError(t, err)

	assert.Equal(t, uint64(1024), s.PerformanceSampleCountOverride)
	assert.Equal(t, uint64(1780908523862526354), s.QSLRNGSeed, "user.conf must not set seeds")
	assert.Equal(t, uint64(14771362308971278857), s.SampleIndexRNGSeed)
	assert.Equal(t, 15*time.Millisecond, s.ServerTargetLatency, "model line beats wildcard")
	assert.InDelta(t, 0.99, s.ServerTargetLatencyPercentile, 1e-12)
	assert.InDelta(t, 0.9, s.SingleStreamTargetLatencyPercentile, 1e-12, "read for every scenario at once")
	assert.Equal(t, 10*time.Millisecond, s.SingleStreamExpectedLatency)
	assert.Equal(t, uint64(8), s.MultiStreamSamplesPerQuery)
	assert.InDelta(t, 2500.0, s.ServerTargetQPS, 0)
	assert.True(t, s.ServerCoalesceQueries)
	assert.Equal(t, 10*time.Second, s.MinDuration, "no Server min_duration in these rules")
	assert.Equal(t, uint64(100), s.MinQueryCount, "the Offline count is not read for Server")
	assert.False(t, s.UseTokenLatencies)
}

func TestConfigTokenLatencies(t *testing.T) {
	t.Parallel()
	rules := mustParse(t, rulesConf, "mlperf.conf")
	s, err := rules.Apply(DefaultTestSettings(), "llama2-70b", Offline, MLPerfConf)
	require.NoError(t, err)
	assert.True(t, s.UseTokenLatencies)
	assert.Equal(t, 2*time.Second, s.ServerTTFTLatency, "read from the Server lines whatever the scenario")
	assert.Equal(t, 200*time.Millisecond, s.ServerTPOTLatency)
}

func TestConfigKinds(t *testing.T) {
	t.Parallel()
	audit := mustParse(t, `*.*.mode = 2
*.*.accuracy_log_rng_seed = 720381539243781796
*.*.accuracy_log_sampling_target = 1024
*.*.qsl_rng_seed = 5
*.*.test05 = 1
*.Offline.performance_issue_unique = 1
`, "audit.config")
	tests := []struct {
		name      string
		kind      ConfigKind
		wantSeed  uint64
		wantTest5 bool
	}{
		{name: "rules file sets seeds", kind: MLPerfConf, wantSeed: 5, wantTest5: true},
		{name: "user file cannot", kind: UserConf, wantSeed: 0},
		{name: "audit file cannot", kind: AuditConf, wantSeed: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := audit.Apply(DefaultTestSettings(), "*", Offline, tt.kind)
			require.NoError(t, err)
			assert.Equal(t, tt.wantSeed, s.QSLRNGSeed)
			assert.Equal(t, tt.wantTest5, s.Test05)
			assert.Equal(t, PerformanceOnly, s.Mode)
			assert.Equal(t, uint64(720381539243781796), s.AccuracyLogRNGSeed)
			assert.Equal(t, uint64(1024), s.AccuracyLogSamplingTarget)
			assert.True(t, s.PerformanceIssueUnique)
		})
	}
}

func TestConfigPrecedence(t *testing.T) {
	t.Parallel()
	c := mustParse(t, `*.*.min_query_count = 1
m.*.min_query_count = 2
*.Server.min_query_count = 3
m.Server.min_query_count = 4
m.Server.min_query_count = 5
`, "p.conf")
	tests := []struct {
		name     string
		model    string
		scenario Scenario
		want     uint64
	}{
		{name: "exact, last line wins", model: "m", scenario: Server, want: 5},
		{name: "scenario wildcard beats model wildcard", model: "x", scenario: Server, want: 3},
		{name: "model wildcard", model: "m", scenario: Offline, want: 2},
		{name: "both wildcards", model: "x", scenario: Offline, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := c.Apply(DefaultTestSettings(), tt.model, tt.scenario, UserConf)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.MinQueryCount)
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{name: "word value", content: "a.b.c = yes\n", want: []string{`x.conf:1: key "a.b.c": value "yes" needs to be an integer or a double`}},
		{name: "no equal sign", content: "\n\na.b.c 5\n", want: []string{`x.conf:3: key "a.b.c": expected 'key = value'`}},
		// The official parser takes "#" as a value once it wants one.
		{name: "trailing comment", content: "a.b.c = 5 # five\n", want: []string{`x.conf:1: key "a.b.c": value "#" needs to be an integer or a double`}},
		{name: "two errors", content: "a = b\nc d\n", want: []string{"x.conf:1:", "x.conf:2:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseConfig(strings.NewReader(tt.content), "x.conf")
			require.Error(t, err)
			assert.Nil(t, c)
			assert.ErrorIs(t, err, ErrInvalidConfig)
			var ce *ConfigError
			assert.ErrorAs(t, err, &ce)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestParseConfigAccepts(t *testing.T) {
	t.Parallel()
	c := mustParse(t, "# comment\n\n   \t\r\n#nospace\na.b.c\t=\t0x10\r\nd.e.f = 1 2\ng.h.i =\n", "ok.conf")
	v, _, ok := c.Lookup("a", "b", "c")
	require.True(t, ok)
	assert.Equal(t, "0x10", v)
	v, line, ok := c.Lookup("d", "e", "f")
	require.True(t, ok)
	assert.Equal(t, "2", v, "the last value on a line wins")
	assert.Equal(t, 6, line)
	ignored := c.Ignored()
	require.Len(t, ignored, 2)
	assert.Equal(t, 4, ignored[0].Line)
	assert.Equal(t, "#nospace", ignored[0].Key)
	assert.Equal(t, 7, ignored[1].Line)
}

func TestConfigInvalidMode(t *testing.T) {
	t.Parallel()
	c := mustParse(t, "\n*.*.mode = 7\n", "u.conf")
	in := DefaultTestSettings()
	out, err := c.Apply(in, "m", SingleStream, UserConf)
	require.Error(t, err)
	assert.Equal(t, in, out)
	assert.Contains(t, err.Error(), `u.conf:2: key "mode": invalid mode 7`)
}

func TestConfigModelName(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{name: "accuracy suffix", in: "bert-99.9", want: "bert"},
		{name: "other suffix", in: "llama2-70b-99", want: "llama2-70b"},
		{name: "interactive kept", in: "llama2-70b-interactive-99", want: "llama2-70b-interactive"},
		{name: "legacy alias", in: "resnet", want: "resnet50"},
		{name: "unchanged", in: "resnet50", want: "resnet50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ConfigModelName(tt.in))
		})
	}
}

func TestLoadConfigMissing(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(t.TempDir() + "/missing.conf")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.conf")
}

func FuzzParseConfig(f *testing.F) {
	f.Add(rulesConf)
	f.Add("a.b.c = 0x1p3 4\n#x\n= = =\n")
	f.Add("*.*.mode = 3\nm.Server.target_qps = nan(1)\n")
	f.Fuzz(func(t *testing.T, content string) {
		c, err := ParseConfig(strings.NewReader(content), "f.conf")
		if err != nil {
			require.Nil(t, c)
			require.ErrorIs(t, err, ErrInvalidConfig)
			return
		}
		for _, kind := range []ConfigKind{MLPerfConf, UserConf, AuditConf} {
			for sc := SingleStream; sc <= Offline; sc++ {
				_, _ = c.Apply(DefaultTestSettings(), "m", sc, kind)
			}
		}
	})
}

// TestConfigAccuracySampleCountOverride reads the key as the official
// FromConfig does: from every kind of file, for the run's scenario, as an
// integer count (the gpt-oss-120b lines of the official 6.0 mlperf.conf).
func TestConfigAccuracySampleCountOverride(t *testing.T) {
	t.Parallel()
	const conf = "gpt-oss-120b.*.performance_sample_count_override = 6396\n" +
		"gpt-oss-120b.*.accuracy_sample_count_override = 4395\n"
	tests := []struct {
		name  string
		model string
		kind  ConfigKind
		want  uint64
	}{
		{name: "mlperf.conf", model: "gpt-oss-120b", kind: MLPerfConf, want: 4395},
		{name: "user.conf", model: "gpt-oss-120b", kind: UserConf, want: 4395},
		{name: "audit.config", model: "gpt-oss-120b", kind: AuditConf, want: 4395},
		{name: "another model", model: "llama2-70b", kind: MLPerfConf, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := mustParse(t, conf, tt.name).Apply(DefaultTestSettings(), tt.model, Offline, tt.kind)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.AccuracySampleCountOverride)
		})
	}
}
