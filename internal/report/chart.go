package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// Chart geometry, in SVG user units: the plot area is inset by the pads,
// which hold the tick labels, the axis titles and the legend.
const (
	chartW, chartH = 720.0, 270.0
	padL, padR     = 76.0, 34.0
	padT, padB     = 34.0, 44.0
)

// scale maps values onto [0, 1]: linear from lo to hi, or logarithmic.
type scale struct {
	lo, hi float64
	log    bool
}

func (s scale) frac(v float64) float64 {
	if s.log {
		v = math.Max(v, s.lo)
		return (math.Log10(v) - math.Log10(s.lo)) / math.Max(math.Log10(s.hi)-math.Log10(s.lo), 1e-12)
	}
	return (v - s.lo) / math.Max(s.hi-s.lo, 1e-12)
}

type tick struct {
	v     float64
	label string
}

// axis is one axis: its title, its scale and its labelled ticks.
type axis struct {
	title string
	scale
	ticks []tick
}

// linearAxis runs from 0 to a round value at or above max, with 3 to 6
// ticks 1, 2 or 5 times a power of ten apart, labelled by format.
func linearAxis(title string, max float64, format func(float64) string) axis {
	if !(max > 0) || math.IsInf(max, 0) {
		max = 1
	}
	step := niceStep(max / 4)
	hi := math.Ceil(max/step-1e-9) * step
	a := axis{title: title, scale: scale{lo: 0, hi: hi}}
	for i := 0; float64(i)*step <= hi*(1+1e-9); i++ {
		v := float64(i) * step
		a.ticks = append(a.ticks, tick{v, format(v)})
	}
	return a
}

