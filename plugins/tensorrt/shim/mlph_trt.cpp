// mlph_trt.cpp: the extern "C" shim between the mlperf-host TensorRT plugin
// and TensorRT's C++ runtime API (NvInferRuntime.h, TensorRT 8.5 or later:
// it uses the name-based I/O tensor API and enqueueV3).
//
// Build it where TensorRT is installed: `make tensorrt-shim` (mk/accel.mk).
// It links libnvinfer, libnvinfer_plugin (the stock plugin layers) and
// libnvonnxparser (the build step); CUDA streams cross this boundary as opaque
// pointers, so the plugin's own libcudart and TensorRT's share them through
// the driver's primary context.
#include "mlph_trt.h"

#include <NvInfer.h>
#include <NvInferPlugin.h>
#include <NvInferRuntime.h>
#include <NvOnnxParser.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace {

// lastError holds, per thread, the most recent error TensorRT logged. The
// plugin pins each CUDA stream's work to one OS thread, so a message read
// right after a failing call on the same thread belongs to that call.
thread_local std::string lastError;

class Logger final : public nvinfer1::ILogger {
public:
  void log(Severity severity, nvinfer1::AsciiChar const *msg) noexcept override {
    if (severity <= Severity::kERROR && msg != nullptr) {
      lastError.assign(msg);
    }
  }
};

struct Runtime {
  Logger logger;
  nvinfer1::IRuntime *rt = nullptr;
};

struct Engine {
  nvinfer1::ICudaEngine *engine = nullptr;
};

struct Context {
  nvinfer1::IExecutionContext *ctx = nullptr;
};

void setErr(char *err, int32_t errcap, char const *what) {
  if (err == nullptr || errcap <= 0) {
    return;
  }
  std::string msg(what);
  if (!lastError.empty()) {
    msg += ": ";
    msg += lastError;
  }
  std::snprintf(err, static_cast<size_t>(errcap), "%s", msg.c_str());
}

template <typename D> int32_t copyDims(D const &d, int64_t *dims, int32_t cap) {
  if (d.nbDims < 0 || d.nbDims > cap || dims == nullptr) {
    return -1;
  }
  for (int32_t i = 0; i < d.nbDims; i++) {
    dims[i] = static_cast<int64_t>(d.d[i]);
  }
  return d.nbDims;
}

nvinfer1::ICudaEngine *eng(void *e) { return static_cast<Engine *>(e)->engine; }

// buildLogger serves the calls that have no runtime: plugins and builds.
Logger buildLogger;

// CacheCalibrator hands TensorRT the scales of an INT8 calibration cache;
// it has no calibration data, so a missing or stale cache fails the build.
class CacheCalibrator final : public nvinfer1::IInt8EntropyCalibrator2 {
public:
  explicit CacheCalibrator(std::vector<char> cache) : cache_(std::move(cache)) {}
  int32_t getBatchSize() const noexcept override { return 1; }
  bool getBatch(void *[], char const *[], int32_t) noexcept override { return false; }
  void const *readCalibrationCache(std::size_t &length) noexcept override {
    length = cache_.size();
    return cache_.empty() ? nullptr : cache_.data();
  }
  void writeCalibrationCache(void const *, std::size_t) noexcept override {}

private:
  std::vector<char> cache_;
};

bool readFile(char const *path, std::vector<char> &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    return false;
  }
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}
nvinfer1::IExecutionContext *ctxOf(void *c) { return static_cast<Context *>(c)->ctx; }

} // namespace

