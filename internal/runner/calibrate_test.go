package runner

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/calibrate"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

func TestNeedsCalibration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := filepath.Join(dir, "user.conf")
	require.NoError(t, os.WriteFile(user, []byte("*.Offline.target_qps = 300\n*.SingleStream.min_duration = 2000\n"), 0o644))
	flag := func(k, v string) config.FlagValue {
		return config.FlagValue{Key: k, Value: v, Flag: "--set " + k + "=" + v}
	}
	for _, tc := range []struct {
		name    string
		flags   []config.FlagValue
		environ []string
		want    bool
	}{
		{name: "Offline of the rules", want: true},
		{name: "submission mode has a performance run", flags: []config.FlagValue{flag("mode", "submission")}, want: true},
		{name: "accuracy needs none", flags: []config.FlagValue{flag("mode", "accuracy")}},
		{name: "find-peak searches from its own rate", flags: []config.FlagValue{flag("mode", "find-peak")}},
		{name: "settings.mode of the user's is accuracy", flags: []config.FlagValue{flag("settings.mode", "1")}},
		{name: "calibrate off", flags: []config.FlagValue{flag(config.KeyCalibrateMode, config.CalibrateOff)}},
		{name: "the user's user.conf wins", flags: []config.FlagValue{flag("user_conf", user)}},
		{name: "a user.conf without the scenario's value", flags: []config.FlagValue{flag("user_conf", user), flag("scenario", "SingleStream")}, want: true},
		{name: "the user's flag wins", flags: []config.FlagValue{flag("settings.target_qps", "10")}},
		{name: "the user's environment wins", environ: []string{"MLPERF_HOST_SETTINGS__TARGET_QPS=10"}},
		// target_qps is not what SingleStream expects.
		{name: "another scenario's key", flags: []config.FlagValue{flag("scenario", "SingleStream"), flag("settings.target_qps", "10")}, want: true},
		{name: "SingleStream latency of the user's", flags: []config.FlagValue{flag("scenario", "SingleStream"), flag("settings.target_latency", "1")}},
		{name: "MultiStream", flags: []config.FlagValue{flag("scenario", "MultiStream")}, want: true},
		{name: "Server", flags: []config.FlagValue{flag("scenario", "Server")}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(config.Inputs{Flags: tc.flags, Environ: tc.environ, ReadConf: ReadConf})
			require.NoError(t, err)
			s, err := TestSettings(c)
			require.NoError(t, err)
			assert.Equal(t, tc.want, NeedsCalibration(c, s))
		})
	}
}

func TestCalibrated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, scenario string
		ch             calibrate.Choice
		check          func(t *testing.T, s loadgen.TestSettings)
	}{
		{name: "Offline", scenario: "Offline", ch: calibrate.Choice{Scenario: "Offline", Key: calibrate.KeyTargetQPS, Value: "4032", Probe: "probe: 2016 samples/s over 1.1s"},
			check: func(t *testing.T, s loadgen.TestSettings) { assert.InDelta(t, 4032, s.OfflineExpectedQPS, 0) }},
		{name: "SingleStream", scenario: "SingleStream", ch: calibrate.Choice{Scenario: "SingleStream", Key: calibrate.KeyTargetLatency, Value: "0.285", Probe: "probe: x"},
			check: func(t *testing.T, s loadgen.TestSettings) {
				assert.Equal(t, 285*time.Microsecond, s.SingleStreamExpectedLatency)
			}},
		{name: "MultiStream", scenario: "MultiStream", ch: calibrate.Choice{Scenario: "MultiStream", Key: calibrate.KeyTargetLatency, Value: "2.57", Probe: "probe: x"},
			check: func(t *testing.T, s loadgen.TestSettings) {
				assert.Equal(t, 2570*time.Microsecond, s.MultiStreamExpectedLatency)
			}},
		{name: "Server", scenario: "Server", ch: calibrate.Choice{Scenario: "Server", Key: calibrate.KeyTargetQPS, Value: "375", Probe: "probe: x"},
			check: func(t *testing.T, s loadgen.TestSettings) { assert.InDelta(t, 375, s.ServerTargetQPS, 0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(config.Inputs{Flags: []config.FlagValue{{Key: "scenario", Value: tc.scenario, Flag: "--scenario"}}})
			require.NoError(t, err)
			assert.Equal(t, tc.ch.Key, CalibrationKey(c.Scenario))
			cc := Calibrated(c, tc.ch)
			v, ok := cc.Lookup(config.PrefixSettings + tc.ch.Key)
			require.True(t, ok)
			assert.Equal(t, config.Source{Layer: config.LayerCalibration, Where: tc.ch.Probe}, v.Source)
			assert.Equal(t, "calibration "+tc.ch.Probe, v.Source.String())
			assert.False(t, cc.SetByUser(config.PrefixSettings+tc.ch.Key), "a calibrated value is not the user's")
			s, err := TestSettings(cc)
			require.NoError(t, err)
			assert.False(t, NeedsCalibration(cc, s), "calibrated once")
			tc.check(t, s)
		})
	}
}

