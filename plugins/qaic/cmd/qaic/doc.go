// Command qaic serves the Qualcomm Cloud AI 100 backend (package aic) to
// mlperf-host as a subprocess plugin. It builds with CGO_ENABLED=0 and
// finds the AIC runtime (libQAic.so) at run time, so the same binary runs
// on any Linux machine: without the runtime it still starts, its Info
// lists no devices and says why, and Load fails naming libQAic.so and how
// to install it.
//
//	make accel-plugins     # bin/plugins/qaic/{qaic,plugin.json}
//	mlperf-host run --plugin qaic --plugin-dirs bin/plugins --model resnet50-qpc/ \
//	    --set qaic.batch_size=8 --set qaic.activations=2
//
// The host passes the plugin options (--set qaic.NAME=VALUE) to Load,
// which answers the MaxInFlight they lead to (ABI v1.1). The start-up
// defaults, what Info says before Load, come from MLPERF_QAIC_NAME
// variables of the plugin's environment (inherited from the host), the
// same options under another spelling: MLPERF_QAIC_ACTIVATIONS=2
// MLPERF_QAIC_SET_SIZE=4. docs/qaic.md lists the options.
//
// Package main imports only sdk and the plugin's own packages; it must
// not import host, loadgen, cmd or another plugin.
package main
