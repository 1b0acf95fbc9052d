package loadgen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mlperf-host/mlperf-host/loadgen/internal/rng"
)

// Option configures a run beyond TestSettings and LogSettings.
type Option func(*run)

// WithAuditConfig applies an audit.config (TEST01, TEST04, TEST05) after
// logging the run's identity, as the official LoadGen does when it finds
// audit.config: the settings are overridden for model "*" and the run's
// scenario, and a warning says so.
func WithAuditConfig(c *Config) Option {
	return func(r *run) { r.audit = c }
}

// WithDrainTimeout bounds how long a canceled run waits for samples still
// in flight before it writes its logs; the default is 2 seconds.
func WithDrainTimeout(d time.Duration) Option {
	return func(r *run) { r.grace = d }
}

// WithDetailMessages writes each message into the detail log as a
// generic_message entry after the settings, as a SUT of the official
// LoadGen does through its logging: what the system under test needs the
// log's reader to know (data it placed where the rules need approval).
func WithDetailMessages(msgs ...string) Option {
	return func(r *run) { r.messages = append(r.messages, msgs...) }
}

// run is the state of one StartTest.
type run struct {
	sut      SUT
	qsl      QSL
	settings TestSettings
	ls       LogSettings
	audit    *Config
	grace    time.Duration
	messages []string
	// spin is how much of each Server wait is spun rather than slept;
	// spinAuto means "measure the sleep's lateness at the first Server
	// phase" (calibrateNapSpin, or calibrateSpin on Go timers).
	spin time.Duration
	// timerWait makes the Server issuer wait on Go timers instead of
	// sleeping in the kernel (nap).
	timerWait bool

	logs   *logs
	resp   Responder
	groups GroupedQSL // set when use_grouped_qsl is on

	firstSampleID uint64
	nextSampleID  uint64
	nextQueryID   uint64
	// The official per-sample accuracy-log draws come from one
	// default-seeded mt19937 for the whole run; draws not needed yet are
	// counted and skipped when needed.
	accRNG     *rng.MT19937
	accPending uint64

	current       atomic.Pointer[phase]
	issuedQueries atomic.Int64
	traceOrigin   time.Time
	sutName       string
	errBudget     errorBudget
}

// Run is one LoadGen test. Create it with [NewRun], start it once with
// [Run.Start], and poll [Run.Progress] from another goroutine while it runs.
type Run struct {
	r       *run
	started atomic.Bool
}

// ErrStarted is returned by a second call to [Run.Start].
var ErrStarted = errors.New("loadgen: run already started")

// NewRun prepares a test of sut over qsl.
//
// # Errors
//
// Settings the official LoadGen cannot run ([ErrInvalidSettings]) and an
// empty LogSettings.OutDir ([ErrNoOutDir]).
func NewRun(sut SUT, qsl QSL, settings TestSettings, logSettings LogSettings, opts ...Option) (*Run, error) {
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	if logSettings.OutDir == "" {
		return nil, ErrNoOutDir
	}
	r := &run{
		sut: sut, qsl: qsl, settings: settings, ls: logSettings,
		grace:     2 * time.Second,
		spin:      spinAuto,
		timerWait: !kernelSleep,
		accRNG:    rng.NewMT19937(rng.DefaultSeed),
	}
	r.errBudget.limit = DefaultSampleErrorLimit
	for _, o := range opts {
		o(r)
	}
	return &Run{r: r}, nil
}

// StartTest runs a test of sut over qsl and writes its logs: the official
// mlperf::StartTest.
//
// It returns when the test is over: every issued sample completed and the
// logs written. When ctx is canceled it stops issuing, waits a little for
// samples in flight (see [WithDrainTimeout]), writes the logs of what
// happened, and returns the result so far, marked invalid, with the
// context's error.
//
// # Errors
//
// Invalid settings, log files that cannot be created, and failures of the
// QSL (LoadSamplesToRAM) end the test with an error; failures of the SUT
// (an IssueQuery error, invalid responses, missing responses) are recorded
// in the logs and the [Result] and make it invalid.
func StartTest(ctx context.Context, sut SUT, qsl QSL, settings TestSettings, logSettings LogSettings, opts ...Option) (Result, error) {
	r, err := NewRun(sut, qsl, settings, logSettings, opts...)
	if err != nil {
		return Result{}, err
	}
	return r.Start(ctx)
}

