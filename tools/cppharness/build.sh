#!/usr/bin/env bash
# Builds the C++ harness (harness.cc) against the official LoadGen of
# INFERENCE_REPO (a clone or bare mirror of mlcommons/inference): its
# loadgen/ is checked out into BUILD_DIR, built with its own CMake
# (Release) and linked into OUT with ../../plugins/onnx/internal/ort/bench/ortapi.h.
# Usage: INFERENCE_REPO=DIR tools/cppharness/build.sh BUILD_DIR OUT
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${INFERENCE_REPO:?set INFERENCE_REPO to a clone or bare mirror of mlcommons/inference}"
BUILD=${1:?usage: build.sh BUILD_DIR OUT}
OUT=${2:?usage: build.sh BUILD_DIR OUT}
PY=${PYTHON3:-/usr/bin/python3}

want=$(git -C "$INFERENCE_REPO" rev-parse HEAD)
src=$BUILD/inference
if [[ ! -d $src/.git ]] || [[ $(git -C "$src" rev-parse HEAD) != "$want" ]]; then
	rm -rf "$src" "$BUILD/loadgen-build"
	mkdir -p "$BUILD"
	# A checkout of loadgen/ alone: the mirror may lack other trees' large files.
	git clone -q --no-checkout "$INFERENCE_REPO" "$src"
	git -C "$src" checkout -q HEAD -- loadgen
fi
lib=$BUILD/loadgen-build/libmlperf_loadgen.a
if [[ ! -f $lib ]]; then
	cmake -S "$src/loadgen" -B "$BUILD/loadgen-build" -DCMAKE_BUILD_TYPE=Release -DPYTHON_EXECUTABLE="$PY" >/dev/null
	cmake --build "$BUILD/loadgen-build" -j "$(nproc)" >/dev/null
fi
echo "LoadGen $(cat "$src/loadgen/VERSION.txt") at $(git -C "$src" rev-parse --short=8 HEAD)"
g++ -std=c++17 -O2 -Wall -Wextra -pthread -I"$src/loadgen" -I"$ROOT/plugins/onnx/internal/ort/bench" \
	-o "$OUT" "$ROOT/tools/cppharness/harness.cc" "$lib" -ldl