extern "C" {

int32_t mlph_trt_abi(void) { return MLPH_TRT_ABI; }

int32_t mlph_trt_version(void) { return getInferLibVersion(); }

int32_t mlph_trt_init_plugins(char *err, int32_t errcap) {
  lastError.clear();
  if (!initLibNvInferPlugins(&buildLogger, "")) {
    setErr(err, errcap, "initLibNvInferPlugins failed");
    return -1;
  }
  return 0;
}

int32_t mlph_trt_load_plugin_library(const char *path, char *err, int32_t errcap) {
  lastError.clear();
  nvinfer1::IPluginRegistry *reg = getPluginRegistry();
  if (reg == nullptr || path == nullptr || reg->loadLibrary(path) == nullptr) {
    std::string msg = "load plugin library ";
    msg += path == nullptr ? "(null)" : path;
    setErr(err, errcap, msg.c_str());
    return -1;
  }
  return 0;
}

void *mlph_trt_build(const void *onnx, uint64_t size, const mlph_trt_build_options *o, char *err,
                     int32_t errcap) {
  using namespace nvinfer1;
  lastError.clear();
  if (onnx == nullptr || size == 0 || o == nullptr || o->min_batch < 1 || o->opt_batch < o->min_batch ||
      o->max_batch < o->opt_batch || o->profiles < 1) {
    setErr(err, errcap, "build: bad arguments");
    return nullptr;
  }
  std::unique_ptr<IBuilder> builder(createInferBuilder(buildLogger));
  if (!builder) {
    setErr(err, errcap, "createInferBuilder failed");
    return nullptr;
  }
  // Explicit batch: the default from TensorRT 10, a flag before it.
  std::unique_ptr<INetworkDefinition> network(
      builder->createNetworkV2(1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kEXPLICIT_BATCH)));
  std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, buildLogger));
  if (!network || !parser) {
    setErr(err, errcap, "build: cannot create the network or the ONNX parser");
    return nullptr;
  }
  if (!parser->parse(onnx, static_cast<size_t>(size))) {
    std::string msg = "parse the ONNX model";
    for (int32_t i = 0; i < parser->getNbErrors(); i++) {
      msg += "; ";
      msg += parser->getError(i)->desc();
    }
    setErr(err, errcap, msg.c_str());
    return nullptr;
  }
  std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
  if (o->workspace_bytes > 0) {
    config->setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, o->workspace_bytes);
  }
  std::unique_ptr<CacheCalibrator> calibrator;
  switch (o->precision) {
  case MLPH_TRT_PRECISION_FP32:
    break;
  case MLPH_TRT_PRECISION_INT8: {
    std::vector<char> cache;
    if (o->calibration_cache == nullptr || !readFile(o->calibration_cache, cache) || cache.empty()) {
      setErr(err, errcap, "build: INT8 needs a readable calibration cache");
      return nullptr;
    }
    calibrator.reset(new CacheCalibrator(std::move(cache)));
    config->setFlag(BuilderFlag::kINT8);
    config->setInt8Calibrator(calibrator.get());
    config->setFlag(BuilderFlag::kFP16);
    break;
  }
  case MLPH_TRT_PRECISION_FP16:
    config->setFlag(BuilderFlag::kFP16);
    break;
  default:
    setErr(err, errcap, "build: unknown precision");
    return nullptr;
  }
  for (int32_t p = 0; p < o->profiles; p++) {
    IOptimizationProfile *prof = builder->createOptimizationProfile();
    for (int32_t i = 0; i < network->getNbInputs(); i++) {
      ITensor *in = network->getInput(i);
      Dims d = in->getDimensions();
      Dims lo = d, opt = d, hi = d;
      const mlph_trt_input_shape *given = nullptr;
      for (int32_t s = 0; o->shapes != nullptr && s < o->num_shapes; s++) {
        if (o->shapes[s].name != nullptr && std::strcmp(o->shapes[s].name, in->getName()) == 0) {
          given = &o->shapes[s];
        }
      }
      if (given != nullptr && given->rank != d.nbDims - 1) {
        std::string msg = "build: input ";
        msg += in->getName();
        msg += ": build_shapes gives " + std::to_string(given->rank) + " dimensions after the batch, the model has " +
               std::to_string(d.nbDims - 1);
        setErr(err, errcap, msg.c_str());
        return nullptr;
      }
      for (int32_t k = 1; k < d.nbDims; k++) {
        if (given != nullptr) {
          lo.d[k] = given->min[k - 1];
          opt.d[k] = given->opt[k - 1];
          hi.d[k] = given->max[k - 1];
        } else if (d.d[k] < 0) {
          std::string msg = "build: input ";
          msg += in->getName();
          msg += " has a dynamic dimension other than the batch: give its range in the build_shapes option";
          setErr(err, errcap, msg.c_str());
          return nullptr;
        }
      }
      lo.d[0] = o->min_batch;
      opt.d[0] = o->opt_batch;
      hi.d[0] = o->max_batch;
      prof->setDimensions(in->getName(), OptProfileSelector::kMIN, lo);
      prof->setDimensions(in->getName(), OptProfileSelector::kOPT, opt);
      prof->setDimensions(in->getName(), OptProfileSelector::kMAX, hi);
    }
    config->addOptimizationProfile(prof);
  }
  IHostMemory *plan = builder->buildSerializedNetwork(*network, *config);
  if (plan == nullptr) {
    setErr(err, errcap, "buildSerializedNetwork failed");
    return nullptr;
  }
  return plan;
}

uint64_t mlph_trt_blob_size(void *blob) { return static_cast<nvinfer1::IHostMemory *>(blob)->size(); }

const void *mlph_trt_blob_data(void *blob) { return static_cast<nvinfer1::IHostMemory *>(blob)->data(); }

void mlph_trt_blob_free(void *blob) { delete static_cast<nvinfer1::IHostMemory *>(blob); }

void *mlph_trt_runtime_create(char *err, int32_t errcap) {
  lastError.clear();
  auto *r = new (std::nothrow) Runtime();
  if (r == nullptr) {
    setErr(err, errcap, "allocate runtime");
    return nullptr;
  }
  r->rt = nvinfer1::createInferRuntime(r->logger);
  if (r->rt == nullptr) {
    setErr(err, errcap, "createInferRuntime failed");
    delete r;
    return nullptr;
  }
  return r;
}

void mlph_trt_runtime_destroy(void *runtime) {
  auto *r = static_cast<Runtime *>(runtime);
  if (r == nullptr) {
    return;
  }
  delete r->rt;
  delete r;
}

