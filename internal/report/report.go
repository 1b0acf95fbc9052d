package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// Data is what a report shows.
type Data struct {
	Title string
	// Detail is the run's detail log.
	Detail *mllog.Log
	// Samples are the traced samples; nil when the run was not traced.
	Samples []Sample
	// Accuracy is the accuracy.txt line, when there is one.
	Accuracy string
}

type kv struct{ Key, Value string }

type page struct {
	Title, Accuracy, Validity       string
	Results, Settings, Errors       []kv
	Histogram, OverTime, Throughput template.HTML
	Traced                          bool
	N                               int
}

var tmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:760px;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}
table{border-collapse:collapse;width:100%}td{padding:2px 8px;border-bottom:1px solid #eee;font-family:ui-monospace,monospace;font-size:12px}
.VALID{color:#070}.INVALID{color:#b00}
svg{width:100%;height:auto;background:#fafafa}
.axis{stroke:#333}.grid{stroke:#ddd}.bar{fill:#4a78c2}
.yl{font-size:10px;text-anchor:end}.xl{font-size:10px;text-anchor:middle}.xt{font-size:11px;text-anchor:end}.yt{font-size:11px}
polyline{fill:none;stroke-width:1.5}.p50{stroke:#4a78c2}.p99{stroke:#e08a1e}.max{stroke:#c33;stroke-dasharray:3 2}.qps{stroke:#2a8a4a}
.legend span{margin-right:1em}
</style></head><body>
<h1>{{.Title}}</h1>
<p>Result: <strong class="{{.Validity}}">{{.Validity}}</strong>{{if .Accuracy}} — {{.Accuracy}}{{end}}</p>
<h2>Results</h2><table>{{range .Results}}<tr><td>{{.Key}}</td><td>{{.Value}}</td></tr>{{end}}</table>
{{if .Errors}}<h2>Errors and warnings</h2><table>{{range .Errors}}<tr><td>{{.Key}}</td><td>{{.Value}}</td></tr>{{end}}</table>{{end}}
{{if .Traced}}
<h2>Latency histogram ({{.N}} samples)</h2>{{.Histogram}}
<h2>Latency over time</h2><p class="legend"><span style="color:#4a78c2">p50</span><span style="color:#e08a1e">p99</span><span style="color:#c33">max</span> per interval, by scheduled time</p>{{.OverTime}}
<h2>Completed samples per second</h2>{{.Throughput}}
{{else}}<p>No trace: run with <code>--trace</code> for the latency histogram, latency over time and throughput charts.</p>{{end}}
<h2>Settings</h2><table>{{range .Settings}}<tr><td>{{.Key}}</td><td>{{.Value}}</td></tr>{{end}}</table>
<p><small>mlperf-host report</small></p>
</body></html>
`))

// Write renders d as HTML to w.
func Write(w io.Writer, d Data) error {
	p := page{Title: d.Title, Accuracy: d.Accuracy, Validity: "n/a", Traced: len(d.Samples) > 0, N: len(d.Samples)}
	if d.Detail != nil {
		if v, ok := d.Detail.String("result_validity"); ok {
			p.Validity = v
		}
		seen := map[string]bool{}
		for i := len(d.Detail.Records) - 1; i >= 0; i-- {
			r := d.Detail.Records[i]
			if seen[r.Key] {
				continue
			}
			seen[r.Key] = true
			v, _ := d.Detail.String(r.Key)
			e := kv{r.Key, v}
			switch {
			case r.Metadata.IsError || r.Metadata.IsWarning:
				p.Errors = append(p.Errors, e)
			case strings.HasPrefix(r.Key, "result_"):
				p.Results = append(p.Results, e)
			case strings.HasPrefix(r.Key, "effective_"), strings.HasPrefix(r.Key, "requested_"):
				p.Settings = append(p.Settings, e)
			}
		}
		for _, s := range [][]kv{p.Results, p.Settings, p.Errors} {
			slices.SortFunc(s, func(a, b kv) int { return strings.Compare(a.Key, b.Key) })
		}
	}
	if p.Traced {
		p.Histogram, p.OverTime, p.Throughput = histogram(d.Samples), overTime(d.Samples), rate(d.Samples)
	}
	if err := tmpl.Execute(w, p); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}
