package loadgen

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Flags of BenchmarkServerContention (make bench-contention sets them).
var (
	contentionQPS      = flag.Float64("contention.qps", 10000, "Server target QPS of the contention benchmark")
	contentionDuration = flag.Duration("contention.duration", 2*time.Second, "min_duration of each contention run")
	contentionBound    = flag.Duration("contention.bound", time.Millisecond, "Server latency bound (99th percentile) of each contention run")
	contentionLoad     = flag.String("contention.load", "procs", "what loads the cores: procs (busy processes) or threads (busy goroutines in this process, busy threads in the C++ driver's)")
	contentionBusy     = flag.Int("contention.busy", 0, "how many busy processes or threads (0: twice the CPUs; negative: none, the load is started outside)")
	contentionTimers   = flag.Bool("contention.timers", false, "also run this LoadGen with the Server issuer on Go timers (the issuer before it slept in the kernel)")
	contentionShared   = flag.Bool("contention.shared_load", false, "start the busy processes once, before the first round, and keep them running through every run (default: a fresh set per run)")
	contentionMinQuery = flag.Uint64("contention.min_query_count", 100, "min_query_count of each contention run")
	contentionSeeds    = flag.String("contention.seeds", "", "qsl_rng_seed,sample_index_rng_seed,schedule_rng_seed of each run (default: DefaultTestSettings')")
	contentionNapSpin  = flag.Duration("contention.napspin", spinAuto, "spin after this LoadGen's kernel sleep (negative: calibrated), to compare issuer variants")
	contentionCPP      = flag.String("contention.cpp", "", "a driver of the official C++ LoadGen to run under the same load: `driver run OUTDIR TOTAL PERF Server CONF latency_ns=N [busy=N]`")
)

// contentionRun is what one Server run reports: the latency of a null SUT
// (completion minus scheduled time, so issue lateness plus a completion
// that returns at once) at the 50th and 99th percentiles, and validity.
type contentionRun struct {
	p50, p99 float64
	valid    bool
}

// detailRun reads a run's figures from its detail log, the same keys for
// this LoadGen and the official one.
func detailRun(path string) (contentionRun, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return contentionRun{}, err
	}
	var r contentionRun
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		raw, ok := strings.CutPrefix(line, ":::MLLOG ")
		if !ok {
			continue
		}
		var e struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			return r, fmt.Errorf("%s: %w", path, err)
		}
		switch e.Key {
		case "result_validity":
			r.valid = string(e.Value) == `"VALID"`
			found++
		case "result_50.00_percentile_latency_ns":
			r.p50, err = strconv.ParseFloat(string(e.Value), 64)
			found++
		case "result_99.00_percentile_latency_ns":
			r.p99, err = strconv.ParseFloat(string(e.Value), 64)
			found++
		}
		if err != nil {
			return r, fmt.Errorf("%s: %s: %w", path, e.Key, err)
		}
	}
	if found != 3 {
		return r, fmt.Errorf("%s: no result keys (did the run end?)", path)
	}
	return r, nil
}

// startLoad starts n busy processes (or goroutines, for "threads") and
// returns what stops them.
func startLoad(b *testing.B, kind string, n int) func() {
	if n < 0 {
		return func() {}
	}
	switch kind {
	case "procs":
		var cmds []*exec.Cmd
		for range n {
			c := exec.Command("/bin/sh", "-c", "while :; do :; done")
			if err := c.Start(); err != nil {
				b.Fatal(err)
			}
			cmds = append(cmds, c)
		}
		return func() {
			for _, c := range cmds {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
		}
	case "threads":
		var stop atomic.Bool
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				x := 0
				for !stop.Load() {
					x++
				}
				_ = x
			})
		}
		return func() { stop.Store(true); wg.Wait() }
	}
	b.Fatalf("-contention.load %q: want procs or threads", kind)
	return nil
}

