package report

import (
	"fmt"
	"math"
	"strings"
)

// tracePercentiles are where the curve of a traced run is measured.
var tracePercentiles = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99, 0.995, 0.999, 1}

// logPercentiles are the percentiles the LoadGen reports in the detail
// log: as they appear in its keys, and as fractions.
var logPercentiles = []struct {
	key string
	p   float64
}{{"50.00", 0.5}, {"90.00", 0.9}, {"95.00", 0.95}, {"97.00", 0.97}, {"99.00", 0.99}, {"99.90", 0.999}}

// percentiles returns the run's latency by percentile ([p, ns], p = 1 the
// maximum): from the trace when it has one, else from the detail log; and
// whether they came from the trace.
func (r *Run) percentiles() (seriesPoints, bool) {
	if len(r.Samples) > 0 {
		lat := latencies(r.queryLatencies())
		var pts seriesPoints
		for _, p := range tracePercentiles {
			pts = append(pts, [2]float64{p, at(lat, p)})
		}
		return pts, true
	}
	var pts seriesPoints
	add := func(p float64, key string) {
		if v, ok := r.num(key); ok && p >= 0 {
			pts = append(pts, [2]float64{p, v})
		}
	}
	for _, k := range latencyKeys(r.effective()) {
		add(k.p, k.key)
	}
	return pts, false
}

// latencyKey is a detail-log latency result and its percentile (0 the
// minimum, 1 the maximum, -1 the mean).
type latencyKey struct {
	key, label string
	p          float64
}

// latencyKeys are the latency results of a scenario's detail log, in
// order: per query in MultiStream, per sample otherwise.
func latencyKeys(scenario string) []latencyKey {
	q, pq, what := "", "", "latency"
	if scenario == "MultiStream" {
		q, pq, what = "query_", "per_query_", "latency per query"
	}
	out := []latencyKey{{"result_min_" + q + "latency_ns", "Min " + what, 0}, {"result_mean_" + q + "latency_ns", "Mean " + what, -1}}
	for _, lp := range logPercentiles {
		out = append(out, latencyKey{"result_" + lp.key + "_percentile_" + pq + "latency_ns", ordinal(lp.p) + " percentile " + what, lp.p})
	}
	return append(out, latencyKey{"result_max_" + q + "latency_ns", "Max " + what, 1})
}

// label names a run in a legend or a column: its plugin and its name.
func (r *Run) label() string {
	p := r.Plugin()
	if p == "" || p == r.Name || r.Where.Division != "" {
		return r.Name
	}
	return p + " (" + r.Name + ")"
}

// percentileFigure draws the latency-by-percentile curve of each run in
// one chart, on a log scale when they lie more than 20 times apart.
func percentileFigure(runs []*Run) (figure, bool) {
	type curve struct {
		run    *Run
		pts    seriesPoints
		traced bool
	}
	var curves []curve
	lo, hi := math.Inf(1), 0.0
	for _, r := range runs {
		pts, traced := r.percentiles()
		if len(pts) < 2 {
			continue
		}
		curves = append(curves, curve{r, pts, traced})
		for _, p := range pts {
			if p[1] > 0 {
				lo = math.Min(lo, p[1])
			}
			hi = math.Max(hi, p[1])
		}
	}
	if len(curves) == 0 {
		return figure{}, false
	}
	first := curves[0].run
	bound := first.bound()
	hi = math.Max(hi, bound*1.1)
	y := linearAxis("latency", hi, axisDuration)
	if lo > 0 && hi/lo > 20 && len(curves) > 1 {
		y = logAxis("latency", lo, hi, axisDuration)
	}
	c := newChart("latency by percentile", percentileAxis(), y)
	key := first.targetPercentile()
	c.vline(nines(key), "mark tgt", ordinal(key), 0)
	if bound > 0 {
		c.hline(bound, "bound", "bound "+duration(bound))
	}
	var sources []string
	for i, cv := range curves {
		class := fmt.Sprintf("s%d", i%len(seriesColors))
		pts := make(seriesPoints, len(cv.pts))
		for j, p := range cv.pts {
			pts[j] = [2]float64{nines(p[0]), p[1]}
		}
		name := cv.run.label()
		if len(runs) == 1 {
			name = "latency"
		}
		c.line(class, name, pts)
		c.dots(class, pts)
		c.legend(class, name)
		if cv.traced {
			sources = append(sources, cv.run.Name+": every traced sample")
		} else {
			sources = append(sources, cv.run.Name+": the percentiles in the detail log")
		}
	}
	note := "Latency at each percentile; 90, 99 and 99.9 stand evenly apart, so the tail gets room."
	if first.effective() == "Offline" {
		note = "For Offline, a sample's latency is when it finished after the one query was issued."
	}
	if len(runs) == 1 {
		note += " From " + strings.SplitN(sources[0], ": ", 2)[1] + "."
	} else {
		note += " From " + strings.Join(sources, "; ") + "."
	}
	return figure{Title: "Latency by percentile", Note: note, SVG: c.html()}, true
}

// seriesColors are the colours of runs 1, 2, ... (CSS classes s0, s1, ...).
var seriesColors = []string{"#2f6db5", "#e07b00", "#2a9d4a", "#b03a9c", "#7a5c2e", "#5b6b7a"}