// Start runs the test; see [StartTest].
func (rn *Run) Start(ctx context.Context) (Result, error) {
	if !rn.started.CompareAndSwap(false, true) {
		return Result{}, ErrStarted
	}
	return rn.r.start(ctx)
}

// Responder returns the run's completion handle, the one every IssueQuery
// receives.
func (rn *Run) Responder() *Responder { return &rn.r.resp }

func (r *run) start(ctx context.Context) (res Result, err error) {
	const file = "loadgen/run.go"
	ctx, detach := r.resp.withAbort(ctx)
	defer detach()
	pid := r.ls.PID
	if pid == 0 {
		pid = os.Getpid()
	}
	startWall := time.Now()
	dateTime := startWall.In(r.ls.location()).Format("2006-01-02T15:04:05Z")
	r.logs, err = openLogs(r.ls, dateTime, pid)
	if err != nil {
		return Result{}, fmt.Errorf("start test: %w", err)
	}
	r.logs.start(startWall)
	r.traceOrigin = startWall
	defer func() {
		res.Errors, res.Warnings = r.logs.counts()
		res.LateResponses = r.resp.Late()
		if cerr := r.logs.finish(r.traceOrigin); cerr != nil && err == nil {
			err = cerr
		}
	}()

	nameStart := time.Now()
	r.sutName = r.sut.Name()
	nameDuration := time.Since(nameStart)
	version := r.ls.Version
	if version.Version == "" {
		version = moduleVersion()
	}
	version.log(r.logs)
	d := func(key string, v value) { r.logs.detail(key, v, levelInfo, file) }
	d("test_datetime", vString(dateTime))
	d("sut_name", vString(r.sutName))
	d("get_sut_name_duration_ns", vInt(int64(nameDuration)))
	if rep, ok := r.sut.(SUTReporter); ok {
		r.logs.writeSUTEntries(rep.SUTStartEntries())
	}
	d("qsl_name", vString(r.qsl.Name()))
	d("qsl_reported_total_count", vUint(r.qsl.TotalSampleCount()))
	d("qsl_reported_performance_count", vUint(r.qsl.PerformanceSampleCount()))

	settings := r.settings
	if r.audit != nil {
		r.logs.detail("warning_generic_message", vString("Found Audit Config file (audit.config). Overriding TestSettings from audit.config file."), levelWarning, file)
		audited, aerr := r.audit.Apply(settings, "*", settings.Scenario, AuditConf)
		if aerr != nil {
			r.logs.detail("error_invalid_config", vString(aerr.Error()), levelError, file)
		} else {
			settings = audited
		}
	}
	if settings.Test05 {
		r.logs.detail("warning_generic_message", vString("Test05 flag detected Overriding random seeds"), levelWarning, file)
		settings.Mode = PerformanceOnly
		settings.QSLRNGSeed = r.settings.Test05QSLRNGSeed
		settings.SampleIndexRNGSeed = r.settings.Test05SampleIndexRNGSeed
		settings.ScheduleRNGSeed = r.settings.Test05ScheduleRNGSeed
	}
	if verr := settings.Validate(); verr != nil {
		r.logs.detail("error_invalid_test_settings", vString(verr.Error()), levelError, file)
		return Result{Scenario: settings.Scenario, Mode: settings.Mode, SUTName: r.sutName}, verr
	}
	e, serrs := newEffective(settings, r.qsl.PerformanceSampleCount(), r.qsl.TotalSampleCount())
	for _, s := range serrs {
		r.logs.detail("error_invalid_test_settings", vString(string(s)), levelError, "loadgen/effective.go")
	}
	e.logSettings(r.logs)
	for _, m := range r.messages {
		r.logs.detail("generic_message", vString(m), levelInfo, file)
	}

	res = Result{Scenario: e.scenario, Mode: e.mode, SUTName: r.sutName}
	if e.useGroupedQSL {
		g, ok := r.qsl.(GroupedQSL)
		switch {
		case !ok:
			err = errors.New("start test: use_grouped_qsl needs a QSL that implements GroupedQSL")
		case e.scenario != SingleStream && e.scenario != Server:
			err = fmt.Errorf("start test: use_grouped_qsl is defined for SingleStream and Server, not %s", e.scenario)
		}
		if err != nil {
			r.logs.detail("error_invalid_config", vString(err.Error()), levelError, file)
			return res, err
		}
		r.groups = g
	}
	switch e.mode {
	case SubmissionRun:
		if res.AccuracySamples, err = r.runAccuracy(ctx, &e); err == nil {
			res.Performance, err = r.runPerformance(ctx, &e)
		}
	case AccuracyOnly:
		res.AccuracySamples, err = r.runAccuracy(ctx, &e)
	case PerformanceOnly:
		res.Performance, err = r.runPerformance(ctx, &e)
	case FindPeakPerformance:
		res.Performance, err = r.findPeakPerformance(ctx, &e)
	}
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	res.Valid = err == nil && (res.Performance == nil || res.Performance.Valid)
	if res.Mode == AccuracyOnly {
		errs, _ := r.logs.counts()
		res.Valid = res.Valid && len(errs) == 0
	}
	return res, err
}

