# plugins/onnx: the Go ONNX engine and the onnx plugin backend.
# The fixture and model tooling (tools/onnxgen) needs Debian's PyTorch:
#   apt-get install -y python3-torch python3-torchvision python3-onnx dataset-fashion-mnist
# Its outputs are committed; tests never run it.
ONNX_PY ?= /usr/bin/python3
ONNX_TESTDATA := plugins/onnx/testdata
ONNX_PERF_DIR ?= $(CURDIR)/bin/onnx-models
ONNX_BENCHTIME ?= 20x

.PHONY: onnx-fixtures onnx-fashion onnx-perf-models bench-onnx onnx-wasm-test

onnx-fixtures: ## regenerate plugins/onnx operator and small-model fixtures with PyTorch
	cd tools/onnxgen && $(ONNX_PY) fixtures.py --out $(CURDIR)/$(ONNX_TESTDATA)/ops

onnx-fashion: ## retrain the Fashion-MNIST demo CNN (~1 min) and rewrite plugins/onnx/fashionmnist/data
	cd tools/onnxgen && $(ONNX_PY) fashion.py --out $(CURDIR)/plugins/onnx/fashionmnist/data

onnx-perf-models: ## write random-weight ResNet-50 v1.5 and MobileNetV2 ONNX models into ONNX_PERF_DIR (not committed)
	cd tools/onnxgen && $(ONNX_PY) perf_models.py --out $(ONNX_PERF_DIR)
