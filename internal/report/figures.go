package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
)

// figure is one chart with its heading and a line that says how to read it.
type figure struct {
	Title, Note string
	SVG         template.HTML
}

// Axis label formats.
func axisDuration(v float64) string {
	if v == 0 {
		return "0"
	}
	return duration(v)
}

func axisRate(v float64) string  { return rate(v) }
func axisCount(v float64) string { return count(int64(math.Round(v))) }

// figures are the charts that fit the run's scenario. Offline issues every
// sample at once, so its latency is when a sample finished: completions
// over time and throughput. Server: latency over time against the bound,
// how late queries were issued, scheduled and completed rates and the
// distribution. SingleStream and MultiStream: the latency distribution
// and its percentiles. Without a trace, the percentiles the detail log
// reports.
func (r *Run) figures() []figure {
	if len(r.Samples) == 0 {
		if f, ok := percentileFigure([]*Run{r}); ok {
			f.Note += " Run with --trace for the charts of every sample."
			return []figure{f}
		}
		return nil
	}
	switch r.effective() {
	case "Offline":
		return []figure{r.completionsFigure(), r.throughputFigure()}
	case "Server":
		out := []figure{r.overTimeFigure()}
		if f, ok := r.latenessFigure(); ok {
			out = append(out, f)
		}
		return append(out, r.ratesFigure(), r.distributionFigure())
	default:
		f, _ := percentileFigure([]*Run{r})
		return []figure{r.distributionFigure(), f}
	}
}

// queryLatencies are the latencies the scenario's metric counts: per query
// in MultiStream, per sample otherwise.
func (r *Run) queryLatencies() []Sample {
	if r.effective() != "MultiStream" {
		return r.Samples
	}
	q := perQuery(r.Samples)
	if len(q) == 1 && len(r.Samples) > 1 { // a trace without query_seq
		return r.Samples
	}
	return q
}

// bound is the Server latency bound, 0 elsewhere.
func (r *Run) bound() float64 {
	if r.effective() != "Server" {
		return 0
	}
	v, _ := r.num("effective_target_latency_ns")
	return v
}

// targetPercentile is the percentile the scenario's latency constraint or
// metric is at (0.9 for SingleStream, 0.99 otherwise).
func (r *Run) targetPercentile() float64 {
	if v, ok := r.num("effective_target_latency_percentile"); ok && v > 0 && v < 1 {
		return v
	}
	if r.effective() == "SingleStream" {
		return 0.9
	}
	return 0.99
}

// completions are when the samples completed (ns since the first was
// scheduled), sorted.
func (r *Run) completions() []float64 {
	done := make([]float64, len(r.Samples))
	for i, s := range r.Samples {
		done[i] = float64(s.At + s.Latency)
	}
	slices.Sort(done)
	return done
}

// completionsFigure: Offline's completed samples over time, against the
// straight line of the run's average rate.
func (r *Run) completionsFigure() figure {
	done := r.completions()
	end := done[len(done)-1]
	n := float64(len(done))
	c := newChart("completed samples over time", linearAxis("time since the query was issued", end, axisDuration),
		linearAxis("samples completed", n, axisCount))
	step := max(1, len(done)/400)
	pts := seriesPoints{{0, 0}}
	for i := step - 1; i < len(done); i += step {
		pts = append(pts, [2]float64{done[i], float64(i + 1)})
	}
	if pts[len(pts)-1][1] != n {
		pts = append(pts, [2]float64{end, n})
	}
	avg := n / (end / 1e9)
	c.line("avg", "average", seriesPoints{{0, 0}, {end, n}})
	c.line("done", "completed", pts)
	c.legend("done", "completed")
	c.legend("avg", "average rate, "+rate(avg)+" samples/s")
	return figure{Title: "Completed samples over time", SVG: c.html(),
		Note: fmt.Sprintf("Offline issues all %s samples at once; the last completed after %s. A curve above the straight line finished early samples faster than the average.",
			count(int64(n)), duration(end))}
}

