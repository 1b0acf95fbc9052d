#!/usr/bin/env bash
# Builds the TensorRT shim, libmlph_trt.so, from mlph_trt.cpp where TensorRT
# (8.6 or later: headers, libnvinfer, libnvinfer_plugin, libnvonnxparser) and
# the CUDA runtime headers are
# installed. Usage: build.sh [output path]. TENSORRT_ROOT and CUDA_HOME point
# at non-standard install prefixes; CXX picks the compiler (default g++).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-libmlph_trt.so}
cxx=${CXX:-g++}

first() { # first existing path among the arguments
  for p in "$@"; do [ -e "$p" ] && { echo "$p"; return 0; }; done
  return 1
}

arch=$(uname -m)
trt_inc=$(first ${TENSORRT_ROOT:+"$TENSORRT_ROOT/include/NvInferRuntime.h"} \
  "/usr/include/$arch-linux-gnu/NvInferRuntime.h" /usr/include/NvInferRuntime.h \
  /usr/local/tensorrt/include/NvInferRuntime.h /opt/tensorrt/include/NvInferRuntime.h) || trt_inc=
trt_lib=$(first ${TENSORRT_ROOT:+"$TENSORRT_ROOT/lib/libnvinfer.so"} ${TENSORRT_ROOT:+$TENSORRT_ROOT/lib/libnvinfer.so.*} \
  "/usr/lib/$arch-linux-gnu/libnvinfer.so" /usr/lib/$arch-linux-gnu/libnvinfer.so.* \
  /usr/local/tensorrt/lib/libnvinfer.so /opt/tensorrt/lib/libnvinfer.so) || trt_lib=
cuda_inc=$(first ${CUDA_HOME:+"$CUDA_HOME/include/cuda_runtime_api.h"} /usr/local/cuda/include/cuda_runtime_api.h \
  /usr/include/cuda_runtime_api.h) || cuda_inc=

missing=0
if [ -z "$trt_inc" ]; then
  echo "tensorrt-shim: NvInferRuntime.h not found. Install the TensorRT development files" >&2
  echo "  (NVIDIA's apt repository: apt-get install libnvinfer-dev; or the TensorRT tar from" >&2
  echo "  developer.nvidia.com) and set TENSORRT_ROOT to its prefix if it is not under /usr." >&2
  missing=1
fi
if [ -z "$trt_lib" ]; then
  echo "tensorrt-shim: libnvinfer.so not found (TensorRT's runtime: apt-get install libnvinfer10," >&2
  echo "  or the TensorRT tar; set TENSORRT_ROOT to the prefix holding lib/libnvinfer.so)." >&2
  missing=1
fi
if [ -z "$cuda_inc" ]; then
  echo "tensorrt-shim: cuda_runtime_api.h not found. Install the CUDA runtime headers" >&2
  echo "  (apt-get install cuda-cudart-dev-12-x from NVIDIA's repository) and set CUDA_HOME." >&2
  missing=1
fi
if [ "$missing" = 1 ]; then
  echo "tensorrt-shim: nothing built. The plugin itself builds and runs without the shim;" >&2
  echo "  Load reports the missing library until it exists. See docs/tensorrt.md." >&2
  exit 1
fi

mkdir -p "$(dirname "$out")"
"$cxx" -std=c++17 -O2 -fPIC -shared -Wall -Wextra \
  -I"$(dirname "$trt_inc")" -I"$(dirname "$cuda_inc")" \
  -o "$out" "$here/mlph_trt.cpp" "$trt_lib" -L"$(dirname "$trt_lib")" -lnvinfer_plugin -lnvonnxparser \
  -Wl,-rpath,"$(dirname "$trt_lib")"
echo "built $out against $trt_lib"
