#!/usr/bin/env bash
# Runs imagenet_check.py: `mlperf-host dataset prepare imagenet` against
# the ResNet-50 reference's own preprocessing (its dataset.py over
# OpenCV) on generated images, printing how far apart they are. Needs a
# clone of mlcommons/inference (INFERENCE_REPO: a checkout or a bare
# mirror) and Debian's python3 with OpenCV, numpy and PIL, which it
# installs when run as root. Usage: INFERENCE_REPO=DIR MLPERF_HOST=BIN tools/prepareref/verify.sh
set -euo pipefail

PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${INFERENCE_REPO:?set INFERENCE_REPO to a clone or bare mirror of mlcommons/inference}"
: "${MLPERF_HOST:?set MLPERF_HOST to an mlperf-host binary (make build)}"
MLPERF_HOST=$(realpath "$MLPERF_HOST")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/verify-prepare.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

. "$ROOT/tools/accuracyref/debian_packages.sh"
need_debian_packages verify-prepare python3-opencv python3-numpy python3-pil

if [[ -d $INFERENCE_REPO/.git || -f $INFERENCE_REPO/.git ]]; then
	REPO=$INFERENCE_REPO
else
	mkdir "$WORK/inference"
	git -C "$INFERENCE_REPO" archive HEAD vision/classification_and_detection/python | tar -x -C "$WORK/inference"
	REPO=$WORK/inference
fi
mkdir "$WORK/check"
$PY "$ROOT/tools/prepareref/imagenet_check.py" "$REPO" "$MLPERF_HOST" "$WORK/check"
