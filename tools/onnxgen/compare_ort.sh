#!/usr/bin/env bash
# One run comparing the Go engine with raw ONNX Runtime (onnxruntime-node)
# on the same models, thread counts and batch sizes, back to back so the
# ratios come from one run. Usage (from the repository root):
#   NODE_PATH=/path/to/unpacked/modules tools/onnxgen/compare_ort.sh MODELDIR [THREADS...]
# MODELDIR holds resnet50.onnx and mobilenetv2.onnx (make onnx-perf-models).
set -euo pipefail
dir=${1:?model dir}; shift
threads=${*:-1}
root=$PWD
for t in $threads; do
  for b in 1 8; do
    (cd plugins/onnx/internal/goengine && go test -run '^$' -bench "Models/.*/threads=$t/batch=$b\$" -benchtime 20x . \
      -args -threads "$t" -batches "$b" -models "$dir" | grep Bench)
    for m in "$root/plugins/onnx/fashionmnist/data/model.onnx" "$dir/mobilenetv2.onnx" "$dir/resnet50.onnx"; do
      node "$root/tools/onnxgen/ort_node_bench.js" "$m" "$t" "$b" 20 2>&1 | grep '^ort'
    done
  done
done
