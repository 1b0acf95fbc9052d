# plugins/openai: the client of OpenAI-compatible serving engines, a
# subprocess plugin installed in bin/plugins/openai by `make build`.
OPENAI_PLUGIN_DIR ?= $(BIN)/plugins/openai
OPENAI_BENCHTIME ?= 2s

.PHONY: openai-plugin bench-openai

openai-plugin: ## build the openai plugin (OpenAI-compatible servers over HTTP) into bin/plugins/openai/
	@mkdir -p $(OPENAI_PLUGIN_DIR)
	CGO_ENABLED=0 $(GO) build -o $(OPENAI_PLUGIN_DIR)/openai ./plugins/openai/cmd/openai
	cp plugins/openai/cmd/openai/plugin.json $(OPENAI_PLUGIN_DIR)/plugin.json

build: openai-plugin

OPENAI_E2E_BENCHTIME ?= 3x

bench-openai: ## openai plugin: its client's CPU per request and frame, Offline and Server rates, TTFT, beside net/http (the canned server in another process); one SSE frame; TTFT as the LoadGen gets it through the host
	$(GO) run ./plugins/openai/cmd/openai-cost
	$(GO) test -run '^$$' -bench 'Frame|Client' -benchtime $(OPENAI_BENCHTIME) ./plugins/openai/backend/ ./plugins/openai/cost/
	$(GO) test -run '^$$' -bench EndToEndOpenAI -benchtime $(OPENAI_E2E_BENCHTIME) ./internal/bridge/

BENCH_TARGETS += bench-openai
