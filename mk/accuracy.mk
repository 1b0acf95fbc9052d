# The accuracy scorers (internal/accuracy) against the official MLPerf
# scripts, outside `make test`: INFERENCE_REPO is a clone or bare mirror of
# mlcommons/inference. See tools/accuracyref/verify.sh.
INFERENCE_REPO ?=

.PHONY: verify-accuracy accuracy-fixtures

verify-accuracy: build ## run the official accuracy scripts and our scorers on the same logs (INFERENCE_REPO=DIR)
	INFERENCE_REPO=$(INFERENCE_REPO) MLPERF_HOST=$(MLPERF_HOST) tools/accuracyref/verify.sh

accuracy-fixtures: ## rewrite internal/accuracy/testdata from tools/accuracyref/make_fixtures.py (INFERENCE_REPO=checkout)
	INFERENCE_REPO=$(INFERENCE_REPO) /usr/bin/python3 tools/accuracyref/make_fixtures.py
