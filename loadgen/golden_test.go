package loadgen

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serviceTime is a deterministic, slightly uneven per-sample service time.
func serviceTime(base, step time.Duration) func(uint64) time.Duration {
	return func(idx uint64) time.Duration { return base + time.Duration(idx%5)*step }
}

type goldenCase struct {
	name     string
	settings func(*TestSettings)
	qsl      *fakeQSL
	service  func(uint64) time.Duration
	tokens   int64
	opts     []Option
	check    func(t *testing.T, res Result)
}

func baseSettings() TestSettings {
	s := DefaultTestSettings()
	s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed = seedQSL, seedSample, seedSchedule
	s.MinDuration = time.Second
	s.MinQueryCount = 100
	return s
}

func goldenCases(t *testing.T) []goldenCase {
	audit := mustParse(t, "*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 20\n", "audit.config")
	return []goldenCase{
		{
			name:     "singlestream_performance",
			settings: func(s *TestSettings) {},
			qsl:      &fakeQSL{total: 64, perf: 16},
			service:  serviceTime(time.Millisecond, 100*time.Microsecond),
			check: func(t *testing.T, res Result) {
				p := res.Performance
				require.NotNil(t, p)
				assert.True(t, p.Valid)
				assert.Equal(t, "90.0th percentile latency (ns)", p.MetricName)
				assert.InDelta(t, float64(1400*time.Microsecond), p.Metric, 1)
			},
		},
		{
			name: "multistream_performance",
			settings: func(s *TestSettings) {
				s.Scenario = MultiStream
				s.MinQueryCount = 662
				s.MultiStreamExpectedLatency = 2 * time.Millisecond
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(200*time.Microsecond, 20*time.Microsecond),
			check: func(t *testing.T, res Result) {
				p := res.Performance
				assert.True(t, p.Valid)
				require.NotNil(t, p.QueryLatency)
				assert.Equal(t, uint64(662*8), p.SamplesCompleted)
			},
		},
		{
			name: "server_performance",
			settings: func(s *TestSettings) {
				s.Scenario = Server
				s.ServerTargetQPS = 500
				s.ServerTargetLatency = 10 * time.Millisecond
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(time.Millisecond, 50*time.Microsecond),
			check: func(t *testing.T, res Result) {
				p := res.Performance
				assert.True(t, p.Valid, p.InvalidReasons)
				assert.Equal(t, "Completed samples per second", p.MetricName)
				assert.InDelta(t, 500, p.Metric, 50)
				require.NotNil(t, p.IssueDelay)
				assert.Zero(t, p.IssueDelay.Max, "fake time issues exactly on schedule")
			},
		},
		{
			name: "server_overloaded",
			settings: func(s *TestSettings) {
				s.Scenario = Server
				s.ServerTargetQPS = 500
				s.ServerTargetLatency = 10 * time.Millisecond
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(2500*time.Microsecond, 50*time.Microsecond),
			check: func(t *testing.T, res Result) {
				p := res.Performance
				assert.False(t, p.Valid)
				assert.False(t, p.PerfConstraintsMet)
				assert.Contains(t, p.InvalidReasons, "Reduce target QPS to improve latency.")
			},
		},
		{
			name: "offline_performance",
			settings: func(s *TestSettings) {
				s.Scenario = Offline
				s.OfflineExpectedQPS = 1000
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(time.Millisecond, 0),
			check: func(t *testing.T, res Result) {
				p := res.Performance
				assert.True(t, p.Valid)
				assert.Equal(t, uint64(1100), p.SamplesCompleted)
				assert.InDelta(t, 1000, p.SamplesPerSecond, 1)
			},
		},
		{
			name: "offline_too_short",
			settings: func(s *TestSettings) {
				s.Scenario = Offline
				s.OfflineExpectedQPS = 1000
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(500*time.Microsecond, 0),
			check: func(t *testing.T, res Result) {
				p := res.Performance
				assert.False(t, p.Valid)
				assert.False(t, p.MinDurationMet)
			},
		},
		{
			name:     "singlestream_accuracy",
			settings: func(s *TestSettings) { s.Mode = AccuracyOnly },
			qsl:      &fakeQSL{total: 40, perf: 16},
			service:  serviceTime(time.Millisecond, 0),
			check: func(t *testing.T, res Result) {
				assert.Nil(t, res.Performance)
				assert.Equal(t, 40, res.AccuracySamples)
				assert.True(t, res.Valid)
			},
		},
		{
			name: "multistream_accuracy",
			settings: func(s *TestSettings) {
				s.Scenario = MultiStream
				s.Mode = AccuracyOnly
				s.MultiStreamSamplesPerQuery = 4
			},
			qsl:     &fakeQSL{total: 20, perf: 16},
			service: serviceTime(100*time.Microsecond, 0),
			check: func(t *testing.T, res Result) {
				assert.Equal(t, 20, res.AccuracySamples, "starts 0, 4, 8, 12 in the first set of 16; start 0 in the last set of 4")
			},
		},
		{
			name: "offline_submission",
			settings: func(s *TestSettings) {
				s.Scenario = Offline
				s.Mode = SubmissionRun
				s.OfflineExpectedQPS = 1000
			},
			qsl:     &fakeQSL{total: 24, perf: 16},
			service: serviceTime(time.Millisecond, 0),
			check: func(t *testing.T, res Result) {
				assert.Equal(t, 24, res.AccuracySamples)
				require.NotNil(t, res.Performance)
				assert.True(t, res.Valid)
			},
		},
		{
			name: "offline_submission_accuracy_sample_count",
			settings: func(s *TestSettings) {
				s.Scenario = Offline
				s.Mode = SubmissionRun
				s.OfflineExpectedQPS = 1000
				s.AccuracySampleCountOverride = 20
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(time.Millisecond, 0),
			check: func(t *testing.T, res Result) {
				assert.Equal(t, 20, res.AccuracySamples, "QSL indices 0 to 19, in a set of 16 and one of 4")
				require.NotNil(t, res.Performance)
			},
		},
		{
			name: "server_test01",
			settings: func(s *TestSettings) {
				s.Scenario = Server
				s.ServerTargetQPS = 200
				s.ServerTargetLatency = 20 * time.Millisecond
				s.MinQueryCount = 500
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(time.Millisecond, 0),
			opts:    []Option{WithAuditConfig(audit)},
			check: func(t *testing.T, res Result) {
				require.Len(t, res.Warnings, 1)
				assert.Contains(t, res.Warnings[0], "audit.config")
			},
		},
		{
			name: "server_tokens",
			settings: func(s *TestSettings) {
				s.Scenario = Server
				s.ServerTargetQPS = 300
				s.UseTokenLatencies = true
				s.ServerTTFTLatency = 10 * time.Millisecond
				s.ServerTPOTLatency = 5 * time.Millisecond
				s.MinQueryCount = 500
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(2*time.Millisecond, 0),
			tokens:  10,
			check: func(t *testing.T, res Result) {
				p := res.Performance
				assert.True(t, p.Valid, p.InvalidReasons)
				require.NotNil(t, p.FirstToken)
				assert.Equal(t, 500*time.Microsecond, p.FirstToken.Min)
				assert.Equal(t, p.SamplesCompleted*10, p.Tokens)
			},
		},
		{
			name: "server_find_peak",
			settings: func(s *TestSettings) {
				s.Scenario = Server
				s.Mode = FindPeakPerformance
				s.ServerTargetQPS = 100
				s.ServerTargetLatency = 10 * time.Millisecond
				s.ServerFindPeakQPSDecimalsOfPrecision = 0
				s.MinDuration = 500 * time.Millisecond
			},
			qsl:     &fakeQSL{total: 64, perf: 16},
			service: serviceTime(time.Millisecond, 0),
			check: func(t *testing.T, res Result) {
				p := res.Performance
				require.NotNil(t, p)
				assert.Greater(t, p.PeakQPS, 400.0)
				assert.Less(t, p.PeakQPS, 1000.0)
			},
		},
	}
}

func TestGoldenLogs(t *testing.T) {
	t.Parallel()
	for _, tc := range goldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				sut := newFakeSUT(tc.service)
				sut.tokens = tc.tokens
				if tc.service != nil {
					sut.start()
					defer sut.stop()
				}
				s := baseSettings()
				tc.settings(&s)
				opts := append([]Option{withSpin(0)}, tc.opts...)
				res, err := StartTest(context.Background(), sut, tc.qsl, s, goldenLogSettings(dir), opts...)
				require.NoError(t, err)
				assert.Equal(t, s.Scenario, res.Scenario)
				assert.Equal(t, "FakeSUT", res.SUTName)
				tc.check(t, res)
				assert.Equal(t, len(tc.qsl.loads), tc.qsl.unloads, "every load is unloaded")
			})
			for _, log := range []string{"summary.txt", "detail.txt", "accuracy.json"} {
				checkGolden(t, tc.name+"."+strings.TrimSuffix(strings.TrimSuffix(log, ".txt"), ".json"), readLog(t, dir, log))
			}
		})
	}
}

// TestGoldenLogsMatchOfficial checks the golden logs against what the
// official C++ LoadGen 6.0.17 wrote for the same settings
// (testdata/official/golden_cases.list says how): the accuracy log byte
// for byte (by SHA-256) and every loaded_qsl_set of the detail log. The
// golden files themselves are written by this package (-update); this
// keeps an update from drifting away from the official.
func TestGoldenLogsMatchOfficial(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("testdata", "official", "golden_cases.list"))
	require.NoError(t, err)
	defer f.Close()
	type official struct {
		name   string
		sha    string
		loaded []string
	}
	var cases []*official
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), " ")
		switch key {
		case "case":
			cases = append(cases, &official{name: val})
		case "accuracy_sha256":
			cases[len(cases)-1].sha = val
		case "loaded_qsl_set":
			cases[len(cases)-1].loaded = append(cases[len(cases)-1].loaded, val)
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, cases)
	loadedRE := regexp.MustCompile(`"key": "loaded_qsl_set", "value": (\[[0-9,]*\])`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			acc, err := os.ReadFile(filepath.Join("testdata", c.name+".accuracy.golden"))
			require.NoError(t, err)
			sum := sha256.Sum256(acc)
			assert.Equal(t, c.sha, hex.EncodeToString(sum[:]), "accuracy log differs from the official")
			detail, err := os.ReadFile(filepath.Join("testdata", c.name+".detail.golden"))
			require.NoError(t, err)
			var loaded []string
			for _, m := range loadedRE.FindAllStringSubmatch(string(detail), -1) {
				loaded = append(loaded, m[1])
			}
			assert.Equal(t, c.loaded, loaded, "loaded sets differ from the official")
		})
	}
}