// loadSamples logs and loads a loadable set (the official LoadSamplesToRam).
func (r *run) loadSamples(ctx context.Context, set []uint64) error {
	r.logs.detail("loaded_qsl_set", vList(set), levelInfo, "loadgen/run.go")
	if err := r.qsl.LoadSamplesToRAM(ctx, set); err != nil {
		r.logs.detail("error_runtime", vString("LoadSamplesToRAM failed: "+err.Error()), levelError, "loadgen/run.go")
		return fmt.Errorf("load samples: %w", err)
	}
	return nil
}

func (r *run) unloadSamples(ctx context.Context, set []uint64) error {
	if ctx.Err() != nil {
		// Canceled or aborted: the SUT is going away; say why the test
		// ended rather than that unloading could not start.
		return context.Cause(ctx)
	}
	if err := r.qsl.UnloadSamplesFromRAM(ctx, set); err != nil {
		r.logs.detail("error_runtime", vString("UnloadSamplesFromRAM failed: "+err.Error()), levelError, "loadgen/run.go")
		return fmt.Errorf("unload samples: %w", err)
	}
	return nil
}

// runAccuracy is the official RunAccuracyMode: every loadable set in turn.
func (r *run) runAccuracy(ctx context.Context, e *effective) (int, error) {
	r.logs.detail("generic_message", vString("Starting accuracy mode"), levelInfo, "loadgen/run.go")
	samples := 0
	for _, set := range generateLoadableSets(r.qsl.TotalSampleCount(), e.accuracySampleCount, e, r.groups) {
		if err := r.loadSamples(ctx, set.samples); err != nil {
			return samples, err
		}
		pr, _ := r.issueQueries(ctx, e, AccuracyOnly, set)
		samples += len(pr.sampleLatencies)
		if err := r.unloadSamples(ctx, set.samples); err != nil {
			return samples, err
		}
		if ctx.Err() != nil {
			return samples, context.Cause(ctx)
		}
	}
	return samples, nil
}

// runPerformance is the official RunPerformanceMode: the first loadable
// set, one timed pass, the summary and the detail results.
func (r *run) runPerformance(ctx context.Context, e *effective) (*PerformanceResult, error) {
	r.logs.detail("generic_message", vString("Starting performance mode"), levelInfo, "loadgen/run.go")
	set, err := r.performanceSet(e)
	if err != nil {
		return nil, fmt.Errorf("run performance: %w", err)
	}
	if err = r.loadSamples(ctx, set.samples); err != nil {
		return nil, err
	}
	startWall := time.Now()
	if e.printTimestamps {
		r.logs.consoleLine("Loadgen :: Perf mode start. system_clock Timestamp = " + strconv.FormatInt(startWall.Unix(), 10) + "\n")
	}
	pr, sutErrors := r.issueQueries(ctx, e, PerformanceOnly, set)
	if e.printTimestamps {
		stop := time.Now()
		ms := stop.Sub(startWall).Milliseconds()
		r.logs.consoleLine("Loadgen :: Perf mode stop. systme_clock Timestamp = " + strconv.FormatInt(stop.Unix(), 10) + "\n" +
			"Loadgen :: PerfClock Perf duration = " + strconv.FormatInt(ms, 10) + "ms\n" +
			"Loadgen :: system_clock Perf duration = " + strconv.FormatInt(ms, 10) + "ms\n" +
			"Loadgen :: PerfClock/system_clock ratio = 1.0000\n")
	}
	ps := newPerfSummary(r.sutName, e, pr, sutErrors)
	ps.writeSummary(r.logs)
	ps.writeDetail(r.logs)
	if rep, ok := r.sut.(SUTReporter); ok {
		sr := rep.SUTPerformanceReport()
		r.logs.writeSUTSummary(sr)
		r.logs.writeSUTEntries(sr.Detail)
	}
	res := ps.result()
	err = r.unloadSamples(ctx, set.samples)
	if ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return res, err
}