// BenchmarkServerContention runs Server tests at a fixed rate against the
// null SUT while busy processes (or threads) load every core, and reports
// the latency percentiles (for a null SUT, the issue lateness) and how
// many runs were VALID, for this LoadGen and, with -contention.cpp, for
// the official C++ LoadGen under the same load, the two interleaved round
// by round. This LoadGen's exact issue lateness (IssueDelay) is reported
// too. Each b.N iteration is one round.
func BenchmarkServerContention(b *testing.B) {
	busy := *contentionBusy
	if busy == 0 {
		busy = 2 * runtime.NumCPU()
	}
	dir := b.TempDir()
	s := DefaultTestSettings()
	s.Scenario = Server
	s.ServerTargetQPS = *contentionQPS
	s.ServerTargetLatency = *contentionBound
	s.MinDuration = *contentionDuration
	s.MinQueryCount = *contentionMinQuery
	if *contentionSeeds != "" {
		seeds := strings.Split(*contentionSeeds, ",")
		if len(seeds) != 3 {
			b.Fatalf("-contention.seeds %q: want qsl,index,schedule", *contentionSeeds)
		}
		for i, dst := range []*uint64{&s.QSLRNGSeed, &s.SampleIndexRNGSeed, &s.ScheduleRNGSeed} {
			v, err := strconv.ParseUint(strings.TrimSpace(seeds[i]), 10, 64)
			if err != nil {
				b.Fatalf("-contention.seeds: %v", err)
			}
			*dst = v
		}
	}
	const total, perf = 1024, 1024
	conf := filepath.Join(dir, "cpp.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, "m.*.target_qps = %g\nm.*.min_duration = %d\nm.*.min_query_count = %d\n"+
		"m.*.qsl_rng_seed = %d\nm.*.sample_index_rng_seed = %d\nm.*.schedule_rng_seed = %d\n",
		*contentionQPS, contentionDuration.Milliseconds(), s.MinQueryCount,
		s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed), 0o644); err != nil {
		b.Fatal(err)
	}

	var ours, timers, cpp []contentionRun
	var lateP50, lateP99, cpuShare []float64
	runGo := func(name string, runs *[]contentionRun, opts ...Option) {
		out := b.TempDir()
		cpu0, wall0 := processCPU(), time.Now()
		res, err := StartTest(context.Background(), &nullSUT{}, &fakeQSL{total: total, perf: perf}, s, LogSettings{OutDir: out}, opts...)
		if err != nil {
			b.Fatal(err)
		}
		cpu := float64(processCPU()-cpu0) / float64(time.Since(wall0))
		r, err := detailRun(filepath.Join(out, "mlperf_log_detail.txt"))
		if err != nil {
			b.Fatal(err)
		}
		*runs = append(*runs, r)
		if runs == &ours {
			lateP50 = append(lateP50, float64(res.Performance.IssueDelay.At(0.50)))
			lateP99 = append(lateP99, float64(res.Performance.IssueDelay.At(0.99)))
			cpuShare = append(cpuShare, cpu)
		}
		b.Logf("%-6s p50 %8.0f µs  p99 %8.0f µs  valid %v  cpu %.3f", name, r.p50/1e3, r.p99/1e3, r.valid, cpu)
	}
	runOurs := func() {
		if *contentionNapSpin >= 0 {
			runGo("go", &ours, func(r *run) { r.spin = *contentionNapSpin })
			return
		}
		runGo("go", &ours)
	}
	runTimers := func() { runGo("timers", &timers, withSpin(spinAuto)) }
	runCPP := func() {
		out := b.TempDir()
		args := []string{"run", out, strconv.Itoa(total), strconv.Itoa(perf), "Server", conf,
			"latency_ns=" + strconv.FormatInt(int64(*contentionBound), 10)}
		if *contentionLoad == "threads" {
			args = append(args, "busy="+strconv.Itoa(busy))
		}
		c := exec.Command(*contentionCPP, args...)
		c.Dir = out
		if o, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", *contentionCPP, err, o)
		}
		r, err := detailRun(filepath.Join(out, "mlperf_log_detail.txt"))
		if err != nil {
			b.Fatal(err)
		}
		cpp = append(cpp, r)
		b.Logf("%-6s p50 %8.0f µs  p99 %8.0f µs  valid %v", "cpp", r.p50/1e3, r.p99/1e3, r.valid)
	}

	// Each round runs every contender once, in an order that rotates, each
	// under load started afresh so that none inherits another's scheduler
	// history, or, with -contention.shared_load, all under one set of busy
	// processes started before the first round.
	type contender struct {
		run       func()
		inProcess bool // this process is the one under test
	}
	contenders := []contender{{runOurs, true}}
	if *contentionTimers {
		contenders = append(contenders, contender{runTimers, true})
	}
	if *contentionCPP != "" {
		contenders = append(contenders, contender{runCPP, false})
	}
	shared := *contentionShared && *contentionLoad == "procs"
	if shared {
		b.Cleanup(startLoad(b, "procs", busy))
	}
	round := 0
	for b.Loop() {
		for i := range contenders {
			c := contenders[(round+i)%len(contenders)]
			// The C++ driver starts its own busy threads.
			if !shared && (c.inProcess || *contentionLoad == "procs") {
				stop := startLoad(b, *contentionLoad, busy)
				c.run()
				stop()
			} else {
				c.run()
			}
		}
		round++
	}
	report := func(prefix string, runs []contentionRun) {
		if len(runs) == 0 {
			return
		}
		var p50, p99 []float64
		valid := 0
		for _, r := range runs {
			p50, p99 = append(p50, r.p50), append(p99, r.p99)
			if r.valid {
				valid++
			}
		}
		b.ReportMetric(median(p50)/1e3, prefix+"-p50-us")
		b.ReportMetric(median(p99)/1e3, prefix+"-p99-us")
		b.ReportMetric(float64(valid)/float64(len(runs)), prefix+"-valid-frac")
	}
	report("go", ours)
	b.ReportMetric(median(lateP50)/1e3, "go-issue-late-p50-us")
	b.ReportMetric(median(lateP99)/1e3, "go-issue-late-p99-us")
	b.ReportMetric(median(cpuShare), "go-cpu-per-wall")
	report("timers", timers)
	report("cpp", cpp)
}

// median of v (the middle value of the sorted copy).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