// logAxis runs over whole powers of ten around [lo, hi].
func logAxis(title string, lo, hi float64, format func(float64) string) axis {
	lo = math.Pow(10, math.Floor(math.Log10(math.Max(lo, 1))))
	hi = math.Pow(10, math.Ceil(math.Log10(math.Max(hi, lo*10))))
	a := axis{title: title + " (log scale)", scale: scale{lo: lo, hi: hi, log: true}}
	for v := lo; v <= hi*(1+1e-9); v *= 10 {
		a.ticks = append(a.ticks, tick{v, format(v)})
	}
	return a
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// ninesMax is where the maximum sits on the percentile axis, a little
// right of the 99.9th percentile.
const ninesMax = 3.3

// nines maps a percentile (a fraction; 1 is the maximum) onto the
// percentile axis: −log10(1−p), so that 90, 99 and 99.9 are evenly apart.
func nines(p float64) float64 {
	if p >= 1 {
		return ninesMax
	}
	return math.Min(-math.Log10(1-p), 3)
}

// percentileAxis is the x axis of a latency-by-percentile chart.
func percentileAxis() axis {
	a := axis{title: "percentile", scale: scale{lo: 0, hi: ninesMax}}
	for _, t := range []struct {
		p float64
		l string
	}{{0, "0"}, {0.5, "50"}, {0.9, "90"}, {0.99, "99"}, {0.999, "99.9"}, {1, "max"}} {
		a.ticks = append(a.ticks, tick{nines(t.p), t.l})
	}
	return a
}

// chart writes one SVG chart: axes, grid and labels first, then what its
// caller draws. Its plot area is inset by the pads, in SVG user units.
type chart struct {
	b                   strings.Builder
	x, y                axis
	h, padL, padT, padB float64
	// legendX is where the next legend entry goes.
	legendX float64
}

// newChart starts a chart of the usual size with x and y axes.
func newChart(label string, x, y axis) *chart {
	c := &chart{x: x, y: y, h: chartH, padL: padL, padT: padT, padB: padB, legendX: padL}
	c.frame(label)
	return c
}

// newSizedChart starts a chart of height h with an x axis only (its rows
// are the caller's) and room for labels of width padL on the left.
func newSizedChart(label string, x axis, h, padL float64) *chart {
	c := &chart{x: x, h: h, padL: padL, padT: 8, padB: padB, legendX: padL}
	c.frame(label)
	return c
}

func (c *chart) frame(label string) {
	bottom, right := c.h-c.padB, chartW-padR
	fmt.Fprintf(&c.b, `<svg viewBox="0 0 %.0f %.0f" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="%s">`,
		chartW, c.h, esc(label))
	for _, t := range c.y.ticks {
		yy := c.Y(t.v)
		fmt.Fprintf(&c.b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" class="grid"/><text x="%.0f" y="%.1f" class="yl">%s</text>`,
			c.padL, yy, right, yy, c.padL-5, yy+3.5, esc(t.label))
	}
	for _, t := range c.x.ticks {
		xx := c.X(t.v)
		if len(c.y.ticks) == 0 {
			fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" class="grid"/>`, xx, c.padT, xx, bottom)
		}
		fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" class="tick"/><text x="%.1f" y="%.0f" class="xl">%s</text>`,
			xx, bottom, xx, bottom+4, xx, bottom+16, esc(t.label))
	}
	fmt.Fprintf(&c.b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" class="axis"/>`, c.padL, bottom, right, bottom)
	fmt.Fprintf(&c.b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" class="axis"/>`, c.padL, c.padT, c.padL, bottom)
	fmt.Fprintf(&c.b, `<text x="%.0f" y="%.0f" class="xt">%s</text>`, c.padL+(right-c.padL)/2, c.h-8, esc(c.x.title))
	if c.y.title != "" {
		mid := c.padT + (bottom-c.padT)/2
		fmt.Fprintf(&c.b, `<text x="14" y="%.0f" class="yt" transform="rotate(-90 14 %.0f)">%s</text>`, mid, mid, esc(c.y.title))
	}
}

// X and Y map data values onto SVG coordinates, clamped to the plot area.
func (c *chart) X(v float64) float64 {
	return c.padL + clamp01(c.x.frac(v))*(chartW-padR-c.padL)
}

func (c *chart) Y(v float64) float64 {
	return c.h - c.padB - clamp01(c.y.frac(v))*(c.h-c.padT-c.padB)
}

func clamp01(f float64) float64 { return math.Max(0, math.Min(1, f)) }

// line draws a polyline through pts ([x, y] data values).
func (c *chart) line(class, tip string, pts [][2]float64) {
	if len(pts) == 0 {
		return
	}
	fmt.Fprintf(&c.b, `<polyline class="%s" points="`, class)
	for i, p := range pts {
		if i > 0 {
			c.b.WriteByte(' ')
		}
		fmt.Fprintf(&c.b, "%.1f,%.1f", c.X(p[0]), c.Y(p[1]))
	}
	fmt.Fprintf(&c.b, `"><title>%s</title></polyline>`, esc(tip))
}

// dots marks pts with small circles (the measured points of a curve).
func (c *chart) dots(class string, pts [][2]float64) {
	for _, p := range pts {
		fmt.Fprintf(&c.b, `<circle cx="%.1f" cy="%.1f" r="2.5" class="%s"/>`, c.X(p[0]), c.Y(p[1]), class)
	}
}

// bar draws a vertical bar from x0 to x1, up to y.
func (c *chart) bar(x0, x1, y float64, class, tip string) {
	l, r, top := c.X(x0), c.X(x1), c.Y(y)
	fmt.Fprintf(&c.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="%s"><title>%s</title></rect>`,
		l, top, math.Max(r-l-0.5, 0.5), c.h-c.padB-top, class, esc(tip))
}

// hline draws a horizontal reference line at y, labelled at its right end.
func (c *chart) hline(y float64, class, label string) {
	yy := c.Y(y)
	fmt.Fprintf(&c.b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" class="%s"/><text x="%.0f" y="%.1f" class="ref %s">%s</text>`,
		c.padL, yy, chartW-padR, yy, class, chartW-padR-2, yy-4, class, esc(label))
}

// vline draws a vertical reference line at x, labelled at its top; row
// staggers the labels of lines that stand close together.
func (c *chart) vline(x float64, class, label string, row int) {
	xx := c.X(x)
	fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" class="%s"/><text x="%.1f" y="%.0f" class="vref %s">%s</text>`,
		xx, c.padT, xx, c.h-c.padB, class, xx+3, c.padT+10+float64(row)*12, class, esc(label))
}

// legendChar is the width of a legend character, in user units: about
// that of a digit or an upper-case letter at 12 px.
const legendChar = 7.0

// legend adds one entry to the legend above the plot.
func (c *chart) legend(class, label string) {
	// An entry that would run past the plot is cut to the room left.
	if room := int((chartW - padR - c.legendX - 22) / legendChar); room < len([]rune(label)) {
		label = shorten(label, max(room, 6))
	}
	fmt.Fprintf(&c.b, `<line x1="%.0f" y1="14" x2="%.0f" y2="14" class="%s"/><text x="%.0f" y="18" class="lg">%s</text>`,
		c.legendX, c.legendX+18, class, c.legendX+22, esc(label))
	c.legendX += 22 + legendChar*float64(len([]rune(label))) + 14
}

func (c *chart) html() template.HTML {
	c.b.WriteString("</svg>")
	return template.HTML(c.b.String()) // every text in it went through esc
}

func esc(s string) string { return template.HTMLEscapeString(s) }
