# mlperf-host. `make help` lists the targets. Each area adds its own targets
# and prerequisites in mk/<area>.mk; this file holds the entry points.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin

# Areas append to these from mk/*.mk.
TEST_DEPS :=
DEMO_DEPS :=
BENCH_TARGETS :=

include $(sort $(wildcard mk/*.mk))

.DEFAULT_GOAL := help
.PHONY: help test test-under-load race bench fuzz check

help: ## list the targets
	@grep -hE '^[a-zA-Z_.-]+:.*## ' $(MAKEFILE_LIST) | sort -u | \
		awk 'BEGIN {FS = ":.*## "}; {printf "  %-16s %s\n", $$1, $$2}'

test: $(TEST_DEPS) ## vet, cross-build the guest packages and run every test (what CI runs)
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) build ./abi/... ./sdk/...
	$(GO) test -count=1 ./...

test-under-load: ## make test while CPU burners load every core (BURNERS=n); prints how long it took
	./scripts/test-under-load.sh

race: $(TEST_DEPS) ## every test under the race detector (several times slower than make test; not in CI)
	$(GO) test -count=1 -race ./...

bench: $(BENCH_TARGETS) ## run the benchmarks behind BENCHMARKS.md

fuzz: ## fuzz every parser for FUZZTIME each (default 30s)
	./scripts/fuzz.sh

check: ## static checks: gofmt, go vet, golangci-lint (make lint), go mod tidy -diff (CI runs it after make test)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(MAKE) --no-print-directory lint
	$(GO) mod tidy -diff
