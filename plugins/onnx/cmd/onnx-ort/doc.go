//go:build linux || darwin

// Command onnx-ort serves the onnx backend (plugins/onnx/backend) as the
// subprocess plugin onnx-ort: the same backend as the embedded WASM onnx
// plugin, run natively, with ONNX Runtime as its default engine.
//
//	make build     # also installs bin/plugins/onnx-ort/{onnx-ort,plugin.json}
//	make ort       # fetches libonnxruntime; the next `make build` puts it beside the plugin
//	mlperf-host run --plugin onnx-ort --plugin-dirs bin/plugins --set onnx-ort.threads=2
//
// The plugin looks for libonnxruntime beside its executable, then on the
// dynamic loader's path; the ort_library option names another. When the
// library cannot be loaded and the options name no engine, the go engine
// serves the model and the plugin logs a warning naming the library and
// how to get it (`make ort`); with engine=ort, Load fails with that
// message instead. docs/onnx.md lists the options.
//
// Package main imports only sdk and the onnx plugin's own packages; it
// must not import host, loadgen, cmd or another plugin.
package main
