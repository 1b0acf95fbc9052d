# `dataset prepare` against the reference implementations' own
# preprocessing, outside `make test`: INFERENCE_REPO is a clone or bare
# mirror of mlcommons/inference. See tools/prepareref/verify.sh.
.PHONY: verify-prepare

verify-prepare: build ## compare `dataset prepare imagenet` with the ResNet-50 reference's OpenCV preprocessing (INFERENCE_REPO=DIR)
	INFERENCE_REPO=$(INFERENCE_REPO) MLPERF_HOST=$(MLPERF_HOST) tools/prepareref/verify.sh

.PHONY: bench-prepare
bench-prepare: ## decode and preprocess one ImageNet-sized JPEG (BENCHMARKS.md, data set preparation)
	$(GO) test ./internal/bench/resnet -run '^$$' -bench 'BenchmarkPrepareImage' -benchtime 50x -count 3

BENCH_TARGETS += bench-prepare
