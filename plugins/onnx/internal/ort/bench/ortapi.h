// ortapi.h: ONNX Runtime's C API without its headers, for the C and C++
// baselines the ORT engine is measured against (rawort, tools/cppharness).
//
// The library is opened with dlopen and its entries are called through the
// OrtApi function table by their index in struct OrtApi
// (onnxruntime_c_api.h), as the Go binding does (api.go). Every entry used
// here is in version 1 of the table. Include it in one translation unit:
// the table pointer is a static of that unit.
#ifndef MLPERF_HOST_ORTAPI_H
#define MLPERF_HOST_ORTAPI_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *ortapi_status; // OrtStatus*, NULL on success

// The OrtApi version asked for: ONNX Runtime 1.30.
#define ORTAPI_VERSION 30

// Indices in struct OrtApi.
enum {
  ORTAPI_GET_ERROR_MESSAGE = 2,
  ORTAPI_CREATE_ENV = 3,
  ORTAPI_CREATE_SESSION_FROM_ARRAY = 8,
  ORTAPI_RUN = 9,
  ORTAPI_CREATE_SESSION_OPTIONS = 10,
  ORTAPI_SET_EXECUTION_MODE = 13,
  ORTAPI_SET_GRAPH_OPTIMIZATION_LEVEL = 23,
  ORTAPI_SET_INTRA_OP_THREADS = 24,
  ORTAPI_SET_INTER_OP_THREADS = 25,
  ORTAPI_SESSION_GET_INPUT_COUNT = 30,
  ORTAPI_SESSION_GET_OUTPUT_COUNT = 31,
  ORTAPI_SESSION_GET_INPUT_TYPE_INFO = 33,
  ORTAPI_SESSION_GET_INPUT_NAME = 36,
  ORTAPI_SESSION_GET_OUTPUT_NAME = 37,
  ORTAPI_CREATE_TENSOR_WITH_DATA = 49,
  ORTAPI_GET_TENSOR_MUTABLE_DATA = 51,
  ORTAPI_CAST_TYPE_INFO_TO_TENSOR_INFO = 55,
  ORTAPI_GET_TENSOR_ELEMENT_TYPE = 60,
  ORTAPI_GET_DIMENSIONS_COUNT = 61,
  ORTAPI_GET_DIMENSIONS = 62,
  ORTAPI_GET_TENSOR_SHAPE_ELEMENT_COUNT = 64,
  ORTAPI_GET_TENSOR_TYPE_AND_SHAPE = 65,
  ORTAPI_CREATE_CPU_MEMORY_INFO = 69,
  ORTAPI_GET_DEFAULT_ALLOCATOR = 78,
  ORTAPI_RELEASE_VALUE = 96,
  ORTAPI_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO = 99,
};

// ONNXTensorElementDataType values the baselines feed.
enum { ORTAPI_FLOAT = 1, ORTAPI_UINT8 = 2, ORTAPI_INT8 = 3 };

static void *const *ortapi;

// ORTAPI_FN(type, index) is the table's entry at index as a function of type.
#define ORTAPI_FN(type, index) ((type)ortapi[index])

// ortapi_load opens the library at path and sets ortapi; it exits with a
// message naming the program (who) when it cannot.
static void ortapi_load(const char *who, const char *path) {
  typedef struct {
    const void *(*get_api)(uint32_t version);
    const char *(*get_version_string)(void);
  } api_base;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "%s: %s\n", who, dlerror());
    exit(1);
  }
  const api_base *(*get_base)(void) = (const api_base *(*)(void))dlsym(lib, "OrtGetApiBase");
  if (!get_base) {
    fprintf(stderr, "%s: %s\n", who, dlerror());
    exit(1);
  }
  ortapi = (void *const *)get_base()->get_api(ORTAPI_VERSION);
  if (!ortapi) {
    fprintf(stderr, "%s: %s has no OrtApi version %d\n", who, path, ORTAPI_VERSION);
    exit(1);
  }
}

// ortapi_check exits with ONNX Runtime's message when st is an error.
static void ortapi_check(ortapi_status st, const char *what) {
  if (st == NULL) return;
  const char *msg = ORTAPI_FN(const char *(*)(ortapi_status), ORTAPI_GET_ERROR_MESSAGE)(st);
  fprintf(stderr, "ort: %s: %s\n", what, msg);
  exit(1);
}

// ortapi_session_options makes the options both baselines and the ORT
// engine's defaults use: threads intra-op threads, one inter-op thread,
// sequential execution, every graph optimization.
static void *ortapi_session_options(int threads) {
  void *opts;
  ortapi_check(ORTAPI_FN(ortapi_status (*)(void **), ORTAPI_CREATE_SESSION_OPTIONS)(&opts), "session options");
  ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, int), ORTAPI_SET_INTRA_OP_THREADS)(opts, threads), "intra-op threads");
  ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, int), ORTAPI_SET_INTER_OP_THREADS)(opts, 1), "inter-op threads");
  ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, int), ORTAPI_SET_EXECUTION_MODE)(opts, 0), "execution mode");
  ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, int), ORTAPI_SET_GRAPH_OPTIMIZATION_LEVEL)(opts, 99), "optimization level");
  return opts;
}

// ortapi_read_file reads a whole file into a malloc'd buffer.
static void *ortapi_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "read %s failed\n", path);
    exit(1);
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

#endif