// throughputFigure: Offline's completed samples per second over a
// sliding window of a twentieth of the run, which evens out the bursts of
// a backend that completes a batch at a time.
func (r *Run) throughputFigure() figure {
	done := r.completions()
	end := done[len(done)-1] + 1
	window := end / 20
	var pts seriesPoints
	lo, hi := 0, 0
	for i := range 101 {
		t := end * float64(i) / 100
		for hi < len(done) && done[hi] <= t {
			hi++
		}
		for lo < hi && done[lo] <= t-window {
			lo++
		}
		span := math.Min(window, math.Max(t, window/10))
		pts = append(pts, [2]float64{t, float64(hi-lo) / (span / 1e9)})
	}
	avg := float64(len(done)) / (end / 1e9)
	c := newChart("throughput over time", linearAxis("time since the query was issued", end, axisDuration),
		linearAxis("samples/s", maxY(pts), axisRate))
	c.line("done", "samples/s", pts)
	c.hline(avg, "avg", "average "+rate(avg)+"/s")
	c.legend("done", "completed per second")
	return figure{Title: "Throughput over time", SVG: c.html(),
		Note: fmt.Sprintf("Samples completed per second over the last %s (a twentieth of the run) at each point.", duration(window))}
}

// overTimeFigure: Server latency per interval of scheduled time, against
// the bound.
func (r *Run) overTimeFigure() figure {
	s := r.Samples
	end := float64(s[len(s)-1].At) + 1
	bins := binCount(len(s), 40)
	groups := binned(bins, end, len(s), func(i int) float64 { return float64(s[i].At) },
		func(i int) float64 { return float64(s[i].Latency) })
	curves := perBin(groups, end, 0.5, r.targetPercentile(), 1)
	showMax := len(s)/bins >= 100
	bound := r.bound()
	c := newChart("latency over time", linearAxis("scheduled time since the first query", end, axisDuration),
		linearAxis("latency", math.Max(maxY(curves...), bound*1.1), axisDuration))
	pname := "p" + trimZeros(fmt.Sprintf("%.1f", r.targetPercentile()*100))
	drawPercentiles(c, curves, pname, showMax)
	if bound > 0 {
		c.hline(bound, "bound", "bound "+duration(bound))
	}
	what := "p50 and " + pname
	if showMax {
		what = "p50, " + pname + " and max"
	}
	return figure{Title: "Latency over time against the bound", SVG: c.html(),
		Note: fmt.Sprintf("%s latency of the queries scheduled in each of %d intervals; the %s must stay under the bound.", what, bins, ordinal(r.targetPercentile()))}
}

// drawPercentiles draws per-interval p50, a higher percentile and, where
// the intervals hold enough samples for it to differ from that
// percentile, the max.
func drawPercentiles(c *chart, curves []seriesPoints, pname string, showMax bool) {
	if showMax {
		c.line("max", "max", curves[2])
	}
	c.line("p99", pname, curves[1])
	c.line("p50", "p50", curves[0])
	c.legend("p50", "p50")
	c.legend("p99", pname)
	if showMax {
		c.legend("max", "max")
	}
}

// latenessFigure: how late the LoadGen issued Server queries, when the
// trace says (issue_start_ns).
func (r *Run) latenessFigure() (figure, bool) {
	s := r.Samples
	late := make([]float64, len(s))
	for i, x := range s {
		late[i] = float64(x.IssueDelay)
	}
	if slices.Max(late) <= 0 {
		return figure{}, false
	}
	end := float64(s[len(s)-1].At) + 1
	bins := binCount(len(s), 40)
	groups := binned(bins, end, len(s), func(i int) float64 { return float64(s[i].At) }, func(i int) float64 { return late[i] })
	curves := perBin(groups, end, 0.5, 0.99, 1)
	c := newChart("issue lateness over time", linearAxis("scheduled time since the first query", end, axisDuration),
		linearAxis("issued after scheduled", maxY(curves...), axisDuration))
	drawPercentiles(c, curves, "p99", len(s)/bins >= 100)
	slices.Sort(late)
	return figure{Title: "Issue lateness", SVG: c.html(),
		Note: fmt.Sprintf("How long after its scheduled time the LoadGen issued each query (p50 %s, p99 %s, max %s): latency counts from the scheduled time, so lateness is part of it.",
			duration(at(late, 0.5)), duration(at(late, 0.99)), duration(at(late, 1)))}, true
}