void *mlph_trt_engine_deserialize(void *runtime, const void *plan, uint64_t size,
                                  char *err, int32_t errcap) {
  lastError.clear();
  auto *r = static_cast<Runtime *>(runtime);
  if (r == nullptr || plan == nullptr) {
    setErr(err, errcap, "deserialize: null runtime or plan");
    return nullptr;
  }
  nvinfer1::ICudaEngine *e = r->rt->deserializeCudaEngine(plan, static_cast<size_t>(size));
  if (e == nullptr) {
    setErr(err, errcap, "deserializeCudaEngine failed");
    return nullptr;
  }
  auto *h = new (std::nothrow) Engine();
  if (h == nullptr) {
    delete e;
    setErr(err, errcap, "allocate engine");
    return nullptr;
  }
  h->engine = e;
  return h;
}

void mlph_trt_engine_destroy(void *engine) {
  auto *h = static_cast<Engine *>(engine);
  if (h == nullptr) {
    return;
  }
  delete h->engine;
  delete h;
}

int32_t mlph_trt_engine_num_io(void *engine) { return eng(engine)->getNbIOTensors(); }

const char *mlph_trt_engine_io_name(void *engine, int32_t i) {
  return eng(engine)->getIOTensorName(i);
}

int32_t mlph_trt_engine_io_mode(void *engine, const char *name) {
  return static_cast<int32_t>(eng(engine)->getTensorIOMode(name));
}

int32_t mlph_trt_engine_io_dtype(void *engine, const char *name) {
  return static_cast<int32_t>(eng(engine)->getTensorDataType(name));
}

int32_t mlph_trt_engine_io_shape(void *engine, const char *name, int64_t *dims,
                                 int32_t cap) {
  return copyDims(eng(engine)->getTensorShape(name), dims, cap);
}

int32_t mlph_trt_engine_num_profiles(void *engine) {
  return eng(engine)->getNbOptimizationProfiles();
}

int32_t mlph_trt_engine_profile_shape(void *engine, const char *name,
                                      int32_t profile, int32_t which,
                                      int64_t *dims, int32_t cap) {
  auto sel = static_cast<nvinfer1::OptProfileSelector>(which);
  return copyDims(eng(engine)->getProfileShape(name, profile, sel), dims, cap);
}

void *mlph_trt_context_create(void *engine, char *err, int32_t errcap) {
  lastError.clear();
  nvinfer1::IExecutionContext *c = eng(engine)->createExecutionContext();
  if (c == nullptr) {
    setErr(err, errcap, "createExecutionContext failed");
    return nullptr;
  }
  auto *h = new (std::nothrow) Context();
  if (h == nullptr) {
    delete c;
    setErr(err, errcap, "allocate context");
    return nullptr;
  }
  h->ctx = c;
  return h;
}

void mlph_trt_context_destroy(void *context) {
  auto *h = static_cast<Context *>(context);
  if (h == nullptr) {
    return;
  }
  delete h->ctx;
  delete h;
}

int32_t mlph_trt_context_set_profile(void *context, int32_t profile,
                                     void *stream, char *err, int32_t errcap) {
  lastError.clear();
  if (!ctxOf(context)->setOptimizationProfileAsync(profile,
                                                   static_cast<cudaStream_t>(stream))) {
    setErr(err, errcap, "setOptimizationProfileAsync failed");
    return -1;
  }
  return 0;
}

int32_t mlph_trt_context_set_input_shape(void *context, const char *name,
                                         const int64_t *dims, int32_t rank,
                                         char *err, int32_t errcap) {
  lastError.clear();
  nvinfer1::Dims d{};
  if (rank < 0 || rank > nvinfer1::Dims::MAX_DIMS) {
    setErr(err, errcap, "setInputShape: rank out of range");
    return -1;
  }
  d.nbDims = rank;
  for (int32_t i = 0; i < rank; i++) {
    d.d[i] = static_cast<std::remove_reference_t<decltype(d.d[0])>>(dims[i]);
  }
  if (!ctxOf(context)->setInputShape(name, d)) {
    setErr(err, errcap, "setInputShape failed");
    return -1;
  }
  return 0;
}

int32_t mlph_trt_context_set_tensor_address(void *context, const char *name,
                                            void *address, char *err,
                                            int32_t errcap) {
  lastError.clear();
  if (!ctxOf(context)->setTensorAddress(name, address)) {
    setErr(err, errcap, "setTensorAddress failed");
    return -1;
  }
  return 0;
}

int32_t mlph_trt_context_tensor_shape(void *context, const char *name, int64_t *dims,
                                      int32_t cap) {
  nvinfer1::Dims d = ctxOf(context)->getTensorShape(name);
  for (int32_t i = 0; i < d.nbDims; i++) {
    if (d.d[i] < 0) {
      return -1;
    }
  }
  return copyDims(d, dims, cap);
}

int32_t mlph_trt_context_enqueue(void *context, void *stream, char *err,
                                 int32_t errcap) {
  lastError.clear();
  if (!ctxOf(context)->enqueueV3(static_cast<cudaStream_t>(stream))) {
    setErr(err, errcap, "enqueueV3 failed");
    return -1;
  }
  return 0;
}

} // extern "C"
