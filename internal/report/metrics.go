package report

import (
	"slices"
	"strings"
)

// metricDef is one row of the key-metrics table: a detail-log key, what
// to call it, which way is better (+1 higher, -1 lower, 0 neither) and
// whether a ratio between runs means something.
type metricDef struct {
	key, label string
	better     int
	ratio      bool
}

// catalogue lists the key metrics of a scenario's detail log, in the
// order the table shows them: throughput, latency, counts, the checks the
// LoadGen made, and the settings that shape the result.
func catalogue(scenario string) []metricDef {
	out := []metricDef{
		{"result_validity", "Result", 0, false},
		{"result_tokens_per_second", "Tokens per second", +1, true},
		{"result_completed_tokens_per_second", "Completed tokens per second", +1, true},
		{"result_samples_per_second", "Samples per second", +1, true},
		{"result_completed_samples_per_sec", "Completed samples per second", +1, true},
		{"result_scheduled_samples_per_sec", "Scheduled samples per second", 0, true},
		{"result_qps_with_loadgen_overhead", "Queries per second, LoadGen overhead included", +1, true},
		{"result_qps_without_loadgen_overhead", "Queries per second, LoadGen overhead excluded", +1, true},
	}
	// An Offline sample's latency is when it finished after the one
	// query: it grows with how many samples the run issued, so it is
	// neither better nor worse between runs.
	better := -1
	if scenario == "Offline" {
		better = 0
	}
	switch scenario {
	case "SingleStream":
		out = append(out, metricDef{"early_stopping_latency_ss", "Early-stopping estimate of the 90th percentile latency", -1, true})
	case "MultiStream":
		out = append(out, metricDef{"early_stopping_latency_ms", "Early-stopping estimate of the 99th percentile latency per query", -1, true})
	}
	out = append(out,
		metricDef{ttftKey, "Time to first token, 99th percentile", -1, true},
		metricDef{tpotKey, "Time per output token, 99th percentile", -1, true},
		metricDef{"result_first_token_mean_latency_ns", "Time to first token, mean", -1, true},
		metricDef{"result_time_to_output_token_mean", "Time per output token, mean", -1, true},
	)
	for _, k := range latencyKeys(scenario) {
		out = append(out, metricDef{k.key, k.label, better, true})
	}
	return append(out,
		metricDef{"result_query_count", "Queries", 0, false},
		metricDef{"result_overlatency_query_count", "Queries over the latency bound", -1, false},
		metricDef{"result_min_duration_met", "Minimum duration met", 0, false},
		metricDef{"result_min_queries_met", "Minimum query count met", 0, false},
		metricDef{"result_perf_constraints_met", "Latency constraint met", 0, false},
		metricDef{"early_stopping_met", "Early stopping met", 0, false},
		metricDef{"effective_target_qps", "Target QPS (setting)", 0, false},
		metricDef{"effective_target_latency_ns", "Target latency (setting)", 0, false},
		metricDef{"effective_samples_per_query", "Samples per query (setting)", 0, false},
		metricDef{"effective_min_duration_ms", "Minimum duration (setting)", 0, false},
	)
}

// The token latency keys whose 99th percentiles an LLM's Server and
// Interactive runs are bounded on.
const (
	ttftKey = "result_first_token_99.00_percentile_latency_ns"
	tpotKey = "result_time_per_output_token_99.00_percentile_ns"
)

// boundKeys are the results that compare latencies with the latency
// bound: shown only where the run has one.
var boundKeys = []string{"result_overlatency_query_count", "result_perf_constraints_met"}

// cell is one run's value in a row: human text, the value as logged (a
// tooltip) and, past the first run, its ratio to the first run's.
type cell struct {
	Text, Raw         string
	Ratio, RatioClass string
	// Limit is the bound the value must stay under ("limit 450 ms"),
	// LimitClass "over" when it does not.
	Limit, LimitClass string
}

// metricRow is one row of the key-metrics table.
type metricRow struct {
	Label, Key string
	// Headline marks the scenario's result metric.
	Headline bool
	Cells    []cell
}