// ratesFigure: Server samples scheduled and completed per second.
func (r *Run) ratesFigure() figure {
	s := r.Samples
	finished := r.completions()
	end := finished[len(finished)-1] + 1
	bins := binCount(len(s), 20)
	binSec := end / float64(bins) / 1e9
	curve := func(key func(int) float64) seriesPoints {
		var pts seriesPoints
		for i, g := range binned(bins, end, len(s), key, func(int) float64 { return 1 }) {
			pts = append(pts, [2]float64{end * (float64(i) + 0.5) / float64(bins), float64(len(g)) / binSec})
		}
		return pts
	}
	sched := curve(func(i int) float64 { return float64(s[i].At) })
	done := curve(func(i int) float64 { return float64(s[i].At + s[i].Latency) })
	target, _ := r.num("effective_target_qps")
	c := newChart("scheduled and completed samples per second", linearAxis("time since the first query", end, axisDuration),
		linearAxis("samples/s", math.Max(maxY(sched, done), target*1.1), axisRate))
	c.line("sched", "scheduled", sched)
	c.line("done", "completed", done)
	if target > 0 {
		c.hline(target, "avg", "target "+rate(target)+"/s")
	}
	c.legend("sched", "scheduled")
	c.legend("done", "completed")
	return figure{Title: "Scheduled and completed samples per second", SVG: c.html(),
		Note: "Completions that fall behind the schedule pile up as latency."}
}

// distributionFigure: the latency histogram, with the percentiles marked.
func (r *Run) distributionFigure() figure {
	lat := latencies(r.queryLatencies())
	hi := at(lat, 1)
	if len(lat) >= 1000 {
		hi = at(lat, 0.999)
	}
	bound := r.bound()
	hi = math.Max(hi, bound*1.05)
	x := linearAxis("latency", math.Max(hi, 1), axisDuration)
	bins := min(60, max(10, len(lat)/5))
	width := x.hi / float64(bins)
	counts := make([]float64, bins)
	beyond := 0
	for _, v := range lat {
		b := int(v / width)
		if b >= bins {
			b = bins - 1
			if v > x.hi {
				beyond++
			}
		}
		counts[b]++
	}
	what := "samples"
	if r.effective() == "MultiStream" && len(lat) < len(r.Samples) {
		what = "queries"
	}
	c := newChart("latency distribution", x, linearAxis(what, math.Max(slices.Max(counts), 4), axisCount))
	for i, n := range counts {
		if n > 0 {
			c.bar(float64(i)*width, float64(i+1)*width, n, "hist",
				fmt.Sprintf("%s – %s: %s %s", duration(float64(i)*width), duration(float64(i+1)*width), count(int64(n)), what))
		}
	}
	key := r.targetPercentile()
	marks := []float64{0.5, 0.9, 0.99}
	if !slices.Contains(marks, key) {
		marks = append(marks, key)
		slices.Sort(marks)
	}
	for i, p := range marks {
		class := "mark"
		if p == key {
			class = "mark tgt"
		}
		c.vline(at(lat, p), class, "p"+trimZeros(fmt.Sprintf("%.1f", p*100))+" "+duration(at(lat, p)), i)
	}
	if bound > 0 {
		c.vline(bound, "bound", "bound", len(marks))
	}
	note := fmt.Sprintf("%s %s; the %s percentile, which the scenario's metric or constraint uses, is in bold.", count(int64(len(lat))), what, ordinal(key))
	if r.effective() == "MultiStream" && what == "queries" {
		note = fmt.Sprintf("%s queries of %d samples each, by the latency of their last sample; the %s percentile (in bold) is what the metric, its early-stopping estimate, bounds.",
			count(int64(len(lat))), len(r.Samples)/len(lat), ordinal(key))
	}
	if beyond > 0 {
		note += fmt.Sprintf(" The last bar also counts the %s beyond %s (max %s).", count(int64(beyond)), duration(x.hi), duration(at(lat, 1)))
	}
	return figure{Title: "Latency distribution", Note: note, SVG: c.html()}
}
