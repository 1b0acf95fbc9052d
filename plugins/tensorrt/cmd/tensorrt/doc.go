// Command tensorrt serves the TensorRT backend (package trt) to mlperf-host
// as a subprocess plugin. It builds with CGO_ENABLED=0 and finds libcudart
// and the TensorRT shim (libmlph_trt.so) at run time, so the same binary
// runs on any Linux machine: without them it still starts, its Info lists
// no devices and says why, and Load fails naming the missing library and
// how to install it.
//
//	make accel-plugins     # bin/plugins/tensorrt/{tensorrt,plugin.json}
//	mlperf-host run --plugin tensorrt --plugin-dirs bin/plugins --model resnet50.plan \
//	    --set tensorrt.streams=4 --set tensorrt.shim=/opt/mlph/libmlph_trt.so
//
// The host passes the plugin options (--set tensorrt.NAME=VALUE) to Load,
// which answers the MaxInFlight they lead to (ABI v1.1). The start-up
// defaults, what Info says before Load, come from MLPERF_TENSORRT_NAME
// variables of the plugin's environment (inherited from the host), the
// same options under another spelling: MLPERF_TENSORRT_STREAMS=4
// MLPERF_TENSORRT_DEVICES=0,1. docs/tensorrt.md lists the options.
//
// Package main imports only sdk and the plugin's own packages; it must
// not import host, loadgen, cmd or another plugin.
package main
