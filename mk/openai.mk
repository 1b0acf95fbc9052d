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

bench-openai: ## openai plugin: a request against the canned server on loopback, streamed and not, beside a plain net/http loop; one SSE frame
	$(GO) test -run '^$$' -bench . -benchtime $(OPENAI_BENCHTIME) ./plugins/openai/backend/

BENCH_TARGETS += bench-openai