// serialSUT answers one sample at a time, each after service, on one
// worker goroutine: under testing/synctest its timing is exact.
type serialSUT struct {
	service time.Duration
	mu      sync.Mutex
	queue   []loadgen.QuerySample
	r       *loadgen.Responder
	wake    chan struct{}
	done    chan struct{}
	wg      sync.WaitGroup
}

func newSerialSUT(service time.Duration) *serialSUT {
	s := &serialSUT{service: service, wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.wg.Go(s.work)
	return s
}

func (s *serialSUT) work() {
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		q, r := s.queue[0], s.r
		s.queue = s.queue[1:]
		s.mu.Unlock()
		time.Sleep(s.service)
		_ = r.QuerySamplesComplete([]loadgen.QuerySampleResponse{{ID: q.ID, Data: []byte{1}}})
	}
}

func (s *serialSUT) stop() {
	close(s.done)
	s.wg.Wait()
}

func (s *serialSUT) Name() string                       { return "SerialSUT" }
func (s *serialSUT) Err() error                         { return nil }
func (s *serialSUT) FlushQueries(context.Context) error { return nil }

func (s *serialSUT) IssueQuery(_ context.Context, samples []loadgen.QuerySample, r *loadgen.Responder) error {
	s.mu.Lock()
	s.r = r
	s.queue = append(s.queue, samples...)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// probeQSL is a data set of n samples that needs no loading.
type probeQSL struct{ n uint64 }

func (q probeQSL) Name() string                                         { return "ProbeQSL" }
func (q probeQSL) TotalSampleCount() uint64                             { return q.n }
func (q probeQSL) PerformanceSampleCount() uint64                       { return q.n }
func (q probeQSL) LoadSamplesToRAM(context.Context, []uint64) error     { return nil }
func (q probeQSL) UnloadSamplesFromRAM(context.Context, []uint64) error { return nil }

// TestProbeCount runs the probes LoadGen makes against a system of 1 ms
// per sample, one at a time: what each probe measures is exact under
// synctest, and so is the value chosen from it.
func TestProbeCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, scenario  string
		samplesPerQuery uint64
		want            string
	}{
		// 1000 samples/s, twice that.
		{name: "Offline", scenario: "Offline", want: "Offline target_qps = 2000 (probe: 1000 samples/s over 800ms)"},
		{name: "SingleStream", scenario: "SingleStream", want: "SingleStream target_latency = 0.5 (probe: mean query latency 1ms over 800 queries)"},
		// Queries of 4 samples: 4 ms each; 8 queries take 32 ms, so the
		// next probe is 300 queries (1.2 s).
		{name: "MultiStream", scenario: "MultiStream", samplesPerQuery: 4, want: "MultiStream target_latency = 2 (probe: mean query latency 4ms over 300 queries)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				sut := newSerialSUT(time.Millisecond)
				defer sut.stop()
				s := loadgen.DefaultTestSettings()
				var err error
				s.Scenario, err = loadgen.ParseScenario(tc.scenario)
				require.NoError(t, err)
				if tc.samplesPerQuery > 0 {
					s.MultiStreamSamplesPerQuery = tc.samplesPerQuery
				}
				p := &Probe{NewSUT: func() ProbeSUT { return sut }, QSL: probeQSL{n: 64}, Settings: s, Dir: dir}
				ch, err := calibrate.Choose(t.Context(), tc.scenario, p, calibrate.Settings{ProbeTime: time.Second, Margin: 2, ServerSteps: 3})
				require.NoError(t, err)
				assert.Equal(t, tc.want, ch.String())
			})
			es, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, es, "each probe removes its logs")
		})
	}
}

