# Static checks. `make check` runs gofmt, go vet, golangci-lint (.golangci.yml:
# the standard linters, staticcheck's analyzers among them, testifylint and
# testableexamples) and `go mod tidy -diff`; .ci/run runs it after make test.
# golangci-lint is built from the module proxy at the pinned version into
# bin/tools once (a few minutes of CPU the first time, nothing after).
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(BIN)/tools/golangci-lint-$(GOLANGCI_LINT_VERSION)

.PHONY: lint lint-tools

$(GOLANGCI_LINT):
	@mkdir -p $(dir $@)
	GOBIN=$(BIN)/tools $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(BIN)/tools/golangci-lint $@

lint-tools: $(GOLANGCI_LINT) ## build the pinned golangci-lint into bin/tools

# The onnx plugin's packages are linted again as GOOS=wasip1 builds them
# (its SIMD kernels' wasm-only files and the code only they use). Not the
# SDK's: its //go:wasmexport functions are called by the host, which the
# unused linter cannot see.
LINT_WASM_PKGS := ./plugins/onnx/...

lint: $(GOLANGCI_LINT) ## golangci-lint with .golangci.yml (errcheck's deliberate cases are listed there), natively and for the WASM guests
	$(GOLANGCI_LINT) run ./...
	GOOS=wasip1 GOARCH=wasm $(GOLANGCI_LINT) run $(LINT_WASM_PKGS)
