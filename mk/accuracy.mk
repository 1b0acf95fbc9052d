# The accuracy scorers (internal/bench/*) against the official MLPerf
# scripts, outside `make test`: INFERENCE_REPO is a clone or bare mirror of
# mlcommons/inference. See tools/accuracyref/verify.sh.
INFERENCE_REPO ?=
# deepseek-r1's submodules (gpt-oss-120b's link to them): clones or bare
# mirrors of openai/prm800k and LiveCodeBench/LiveCodeBench.
PRM800K_REPO ?=
LIVECODEBENCH_REPO ?=

.PHONY: verify-accuracy accuracy-fixtures

verify-accuracy: build ## run the official accuracy scripts and our scorers on the same logs (INFERENCE_REPO=DIR PRM800K_REPO=DIR LIVECODEBENCH_REPO=DIR)
	INFERENCE_REPO=$(INFERENCE_REPO) PRM800K_REPO=$(PRM800K_REPO) LIVECODEBENCH_REPO=$(LIVECODEBENCH_REPO) MLPERF_HOST=$(MLPERF_HOST) tools/accuracyref/verify.sh

accuracy-fixtures: ## rewrite the benchmarks' fixtures (internal/bench/*/testdata) from tools/accuracyref/make_fixtures.py (INFERENCE_REPO=checkout), llm_fixture.py and punkt_check.py
	INFERENCE_REPO=$(INFERENCE_REPO) /usr/bin/python3 tools/accuracyref/make_fixtures.py
	/usr/bin/python3 tools/accuracyref/llm_fixture.py internal/bench/llm/testdata/rougelsum 12 14
	/usr/bin/python3 tools/accuracyref/punkt_check.py "$$($(GO) list -m -f '{{.Dir}}' github.com/neurosnap/sentences)/data/english.json" \
		fixture internal/benchlib/punkt/testdata/nltk_sentences.json

.PHONY: verify-logmel
verify-logmel: ## rewrite Whisper's log-mel golden files in numpy (tools/accuracyref/logmel_golden.py), fail if they changed, run the Go front end on them
	/usr/bin/python3 tools/accuracyref/logmel_golden.py internal/bench/whisper/testdata/logmel
	git diff --exit-code -- internal/bench/whisper/testdata/logmel
	$(GO) test -count=1 -run 'TestLogMelGolden' ./internal/bench/whisper/

# MBXP's toolchains (mixtral-8x7b's code samples): internal/bench/mixtral's
# tests run C++, Python, PHP, JavaScript, Ruby and TypeScript programs in
# the code sandbox, and leave out a language whose toolchain is missing.
.PHONY: mbxp-toolchains mbxp-toolchains-optional
mbxp-toolchains: ## install the Debian packages of MBXP's toolchains (g++ python3 php-cli nodejs ruby node-typescript; as root)
	@. tools/accuracyref/debian_packages.sh && need_debian_packages mbxp-toolchains $$(mbxp_debian_packages)

mbxp-toolchains-optional:
	@$(MAKE) --no-print-directory mbxp-toolchains || \
		echo "warning: MBXP's toolchains are not all installed (make mbxp-toolchains as root); internal/bench/mixtral's tests leave their languages out"

TEST_DEPS += mbxp-toolchains-optional