// metricRows builds the key-metrics table of runs: every row of their
// scenarios' catalogues that at least one run logged, then accuracy.
func metricRows(runs []*Run) []metricRow {
	var defs []metricDef
	for _, r := range runs {
		for _, d := range catalogue(r.effective()) {
			if !slices.ContainsFunc(defs, func(e metricDef) bool { return e.key == d.key }) {
				defs = append(defs, d)
			}
		}
	}
	headline := ""
	if m, ok := runs[0].result(); ok {
		headline = m.key
	}
	var rows []metricRow
	for _, d := range defs {
		row := metricRow{Label: d.label, Key: d.key, Headline: d.key == headline}
		found := false
		for i, r := range runs {
			c := cell{Text: "—"}
			if raw, ok := r.raw(d.key); ok && r.hasMetric(d.key) && !unsetSetting(r, d.key) &&
				(r.bound() > 0 || !slices.Contains(boundKeys, d.key)) {
				found = true
				c.Text, c.Raw = humanValue(d.key, raw), strings.TrimSpace(string(raw))
				c.Limit, c.LimitClass = r.limitOf(d.key)
				base, okBase := runs[0].num(d.key)
				v, okV := r.num(d.key)
				if i > 0 && d.ratio && okBase && okV && base != 0 {
					c.Ratio, c.RatioClass = ratioCell(v/base, d.better)
				}
			}
			row.Cells = append(row.Cells, c)
		}
		if found {
			rows = append(rows, row)
		}
	}
	if slices.ContainsFunc(runs, func(r *Run) bool { return r.Accuracy != "" }) {
		row := metricRow{Label: "Accuracy", Key: AccuracyFile}
		for _, r := range runs {
			c := cell{Text: "—"}
			if r.Accuracy != "" {
				c.Text = r.accuracyText()
			}
			row.Cells = append(row.Cells, c)
		}
		rows = append(rows, row)
	}
	return rows
}

// limitOf says the bound a token latency must stay under in the run's
// scenario, and "over" when the run's value is not under it.
func (r *Run) limitOf(key string) (string, string) {
	lim, ok := r.tokenLimits()
	if !ok {
		return "", ""
	}
	var bound float64
	switch key {
	case ttftKey:
		bound = float64(lim.TTFT.Nanoseconds())
	case tpotKey:
		bound = float64(lim.TPOT.Nanoseconds())
	default:
		return "", ""
	}
	class := "within"
	if v, ok := r.num(key); ok && v >= bound {
		class = "over"
	}
	return r.Scenario() + " limit " + duration(bound), class
}

// unsetSetting reports whether key is a setting at 0, which the scenario
// does not use (Offline's target latency).
func unsetSetting(r *Run, key string) bool {
	v, ok := r.num(key)
	return strings.HasPrefix(key, "effective_") && ok && v == 0
}

// hasMetric reports whether key belongs to the run's own scenario: a
// MultiStream log also writes per-sample latency keys, which hold the
// per-query values again.
func (r *Run) hasMetric(key string) bool {
	return slices.ContainsFunc(catalogue(r.effective()), func(d metricDef) bool { return d.key == key })
}

// raw returns a detail-log value as logged.
func (r *Run) raw(key string) ([]byte, bool) {
	if r.Detail == nil {
		return nil, false
	}
	return r.Detail.Raw(key)
}

// ratioCell formats a ratio to the first run and says whether it is
// better: "×91.8 better".
func ratioCell(r float64, better int) (string, string) {
	switch {
	case better == 0 || (r > 0.9995 && r < 1.0005):
		return ratioText(r), "same"
	case (r > 1) == (better > 0):
		return ratioText(r) + " better", "better"
	default:
		return ratioText(r) + " worse", "worse"
	}
}

// kv is a key and its human value, with the value as logged.
type kv struct{ Key, Value, Raw string }

// logTables sorts the detail log's records into results, settings and
// the errors and warnings, each key once (its last value), by key.
func (r *Run) logTables() (results, settings, messages []kv) {
	if r.Detail == nil {
		return nil, nil, nil
	}
	seen := map[string]bool{}
	for i := len(r.Detail.Records) - 1; i >= 0; i-- {
		rec := r.Detail.Records[i]
		if rec.Metadata.IsError || rec.Metadata.IsWarning {
			messages = append(messages, kv{rec.Key, humanValue(rec.Key, rec.Value), string(rec.Value)})
			continue
		}
		if seen[rec.Key] {
			continue
		}
		seen[rec.Key] = true
		e := kv{rec.Key, humanValue(rec.Key, rec.Value), strings.TrimSpace(string(rec.Value))}
		switch {
		case strings.HasPrefix(rec.Key, "result_"), strings.HasPrefix(rec.Key, "early_stopping_"):
			results = append(results, e)
		case strings.HasPrefix(rec.Key, "effective_"), strings.HasPrefix(rec.Key, "requested_"):
			settings = append(settings, e)
		}
	}
	for _, s := range [][]kv{results, settings} {
		slices.SortFunc(s, func(a, b kv) int { return strings.Compare(a.Key, b.Key) })
	}
	slices.Reverse(messages)
	return results, settings, messages
}
