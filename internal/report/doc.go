// Package report renders one run as a self-contained HTML page (no
// scripts, no external files: inline SVG and CSS): the settings and
// results from the detail log, and, from the Chrome trace the LoadGen
// writes with tracing on, a latency histogram, latency over time and
// completions per second over time.
//
// Package report imports only the standard library and internal/mllog; it
// must never import host, loadgen, sdk, plugins or cmd.
package report
