#!/usr/bin/env bash
# A `go test -exec` runner for GOOS=wasip1 test binaries: links the onnx
# plugin's SIMD kernels into one (ONNX_WASM_LINK, built by make; a binary
# that imports no kernel is left as it is), then runs it in the wazero CLI
# (WAZERO, built by `make onnx-wasm-test`) with the host filesystem
# mounted, so tests find their testdata, and the environment inherited
# (Go's wasip1 runtime takes its working directory from PWD).
set -euo pipefail
module=$1
if [ -n "${ONNX_WASM_LINK:-}" ]; then
  linked=$(mktemp "${TMPDIR:-/tmp}/wasip1-linked.XXXXXX")
  trap 'rm -f "$linked"' EXIT
  "$ONNX_WASM_LINK" -o "$linked" "$module"
  module=$linked
fi
"${WAZERO:?set WAZERO to the wazero CLI}" run -mount /:/ -env-inherit \
  -cachedir "${TMPDIR:-/tmp}/wazero-cache" "$module" "${@:2}"
