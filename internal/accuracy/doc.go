// Package accuracy reads MLPerf accuracy logs (mlperf_log_accuracy.json)
// and scores them: classification top-1, the ImageNet/ResNet-50 rule of
// the official accuracy-imagenet.py, against a benchmark's quality target.
//
// Package accuracy imports only the standard library and benchmarks; it
// must never import host, loadgen, sdk, plugins or cmd.
package accuracy
