#!/usr/bin/env bash
# Rebuilds the .wasm fixtures from the .wat sources (make wasmlink-testdata;
# needs wat2wasm from wabt).
set -euo pipefail
cd "$(dirname "$0")"
for f in *.wat; do wat2wasm --debug-names "$f" -o "${f%.wat}.wasm"; done
