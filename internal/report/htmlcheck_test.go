package report

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageWant is what checkPage expects of a page.
type pageWant struct {
	// title holds what the title must name.
	title []string
	// runs is how many runs the page shows.
	runs int
	// metric maps a key-metric row's label to texts its cells hold, in
	// order.
	metric map[string][]string
}

// rawNanoseconds is a value the page should have put in human units.
var rawNanoseconds = regexp.MustCompile(`\d{7,}`)

// checkPage parses a page with the HTML5 parsing algorithm browsers use
// and checks what a reader relies on: a title that names the benchmark,
// the scenario and the runs and no path of this machine; nothing fetched
// or run (no script, no external reference); tables whose rows line up
// with their header and hold no raw nanoseconds; the key metrics; and a
// chart per curve with one line per run.
func checkPage(t *testing.T, src string, want pageWant) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	require.NoError(t, err)

	title := text(first(doc, atom.Title))
	for _, w := range want.title {
		assert.Contains(t, title, w, "title")
	}
	assert.Equal(t, strings.TrimSuffix(title, " — mlperf-host report"), text(first(doc, atom.H1)), "h1 is the title")
	assert.NotContains(t, src, os.TempDir(), "no path of this machine")
	assert.NotRegexp(t, `(^|[\s(])/[A-Za-z]`, title, "no absolute path in the title")

	for _, n := range all(doc, func(n *html.Node) bool { return n.Type == html.ElementNode }) {
		assert.NotContains(t, []atom.Atom{atom.Script, atom.Link, atom.Img, atom.Iframe, atom.Object, atom.Embed}, n.DataAtom,
			"self-contained: no <%s>", n.Data)
		for _, a := range n.Attr {
			assert.False(t, strings.HasPrefix(a.Key, "on"), "no script in %s's %s", n.Data, a.Key)
			if a.Key == "xmlns" {
				continue
			}
			assert.NotContains(t, a.Val, "://", "nothing fetched: %s's %s", n.Data, a.Key)
			assert.NotEqual(t, "src", a.Key, "nothing fetched: %s", n.Data)
			assert.NotEqual(t, "href", a.Key, "nothing fetched: %s", n.Data)
		}
	}
	style := text(first(doc, atom.Style))
	assert.NotContains(t, style, "url(", "no fetched fonts or images")
	assert.NotContains(t, style, "@import")

	for _, tbl := range all(doc, is(atom.Table)) {
		rows := all(tbl, is(atom.Tr))
		require.NotEmpty(t, rows)
		width := len(cells(rows[0]))
		for _, tr := range rows {
			assert.Len(t, cells(tr), width, "a row of table %q lines up with its header", attr(tbl, "class"))
		}
		if c := attr(tbl, "class"); c == "metrics" || c == "runs" {
			assert.NotRegexp(t, rawNanoseconds, text(tbl), "table %s in human units", c)
		}
	}

	metrics := firstWith(doc, func(n *html.Node) bool { return n.DataAtom == atom.Table && attr(n, "class") == "metrics" })
	if want.metric != nil || want.runs > 1 {
		require.NotNil(t, metrics, "a key-metrics table")
		rows := all(metrics, is(atom.Tr))
		assert.Len(t, cells(rows[0]), 1+want.runs, "a column per run")
		for label, texts := range want.metric {
			i := slices.IndexFunc(rows, func(tr *html.Node) bool {
				td := first(tr, atom.Td)
				return td != nil && text(td.FirstChild) == label
			})
			require.GreaterOrEqual(t, i, 0, "row %q", label)
			row := text(rows[i])
			at := 0
			for _, w := range texts {
				j := strings.Index(row[at:], w)
				if assert.GreaterOrEqual(t, j, 0, "row %q holds %q after %q", label, w, row[:at]) {
					at += j + len(w)
				}
			}
		}
	}

	svgs := all(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "svg" })
	for _, s := range svgs {
		assert.NotEmpty(t, attr(s, "viewbox")+attr(s, "viewBox"), "a chart scales")
		assert.NotEmpty(t, attr(s, "aria-label"), "a chart says what it shows")
	}
	if want.runs > 1 {
		overlay := firstWith(doc, func(n *html.Node) bool { return n.Data == "svg" && attr(n, "aria-label") == "latency by percentile" })
		require.NotNil(t, overlay, "the percentiles of every run in one chart")
		var series []string
		for _, p := range all(overlay, func(n *html.Node) bool { return n.Data == "polyline" }) {
			series = append(series, attr(p, "class"))
		}
		for i := range want.runs {
			assert.Contains(t, series, "s"+string(rune('0'+i)), "run %d's curve", i)
		}
		runs := firstWith(doc, func(n *html.Node) bool { return n.DataAtom == atom.Table && attr(n, "class") == "runs" })
		require.NotNil(t, runs, "a table of the runs")
		assert.Len(t, all(runs, is(atom.Tr)), 1+want.runs)
	}
}

func is(a atom.Atom) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Type == html.ElementNode && n.DataAtom == a }
}

func all(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if match(d) {
			out = append(out, d)
		}
	}
	return out
}

func firstWith(n *html.Node, match func(*html.Node) bool) *html.Node {
	for d := range n.Descendants() {
		if match(d) {
			return d
		}
	}
	return nil
}

func first(n *html.Node, a atom.Atom) *html.Node { return firstWith(n, is(a)) }

func cells(tr *html.Node) []*html.Node {
	var out []*html.Node
	for c := range tr.ChildNodes() {
		if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
			out = append(out, c)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is the text of n and its descendants; "" for nil.
func text(n *html.Node) string {
	if n == nil {
		return ""
	}
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}
