# A real OpenAI-compatible server for the end-to-end tests: Ollama, built
# from the Go module proxy (github.com/ollama/ollama, a Go module with cgo
# llama.cpp inside) into .cache/ollama/<version>/bin (git-ignored). The
# module's zip lacks llama.cpp's vendor/ headers; Debian's
# nlohmann-json3-dev and libstb-dev (under /usr/include, which the compiler
# searches already) and miniaudio.h from the Go module
# github.com/gen2brain/malgo stand in. The include dirs go in
# CPLUS_INCLUDE_PATH/C_INCLUDE_PATH, not CGO_CPPFLAGS, which would be part of
# every cgo cache key. A cold build takes 15-25 minutes on 2 cores; once the
# binary exists `make ollama` does nothing.
OLLAMA_VERSION := v0.17.4
OLLAMA_MALGO_VERSION := v0.11.24
OLLAMA_APT := nlohmann-json3-dev libstb-dev
OLLAMA_CACHE := $(CURDIR)/.cache/ollama/$(OLLAMA_VERSION)
OLLAMA_BIN := $(OLLAMA_CACHE)/bin/ollama
OLLAMA_INCLUDE := $(OLLAMA_CACHE)/include
OLLAMA_NICE ?= nice -n 10

.PHONY: ollama ollama-deps

ollama: $(OLLAMA_BIN) ## build the Ollama server (github.com/ollama/ollama@$(OLLAMA_VERSION), CPU) into .cache/ollama; a no-op once built

ollama-deps: ## the headers Ollama's module zip lacks: Debian nlohmann-json3-dev and libstb-dev, miniaudio.h from Go module malgo
	@dpkg -s $(OLLAMA_APT) >/dev/null 2>&1 || { echo "installing $(OLLAMA_APT) (Debian)"; \
		apt-get install -y $(OLLAMA_APT) >/dev/null || sudo apt-get install -y $(OLLAMA_APT) >/dev/null; }
	@mkdir -p $(OLLAMA_INCLUDE)/miniaudio
	@dir=$$(cd $(OLLAMA_CACHE) && $(GO) mod download -json github.com/gen2brain/malgo@$(OLLAMA_MALGO_VERSION) | \
		sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p') && test -f "$$dir/miniaudio.h" && \
		ln -sf "$$dir/miniaudio.h" $(OLLAMA_INCLUDE)/miniaudio/miniaudio.h

$(OLLAMA_BIN):
	@$(MAKE) --no-print-directory ollama-deps
	@echo "building Ollama $(OLLAMA_VERSION) (15-25 minutes cold)"
	cd $(OLLAMA_CACHE) && CGO_ENABLED=1 GOFLAGS=-buildvcs=false GOBIN=$(OLLAMA_CACHE)/bin \
		CPLUS_INCLUDE_PATH=$(OLLAMA_INCLUDE) C_INCLUDE_PATH=$(OLLAMA_INCLUDE) \
		$(OLLAMA_NICE) $(GO) install github.com/ollama/ollama@$(OLLAMA_VERSION)
	@ls -l $@

.PHONY: test-ollama
# The tests tagged ollama: the tiny llama served by two Ollama processes,
# plain HTTP (internal/tinyllama) and through --plugin openai
# (cmd/mlperf-host). Without the servers they fail; `make test` does not
# build them.
test-ollama: ollama ## end-to-end tests against two real Ollama servers (scripts/with-ollama.sh) on the tiny llama model
	OLLAMA=$(OLLAMA_BIN) ./scripts/with-ollama.sh $(GO) test -count=1 -p 1 -tags ollama -run Ollama ./internal/tinyllama/ ./cmd/mlperf-host/
