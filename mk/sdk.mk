# sdk/ and examples/: the example plugins, built into bin/plugins (a plugin
# directory the host can search). Tests do not need them: they build what
# they run into a temporary directory.
PLUGINS_BIN := $(BIN)/plugins
SDK_BENCHTIME ?= 1s

.PHONY: examples bench-sdk

examples: ## build the example plugins into bin/plugins: echo (subprocess) and echo-wasm (WASM reactor)
	mkdir -p $(PLUGINS_BIN)/echo $(PLUGINS_BIN)/echo-wasm
	$(GO) build -o $(PLUGINS_BIN)/echo/echo ./examples/echo/cmd/echo
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -o $(PLUGINS_BIN)/echo-wasm/echo.wasm ./examples/echo/cmd/echo
	cp examples/echo/plugins/echo/plugin.json $(PLUGINS_BIN)/echo/
	cp examples/echo/plugins/echo-wasm/plugin.json $(PLUGINS_BIN)/echo-wasm/

bench-sdk: ## SDK side of the hot path: dispatcher + completer + outbox per sample, allocations per sample
	$(GO) test -run '^$$' -bench . -benchtime $(SDK_BENCHTIME) ./sdk/

BENCH_TARGETS += bench-sdk

BATCHING_BENCHTIME ?= 1x
# BATCHING_SCALE=k runs the device, the batch deadline and the latency
# bound k times slower: the same queueing, with the harness's own costs
# and the machine's scheduling noise k times smaller against it.
BATCHING_SCALE ?= 1

.PHONY: bench-batching

bench-batching: ## the SDK's Server batcher: simulated accelerator (200 us + 2 us/sample, max batch 64, 2 slots) as a subprocess through the host; prints `batching: offline=... server=... ratio=...`
	MLPERF_BENCH_TIME_SCALE=$(BATCHING_SCALE) $(GO) test -run '^$$' -bench Batching -benchtime $(BATCHING_BENCHTIME) ./internal/bridge/

BENCH_TARGETS += bench-batching
