# plugins/onnx: the WASM build's SIMD128 kernels. C sources in
# plugins/onnx/internal/kernels/wasmsimd/csrc compile with Debian's clang
# and lld (apt-get install -y clang lld) into onnx_simd.wasm, committed with
# its stamp (the sha256 of the sources and of the module, which the
# package's tests check without clang). Every WASM build of the onnx plugin
# (the embedded module, the wasip1 test binaries) is linked with it by
# ONNX_WASM_LINK (see plugins/internal/wasmlink).
ONNX_SIMD_DIR := plugins/onnx/internal/kernels/wasmsimd
ONNX_SIMD_SRC := $(sort $(wildcard $(ONNX_SIMD_DIR)/csrc/*))
ONNX_SIMD_CC ?= clang
ONNX_WASM_LINK := $(BIN)/onnx-wasm-link

.PHONY: onnx-simd $(ONNX_WASM_LINK)

onnx-simd: ## rebuild the onnx plugin's WASM SIMD kernels (onnx_simd.wasm and its stamp; needs clang and lld)
	@command -v $(ONNX_SIMD_CC) >/dev/null && command -v wasm-ld >/dev/null || { echo "onnx-simd needs clang and lld: apt-get install -y clang lld"; exit 1; }
	$(ONNX_SIMD_CC) $$(cat $(ONNX_SIMD_DIR)/csrc/cflags) -o $(ONNX_SIMD_DIR)/onnx_simd.wasm $(filter %.c,$(ONNX_SIMD_SRC))
	@cd $(ONNX_SIMD_DIR) && { \
		echo "# onnx_simd.wasm: built by make onnx-simd from csrc/ (with csrc/cflags); TestModuleCurrent checks this stamp"; \
		echo "sources $$(cd csrc && for f in $$(LC_ALL=C ls); do printf '%s\n' "$$f"; cat "$$f"; done | sha256sum | cut -d' ' -f1)"; \
		echo "module $$(sha256sum onnx_simd.wasm | cut -d' ' -f1)"; \
		echo "compiler $$($(ONNX_SIMD_CC) --version | head -1)"; \
	} > onnx_simd.stamp
	@cat $(ONNX_SIMD_DIR)/onnx_simd.stamp

# Always rebuilt (go build is a no-op when nothing changed): it embeds the
# committed kernels.
$(ONNX_WASM_LINK):
	$(GO) build -o $@ ./$(ONNX_SIMD_DIR)/link

.PHONY: wasmlink-testdata

wasmlink-testdata: ## rebuild plugins/internal/wasmlink's test fixtures from .wat (needs wat2wasm: apt-get install wabt)
	./plugins/internal/wasmlink/testdata/gen.sh

# The sandboxed onnx plugin against raw ONNX Runtime (internal/wasmcompare):
# its WASM module through the host with the go engine (SIMD kernels), the
# portable kernels and the wasinn engine, one thread, interleaved rounds.
WASM_BENCH_ROUNDS ?= 3
WASM_BENCH_RUNS ?= 5
WASM_BENCH_SIDES ?= go,portable,wasinn
WASM_BENCH_BATCHES ?= 1,8
# A build of the plugin's module from before a kernel change (say
# $TMPDIR/onnx-before.wasm): it joins as the side base, interleaved.
WASM_BENCH_BASELINE ?=

.PHONY: bench-wasm

bench-wasm: embed-onnx ort $(BIN)/rawort ## sandboxed onnx plugin (SIMD kernels, portable kernels, wasi-nn) vs raw ONNX Runtime, one thread, wall and CPU time
	@test -f $(ONNX_PERF_DIR)/resnet50.onnx || $(MAKE) --no-print-directory onnx-perf-models
	$(GO) run ./internal/wasmcompare -plugin $(EMBED_DIR)/onnx.wasm -raw $(ORT_RAW) -lib $(ORT_LIB) -models $(ONNX_PERF_DIR) \
		-sides $(WASM_BENCH_SIDES) -batches $(WASM_BENCH_BATCHES) -rounds $(WASM_BENCH_ROUNDS) -runs $(WASM_BENCH_RUNS) \
		$(if $(WASM_BENCH_BASELINE),-baseline $(WASM_BENCH_BASELINE))

BENCH_TARGETS += bench-wasm

# GEMM GFLOP/s on one thread: the native kernels (cpu-GFLOP/s is in the
# process's CPU time), then the SIMD kernel module alone in wazero (thread
# CPU time), then the wasip1 benchmark with it linked (wall time only).
.PHONY: bench-wasm-gemm

bench-wasm-gemm: $(BIN)/wazero $(ONNX_WASM_LINK) ## GEMM GFLOP/s, one thread: native kernels, the WASM SIMD kernel in wazero, the wasip1 benchmark
	$(GO) test -run '^$$' -bench 'Gemm/.*/threads=1/' -benchtime $(ONNX_BENCHTIME) ./plugins/onnx/internal/kernels
	$(GO) run ./internal/wasmcompare -gemm $(ONNX_SIMD_DIR)/onnx_simd.wasm -rounds 5 -runs 4
	WAZERO=$(BIN)/wazero ONNX_WASM_LINK=$(ONNX_WASM_LINK) GOOS=wasip1 GOARCH=wasm $(GO) test -exec $(CURDIR)/tools/onnxgen/wasip1_exec.sh \
		-run '^$$' -bench 'Gemm/.*/threads=1/' -benchtime $(ONNX_BENCHTIME) ./plugins/onnx/internal/kernels

BENCH_TARGETS += bench-wasm-gemm

# The wasi-nn path's cost per query (internal/nnort's BenchmarkQuery): the
# Fashion-MNIST CNN through the onnx plugin's module and the host beside
# ONNX Runtime alone, batch 1 and 8, wall and CPU time. Skips without
# `make ort`. WASINN_BENCH_BASELINE: a module from before a change (say
# $TMPDIR/onnx-before.wasm, by make embed-onnx), the side wasinn-base.
WASINN_BENCH_QUERIES ?= 5000
WASINN_BENCH_BASELINE ?=

.PHONY: bench-wasinn

bench-wasinn: ## the wasi-nn path's cost per query (Fashion-MNIST CNN through the WASM plugin) beside ONNX Runtime alone
	$(GO) test ./internal/nnort -run '^$$' -bench Query -benchtime $(WASINN_BENCH_QUERIES)x \
		$(if $(WASINN_BENCH_BASELINE),-args -nnort.baseline=$(WASINN_BENCH_BASELINE))

BENCH_TARGETS += bench-wasinn

# The Winograd convolutions against the GEMM on ResNet-50's 3×3 shapes, F(2×2)
# and F(4×4) and their tile block sizes, in wazero (wall time, best of 5).
.PHONY: onnx-wasm-bench-winograd

onnx-wasm-bench-winograd: $(BIN)/wazero $(ONNX_WASM_LINK) ## Winograd 3x3 convolutions vs the GEMM in the WASM SIMD kernels (ResNet-50 shapes, wazero)
	cd plugins/onnx/internal/kernels && WAZERO=$(BIN)/wazero ONNX_WASM_LINK=$(ONNX_WASM_LINK) GOOS=wasip1 GOARCH=wasm $(GO) test -exec $(CURDIR)/tools/onnxgen/wasip1_exec.sh \
		-run '^$$' -bench 'SIMDWinograd' -benchtime 1x -count 5 .
