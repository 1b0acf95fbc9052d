# plugins/onnx: the Go ONNX engine and the onnx plugin backend.
# The fixture and model tooling (tools/onnxgen) needs Debian's PyTorch:
#   apt-get install -y python3-torch python3-torchvision python3-onnx dataset-fashion-mnist
# Its outputs are committed; tests never run it.
ONNX_PY ?= /usr/bin/python3
ONNX_TESTDATA := plugins/onnx/testdata
ONNX_PERF_DIR ?= $(CURDIR)/bin/onnx-models
ONNX_BENCHTIME ?= 20x

.PHONY: onnx-fixtures onnx-fashion onnx-perf-models bench-onnx onnx-wasm-test

onnx-fixtures: ## regenerate plugins/onnx operator and small-model fixtures with PyTorch
	cd tools/onnxgen && $(ONNX_PY) fixtures.py --out $(CURDIR)/$(ONNX_TESTDATA)/ops

onnx-fashion: ## retrain the Fashion-MNIST demo CNN (~1 min) and rewrite plugins/onnx/fashionmnist/data
	cd tools/onnxgen && $(ONNX_PY) fashion.py --out $(CURDIR)/plugins/onnx/fashionmnist/data

onnx-perf-models: ## write the Go zoo's random-weight ResNet-50 v1.5 and MobileNetV2 ONNX files into ONNX_PERF_DIR (not committed)
	$(GO) run ./plugins/onnx/internal/zoo/zoogen $(ONNX_PERF_DIR)

onnx-perf-models-torch: ## the same topologies exported from torchvision (needs python3-torchvision)
	cd tools/onnxgen && $(ONNX_PY) perf_models.py --out $(ONNX_PERF_DIR)/torch

# The WASM build of the engine runs the same tests as the native one, in
# wazero (the runtime the host embeds), through a go test -exec runner.
ONNX_WAZERO := $(BIN)/wazero

$(ONNX_WAZERO): go.mod
	$(GO) build -o $@ github.com/tetratelabs/wazero/cmd/wazero

# The engine's packages. Not the zoo (a perf-model generator whose test
# builds 30M random weights: 20 s in wazero for nothing WASM-specific), and
# not the backend: it imports sdk, whose wasip1 build exports the ABI and
# imports mlperf_host_v1, which only the host provides (the host's tests
# run the plugin as a WASM guest).
ONNX_WASM_PKGS := ./plugins/onnx/fashionmnist ./plugins/onnx/internal/engine \
	./plugins/onnx/internal/goengine ./plugins/onnx/internal/kernels ./plugins/onnx/internal/onnxpb

onnx-wasm-test: $(ONNX_WAZERO) $(ONNX_WASM_LINK) ## run the plugins/onnx tests compiled for GOOS=wasip1 in wazero (SIMD kernels linked)
	WAZERO=$(ONNX_WAZERO) ONNX_WASM_LINK=$(ONNX_WASM_LINK) GOOS=wasip1 GOARCH=wasm $(GO) test -count=1 -exec $(CURDIR)/tools/onnxgen/wasip1_exec.sh $(ONNX_WASM_PKGS)

TEST_DEPS += onnx-wasm-test

bench-onnx: ## Go engine benchmarks: GEMM GFLOP/s, conv kernels, whole models (1 thread and all), backend queries
	$(GO) test -run '^$$' -bench 'Gemm|Conv' -benchtime $(ONNX_BENCHTIME) ./plugins/onnx/internal/kernels
	$(GO) test -run '^$$' -bench 'Models' -benchtime $(ONNX_BENCHTIME) ./plugins/onnx/internal/goengine
	$(GO) test -run '^$$' -bench 'Infer' -benchtime 200x ./plugins/onnx/backend
	$(GO) test -run '^$$' -bench 'Engines' -benchtime $(ONNX_BENCHTIME) ./plugins/onnx/backend

onnx-wasm-bench: $(ONNX_WAZERO) $(ONNX_WASM_LINK) ## the Go engine's model benchmarks compiled for GOOS=wasip1, in wazero (one thread)
	cd plugins/onnx/internal/goengine && WAZERO=$(ONNX_WAZERO) ONNX_WASM_LINK=$(ONNX_WASM_LINK) GOOS=wasip1 GOARCH=wasm $(GO) test -exec $(CURDIR)/tools/onnxgen/wasip1_exec.sh \
		-run '^$$' -bench 'Models' -benchtime 3x . -args -threads 1 -batches 1

BENCH_TARGETS += bench-onnx onnx-wasm-bench

# The same plugin built natively as the subprocess plugin onnx-ort
# (plugins/onnx/cmd/onnx-ort: ONNX Runtime by default, the go engine when
# the library is missing), installed where `mlperf-host --plugin onnx-ort`
# finds it (bin/plugins, beside the binary), with the library `make ort`
# fetched copied beside it. `make build` builds it.
ONNX_ORT_DIR := $(BIN)/plugins/onnx-ort

.PHONY: onnx-ort-plugin

onnx-ort-plugin: ## build the native onnx plugin into bin/plugins/onnx-ort/ (default engine ONNX Runtime, from `make ort` when fetched)
	@mkdir -p $(ONNX_ORT_DIR)
	CGO_ENABLED=0 $(GO) build -o $(ONNX_ORT_DIR)/onnx-ort ./plugins/onnx/cmd/onnx-ort
	cp plugins/onnx/cmd/onnx-ort/plugin.json $(ONNX_ORT_DIR)/plugin.json
	@if [ -f $(ORT_LIB) ]; then install -C -m 0644 $(ORT_LIB) $(ONNX_ORT_DIR)/; \
	else echo "$(ONNX_ORT_DIR): no ONNX Runtime to install beside it (\`make ort\` fetches it): onnx-ort runs the go engine"; fi

build: onnx-ort-plugin