// performanceSet is the set a performance pass loads: the first loadable
// set over the QSL's first performance_sample_count samples.
func (r *run) performanceSet(e *effective) (loadableSet, error) {
	total := r.qsl.TotalSampleCount()
	sets := generateLoadableSets(total, e.performanceSampleCount, e, r.groups)
	if len(sets) == 0 {
		return loadableSet{}, fmt.Errorf("no sample to load: performance_sample_count %d, QSL total %d",
			e.performanceSampleCount, total)
	}
	return sets[0], nil
}

// issueQueries is the official IssueQueries: generate, issue, wait for the
// responses, and measure. It returns the phase's result and the number of
// runtime errors the SUT caused.
func (r *run) issueQueries(ctx context.Context, e *effective, mode Mode, set loadableSet) (perfResult, int) {
	const file = "loadgen/run.go"
	q := generateQueries(e, mode, set, r.groups)
	r.logs.detail("generated_query_count", vUint(uint64(q.queries)), levelInfo, file)
	r.logs.detail("generated_samples_per_query", vUint(uint64(q.perQuery)), levelInfo, file)
	r.logs.detail("generated_query_duration", vInt(q.duration), levelInfo, file)

	p := newPhase(r, e, mode, q, r.nextSampleID, r.nextQueryID)
	r.nextSampleID += uint64(len(q.samples))
	r.nextQueryID += uint64(q.queries)
	r.setAccuracyLogging(p, e, mode)
	r.current.Store(p)

	st := p.issue(ctx)
	if abortCause(ctx) == nil { // after Abort there is nothing to flush
		if err := r.sut.FlushQueries(ctx); err != nil {
			r.logs.detail("error_runtime", vString("FlushQueries failed: "+err.Error()), levelError, file)
			st.issueErr = errors.Join(st.issueErr, err)
		}
	}
	if mode == PerformanceOnly && st.ranOutOfQueries {
		r.logs.detail("error_runtime", vString("Ending early: Ran out of generated queries to issue before the minimum query count and test duration were reached. Please update the relevant expected latency or target qps in the TestSettings so they are more accurate."), levelError, file)
	}
	p.drain(ctx, st.samplesIssued, r.grace)
	pr := p.collect(st)
	r.errBudget.report(r.logs)
	if ae := abortCause(ctx); ae != nil {
		p.logAbort(ae, st.samplesIssued, pr.incomplete)
	}
	if pr.incomplete > 0 {
		r.logs.detail("error_runtime", vString("Encountered incomplete samples at the end of a series of queries. count: "+strconv.Itoa(pr.incomplete)), levelError, file)
	}
	for _, key := range [...]string{
		"logger_swap_request_slots_retry_count",
		"logger_swap_request_slots_retry_retry_count",
		"logger_swap_request_slots_retry_reencounter_count",
		"logger_start_reading_entries_retry_count",
		"logger_tls_total_log_cas_fail_count",
		"logger_tls_total_swap_buffers_slot_retry_count",
	} {
		r.logs.detail(key, vInt(0), levelInfo, "loadgen/logs.go")
	}
	r.logs.detail("power_begin", vString(powerTime(st.startWall)), levelInfo, file)
	r.logs.detail("power_end", vString(powerTime(st.startWall.Add(time.Duration(pr.maxCompletion)))), levelInfo, file)
	if r.logs.traceEnabled() {
		p.writeTrace(st)
	}
	pr.failed = int(p.failed.Load())
	sutErrors := int(p.rejected.Load()) + pr.failed + pr.incomplete
	if st.issueErr != nil || st.canceled {
		sutErrors++
	}
	return pr, sutErrors
}

