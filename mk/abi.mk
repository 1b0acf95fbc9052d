# abi/: code generation from abi/proto. Generated code is committed; `make
# proto` regenerates it and `make proto-check` fails when it is stale.
PROTOC_GEN_GO_VERSION := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
TOOLS_BIN := $(BIN)/tools
MODULE := github.com/mlperf-host/mlperf-host
PROTO_FILES := $(wildcard abi/proto/mlperf/backend/v1/*.proto)

.PHONY: proto proto-tools proto-check

proto-tools:
	@command -v protoc >/dev/null || { echo "installing protoc (Debian protobuf-compiler)"; \
		apt-get install -y protobuf-compiler >/dev/null || sudo apt-get install -y protobuf-compiler >/dev/null; }
	GOBIN=$(TOOLS_BIN) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(TOOLS_BIN) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)

proto: proto-tools ## regenerate the ABI's Go code from abi/proto
	PATH=$(TOOLS_BIN):$$PATH protoc -I abi/proto \
		--go_out=. --go_opt=module=$(MODULE) \
		--go-grpc_out=. --go-grpc_opt=module=$(MODULE) \
		$(PROTO_FILES)

proto-check: proto ## fail when the committed ABI code differs from abi/proto
	git diff --exit-code -- abi/
