package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
)

// runInfo is one run's line in the header of a comparison.
type runInfo struct {
	Name, Label, Benchmark, Scenario, Mode, System, Validity, LoadGen, Date, Trace string
	// Where is the run's division and submitter in a submission tree.
	Where string
}

// page is what the template renders: one run, or several side by side.
type page struct {
	Title, Subtitle string
	CSS             template.CSS
	// Compare: several runs, ratios against the first.
	Compare  bool
	Warnings []string
	Runs     []runInfo
	Metrics  []metricRow
	Figures  []figure
	// One run: its verdict and its log; an accuracy run's scores and
	// accuracy.txt as written.
	Validity, Headline, HeadlineLabel, Accuracy, InvalidReason, EarlyStopping string
	Scores                                                                    []score
	AccuracyFile                                                              string
	Results, Settings, Messages                                               []kv
	// Pool: a pool's members, their shares and latencies; Members: the
	// members a plugin reported of its own (a serving engine's endpoints).
	Pool, Members []poolRow
	// Several runs: each run's own charts, and the settings they differ in.
	PerRun      []runFigures
	Differences []settingsRow
}

type runFigures struct {
	Label   string
	Figures []figure
}

func (r *Run) info() runInfo {
	lg, _, _ := strings.Cut(r.str("loadgen_version"), " @")
	trace := "no trace"
	if n := len(r.Samples); n > 0 {
		trace = count(int64(n)) + " traced samples"
	}
	where := ""
	if r.Where.Division != "" {
		where = r.Where.Division + "/" + r.Where.Submitter + " " + r.Where.Part
	}
	return runInfo{Where: where, Name: r.Name, Label: r.label(), Benchmark: orUnknown(r.Benchmark()), Scenario: orUnknown(r.Scenario()),
		Mode: orUnknown(r.Mode()), System: orUnknown(r.System()), Validity: orNA(r.Validity()),
		LoadGen: lg, Date: r.str("test_datetime"), Trace: trace}
}

func orNA(s string) string {
	if s == "" {
		return "n/a"
	}
	return s
}

// subtitle says what else identifies the run: its directory, mode,
// LoadGen, date (as logged: the page depends on its inputs only) and trace.
func (i runInfo) subtitle() string {
	parts := []string{"run " + i.Name, i.Mode}
	if i.Where != "" {
		parts[0] = i.Where
	}
	if i.LoadGen != "" {
		parts = append(parts, "LoadGen "+i.LoadGen)
	}
	if i.Date != "" {
		parts = append(parts, i.Date)
	}
	return strings.Join(append(parts, i.Trace), " · ")
}

// Write renders one run as a self-contained HTML page: its verdict and
// result metric, the key metrics in human units, the charts that fit its
// scenario, its warnings, every result and setting of its detail log.
//
// # Errors
//
// Only those of w.
func Write(w io.Writer, r *Run) error {
	info := r.info()
	validity := r.Validity()
	if validity == "" { // an accuracy run: no verdict on performance
		validity = orNA(r.Mode())
	}
	p := page{Title: r.Title(), Subtitle: info.subtitle(), CSS: css, Validity: validity, Accuracy: r.accuracyText(),
		Scores: r.scores(), AccuracyFile: r.Accuracy, Metrics: withoutAccuracy(metricRows([]*Run{r})), Figures: r.figures(),
		InvalidReason: r.str("result_invalid_reason"), EarlyStopping: humanEstimates(r.str("early_stopping_result"))}
	if m, ok := r.result(); ok {
		p.Headline, p.HeadlineLabel = m.text(), m.label()
	}
	p.Results, p.Settings, p.Messages = r.logTables()
	p.Pool, p.Members = r.poolRows(), r.pluginMemberRows()
	return render(w, p)
}

// withoutAccuracy drops the accuracy row of a single run's key metrics:
// its page has an accuracy section.
func withoutAccuracy(rows []metricRow) []metricRow {
	return slices.DeleteFunc(rows, func(m metricRow) bool { return m.Key == AccuracyFile })
}

// WriteComparison renders runs side by side: a table of their key metrics
// with each value's ratio to the first run's, their result metric and
// latency percentiles in one chart each, then every run's own charts.
// Runs of different benchmarks or scenarios are compared under a warning
// that says which; warnings returns those warnings.
//
// # Errors
//
// Those of [Check] (wrapping [ErrNotComparable]) and of w.
func WriteComparison(w io.Writer, runs []*Run) (warnings []string, err error) {
	warnings, err = Check(runs)
	if err != nil {
		return nil, err
	}
	p := page{Title: comparisonTitle(runs), CSS: css, Compare: true, Warnings: warnings, Metrics: metricRows(runs),
		Differences: differentSettings(runs)}
	p.Subtitle = fmt.Sprintf("%d runs side by side; ratios against the first, %s", len(runs), runs[0].Name)
	for _, r := range runs {
		p.Runs = append(p.Runs, r.info())
		p.PerRun = append(p.PerRun, runFigures{Label: r.label(), Figures: r.figures()})
	}
	if f, ok := headlineFigure(runs); ok {
		p.Figures = append(p.Figures, f)
	}
	if f, ok := percentileFigure(runs); ok {
		p.Figures = append(p.Figures, f)
	}
	return warnings, render(w, p)
}

// comparisonTitle names what the runs share and what tells them apart:
// "fashion-mnist Offline: onnx vs onnx-ort", "llama2-70b-99 Server:
// NVIDIA vs AMD".
func comparisonTitle(runs []*Run) string {
	var labels []string
	for _, r := range runs {
		labels = append(labels, r.label())
	}
	var shared []string
	for _, of := range []func(*Run) string{(*Run).benchmarkKey, (*Run).Scenario} {
		v := of(runs[0])
		for _, r := range runs[1:] {
			if of(r) != v {
				v = ""
			}
		}
		if v != "" {
			shared = append(shared, v)
		}
	}
	prefix := "Comparison"
	if len(shared) > 0 {
		prefix = strings.Join(shared, " ")
	}
	return prefix + ": " + strings.Join(labels, " vs ")
}

func render(w io.Writer, p page) error {
	if err := tmpl.Execute(w, p); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}
