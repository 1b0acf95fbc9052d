# tools/cppharness: a CPU vendor's kind of harness, the official C++
# LoadGen (INFERENCE_REPO: a clone or bare mirror of mlcommons/inference)
# driving ONNX Runtime through its C API, and `make bench-cpu-harness`, which
# runs it and `mlperf-host run --plugin onnx-ort` on the same models,
# samples, settings, threads and batch in interleaved rounds. Outside `make
# test`; without INFERENCE_REPO or ONNX Runtime the benchmark skips.
CPPHARNESS := $(BIN)/cppharness
CPPH_BUILD := $(BIN)/cppharness-build
CPPH_WORK ?= $(BIN)/cppharness-work
CPPH_ROUNDS ?= 3
CPPH_DURATION_MS ?= 10000
CPPH_BATCH ?= 8
CPPH_MODELS ?= fashion,mobilenetv2,resnet50
CPPH_SCENARIOS ?= Offline,SingleStream
# sessions × intra-op threads per session, on both sides
CPPH_OFFLINE ?= 2x1
CPPH_SINGLESTREAM ?= 1x2
# mlperf-host sides: ;-separated lists of --set KEY=VALUE, empty the defaults
CPPH_VARIANTS ?=
# another build to compare (a directory with its mlperf-host and plugins/): the side base
CPPH_BASELINE ?=

.PHONY: cpp-harness bench-cpu-harness

cpp-harness: ## build bin/cppharness: the official C++ LoadGen of INFERENCE_REPO driving ONNX Runtime's C API
	@test -n "$(INFERENCE_REPO)" || { echo "set INFERENCE_REPO to a clone or bare mirror of mlcommons/inference"; exit 2; }
	INFERENCE_REPO=$(INFERENCE_REPO) tools/cppharness/build.sh $(CPPH_BUILD) $(CPPHARNESS)

bench-cpu-harness: ## mlperf-host run --plugin onnx-ort against the C++ LoadGen + ONNX Runtime harness: Offline samples/s, SingleStream p50/p90 (INFERENCE_REPO=DIR, make ort; minutes)
	@if [ -z "$(INFERENCE_REPO)" ] || [ ! -f $(ORT_LIB) ]; then \
		echo "bench-cpu-harness: skipped (needs INFERENCE_REPO=DIR and ONNX Runtime from make ort)"; exit 0; fi; \
	set -e; $(MAKE) --no-print-directory build cpp-harness; \
	test -f $(ONNX_PERF_DIR)/resnet50.onnx || $(MAKE) --no-print-directory onnx-perf-models; \
	MLPERF_HOST=$(MLPERF_HOST) CPPHARNESS=$(CPPHARNESS) ORT_LIB=$(ORT_LIB) PLUGIN_DIRS=$(BIN)/plugins \
		PERF_MODELS=$(ONNX_PERF_DIR) FASHION_MODEL=plugins/onnx/fashionmnist/data/model.onnx WORK=$(CPPH_WORK) \
		ROUNDS=$(CPPH_ROUNDS) DURATION_MS=$(CPPH_DURATION_MS) BATCH=$(CPPH_BATCH) MODELS=$(CPPH_MODELS) \
		SCENARIOS=$(CPPH_SCENARIOS) OFFLINE=$(CPPH_OFFLINE) SINGLESTREAM=$(CPPH_SINGLESTREAM) \
		VARIANTS="$(CPPH_VARIANTS)" BASELINE="$(CPPH_BASELINE)" tools/cppharness/bench.sh

BENCH_TARGETS += bench-cpu-harness
