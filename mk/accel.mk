# Accelerator plugins: plugins/tensorrt and plugins/qaic. Both
# build with CGO_ENABLED=0 and bind their native runtimes at run time; their
# tests compile fake runtimes with gcc, so `make test` needs no SDK.
ACCEL_BENCHTIME ?= 2s
TRT_SHIM ?= $(BIN)/libmlph_trt.so
# Each plugin's binary and manifest go to $(ACCEL_PLUGIN_DIR)/NAME/, where
# `mlperf-host --plugin NAME --plugin-dirs $(ACCEL_PLUGIN_DIR)` finds them.
ACCEL_PLUGINS := tensorrt qaic
ACCEL_PLUGIN_DIR ?= $(BIN)/plugins
ACCEL_PLUGIN_TARGETS := $(addprefix accel-plugin-,$(ACCEL_PLUGINS))

.PHONY: tensorrt-shim tensorrt-ptx bench-accel accel-hw-test accel-gpu-check accel-gpu-check-bundle bench-accel-server bench-accel-server-qaic accel-plugins $(ACCEL_PLUGIN_TARGETS)

accel-plugins: $(ACCEL_PLUGIN_TARGETS) ## build the tensorrt and qaic plugin binaries (CGO_ENABLED=0) with their manifests into bin/plugins/

$(ACCEL_PLUGIN_TARGETS): accel-plugin-%:
	@mkdir -p $(ACCEL_PLUGIN_DIR)/$*
	CGO_ENABLED=0 $(GO) build -o $(ACCEL_PLUGIN_DIR)/$*/$* ./plugins/$*/cmd/$*
	cp plugins/$*/cmd/$*/plugin.json $(ACCEL_PLUGIN_DIR)/$*/plugin.json

tensorrt-shim: ## build the TensorRT extern "C" shim (needs TensorRT and CUDA headers; says what is missing)
	./plugins/tensorrt/shim/build.sh $(TRT_SHIM)

tensorrt-ptx: ## regenerate the tensorrt plugin's gather kernel PTX from its LLVM IR (needs llc with NVPTX)
	llc -march=nvptx64 -mcpu=sm_52 -O3 plugins/tensorrt/trt/kernels/gather.ll -o plugins/tensorrt/trt/kernels/gather.ptx

bench-accel: ## tensorrt and qaic plugins against fake runtimes: per-sample overhead and stream/activation utilisation
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench . -benchtime $(ACCEL_BENCHTIME) ./plugins/tensorrt/trt/ ./plugins/qaic/aic/

accel-hw-test: ## CUDA half of the tensorrt plugin on a real GPU (MLPERF_HOST_CUDART=/path/libcudart.so.N)
	@test -n "$$MLPERF_HOST_CUDART" || { echo "set MLPERF_HOST_CUDART to the libcudart.so.N to test"; exit 1; }
	MLPERF_HOST_DEVICE=1 $(GO) test -count=1 -run TestHardwareCUDA -v ./plugins/tensorrt/trt/

accel-gpu-check: ## tensorrt plugin on a CUDA GPU without TensorRT: Offline, Server peak (15 ms), H2D bound (docs/tensorrt.md)
	./scripts/accel-gpu-check.sh

ACCEL_CHECK_BUNDLE ?= $(BIN)/accel-gpu-check.tar.gz

accel-gpu-check-bundle: embed-onnx ## accel-gpu-check's binaries, stripped, in one archive for a GPU machine without Go (ACCEL_CHECK_BUNDLE=... ./scripts/accel-gpu-check.sh)
	rm -rf $(BIN)/accel-gpu-check && mkdir -p $(BIN)/accel-gpu-check/plugins/tensorrt
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(BIN)/accel-gpu-check/mlperf-host ./cmd/mlperf-host
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(BIN)/accel-gpu-check/plugins/tensorrt/tensorrt ./plugins/tensorrt/cmd/tensorrt
	cp plugins/tensorrt/cmd/tensorrt/plugin.json $(BIN)/accel-gpu-check/plugins/tensorrt/
	CGO_ENABLED=0 $(GO) test -c -trimpath -ldflags='-s -w' -o $(BIN)/accel-gpu-check/trt.test ./plugins/tensorrt/trt/
	tar -czf $(ACCEL_CHECK_BUNDLE) -C $(BIN)/accel-gpu-check .

bench-accel-server: ## accel-gpu-check's pipeline on the fake CUDA runtime with simulated device time: Offline against the Server peak through mlperf-host
	ACCEL_CHECK_FAKE=1 ./scripts/accel-gpu-check.sh

bench-accel-server-qaic: ## the same pipeline for the qaic plugin on the fake AIC runtime with simulated device time
	ACCEL_CHECK_FAKE=1 ACCEL_CHECK_PLUGIN=qaic ./scripts/accel-gpu-check.sh

BENCH_TARGETS += bench-accel bench-accel-server bench-accel-server-qaic
