// Package mllog reads MLPerf detail logs (mlperf_log_detail.txt): one
// ":::MLLOG {json}" record per line, as the official LoadGen writes them
// and the official submission checker parses them. The submission checker
// and the HTML report of mlperf-host read runs through it.
//
// Package mllog imports only the standard library; it must never import
// host, loadgen, sdk, plugins or cmd.
package mllog