// TestProbeTokenLatencies runs Server probes with token latencies against
// a system that answers at once (in real time: the Server issuer sleeps
// in the kernel, which synctest does not fake). A probe asks for the 662
// queries an early stopping estimate of the 99th percentile needs, and
// its measurement carries TTFT and TPOT against their bounds; one cut
// short by its limit of ten times the probe time has no estimate.
func TestProbeTokenLatencies(t *testing.T) {
	t.Parallel()
	s := loadgen.DefaultTestSettings()
	s.Scenario, s.UseTokenLatencies = loadgen.Server, true
	s.ServerTargetLatency, s.ServerTTFTLatency, s.ServerTPOTLatency = 0, 3*time.Second, time.Second
	p := &Probe{NewSUT: func() ProbeSUT { return instantSUT{tokens: 11} }, QSL: probeQSL{n: 64}, Settings: s, Dir: t.TempDir()}

	// 662 queries at 2000/s: 331 ms, past the probe time of 200 ms.
	m, err := p.Rate(t.Context(), 2000, 200*time.Millisecond)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, m.Queries, uint64(662), "sized for the estimate")
	assert.Zero(t, m.LatencyBound, "no sample latency bound")
	require.Len(t, m.Tokens, 2)
	for i, name := range []string{"TTFT", "TPOT"} {
		tl := m.Tokens[i]
		assert.Equal(t, name, tl.Name)
		assert.Equal(t, []time.Duration{3 * time.Second, time.Second}[i], tl.Bound)
		assert.Equal(t, uint64(662), tl.EarlyStoppingQueries)
		assert.GreaterOrEqual(t, tl.EarlyStopping, tl.Percentile, "the estimate is at or above the plain percentile")
	}
	assert.Positive(t, m.Tokens[0].EarlyStopping)

	// 100/s for at most 10 × 10 ms: about 10 queries, no estimate.
	m, err = p.Rate(t.Context(), 100, 10*time.Millisecond)
	require.NoError(t, err)
	assert.Less(t, m.Queries, uint64(662))
	require.Len(t, m.Tokens, 2)
	assert.Zero(t, m.Tokens[0].EarlyStopping)
}

// TestProbeRate runs a Server probe against a system that answers at
// once: every rate meets the bound (of a minute, which a loaded machine
// meets too), and the measurement says at which rate it ran.
func TestProbeRate(t *testing.T) {
	t.Parallel()
	s := loadgen.DefaultTestSettings()
	s.Scenario, s.ServerTargetLatency = loadgen.Server, time.Minute
	p := &Probe{NewSUT: func() ProbeSUT { return instantSUT{} }, QSL: probeQSL{n: 64}, Settings: s, Dir: t.TempDir()}
	m, err := p.Rate(t.Context(), 200, 100*time.Millisecond)
	require.NoError(t, err)
	assert.InDelta(t, 200, m.TargetQPS, 0)
	assert.True(t, m.LatencyMet)
	assert.Positive(t, m.Samples)
}

// instantSUT completes every sample inside IssueQuery, with tokens
// tokens (its first token reported first) when tokens is above 0.
type instantSUT struct{ tokens int64 }

func (instantSUT) Name() string                       { return "InstantSUT" }
func (instantSUT) Err() error                         { return nil }
func (instantSUT) FlushQueries(context.Context) error { return nil }
func (s instantSUT) IssueQuery(_ context.Context, samples []loadgen.QuerySample, r *loadgen.Responder) error {
	resp := make([]loadgen.QuerySampleResponse, len(samples))
	for i, q := range samples {
		resp[i] = loadgen.QuerySampleResponse{ID: q.ID, Data: []byte{1}, NTokens: s.tokens}
	}
	if s.tokens > 0 {
		if err := r.FirstTokenComplete(resp); err != nil {
			return err
		}
	}
	return r.QuerySamplesComplete(resp)
}

func TestCalibrationSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, scenario string
		wantPerQuery   uint64
	}{
		{name: "MultiStream queries of 8", scenario: "MultiStream", wantPerQuery: 8},
		{name: "SingleStream", scenario: "SingleStream", wantPerQuery: 1},
		{name: "Offline", scenario: "Offline", wantPerQuery: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(config.Inputs{Flags: []config.FlagValue{{Key: "scenario", Value: tc.scenario, Flag: "--scenario"},
				{Key: "settings.min_duration", Value: "2500", Flag: "--set"}, {Key: config.KeyCalibrateMaxSamples, Value: "5000", Flag: "--set"}}})
			require.NoError(t, err)
			s, err := TestSettings(c)
			require.NoError(t, err)
			assert.Equal(t, calibrate.Settings{ProbeTime: time.Second, Margin: 3, ServerSteps: 6, MinDuration: 2500 * time.Millisecond,
				SamplesPerQuery: tc.wantPerQuery, MaxSamples: 5000}, CalibrationSettings(c, s))
		})
	}
}
