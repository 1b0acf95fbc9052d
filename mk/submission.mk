# internal/benchmarks, internal/submission: the rounds' rules, extracted from
# the official mlcommons/inference repository, and the demo's submission
# checked with the official tools. INFERENCE_REPO is a checkout or a bare
# clone of that repository.
PYTHON3 ?= /usr/bin/python3
VERIFY_WORK ?= $(CURDIR)/out/verify-submission
VERIFY_MIN_DURATION_MS ?= 600000
VERIFY_ARGS ?=

SWEEP_WORK ?= $(CURDIR)/out/sweep-submissions
SWEEP_ARGS ?=

.PHONY: rounds verify-rounds verify-official verify-submission verify-llm-audits sweep-submissions sweep-broken sweep-reports

define need-inference
	@test -n "$(INFERENCE_REPO)" || { echo "set INFERENCE_REPO to a checkout (or bare clone) of mlcommons/inference"; exit 2; }
endef

rounds: ## extract the round tables (internal/benchmarks/rounds) from INFERENCE_REPO
	$(need-inference)
	$(PYTHON3) scripts/rounds/gen_rounds.py --repo $(INFERENCE_REPO)

verify-rounds: ## fail when the round tables differ from what INFERENCE_REPO says
	$(need-inference)
	@tmp=$$(mktemp -d) && $(PYTHON3) scripts/rounds/gen_rounds.py --repo $(INFERENCE_REPO) --out $$tmp && \
		diff -r $$tmp internal/benchmarks/rounds && echo "round tables: as the official repository says"; \
		rc=$$?; rm -rf $$tmp; exit $$rc

verify-official: verify-rounds ## the round tables, and the truncation and audit fixtures, against INFERENCE_REPO's tools (seconds)
	@tmp=$$(mktemp -d) && src=$(INFERENCE_REPO) && \
		{ test -d $$src/tools || { git clone -q $$src $$tmp/inference 2>/dev/null; src=$$tmp/inference; }; } && \
		$(PYTHON3) scripts/submission/official_verdicts.py --repo $$src --check && \
		mkdir -p $$tmp/in/closed/acme/results/box/fashion-mnist && \
		for c in internal/submission/testdata/truncate/in/*; do \
			mkdir -p $$tmp/in/closed/acme/results/box/fashion-mnist/$$(basename $$c)/accuracy && \
			cp $$c/* $$tmp/in/closed/acme/results/box/fashion-mnist/$$(basename $$c)/accuracy/; done && \
		$(PYTHON3) $$src/tools/submission/truncate_accuracy_log.py --input $$tmp/in --submitter acme --output $$tmp/out 2>/dev/null && \
		for c in internal/submission/testdata/truncate/want/*; do \
			diff -r $$c $$tmp/out/closed/acme/results/box/fashion-mnist/$$(basename $$c)/accuracy || exit 1; done && \
		echo "truncation fixtures: as truncate_accuracy_log.py makes them"; rc=$$?; rm -rf $$tmp; exit $$rc

verify-submission: build ## the demo's submission (closed; edge and datacenter; 600 s runs: about 3 h, VERIFY_MIN_DURATION_MS=1000: minutes) through the official checker (v6.1; VERIFY_ARGS="--round v6.0"), truncate_accuracy_log.py and TEST01/TEST04 scripts of INFERENCE_REPO
	$(need-inference)
	$(PYTHON3) scripts/submission/verify_submission.py --repo $(INFERENCE_REPO) --binary $(MLPERF_HOST) \
		--work $(VERIFY_WORK) --min-duration-ms $(VERIFY_MIN_DURATION_MS) $(VERIFY_ARGS)

verify-llm-audits: ## the TEST06/07/09 directories of TestLLMAuditsEndToEnd and the TEST08 ones of TestSubmitBenchmarksEndToEnd judged by the official run_verification.py of INFERENCE (mlcommons/inference: checkout or bare clone; TEST06 and TEST08 need python3-numpy); every verdict file must be ours byte for byte (a minute)
	@test -n "$(INFERENCE)" || { echo "set INFERENCE to mlcommons/inference (a checkout or bare clone)"; exit 2; }
	rm -rf $(SWEEP_WORK)/llm-audits && mkdir -p $(SWEEP_WORK)/llm-audits
	MLPERF_HOST_AUDITS_KEEP=$(SWEEP_WORK)/llm-audits $(GO) test ./cmd/mlperf-host/ -run 'TestLLMAuditsEndToEnd|TestSubmitBenchmarksEndToEnd' -count=1
	$(PYTHON3) scripts/submission/llm_audits.py --inference $(INFERENCE) --trees $(SWEEP_WORK)/llm-audits

sweep-submissions: build ## the official checker (INFERENCE: mlcommons/inference) and submit --check-only on every result of RESULTS (a published results repository, v5.1: checkout or bare clone); prints the agreement table (minutes, CPU heavy)
	@test -n "$(RESULTS)" -a -n "$(INFERENCE)" || { echo "set RESULTS to a results repository (mlcommons/inference_results_v5.1) and INFERENCE to mlcommons/inference (checkouts or bare clones)"; exit 2; }
	nice -n 10 $(PYTHON3) scripts/submission/sweep_submissions.py --results $(RESULTS) --inference $(INFERENCE) \
		--binary $(MLPERF_HOST) --work $(SWEEP_WORK) $(SWEEP_ARGS)

sweep-broken: build ## the published trees of ../shared/real-submissions broken one way each (internal/submission's cases) through the official checker (INFERENCE) and submit --check-only
	@test -n "$(INFERENCE)" || { echo "set INFERENCE to mlcommons/inference (a checkout or bare clone)"; exit 2; }
	rm -rf $(SWEEP_WORK)/broken && mkdir -p $(SWEEP_WORK)/broken
	go test ./internal/submission/ -run 'TestCheckRealSubmissionsBroken' -count=1 -broken-out $(SWEEP_WORK)/broken
	nice -n 10 $(PYTHON3) scripts/submission/sweep_submissions.py --trees $(SWEEP_WORK)/broken --inference $(INFERENCE) \
		--binary $(MLPERF_HOST) --work $(SWEEP_WORK)/broken-checked --round v5.1

sweep-reports: build ## mlperf-host report on every detail-log directory of RESULTS (a published results repository: checkout or bare clone); counts the failures (minutes)
	@test -n "$(RESULTS)" || { echo "set RESULTS to a results repository (mlcommons/inference_results_v5.1), a checkout or bare clone"; exit 2; }
	nice -n 10 $(PYTHON3) scripts/submission/sweep_submissions.py --reports-only --results $(RESULTS) \
		--binary $(MLPERF_HOST) --work $(SWEEP_WORK) $(SWEEP_ARGS)
