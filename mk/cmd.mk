# cmd/mlperf-host: the binary, with the onnx plugin built as a WASM module
# and embedded (cmd/mlperf-host/embedded/onnx.wasm, not committed), and the
# demo. A binary built by plain `go build` has no embedded plugin and says
# so when asked for it.
MLPERF_HOST := $(BIN)/mlperf-host
# The onnx plugin's WASM reactor main (plugins/onnx, built for wasip1).
ONNX_WASM_PKG ?= ./plugins/onnx/cmd/onnx
EMBED_DIR := cmd/mlperf-host/embedded
DEMO_OUT ?= $(CURDIR)/out/demo
DEMO_ARGS ?=

.PHONY: build embed-onnx demo

# The old module goes first: go build leaves an output whose build ID is
# current untouched, and the linker leaves a linked module as it is, so
# new kernels would never reach it.
embed-onnx: $(BIN)/onnx-wasm-link ## build the onnx plugin as a WASM module (SIMD kernels linked) into cmd/mlperf-host/embedded/
	rm -f $(EMBED_DIR)/onnx.wasm
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -o $(EMBED_DIR)/onnx.wasm $(ONNX_WASM_PKG)
	$(ONNX_WASM_LINK) $(EMBED_DIR)/onnx.wasm

build: embed-onnx ## build bin/mlperf-host with the onnx plugin embedded (and bin/plugins/onnx-ort, see mk/onnx.mk)
	CGO_ENABLED=0 $(GO) build -o $(MLPERF_HOST) ./cmd/mlperf-host

demo: build $(DEMO_DEPS) ## build, then run the bundled Fashion-MNIST benchmark on the fastest sandboxed engine (it says which): accuracy, Offline performance, then onnx-ort's samples/s beside them (after `make ort`)
	@mkdir -p $(DEMO_OUT)
	$(MLPERF_HOST) version
	./scripts/demo-wasm.sh $(MLPERF_HOST) cmd/mlperf-host/demo $(DEMO_OUT) $(DEMO_ARGS)
	$(MLPERF_HOST) report $(DEMO_OUT)/performance
	@./scripts/demo-onnx-ort.sh $(MLPERF_HOST) $(ONNX_ORT_DIR) cmd/mlperf-host/demo/user-onnx-ort.conf \
		$(DEMO_OUT)/performance $(DEMO_OUT)/onnx-ort
	@echo "demo logs: $(DEMO_OUT) (open $(DEMO_OUT)/performance/report.html, and $(DEMO_OUT)/compare.html after make ort)"


CMD_BENCHTIME ?= 1s

.PHONY: bench-cmd

bench-cmd: ## LoadGen<->plugin bridge per query (allocations per sample), arena sample lookup
	$(GO) test -run '^$$' -bench . -skip 'EndToEnd|Batching' -benchtime $(CMD_BENCHTIME) ./internal/bridge/ ./internal/dataset/

BENCH_TARGETS += bench-cmd

E2E_BENCHTIME ?= 3x

.PHONY: bench-e2e

bench-e2e: ## LoadGen + bridge + host + the SDK's echo plugin as a subprocess, against the null backend in-process: Offline samples/s, SingleStream p50/p99
	$(GO) test -run '^$$' -bench 'EndToEnd(Offline|SingleStream|Server)$$' -benchtime $(E2E_BENCHTIME) ./internal/bridge/

BENCH_TARGETS += bench-e2e
