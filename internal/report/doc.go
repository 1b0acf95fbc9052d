// Package report renders runs as self-contained HTML pages (inline SVG and
// CSS; no scripts, nothing fetched): one run's verdict, key metrics in
// human units and the charts that fit its scenario (from the Chrome trace
// the LoadGen writes with tracing on, else from the detail log's
// percentiles), or several runs side by side with ratios against the
// first, their result metric and latency percentiles in one chart each.
//
// Package report imports only the standard library and internal/mllog; it
// must never import host, loadgen, sdk, plugins or cmd.
package report