// setAccuracyLogging decides which responses of a performance phase are
// logged, as the official ResponseDelegate does: each sample's draw from
// the run's accuracy-log engine, shifted by a per-phase offset drawn from
// accuracy_log_rng_seed and wrapped into [0, 1), is compared with the
// probability (derived from accuracy_log_sampling_target when it is set).
func (r *run) setAccuracyLogging(p *phase, e *effective, mode Mode) {
	n := uint64(len(p.samples))
	prob := e.accuracyLogProbability
	if e.accuracyLogSamplingTarget > 0 {
		expected := doubleToUint64(e.targetQPS * float64(e.minDuration.Milliseconds()) / 1000)
		minimum := e.minQueryCount * e.samplesPerQuery
		if e.scenario != Offline {
			expected *= e.samplesPerQuery
		} else {
			minimum = e.minSampleCount
		}
		expected = max(expected, minimum)
		prob = float64(e.accuracyLogSamplingTarget) / float64(expected)
	}
	if mode == AccuracyOnly || !(prob > 0) {
		r.accPending += n
		return
	}
	r.accRNG.Discard(2 * r.accPending)
	r.accPending = 0
	offset := rng.UniformReal(rng.NewMT19937(e.accuracyLogRNGSeed), 0, 1)
	p.logFlags = make([]bool, n)
	for i := range p.logFlags {
		v := rng.Canonical(r.accRNG) + offset
		if v >= 1 {
			v--
		}
		p.logFlags[i] = v <= prob
	}
}

// powerTime formats a wall time as the official DateTimeStringForPower:
// "%m-%d-%Y %H:%M:%S.mmm" in UTC.
func powerTime(t time.Time) string {
	t = t.UTC()
	return t.Format("01-02-2006 15:04:05") + "." + fmt.Sprintf("%03d", t.Nanosecond()/1e6)
}

// Progress is a snapshot of a running test.
type Progress struct {
	// Running is false before the first query and after the last response.
	Running bool
	// Mode is the mode of the pass in progress (AccuracyOnly or
	// PerformanceOnly; FindPeakPerformance runs PerformanceOnly passes).
	Mode     Mode
	Scenario Scenario
	// QueriesGenerated and SamplesGenerated are the pass's totals.
	QueriesGenerated int
	SamplesGenerated int
	// SamplesIssued and SamplesCompleted count the pass so far;
	// QueriesIssued counts the whole test.
	QueriesIssued    int64
	SamplesIssued    int64
	SamplesCompleted int64
	// Elapsed is the time since the pass started issuing; MinDuration is
	// the pass's minimum duration (0 in accuracy mode).
	Elapsed     time.Duration
	MinDuration time.Duration
}

// Progress returns a snapshot of the test. It is cheap (a few atomic
// loads) and safe to call from any goroutine at any time.
func (rn *Run) Progress() Progress {
	r := rn.r
	p := r.current.Load()
	if p == nil {
		return Progress{QueriesIssued: r.issuedQueries.Load()}
	}
	pr := Progress{
		Running:          r.resp.phase.Load() == p,
		Mode:             p.mode,
		Scenario:         p.eff.scenario,
		QueriesGenerated: p.q.queries,
		SamplesGenerated: len(p.samples),
		QueriesIssued:    r.issuedQueries.Load(),
		SamplesIssued:    p.watermark.Load(),
		SamplesCompleted: p.completed.Load(),
	}
	if pr.Running {
		pr.Elapsed = time.Since(p.start)
	}
	if p.mode != AccuracyOnly {
		pr.MinDuration = p.eff.minDuration
	}
	return pr
}

// String renders the snapshot as one progress line.
func (p Progress) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d/%d samples issued, %d completed, %s elapsed",
		p.Scenario, p.Mode, p.SamplesIssued, p.SamplesGenerated, p.SamplesCompleted, p.Elapsed.Round(time.Millisecond))
	if p.MinDuration > 0 {
		fmt.Fprintf(&b, " of %s", p.MinDuration)
	}
	return b.String()
}

// withSpin makes the Server issuer wait on Go timers, spinning the last d
// of each wait. Tests under testing/synctest set 0: only Go timers move
// fake time, and a spinning goroutine never lets it move.
func withSpin(d time.Duration) Option {
	return func(r *run) { r.spin, r.timerWait = d, true }
}
