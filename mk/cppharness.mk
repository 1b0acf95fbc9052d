# `make bench-cpu-harness`: a CPU vendor's kind of harness (CPPHARNESS, the
# path of an already built program: tools/cppharness/harness.cc, linked with
# the official C++ LoadGen, driving ONNX Runtime through its C API) and
# `mlperf-host run --plugin onnx-ort` on the same models, samples, settings,
# threads and batch in interleaved rounds. Outside `make test`; without
# CPPHARNESS or ONNX Runtime the benchmark skips.
CPPHARNESS ?=
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

.PHONY: bench-cpu-harness

bench-cpu-harness: ## mlperf-host run --plugin onnx-ort against a C++ LoadGen + ONNX Runtime harness given by path: Offline samples/s, SingleStream p50/p90 (CPPHARNESS=PATH, make ort; minutes)
	@if [ -z "$(CPPHARNESS)" ] || [ ! -f $(ORT_LIB) ]; then \
		echo "bench-cpu-harness: skipped (needs CPPHARNESS=PATH, an already built harness, and ONNX Runtime from make ort)"; exit 0; fi; \
	test -x "$(CPPHARNESS)" || { echo "bench-cpu-harness: CPPHARNESS=$(CPPHARNESS) is not an executable program"; exit 2; }; \
	set -e; $(MAKE) --no-print-directory build; \
	test -f $(ONNX_PERF_DIR)/resnet50.onnx || $(MAKE) --no-print-directory onnx-perf-models; \
	MLPERF_HOST=$(MLPERF_HOST) CPPHARNESS=$(CPPHARNESS) ORT_LIB=$(ORT_LIB) PLUGIN_DIRS=$(BIN)/plugins \
		PERF_MODELS=$(ONNX_PERF_DIR) FASHION_MODEL=plugins/onnx/fashionmnist/data/model.onnx WORK=$(CPPH_WORK) \
		ROUNDS=$(CPPH_ROUNDS) DURATION_MS=$(CPPH_DURATION_MS) BATCH=$(CPPH_BATCH) MODELS=$(CPPH_MODELS) \
		SCENARIOS=$(CPPH_SCENARIOS) OFFLINE=$(CPPH_OFFLINE) SINGLESTREAM=$(CPPH_SINGLESTREAM) \
		VARIANTS="$(CPPH_VARIANTS)" BASELINE="$(CPPH_BASELINE)" tools/cppharness/bench.sh

BENCH_TARGETS += bench-cpu-harness
