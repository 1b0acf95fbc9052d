package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"
)

// Chart geometry, in SVG user units.
const (
	chartW, chartH = 720.0, 240.0
	padL, padB     = 70.0, 30.0
	padT, padR     = 24.0, 36.0
)

// svg starts an SVG chart with axes and labels.
func svg(b *strings.Builder, xLabel, yLabel string, yMax float64, yFmt func(float64) string, xMax float64, xFmt func(float64) string) {
	fmt.Fprintf(b, `<svg viewBox="0 0 %.0f %.0f" xmlns="http://www.w3.org/2000/svg" role="img">`, chartW, chartH)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" class="axis"/>`, padL, chartH-padB, chartW-padR, chartH-padB)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" class="axis"/>`, padL, padT, padL, chartH-padB)
	for i := 0; i <= 4; i++ {
		y := chartH - padB - float64(i)/4*(chartH-padB-padT)
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" class="grid"/><text x="%.0f" y="%.1f" class="yl">%s</text>`,
			padL, y, chartW-padR, y, padL-4, y+4, template.HTMLEscapeString(yFmt(yMax*float64(i)/4)))
		x := padL + float64(i)/4*(chartW-padL-padR)
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" class="xl">%s</text>`, x, chartH-padB+16, template.HTMLEscapeString(xFmt(xMax*float64(i)/4)))
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" class="xt">%s</text>`, chartW-padR, chartH-2, template.HTMLEscapeString(xLabel))
	fmt.Fprintf(b, `<text x="4" y="12" class="yt">%s</text>`, template.HTMLEscapeString(yLabel))
}

func px(v, max float64) float64 { return padL + v/math.Max(max, 1e-12)*(chartW-padL-padR) }
func py(v, max float64) float64 {
	return chartH - padB - v/math.Max(max, 1e-12)*(chartH-padB-padT)
}

func durFmt(ns float64) string { return time.Duration(ns).Round(time.Microsecond).String() }
func secFmt(ns float64) string { return fmt.Sprintf("%.1fs", ns/1e9) }

// histogram draws the latency distribution in bins up to the 99.9th
// percentile (the tail beyond is counted in the last bin).
func histogram(s []Sample) template.HTML {
	lat := make([]float64, len(s))
	for i, x := range s {
		lat[i] = float64(x.Latency)
	}
	slices.Sort(lat)
	hi := lat[min(len(lat)-1, int(float64(len(lat))*0.999))]
	if hi <= lat[0] {
		hi = lat[0] + 1
	}
	const bins = 60
	counts := make([]float64, bins)
	for _, v := range lat {
		counts[min(bins-1, int(v/hi*bins))]++
	}
	maxC := slices.Max(counts)
	var b strings.Builder
	svg(&b, "latency", "samples", maxC, func(v float64) string { return fmt.Sprintf("%.0f", v) }, hi, durFmt)
	w := (chartW - padL - padR) / bins
	for i, c := range counts {
		if c == 0 {
			continue
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="bar"><title>%s–%s: %.0f</title></rect>`,
			padL+float64(i)*w, py(c, maxC), w*0.9, chartH-padB-py(c, maxC), durFmt(hi*float64(i)/bins), durFmt(hi*float64(i+1)/bins), c)
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// overTime draws per-interval p50, p99 and max latency against the time
// the samples were scheduled.
func overTime(s []Sample) template.HTML {
	const bins = 100
	end := float64(s[len(s)-1].At) + 1
	groups := make([][]float64, bins)
	for _, x := range s {
		i := min(bins-1, int(float64(x.At)/end*bins))
		groups[i] = append(groups[i], float64(x.Latency))
	}
	type pt struct{ x, p50, p99, max float64 }
	var pts []pt
	maxY := 0.0
	for i, g := range groups {
		if len(g) == 0 {
			continue
		}
		slices.Sort(g)
		p := pt{x: end * (float64(i) + 0.5) / bins, p50: g[len(g)/2], p99: g[min(len(g)-1, len(g)*99/100)], max: g[len(g)-1]}
		maxY = math.Max(maxY, p.max)
		pts = append(pts, p)
	}
	var b strings.Builder
	svg(&b, "time since start", "latency", maxY, durFmt, end, secFmt)
	line := func(class string, y func(pt) float64) {
		fmt.Fprintf(&b, `<polyline class="%s" points="`, class)
		for _, p := range pts {
			fmt.Fprintf(&b, "%.1f,%.1f ", px(p.x, end), py(y(p), maxY))
		}
		b.WriteString(`"/>`)
	}
	line("max", func(p pt) float64 { return p.max })
	line("p99", func(p pt) float64 { return p.p99 })
	line("p50", func(p pt) float64 { return p.p50 })
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// rate draws completions per second over time.
func rate(s []Sample) template.HTML {
	const bins = 100
	end := 0.0
	for _, x := range s {
		end = math.Max(end, float64(x.At+x.Latency))
	}
	end++
	counts := make([]float64, bins)
	for _, x := range s {
		counts[min(bins-1, int(float64(x.At+x.Latency)/end*bins))]++
	}
	binSec := end / bins / 1e9
	maxY := slices.Max(counts) / binSec
	var b strings.Builder
	svg(&b, "time since start", "samples/s", maxY, func(v float64) string { return fmt.Sprintf("%.0f", v) }, end, secFmt)
	b.WriteString(`<polyline class="qps" points="`)
	for i, c := range counts {
		fmt.Fprintf(&b, "%.1f,%.1f ", px(end*(float64(i)+0.5)/bins, end), py(c/binSec, maxY))
	}
	b.WriteString(`"/></svg>`)
	return template.HTML(b.String())
}
