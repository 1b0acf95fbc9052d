#!/usr/bin/env bash
# A `go test -exec` runner for GOOS=wasip1 test binaries: runs one in the
# wazero CLI (WAZERO, built by `make onnx-wasm-test`) with the host
# filesystem mounted, so tests find their testdata, and the environment
# inherited (Go's wasip1 runtime takes its working directory from PWD).
set -euo pipefail
exec "${WAZERO:?set WAZERO to the wazero CLI}" run -mount /:/ -env-inherit \
  -cachedir "${TMPDIR:-/tmp}/wazero-cache" "$1" "${@:2}"
