# Coverage. `make cover` runs the tests twice: once with coverage of the
# whole module (-coverpkg: the test binaries' own), then without it but
# with GOCOVERDIR set, so that the programs the tests start as
# subprocesses (plugins, mlperf-host itself), which sdktest.GoBuild then
# builds with -cover, write their counters there: the SDK's subprocess
# side (sdk.Serve, the gRPC server, the rings) runs only in such plugins.
# (go test -cover sets GOCOVERDIR to a directory of its own, which keeps
# the children's counters out of the profile: hence two passes.) It writes
# out/cover/coverage.out (for `go tool cover -html`) and prints the
# statements covered per package, without and with the subprocesses.
# COVER_PKGS narrows the packages run.
COVER_DIR ?= $(CURDIR)/out/cover
COVER_PKGS ?= ./...

.PHONY: cover

cover: ## coverage per package, plugin subprocesses included (GOCOVERDIR); out/cover/coverage.out
	rm -rf $(COVER_DIR) && mkdir -p $(COVER_DIR)/children
	$(GO) test -count=1 -coverpkg=./... -coverprofile=$(COVER_DIR)/tests.out $(COVER_PKGS) >$(COVER_DIR)/tests.log || { cat $(COVER_DIR)/tests.log; exit 1; }
	GOCOVERDIR=$(COVER_DIR)/children $(GO) test -count=1 $(COVER_PKGS) >$(COVER_DIR)/children.log || { cat $(COVER_DIR)/children.log; exit 1; }
	$(GO) tool covdata textfmt -i=$(COVER_DIR)/children -pkg=$$($(GO) list -m)/... -o $(COVER_DIR)/children.out
	{ cat $(COVER_DIR)/tests.out; tail -n +2 $(COVER_DIR)/children.out; } >$(COVER_DIR)/coverage.out
	@./scripts/cover-summary.sh $(COVER_DIR)/tests.out $(COVER_DIR)/coverage.out
