/*
 * mlph_trt.h: the extern "C" surface of the mlperf-host TensorRT shim.
 *
 * TensorRT's runtime API is C++ only. The Go plugin binds this small C
 * surface at run time (dlopen), so the plugin binary builds without
 * TensorRT and without cgo. mlph_trt.cpp implements it on top of
 * NvInferRuntime.h; the test suite implements the same functions in a
 * fake (plugins/tensorrt/trt/testdata/fake/faketrt.c).
 *
 * Conventions:
 *  - Every handle is an opaque pointer owned by the shim; *_destroy frees it.
 *  - Functions that can fail take (char *err, int32_t errcap) and, on
 *    failure, write a NUL-terminated message there (truncated to errcap).
 *  - Status-returning functions return 0 on success and -1 on failure.
 *  - Tensor names are NUL-terminated; dimensions are int64_t.
 *  - CUDA streams are passed as void* (a cudaStream_t).
 *  - Calls that touch an engine or a context must run on a thread whose
 *    current CUDA device is the device the engine was deserialized on.
 *
 * Bump MLPH_TRT_ABI when a signature changes; the plugin refuses a shim
 * whose mlph_trt_abi() differs from the version it was written for.
 */
#ifndef MLPH_TRT_H
#define MLPH_TRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MLPH_TRT_ABI 3

/* Tensor I/O modes, as nvinfer1::TensorIOMode. */
#define MLPH_TRT_IO_NONE 0
#define MLPH_TRT_IO_INPUT 1
#define MLPH_TRT_IO_OUTPUT 2

/* Profile shape selectors, as nvinfer1::OptProfileSelector. */
#define MLPH_TRT_PROFILE_MIN 0
#define MLPH_TRT_PROFILE_OPT 1
#define MLPH_TRT_PROFILE_MAX 2

/* The largest rank the shim reports (nvinfer1::Dims::MAX_DIMS). */
#define MLPH_TRT_MAX_DIMS 8

/* mlph_trt_abi returns MLPH_TRT_ABI as compiled into the shim. */
int32_t mlph_trt_abi(void);

/* mlph_trt_version returns TensorRT's getInferLibVersion(), e.g. 100300. */
int32_t mlph_trt_version(void);

/* Plugins: mlph_trt_init_plugins registers TensorRT's stock plugin layers
 * (initLibNvInferPlugins), which engines of RetinaNet, DLRM, 3D-UNet and
 * BERT use; mlph_trt_load_plugin_library loads a plugin library into
 * TensorRT's plugin registry. Both go before deserializing such an
 * engine. */
int32_t mlph_trt_init_plugins(char *err, int32_t errcap);
int32_t mlph_trt_load_plugin_library(const char *path, char *err, int32_t errcap);

/* Build precisions. INT8 keeps FP16 for the layers INT8 cannot run. */
#define MLPH_TRT_PRECISION_FP32 0
#define MLPH_TRT_PRECISION_FP16 1
#define MLPH_TRT_PRECISION_INT8 2

/* The profile range of one input's dimensions after the batch, for a
 * build whose inputs have dynamic dimensions besides the batch (BERT's
 * sequence length): rank dimensions each of min, opt and max. */
typedef struct {
  const char *name;
  int32_t rank;
  int64_t min[MLPH_TRT_MAX_DIMS], opt[MLPH_TRT_MAX_DIMS], max[MLPH_TRT_MAX_DIMS];
} mlph_trt_input_shape;

/* How mlph_trt_build builds an engine from an ONNX model. Every input's
 * dimension 0 is the batch; each optimization profile covers batches
 * min_batch to max_batch, tuned for opt_batch, and for an input with
 * other dynamic dimensions the range shapes lists under its name. */
typedef struct {
  int32_t precision;
  int32_t min_batch, opt_batch, max_batch;
  int32_t profiles;
  /* 0: TensorRT's default workspace. */
  uint64_t workspace_bytes;
  /* For INT8: the calibration cache file to read scales from, or NULL. */
  const char *calibration_cache;
  /* num_shapes ranges of inputs' dimensions after the batch, or NULL. */
  const mlph_trt_input_shape *shapes;
  int32_t num_shapes;
} mlph_trt_build_options;

/* mlph_trt_build parses an ONNX model (TensorRT's ONNX parser) and builds a
 * serialized engine for the calling thread's current CUDA device. It
 * returns a blob (mlph_trt_blob_*), or NULL with err set. */
void *mlph_trt_build(const void *onnx, uint64_t size, const mlph_trt_build_options *opts, char *err,
                     int32_t errcap);
uint64_t mlph_trt_blob_size(void *blob);
const void *mlph_trt_blob_data(void *blob);
void mlph_trt_blob_free(void *blob);

/* Runtime: one nvinfer1::IRuntime with a logger that keeps, per thread,
 * the last error TensorRT reported. */
void *mlph_trt_runtime_create(char *err, int32_t errcap);
void mlph_trt_runtime_destroy(void *runtime);

/* Engine: deserialized on the calling thread's current CUDA device. */
void *mlph_trt_engine_deserialize(void *runtime, const void *plan, uint64_t size,
                                  char *err, int32_t errcap);
void mlph_trt_engine_destroy(void *engine);
int32_t mlph_trt_engine_num_io(void *engine);
/* The name of I/O tensor i; valid as long as the engine. */
const char *mlph_trt_engine_io_name(void *engine, int32_t i);
/* One of MLPH_TRT_IO_*. */
int32_t mlph_trt_engine_io_mode(void *engine, const char *name);
/* The nvinfer1::DataType value of the tensor. */
int32_t mlph_trt_engine_io_dtype(void *engine, const char *name);
/* Writes the tensor's shape (-1 for dynamic dimensions) into dims and
 * returns its rank, or -1 when the name is unknown or cap is too small. */
int32_t mlph_trt_engine_io_shape(void *engine, const char *name, int64_t *dims,
                                 int32_t cap);
int32_t mlph_trt_engine_num_profiles(void *engine);
/* Writes an input's min/opt/max shape of one optimization profile. Returns
 * the rank, or -1. */
int32_t mlph_trt_engine_profile_shape(void *engine, const char *name,
                                      int32_t profile, int32_t which,
                                      int64_t *dims, int32_t cap);

/* Execution context: one per CUDA stream. A new context uses profile 0. */
void *mlph_trt_context_create(void *engine, char *err, int32_t errcap);
void mlph_trt_context_destroy(void *context);
/* Selects the optimization profile (setOptimizationProfileAsync). */
int32_t mlph_trt_context_set_profile(void *context, int32_t profile,
                                     void *stream, char *err, int32_t errcap);
int32_t mlph_trt_context_set_input_shape(void *context, const char *name,
                                         const int64_t *dims, int32_t rank,
                                         char *err, int32_t errcap);
int32_t mlph_trt_context_set_tensor_address(void *context, const char *name,
                                            void *address, char *err,
                                            int32_t errcap);
/* Writes the shape tensor name has in this context (getTensorShape): an
 * input's as last set, an output's as the input shapes set make it.
 * Returns the rank, or -1 when the name is unknown, a shape it depends on
 * is unset or cap is too small. */
int32_t mlph_trt_context_tensor_shape(void *context, const char *name, int64_t *dims,
                                      int32_t cap);
/* Enqueues one inference on stream (enqueueV3). */
int32_t mlph_trt_context_enqueue(void *context, void *stream, char *err,
                                 int32_t errcap);

#ifdef __cplusplus
}
#endif

#endif /* MLPH_TRT_H */
