# plugins/onnx/internal/ort: the ONNX Runtime engine. `make ort` fetches
# ONNX Runtime's shared library from the npm package onnxruntime-node (npm
# pack downloads the tarball and runs no install scripts; npm checks the
# tarball against the registry's integrity hash, and we check the library's
# sha256). The library lands in third_party/ort/ (git-ignored).
ORT_VERSION := 1.30.0
ORT_DIR := third_party/ort
ORT_OS := $(shell uname -s)
ORT_ARCH := $(shell uname -m)

ifeq ($(ORT_OS)-$(ORT_ARCH),Linux-x86_64)
ORT_MEMBER := bin/napi-v6/linux/x64/libonnxruntime.so.1
ORT_SHA256 := ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
else ifeq ($(ORT_OS)-$(ORT_ARCH),Linux-aarch64)
ORT_MEMBER := bin/napi-v6/linux/arm64/libonnxruntime.so.1
ORT_SHA256 := 1f549d46250b005580b597f4164984aaf75b3bcb9f3aeb07c7f8a8fe60b23c76
else ifeq ($(ORT_OS)-$(ORT_ARCH),Darwin-arm64)
ORT_MEMBER := bin/napi-v6/darwin/arm64/libonnxruntime.1.dylib
ORT_SHA256 := 685d2be5dba1309c89d3a5324b7fd06a5c42f1a61bfea32d14c4cc28d072121d
endif

# ORT_LIB is the path the tests, benchmarks and `--set onnx.ort_library=`
# use.
ORT_LIB := $(ORT_DIR)/$(notdir $(ORT_MEMBER))
ORT_BENCH_DIR := plugins/onnx/internal/ort/bench
ORT_RAW := $(BIN)/rawort
ORT_THREADS ?= 1,0
ORT_BATCHES ?= 1,8
ORT_ROUNDS ?= 5
ORT_RUNS ?= 20

.PHONY: ort ort-optional bench-ort

ort: ## fetch ONNX Runtime $(ORT_VERSION)'s library from npm into third_party/ort (idempotent, sha256-checked)
	@test -n "$(ORT_MEMBER)" || { echo "make ort: no ONNX Runtime build for $(ORT_OS)-$(ORT_ARCH) in onnxruntime-node"; exit 1; }
	@if echo "$(ORT_SHA256)  $(ORT_LIB)" | sha256sum -c --status 2>/dev/null; then \
		echo "$(ORT_LIB): ONNX Runtime $(ORT_VERSION), sha256 ok"; exit 0; fi; \
	set -euo pipefail; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	echo "npm pack onnxruntime-node@$(ORT_VERSION) (about 110 MB)"; \
	(cd "$$tmp" && npm pack --silent --ignore-scripts onnxruntime-node@$(ORT_VERSION) >/dev/null); \
	tar -xzf "$$tmp/onnxruntime-node-$(ORT_VERSION).tgz" -C "$$tmp" "package/$(ORT_MEMBER)"; \
	echo "$(ORT_SHA256)  $$tmp/package/$(ORT_MEMBER)" | sha256sum -c --status || \
		{ echo "make ort: sha256 mismatch for $(ORT_MEMBER) in onnxruntime-node@$(ORT_VERSION)"; exit 1; }; \
	mkdir -p $(ORT_DIR); install -m 0644 "$$tmp/package/$(ORT_MEMBER)" $(ORT_LIB); \
	echo "$(ORT_LIB): ONNX Runtime $(ORT_VERSION) installed"

# make test fetches the library when it can (a few seconds from npm's cache,
# ~15 s from the registry) so the ORT tests run; when npm is unreachable the
# tests skip with a reason instead of failing the build.
ort-optional:
	@$(MAKE) --no-print-directory ort || echo "warning: make ort failed; the ONNX Runtime engine tests will skip"

TEST_DEPS += ort-optional

$(ORT_RAW): $(ORT_BENCH_DIR)/rawort/rawort.c $(ORT_BENCH_DIR)/ortapi.h
	@mkdir -p $(BIN)
	gcc -O2 -Wall -Wextra -o $@ $< -ldl

bench-ort: ort $(ORT_RAW) ## ORT engine vs raw ONNX Runtime (C) on the Fashion-MNIST CNN, MobileNetV2 and ResNet-50, interleaved in one run
	$(GO) run ./$(ORT_BENCH_DIR)/ortcompare -lib $(ORT_LIB) -raw $(ORT_RAW) \
		-threads $(ORT_THREADS) -batches $(ORT_BATCHES) -rounds $(ORT_ROUNDS) -runs $(ORT_RUNS)

BENCH_TARGETS += bench-ort
