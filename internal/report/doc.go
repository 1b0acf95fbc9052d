// Package report renders runs as self-contained HTML pages (inline SVG and
// CSS; no scripts, nothing fetched): one run's verdict, its result as the
// round's submission checker reports it (tokens per second for LLMs, the
// early-stopping estimate for SingleStream and MultiStream), key metrics in
// human units (an LLM's TTFT and TPOT against their limits) and the charts
// that fit its scenario (from the Chrome trace the LoadGen writes with
// tracing on, else from the detail log's percentiles); an accuracy run's
// scores against their targets; or several runs side by side with ratios
// against the first, their result metric and latency percentiles in one
// chart each. Runs of published submission trees are read as the tree
// names them: benchmark, scenario (Interactive included) and system.
//
// Package report imports only the standard library and internal/mllog and
// internal/benchmarks; it must never import host, loadgen, sdk, plugins or
// cmd.
package report
