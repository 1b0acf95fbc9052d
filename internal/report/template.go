package report

import (
	"fmt"
	"html/template"
	"strings"
)

// css styles the page and its charts; the series colours come from
// seriesColors. Nothing is fetched: no fonts, no images, no scripts.
var css = template.CSS(baseCSS + seriesCSS())

const baseCSS = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#fff}
main{max-width:860px;margin:0 auto;padding:24px 20px 40px}
body.wide main{max-width:1240px}
h1{font-size:22px;margin:0 0 4px;line-height:1.25}
h2{font-size:17px;margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid #e3e6ea}
h3{font-size:15px;margin:8px 0}
.sub{color:#5b6470;font-size:13px;margin:0}
.verdict{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:baseline;margin:18px 0;padding:14px 18px;border-radius:8px;background:#f4f6f9}
.badge{font-weight:700;font-size:13px;padding:2px 10px;border-radius:4px;color:#fff;background:#6b7280}
.badge.VALID{background:#1e7d3a}.badge.INVALID{background:#b3261e}
.metric{font-size:26px;font-weight:650;overflow-wrap:anywhere;min-width:0}.metric small{display:block;font-size:12px;color:#5b6470;font-weight:400}
.metric.acc{font-size:20px}
.scroll{overflow-x:auto}
pre.file{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere;background:#f7f8fa;padding:8px 12px;border-radius:6px;margin:6px 0}
.why{flex-basis:100%;font-size:13px;color:#5b6470;margin:0}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:4px 8px;border-bottom:1px solid #eceef1;text-align:left;vertical-align:top}
th{font-weight:600;background:#f7f8fa}
td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
tr.headline td{font-weight:650;background:#f3f7fd}
.key{display:block;font:11px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#8a929c}
.r{display:block;font-size:11px;font-weight:400}.better,.within,.meets{color:#1e7d3a}.worse,.over,.below,.above{color:#b3261e}.same{color:#6b7280}
.warn{background:#fff4e5;border:1px solid #f0c36d;border-radius:6px;padding:8px 14px;margin:16px 0;font-size:14px}
.warn ul{margin:4px 0;padding-left:20px}
.legend-note{font-size:12px;color:#5b6470;margin:4px 0 0}
figure{margin:10px 0 26px}main>figure{max-width:900px}
figcaption{font-size:12.5px;color:#5b6470;margin-top:2px}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:8px 24px}
details{margin:18px 0}summary{cursor:pointer;font-weight:600}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
footer{margin-top:36px;font-size:12px;color:#8a929c}
@media (max-width:900px){table .key{display:none}th,td{padding:3px 5px}}
svg{width:100%;height:auto;display:block;background:#fcfcfd}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:#333}
.grid{stroke:#eceef1;stroke-width:1}.axis,.tick{stroke:#666;stroke-width:1}
.yl{font-size:11px;text-anchor:end}.xl{font-size:11px;text-anchor:middle}
.xt,.yt{font-size:12px;text-anchor:middle;fill:#5b6470}
.lg{font-size:12px}
polyline,line{fill:none;stroke-width:2}
.p50{stroke:#2f6db5}.p99{stroke:#e07b00}.max{stroke:#9aa1a9;stroke-dasharray:4 3;stroke-width:1.5}
.done{stroke:#2a9d4a}.sched{stroke:#2f6db5}
.avg{stroke:#6b7280;stroke-dasharray:6 4;stroke-width:1.5}
.bound{stroke:#b3261e;stroke-dasharray:7 4;stroke-width:1.5}
line.mark{stroke:#6b7280;stroke-dasharray:2 3;stroke-width:1}line.mark.tgt{stroke:#1d2330;stroke-dasharray:none;stroke-width:1.2}
text.avg,text.bound,text.mark{stroke:none;font-size:11px}text.avg{fill:#6b7280}text.bound{fill:#b3261e}text.mark{fill:#5b6470}text.tgt{fill:#1d2330;font-weight:700}
.ref{text-anchor:end}
.hist{fill:#7aa6d9}
.cat{font-size:12px;text-anchor:end}.val{font-size:12px}.val.in{text-anchor:end;fill:#fff;font-weight:600}
`

// seriesCSS gives run i's lines, points and bars the class si.
func seriesCSS() string {
	var b strings.Builder
	for i, c := range seriesColors {
		fmt.Fprintf(&b, ".s%d{stroke:%s}circle.s%d,rect.s%d{fill:%s;stroke:none}\n", i, c, i, i, c)
	}
	return b.String()
}

var tmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} — mlperf-host report</title>
<style>{{.CSS}}</style></head>
<body{{if .Compare}} class="wide"{{end}}><main>
<header><h1>{{.Title}}</h1><p class="sub">{{.Subtitle}}</p></header>
{{- if .Warnings}}
<div class="warn" role="note"><strong>Not like for like.</strong><ul>{{range .Warnings}}<li>{{.}}</li>{{end}}</ul></div>
{{- end}}
{{- if .Compare}}
<h2>Runs</h2>
<div class="scroll"><table class="runs"><tr><th>run</th><th>benchmark</th><th>scenario</th><th>system</th><th>mode</th><th>result</th><th>LoadGen</th><th>date</th><th>trace</th></tr>
{{- range .Runs}}
<tr><td>{{.Name}}</td><td>{{.Benchmark}}</td><td>{{.Scenario}}</td><td>{{.System}}</td><td>{{.Mode}}</td><td>{{.Validity}}</td><td>{{.LoadGen}}</td><td>{{.Date}}</td><td>{{.Trace}}</td></tr>
{{- end}}
</table></div>
<h2>Key metrics</h2>
<div class="scroll"><table class="metrics"><tr><th>metric</th>{{range .Runs}}<th class="num">{{.Label}}</th>{{end}}</tr>
{{- range .Metrics}}
<tr{{if .Headline}} class="headline"{{end}}><td>{{.Label}}<span class="key">{{.Key}}</span></td>
{{- range .Cells}}<td class="num" title="{{.Raw}}">{{.Text}}{{if .Ratio}}<span class="r {{.RatioClass}}">{{.Ratio}}</span>{{end}}{{if .Limit}}<span class="r {{.LimitClass}}">{{.Limit}}</span>{{end}}</td>{{end}}</tr>
{{- end}}
</table></div>
<p class="legend-note">×N: the run's value over the first run's; “better” and “worse” follow the metric's direction (throughput up, latency down).</p>
{{- range .Figures}}
<h2>{{.Title}}</h2><figure>{{.SVG}}<figcaption>{{.Note}}</figcaption></figure>
{{- end}}
<h2>Each run</h2>
<div class="cols">
{{- range .PerRun}}
<section><h3>{{.Label}}</h3>
{{- range .Figures}}
<figure><h3>{{.Title}}</h3>{{.SVG}}<figcaption>{{.Note}}</figcaption></figure>
{{- else}}<p>No charts: this run has no latency results.</p>{{end}}
</section>
{{- end}}
</div>
{{- if .Differences}}
<h2>Settings that differ</h2>
<table class="settings"><tr><th>setting</th>{{range .Runs}}<th class="num">{{.Label}}</th>{{end}}</tr>
{{- range .Differences}}
<tr><td><code>{{.Key}}</code></td>{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{- end}}
</table>
{{- end}}
{{- else}}
<div class="verdict"><span class="badge {{.Validity}}">{{.Validity}}</span>
{{- if .Headline}}<span class="metric">{{.Headline}}<small>{{.HeadlineLabel}}</small></span>{{end}}
{{- if .Accuracy}}<span class="metric acc">{{.Accuracy}}<small>accuracy</small></span>{{end}}
{{- if .InvalidReason}}<p class="why">Why INVALID: {{.InvalidReason}}</p>{{end}}
{{- if .EarlyStopping}}<p class="why">Early stopping: {{.EarlyStopping}}</p>{{end}}
</div>
{{- if .Metrics}}
<h2>Key metrics</h2>
<table class="metrics"><tr><th>metric</th><th class="num">value</th></tr>
{{- range .Metrics}}
<tr{{if .Headline}} class="headline"{{end}}><td>{{.Label}}<span class="key">{{.Key}}</span></td>{{range .Cells}}<td class="num" title="{{.Raw}}">{{.Text}}{{if .Limit}}<span class="r {{.LimitClass}}">{{.Limit}}</span>{{end}}</td>{{end}}</tr>
{{- end}}
</table>
{{- end}}
{{- if or .Scores .AccuracyFile}}
<h2>Accuracy</h2>
{{- if .Scores}}
<table class="scores"><tr><th>metric</th><th class="num">score</th><th>target</th></tr>
{{- range .Scores}}
<tr><td>{{.Metric}}</td><td class="num">{{.Value}}{{if .Verdict}}<span class="r {{.Class}}">{{.Verdict}}</span>{{end}}</td><td>{{.Target}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- if .AccuracyFile}}
<details><summary>accuracy.txt as written</summary><pre class="file">{{.AccuracyFile}}</pre></details>
{{- end}}
{{- end}}
{{- if .Pool}}
<h2>Pool members</h2>
<table class="pool"><tr><th>member</th><th>plugin</th><th class="num">samples</th><th class="num">share</th><th class="num">rate while busy</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th><th class="num">max</th></tr>
{{- range .Pool}}
<tr><td>{{.Name}}</td><td>{{.Plugin}} ({{.Transport}})</td><td class="num">{{.Samples}}{{if .Failed}} ({{.Failed}} failed){{end}}</td><td class="num">{{.Share}}</td><td class="num">{{.Rate}}</td><td class="num">{{.P50}}</td><td class="num">{{.P90}}</td><td class="num">{{.P99}}</td><td class="num">{{.Max}}</td></tr>
{{- end}}
</table>
<p class="legend-note">Latency from a sample's arrival in the pool to its completion by the member.</p>
{{- end}}
{{- if .Members}}
<h2>Plugin members</h2>
<table class="pool"><tr><th>member</th><th>plugin</th><th class="num">requests</th><th class="num">share</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th><th class="num">max</th><th>first error</th></tr>
{{- range .Members}}
<tr><td>{{.Name}}</td><td>{{.Plugin}} ({{.Transport}})</td><td class="num">{{.Samples}}{{if .Failed}} ({{.Failed}} failed){{end}}</td><td class="num">{{.Share}}</td><td class="num">{{.P50}}</td><td class="num">{{.P90}}</td><td class="num">{{.P99}}</td><td class="num">{{.Max}}</td><td>{{.FirstError}}</td></tr>
{{- end}}
</table>
<p class="legend-note">What the plugin reported of the members it drives (a serving engine's endpoints): latency as the plugin measures it.</p>
{{- end}}
{{- range .Figures}}
<h2>{{.Title}}</h2><figure>{{.SVG}}<figcaption>{{.Note}}</figcaption></figure>
{{- else}}
<p>No charts: this run has no latency results.</p>
{{- end}}
{{- if .Messages}}
<h2>Errors and warnings</h2>
<table class="messages">{{range .Messages}}<tr><td><code>{{.Key}}</code></td><td>{{.Value}}</td></tr>{{end}}</table>
{{- end}}
{{- if .Results}}
<details><summary>Every result in the detail log ({{len .Results}})</summary>
<table class="results">{{range .Results}}<tr><td><code>{{.Key}}</code></td><td class="num" title="{{.Raw}}">{{.Value}}</td></tr>{{end}}</table>
</details>
{{- end}}
{{- if .Settings}}
<details><summary>Settings ({{len .Settings}})</summary>
<table class="settings">{{range .Settings}}<tr><td><code>{{.Key}}</code></td><td class="num" title="{{.Raw}}">{{.Value}}</td></tr>{{end}}</table>
</details>
{{- end}}
{{- end}}
<footer>mlperf-host report: self-contained, no scripts; values as logged in each cell's tooltip.</footer>
</main></body></html>
`))
