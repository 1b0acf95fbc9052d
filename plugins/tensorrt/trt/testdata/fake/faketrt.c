/*
 * faketrt.c: a fake TensorRT shim implementing plugins/tensorrt/shim/mlph_trt.h.
 *
 * A "plan" is a small text file describing the engine's I/O tensors:
 *
 *   faketrt 1
 *   profiles 2
 *   input  x float32 -1x4 max=8
 *   output y float32 -1x4
 *
 * Dimension 0 is the batch; -1 makes it dynamic, with profile shapes
 * min=1, opt=max=max. Other dimensions may be -1 too (a sequence length):
 * then max= lists every dimension's largest (max=8x384) and min= may list
 * their smallest (min=1x16; 1 by default). An output's -1 dimensions take
 * the first input's dimension at the same place, as set. A line "plugin NAME" says the engine uses a plugin
 * layer: deserializing it needs NAME registered, by
 * mlph_trt_init_plugins for the stock ones (names ending in _TRT) or by a
 * plugin library (here a text file "fakeplugin NAME") for the others.
 *
 * An "ONNX model" for mlph_trt_build is the same text with the header
 * "fakeonnx 1" and shapes without the batch (input x uint8 3x4, or
 * input ids int32 -1 for a dynamic one, whose range the build options'
 * shapes must give); the build writes the plan of its options (batch -1,
 * max=max_batch, profiles), as TensorRT's builder would. The "kernel" that enqueue runs writes, for every
 * sample b of the batch, output k := the bytes of input (k mod #inputs) of
 * sample b, repeated or truncated to the output's size (the sizes of the
 * shapes set for this enqueue). It does so with
 * cudaMemcpyAsync on the caller's stream, so it runs against the fake CUDA
 * runtime in tests and against a real GPU's runtime alike; with the fake
 * runtime it also enqueues a configurable run time.
 *
 * Like TensorRT it rejects what a real engine would: a context whose device
 * is not current, a dynamic profile shared by two contexts, unset shapes or
 * addresses, addresses that are not device memory of the engine's device,
 * shapes outside the profile and buffers too small for the batch.
 */
#define _GNU_SOURCE
#include "mlph_trt.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CUDA runtime functions the fake kernel uses. */
extern int cudaGetDevice(int *dev);
extern int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream);
struct pointerAttributes {
  int type;
  int device;
  void *devicePointer;
  void *hostPointer;
};
extern int cudaPointerGetAttributes(struct pointerAttributes *attr, const void *p);
/* Present only in the fake CUDA runtime. */
extern int fakecuda_sleep_async(void *stream, long long ns) __attribute__((weak));
extern long long fakecuda_alloc_extent(const void *p, int *dev) __attribute__((weak));

#define MAX_TENSORS 16
#define MAX_PROFILES 8
#define MAX_LOG 4096

typedef struct {
  char name[64];
  int mode;
  int dtype;
  int rank;
  int64_t dims[MLPH_TRT_MAX_DIMS];
  /* lo and hi are each dimension's profile range (the dimension itself
   * when static); maxBatch is hi[0]. */
  int64_t lo[MLPH_TRT_MAX_DIMS], hi[MLPH_TRT_MAX_DIMS];
  int64_t maxBatch;
} tensor;

struct context;

typedef struct {
  int dev;
  int n;
  tensor t[MAX_TENSORS];
  int profiles;
  int dynamic;
  struct context *owner[MAX_PROFILES];
} engine;

typedef struct context {
  engine *e;
  int profile;
  void *addr[MAX_TENSORS];
  /* shape[i] is input i's shape as set; set[i] says it was. */
  int64_t shape[MAX_TENSORS][MLPH_TRT_MAX_DIMS];
  int set[MAX_TENSORS];
} context;

static pthread_mutex_t gMu = PTHREAD_MUTEX_INITIALIZER;
static int gRuntimes, gEngines, gContexts;
static long long gEnqueues, gSamples, gFailAt, gDelayBase, gDelayPerSample;
static int gLog[MAX_LOG];
static long long gLogged;
/* Plugin registry: the stock plugins once mlph_trt_init_plugins ran, and
 * the names plugin libraries registered. */
#define MAX_PLUGINS 16
static int gStockPlugins, gNumPlugins;
static char gPlugins[MAX_PLUGINS][64];
static long long gBuilds;

static int fail(char *err, int32_t errcap, const char *fmt, ...) {
  if (err != NULL && errcap > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errcap, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static int dtypeSize(int dtype) {
  switch (dtype) {
  case 0: /* kFLOAT */
  case 3: /* kINT32 */
    return 4;
  case 1: /* kHALF */
  case 7: /* kBF16 */
    return 2;
  case 2: /* kINT8 */
  case 4: /* kBOOL */
  case 5: /* kUINT8 */
    return 1;
  case 8: /* kINT64 */
    return 8;
  }
  return 0;
}

static int dtypeByName(const char *s) {
  static const char *names[] = {"float32", "float16", "int8", "int32", "bool", "uint8", "fp8", "bf16", "int64"};
  for (int i = 0; i < 9; i++) {
    if (strcmp(s, names[i]) == 0 && dtypeSize(i) > 0) {
      return i;
    }
  }
  return -1;
}

static tensor *find(engine *e, const char *name, int *index) {
  for (int i = 0; i < e->n; i++) {
    if (strcmp(e->t[i].name, name) == 0) {
      if (index != NULL) {
        *index = i;
      }
      return &e->t[i];
    }
  }
  return NULL;
}

int32_t mlph_trt_abi(void) { return MLPH_TRT_ABI; }

int32_t mlph_trt_version(void) { return 100300; }

void *mlph_trt_runtime_create(char *err, int32_t errcap) {
  (void)err;
  (void)errcap;
  pthread_mutex_lock(&gMu);
  gRuntimes++;
  pthread_mutex_unlock(&gMu);
  return malloc(1);
}

void mlph_trt_runtime_destroy(void *runtime) {
  if (runtime == NULL) {
    return;
  }
  free(runtime);
  pthread_mutex_lock(&gMu);
  gRuntimes--;
  pthread_mutex_unlock(&gMu);
}

/* registered reports whether a plugin layer NAME can be created. */
static int registered(const char *name) {
  size_t n = strlen(name);
  pthread_mutex_lock(&gMu);
  int ok = gStockPlugins && n > 4 && strcmp(name + n - 4, "_TRT") == 0;
  for (int i = 0; !ok && i < gNumPlugins; i++) {
    ok = strcmp(gPlugins[i], name) == 0;
  }
  pthread_mutex_unlock(&gMu);
  return ok;
}

int32_t mlph_trt_init_plugins(char *err, int32_t errcap) {
  (void)err;
  (void)errcap;
  pthread_mutex_lock(&gMu);
  gStockPlugins = 1;
  pthread_mutex_unlock(&gMu);
  return 0;
}

int32_t mlph_trt_load_plugin_library(const char *path, char *err, int32_t errcap) {
  FILE *f = path == NULL ? NULL : fopen(path, "r");
  if (f == NULL) {
    return fail(err, errcap, "fake: load plugin library %s: cannot open it", path == NULL ? "(null)" : path);
  }
  char name[64];
  int ok = fscanf(f, "fakeplugin %63s", name) == 1;
  fclose(f);
  if (!ok) {
    return fail(err, errcap, "fake: load plugin library %s: not a plugin library", path);
  }
  pthread_mutex_lock(&gMu);
  if (gNumPlugins < MAX_PLUGINS) {
    snprintf(gPlugins[gNumPlugins++], sizeof gPlugins[0], "%s", name);
  }
  pthread_mutex_unlock(&gMu);
  return 0;
}

/* A built plan: the text of a faketrt plan. */
typedef struct {
  uint64_t size;
  char *data;
} blob;

/* buildRange writes the profile range of a dynamic input NAME of dims
 * (without the batch, "x"-separated) from the build options' shapes:
 * "max=B x max dims min=1 x min dims". It fails, as TensorRT's builder
 * would, for an input whose dynamic dimensions have no range, a range of
 * another rank, or one whose min, opt and max are out of order or that
 * does not hold a static dimension. */
static int buildRange(const char *name, const char *dims, const mlph_trt_build_options *o, char *out, size_t cap,
                      char *err, int32_t errcap) {
  const mlph_trt_input_shape *g = NULL;
  for (int i = 0; o->shapes != NULL && i < o->num_shapes; i++) {
    if (o->shapes[i].name != NULL && strcmp(o->shapes[i].name, name) == 0) {
      g = &o->shapes[i];
    }
  }
  if (g == NULL) {
    return fail(err, errcap, "fake: build: input %s has a dynamic dimension other than the batch and no range", name);
  }
  int64_t d[MLPH_TRT_MAX_DIMS];
  int rank = 0;
  char copy[96];
  snprintf(copy, sizeof copy, "%s", dims);
  char *save = NULL;
  for (char *p = strtok_r(copy, "x", &save); p != NULL && rank < MLPH_TRT_MAX_DIMS; p = strtok_r(NULL, "x", &save)) {
    d[rank++] = strtoll(p, NULL, 10);
  }
  if (g->rank != rank) {
    return fail(err, errcap, "fake: build: input %s has %d dimensions after the batch, its range %d", name, rank,
                g->rank);
  }
  size_t n = (size_t)snprintf(out, cap, "max=%d", o->max_batch);
  for (int k = 0; k < rank; k++) {
    if (g->min[k] < 1 || g->min[k] > g->opt[k] || g->opt[k] > g->max[k] ||
        (d[k] >= 0 && (g->min[k] != d[k] || g->max[k] != d[k]))) {
      return fail(err, errcap, "fake: build: input %s dimension %d: bad range %lld/%lld/%lld", name, k + 1,
                  (long long)g->min[k], (long long)g->opt[k], (long long)g->max[k]);
    }
    n += (size_t)snprintf(out + n, cap - n, "x%lld", (long long)g->max[k]);
  }
  n += (size_t)snprintf(out + n, cap - n, " min=1");
  for (int k = 0; k < rank; k++) {
    n += (size_t)snprintf(out + n, cap - n, "x%lld", (long long)g->min[k]);
  }
  return 0;
}

/* mlph_trt_build turns a fake ONNX model into a plan with a dynamic batch
 * and the options' profiles. It refuses what the builder would: bad batch
 * ranges, an unknown precision, INT8 without a calibration cache, a shape
 * that is not fixed, plugins that are not registered. */
void *mlph_trt_build(const void *onnx, uint64_t size, const mlph_trt_build_options *o, char *err,
                     int32_t errcap) {
  if (onnx == NULL || size == 0 || o == NULL || o->min_batch < 1 || o->opt_batch < o->min_batch ||
      o->max_batch < o->opt_batch || o->profiles < 1 || o->profiles > MAX_PROFILES) {
    fail(err, errcap, "fake: build: bad arguments");
    return NULL;
  }
  static const char *precisions[] = {"fp32", "fp16", "int8"};
  if (o->precision < 0 || o->precision > 2) {
    fail(err, errcap, "fake: build: unknown precision %d", o->precision);
    return NULL;
  }
  if (o->precision == MLPH_TRT_PRECISION_INT8) {
    FILE *f = o->calibration_cache == NULL ? NULL : fopen(o->calibration_cache, "r");
    if (f == NULL) {
      fail(err, errcap, "fake: build: INT8 needs a readable calibration cache");
      return NULL;
    }
    fclose(f);
  }
  char *text = malloc(size + 1);
  memcpy(text, onnx, size);
  text[size] = 0;
  size_t cap = size * 2 + 256;
  char *plan = malloc(cap);
  size_t n = (size_t)snprintf(plan, cap, "faketrt 1\nprofiles %d\nprecision %s\n", o->profiles,
                              precisions[o->precision]);
  int header = 0, ok = 1;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); ok && line != NULL; line = strtok_r(NULL, "\n", &save)) {
    char kind[16], name[64], dtype[16], dims[96];
    if (!header) {
      ok = strcmp(line, "fakeonnx 1") == 0;
      header = 1;
      if (!ok) {
        fail(err, errcap, "fake: parse the ONNX model: not a fakeonnx model");
      }
      continue;
    }
    if (sscanf(line, "plugin %63s", name) == 1) {
      if (!registered(name)) {
        ok = 0;
        fail(err, errcap, "fake: parse the ONNX model: no importer for plugin op %s", name);
        break;
      }
      n += (size_t)snprintf(plan + n, cap - n, "%s\n", line);
      continue;
    }
    if (sscanf(line, "%15s %63s %15s %95s", kind, name, dtype, dims) != 4) {
      ok = 0;
      fail(err, errcap, "fake: build: bad tensor line %s", line);
      break;
    }
    if (strcmp(kind, "input") == 0 && strchr(dims, '-') != NULL) {
      char range[256];
      if (buildRange(name, dims, o, range, sizeof range, err, errcap) != 0) {
        ok = 0;
        break;
      }
      n += (size_t)snprintf(plan + n, cap - n, "input %s %s -1x%s %s\n", name, dtype, dims, range);
    } else if (strcmp(kind, "input") == 0) {
      n += (size_t)snprintf(plan + n, cap - n, "input %s %s -1x%s max=%d\n", name, dtype, dims, o->max_batch);
    } else {
      n += (size_t)snprintf(plan + n, cap - n, "output %s %s -1x%s\n", name, dtype, dims);
    }
  }
  free(text);
  if (!ok || !header) {
    if (!header) {
      fail(err, errcap, "fake: parse the ONNX model: empty");
    }
    free(plan);
    return NULL;
  }
  blob *b = malloc(sizeof(blob));
  b->size = n;
  b->data = plan;
  pthread_mutex_lock(&gMu);
  gBuilds++;
  pthread_mutex_unlock(&gMu);
  return b;
}

uint64_t mlph_trt_blob_size(void *b) { return ((blob *)b)->size; }
const void *mlph_trt_blob_data(void *b) { return ((blob *)b)->data; }
void mlph_trt_blob_free(void *b) {
  if (b != NULL) {
    free(((blob *)b)->data);
    free(b);
  }
}

/* fake_trt_builds counts the engines built. */
long long fake_trt_builds(void) {
  pthread_mutex_lock(&gMu);
  long long n = gBuilds;
  pthread_mutex_unlock(&gMu);
  return n;
}

/* dimList reads "AxBxC" after prefix in s into d; returns how many, or 0
 * when s does not start with prefix. */
static int dimList(const char *s, const char *prefix, int64_t *d) {
  size_t p = strlen(prefix);
  if (strncmp(s, prefix, p) != 0) {
    return 0;
  }
  char copy[64];
  snprintf(copy, sizeof copy, "%s", s + p);
  int n = 0;
  char *save = NULL;
  for (char *x = strtok_r(copy, "x", &save); x != NULL && n < MLPH_TRT_MAX_DIMS; x = strtok_r(NULL, "x", &save)) {
    d[n++] = strtoll(x, NULL, 10);
  }
  return n;
}

/* ranges sets t's profile range from its plan line's max= and min=
 * fields: max=B (the batch alone) or max= and min= listing every
 * dimension. Static dimensions are their own range. An input whose
 * dynamic dimensions lack a largest value, or whose range is empty, is an
 * error (-1). */
static int ranges(tensor *t, const char *a, const char *b) {
  int64_t mx[MLPH_TRT_MAX_DIMS], mn[MLPH_TRT_MAX_DIMS];
  int nmax = 0, nmin = 0;
  const char *f[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    int k = dimList(f[i], "max=", mx);
    nmax = k > 0 ? k : nmax;
    k = dimList(f[i], "min=", mn);
    nmin = k > 0 ? k : nmin;
  }
  for (int d = 0; d < t->rank; d++) {
    t->lo[d] = t->hi[d] = t->dims[d];
    if (t->dims[d] != -1) {
      continue;
    }
    t->lo[d] = d < nmin ? mn[d] : 1;
    t->hi[d] = d < nmax ? mx[d] : 0;
    if (t->mode == MLPH_TRT_IO_INPUT && (t->hi[d] < 1 || t->lo[d] < 1 || t->lo[d] > t->hi[d])) {
      return -1;
    }
  }
  return 0;
}

/* parse fills e from a plan; returns 0 or -1 with err set. */
static int parse(engine *e, const char *plan, uint64_t size, char *err, int32_t errcap) {
  char *text = malloc(size + 1);
  memcpy(text, plan, size);
  text[size] = 0;
  int rc = 0, header = 0;
  e->profiles = 1;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
    char kind[16], name[64], dtype[16], dims[128], extra[64] = "", extra2[64] = "";
    if (!header) {
      if (strcmp(line, "faketrt 1") != 0) {
        rc = fail(err, errcap, "fake: not a faketrt plan");
        break;
      }
      header = 1;
      continue;
    }
    char plugin[64];
    if (sscanf(line, "plugin %63s", plugin) == 1) {
      if (!registered(plugin)) {
        rc = fail(err, errcap, "fake: getPluginCreator could not find plugin %s: register it with "
                                "initLibNvInferPlugins or load its library", plugin);
        break;
      }
      continue;
    }
    if (sscanf(line, "precision %15s", kind) == 1) {
      continue;
    }
    if (sscanf(line, "profiles %d", &e->profiles) == 1) {
      if (e->profiles < 1 || e->profiles > MAX_PROFILES) {
        rc = fail(err, errcap, "fake: bad profile count %d", e->profiles);
        break;
      }
      continue;
    }
    int got = sscanf(line, "%15s %63s %15s %127s %63s %63s", kind, name, dtype, dims, extra, extra2);
    if (got < 4 || e->n == MAX_TENSORS) {
      rc = fail(err, errcap, "fake: bad plan line %s", line);
      break;
    }
    tensor *t = &e->t[e->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->mode = strcmp(kind, "input") == 0 ? MLPH_TRT_IO_INPUT
              : strcmp(kind, "output") == 0 ? MLPH_TRT_IO_OUTPUT
                                             : MLPH_TRT_IO_NONE;
    t->dtype = dtypeByName(dtype);
    if (t->mode == MLPH_TRT_IO_NONE || t->dtype < 0) {
      rc = fail(err, errcap, "fake: bad tensor %s", name);
      break;
    }
    char *dsave = NULL;
    for (char *d = strtok_r(dims, "x", &dsave); d != NULL; d = strtok_r(NULL, "x", &dsave)) {
      if (t->rank == MLPH_TRT_MAX_DIMS) {
        rc = fail(err, errcap, "fake: rank too large");
        break;
      }
      t->dims[t->rank++] = strtoll(d, NULL, 10);
    }
    if (rc != 0) {
      break;
    }
    if (ranges(t, extra, extra2) != 0) {
      rc = fail(err, errcap, "fake: dynamic input %s needs max= for each dynamic dimension, in range", name);
      break;
    }
    if (t->rank > 0 && t->dims[0] == -1) {
      e->dynamic = 1;
    }
    t->maxBatch = t->rank > 0 ? t->hi[0] : 0;
  }
  free(text);
  if (rc == 0 && !header) {
    rc = fail(err, errcap, "fake: empty plan");
  }
  return rc;
}

void *mlph_trt_engine_deserialize(void *runtime, const void *plan, uint64_t size, char *err,
                                  int32_t errcap) {
  if (runtime == NULL || plan == NULL) {
    fail(err, errcap, "fake: null runtime or plan");
    return NULL;
  }
  engine *e = calloc(1, sizeof(engine));
  if (parse(e, plan, size, err, errcap) != 0) {
    free(e);
    return NULL;
  }
  cudaGetDevice(&e->dev);
  pthread_mutex_lock(&gMu);
  gEngines++;
  pthread_mutex_unlock(&gMu);
  return e;
}

void mlph_trt_engine_destroy(void *engine_) {
  if (engine_ == NULL) {
    return;
  }
  free(engine_);
  pthread_mutex_lock(&gMu);
  gEngines--;
  pthread_mutex_unlock(&gMu);
}

int32_t mlph_trt_engine_num_io(void *e) { return ((engine *)e)->n; }

const char *mlph_trt_engine_io_name(void *e, int32_t i) {
  engine *en = (engine *)e;
  return i >= 0 && i < en->n ? en->t[i].name : NULL;
}

int32_t mlph_trt_engine_io_mode(void *e, const char *name) {
  tensor *t = find((engine *)e, name, NULL);
  return t == NULL ? MLPH_TRT_IO_NONE : t->mode;
}

int32_t mlph_trt_engine_io_dtype(void *e, const char *name) {
  tensor *t = find((engine *)e, name, NULL);
  return t == NULL ? -1 : t->dtype;
}

int32_t mlph_trt_engine_io_shape(void *e, const char *name, int64_t *dims, int32_t cap) {
  tensor *t = find((engine *)e, name, NULL);
  if (t == NULL || t->rank > cap) {
    return -1;
  }
  memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
  return t->rank;
}

int32_t mlph_trt_engine_num_profiles(void *e) { return ((engine *)e)->profiles; }

int32_t mlph_trt_engine_profile_shape(void *e, const char *name, int32_t profile, int32_t which,
                                      int64_t *dims, int32_t cap) {
  engine *en = (engine *)e;
  tensor *t = find(en, name, NULL);
  if (t == NULL || t->mode != MLPH_TRT_IO_INPUT || t->rank > cap || profile < 0 ||
      profile >= en->profiles) {
    return -1;
  }
  memcpy(dims, which == MLPH_TRT_PROFILE_MIN ? t->lo : t->hi, sizeof(int64_t) * (size_t)t->rank);
  return t->rank;
}

void *mlph_trt_context_create(void *e, char *err, int32_t errcap) {
  (void)err;
  (void)errcap;
  engine *en = (engine *)e;
  context *c = calloc(1, sizeof(context));
  c->e = en;
  c->profile = -1;
  pthread_mutex_lock(&gMu);
  /* Like TensorRT: a new context takes profile 0 unless another context
   * of a dynamic engine already holds it. */
  if (!en->dynamic || en->owner[0] == NULL) {
    c->profile = 0;
    if (en->dynamic) {
      en->owner[0] = c;
    }
  }
  gContexts++;
  pthread_mutex_unlock(&gMu);
  return c;
}

void mlph_trt_context_destroy(void *ctx) {
  context *c = (context *)ctx;
  if (c == NULL) {
    return;
  }
  pthread_mutex_lock(&gMu);
  for (int p = 0; p < MAX_PROFILES; p++) {
    if (c->e->owner[p] == c) {
      c->e->owner[p] = NULL;
    }
  }
  gContexts--;
  pthread_mutex_unlock(&gMu);
  free(c);
}

int32_t mlph_trt_context_set_profile(void *ctx, int32_t profile, void *stream, char *err,
                                     int32_t errcap) {
  (void)stream;
  context *c = (context *)ctx;
  engine *e = c->e;
  if (profile < 0 || profile >= e->profiles) {
    return fail(err, errcap, "fake: profile %d out of range [0,%d)", profile, e->profiles);
  }
  pthread_mutex_lock(&gMu);
  if (e->dynamic && e->owner[profile] != NULL && e->owner[profile] != c) {
    pthread_mutex_unlock(&gMu);
    return fail(err, errcap, "fake: profile %d is used by another execution context", profile);
  }
  if (e->dynamic) {
    if (c->profile >= 0 && e->owner[c->profile] == c) {
      e->owner[c->profile] = NULL;
    }
    e->owner[profile] = c;
  }
  c->profile = profile;
  pthread_mutex_unlock(&gMu);
  return 0;
}

int32_t mlph_trt_context_set_input_shape(void *ctx, const char *name, const int64_t *dims,
                                         int32_t rank, char *err, int32_t errcap) {
  context *c = (context *)ctx;
  int i;
  tensor *t = find(c->e, name, &i);
  if (t == NULL || t->mode != MLPH_TRT_IO_INPUT) {
    return fail(err, errcap, "fake: %s is not an input", name);
  }
  if (rank != t->rank) {
    return fail(err, errcap, "fake: %s has rank %d, got %d", name, t->rank, rank);
  }
  for (int d = 1; d < rank; d++) {
    if (t->dims[d] != -1 && dims[d] != t->dims[d]) {
      return fail(err, errcap, "fake: %s dimension %d is %lld, got %lld", name, d,
                  (long long)t->dims[d], (long long)dims[d]);
    }
    if (dims[d] < t->lo[d] || dims[d] > t->hi[d]) {
      return fail(err, errcap, "fake: %s dimension %d is %lld, outside the profile's [%lld,%lld]", name, d,
                  (long long)dims[d], (long long)t->lo[d], (long long)t->hi[d]);
    }
  }
  if (t->dims[0] != -1 && dims[0] != t->dims[0]) {
    return fail(err, errcap, "fake: %s has a static batch of %lld", name, (long long)t->dims[0]);
  }
  if (dims[0] < 1 || dims[0] > t->maxBatch) {
    return fail(err, errcap, "fake: batch %lld outside profile [1,%lld]", (long long)dims[0],
                (long long)t->maxBatch);
  }
  memcpy(c->shape[i], dims, sizeof(int64_t) * (size_t)rank);
  c->set[i] = 1;
  return 0;
}

int32_t mlph_trt_context_set_tensor_address(void *ctx, const char *name, void *address, char *err,
                                            int32_t errcap) {
  context *c = (context *)ctx;
  int i;
  if (find(c->e, name, &i) == NULL) {
    return fail(err, errcap, "fake: no tensor %s", name);
  }
  struct pointerAttributes a;
  if (cudaPointerGetAttributes(&a, address) != 0 || a.type != 2 || a.device != c->e->dev) {
    return fail(err, errcap, "fake: %s address is not memory of device %d", name, c->e->dev);
  }
  c->addr[i] = address;
  return 0;
}

/* shapeOf writes tensor i's shape in context c (see
 * mlph_trt_context_tensor_shape) into d; returns 0, or -1 when a shape it
 * depends on is unset. */
static int shapeOf(context *c, int i, int64_t *d) {
  engine *e = c->e;
  tensor *t = &e->t[i];
  if (t->mode == MLPH_TRT_IO_INPUT) {
    int dyn = 0;
    for (int k = 0; k < t->rank; k++) {
      dyn |= t->dims[k] == -1;
    }
    if (!dyn) {
      memcpy(d, t->dims, sizeof(int64_t) * (size_t)t->rank);
      return 0;
    }
    if (!c->set[i]) {
      return -1;
    }
    memcpy(d, c->shape[i], sizeof(int64_t) * (size_t)t->rank);
    return 0;
  }
  int first = -1;
  for (int k = 0; k < e->n && first < 0; k++) {
    if (e->t[k].mode == MLPH_TRT_IO_INPUT) {
      first = k;
    }
  }
  int64_t in[MLPH_TRT_MAX_DIMS];
  int haveIn = first >= 0 && shapeOf(c, first, in) == 0;
  for (int k = 0; k < t->rank; k++) {
    d[k] = t->dims[k];
    if (d[k] == -1) {
      if (!haveIn || k >= e->t[first].rank) {
        return -1;
      }
      d[k] = in[k];
    }
  }
  return 0;
}

/* rowBytes returns one batch row's bytes of tensor i as shaped in c, or
 * -1. */
static int64_t rowBytes(context *c, int i) {
  int64_t d[MLPH_TRT_MAX_DIMS];
  if (shapeOf(c, i, d) != 0) {
    return -1;
  }
  int64_t n = dtypeSize(c->e->t[i].dtype);
  for (int k = 1; k < c->e->t[i].rank; k++) {
    n *= d[k];
  }
  return n;
}

int32_t mlph_trt_context_tensor_shape(void *ctx, const char *name, int64_t *dims, int32_t cap) {
  context *c = (context *)ctx;
  int i;
  tensor *t = find(c->e, name, &i);
  int64_t d[MLPH_TRT_MAX_DIMS];
  if (t == NULL || t->rank > cap || shapeOf(c, i, d) != 0) {
    return -1;
  }
  memcpy(dims, d, sizeof(int64_t) * (size_t)t->rank);
  return t->rank;
}

/* copyTiled writes n bytes to dst by repeating the m bytes at src. */
static int copyTiled(char *dst, const char *src, int64_t n, int64_t m, void *stream) {
  for (int64_t off = 0; off < n; off += m) {
    int64_t k = n - off < m ? n - off : m;
    int rc = cudaMemcpyAsync(dst + off, src, (size_t)k, 3 /* D2D */, stream);
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

int32_t mlph_trt_context_enqueue(void *ctx, void *stream, char *err, int32_t errcap) {
  context *c = (context *)ctx;
  engine *e = c->e;
  int dev = -1;
  cudaGetDevice(&dev);
  if (dev != e->dev) {
    return fail(err, errcap, "fake: context of device %d enqueued while device %d is current",
                e->dev, dev);
  }
  if (c->profile < 0) {
    return fail(err, errcap, "fake: context has no optimization profile");
  }
  int64_t batch = -1;
  int inputs[MAX_TENSORS], nin = 0;
  for (int i = 0; i < e->n; i++) {
    tensor *t = &e->t[i];
    if (c->addr[i] == NULL) {
      return fail(err, errcap, "fake: address of %s not set", t->name);
    }
    if (t->mode != MLPH_TRT_IO_INPUT) {
      continue;
    }
    inputs[nin++] = i;
    int64_t shape[MLPH_TRT_MAX_DIMS];
    if (shapeOf(c, i, shape) != 0) {
      return fail(err, errcap, "fake: shape of %s not set", t->name);
    }
    int64_t b = shape[0];
    if (batch != -1 && b != batch) {
      return fail(err, errcap, "fake: inputs disagree on the batch");
    }
    batch = b;
  }
  if (nin == 0) {
    return fail(err, errcap, "fake: engine has no inputs");
  }
  if (fakecuda_alloc_extent != NULL) {
    for (int i = 0; i < e->n; i++) {
      int adev;
      long long have = fakecuda_alloc_extent(c->addr[i], &adev);
      if (have < batch * rowBytes(c, i)) {
        return fail(err, errcap, "fake: buffer of %s holds %lld bytes, batch needs %lld",
                    e->t[i].name, have, (long long)(batch * rowBytes(c, i)));
      }
    }
  }
  pthread_mutex_lock(&gMu);
  gEnqueues++;
  int injected = gFailAt > 0 && gEnqueues == gFailAt;
  if (!injected) {
    gSamples += batch;
    gLog[gLogged % MAX_LOG] = (int)batch;
    gLogged++;
  }
  long long delay = gDelayBase + gDelayPerSample * batch;
  pthread_mutex_unlock(&gMu);
  if (injected) {
    return fail(err, errcap, "fake: injected enqueue failure");
  }
  int out = 0;
  for (int i = 0; i < e->n; i++) {
    tensor *t = &e->t[i];
    if (t->mode != MLPH_TRT_IO_OUTPUT) {
      continue;
    }
    const char *src = (const char *)c->addr[inputs[out % nin]];
    out++;
    int64_t ob = rowBytes(c, i), ib = rowBytes(c, inputs[(out - 1) % nin]);
    int rc = 0;
    if (ob == ib) {
      rc = cudaMemcpyAsync(c->addr[i], src, (size_t)(batch * ob), 3, stream);
    } else {
      for (int64_t b = 0; b < batch && rc == 0; b++) {
        rc = copyTiled((char *)c->addr[i] + b * ob, src + b * ib, ob, ib, stream);
      }
    }
    if (rc != 0) {
      return fail(err, errcap, "fake: kernel copy failed with CUDA error %d", rc);
    }
  }
  if (fakecuda_sleep_async != NULL && delay > 0) {
    fakecuda_sleep_async(stream, delay);
  }
  return 0;
}

/* ---- fake-only control and inspection ---- */

/* FAKE_TRT_DELAY=BASE_NS,PER_SAMPLE_NS in the environment sets the
 * kernel's run time at load, for a plugin run as a process. */
__attribute__((constructor)) static void delayFromEnvironment(void) {
  const char *v = getenv("FAKE_TRT_DELAY");
  long long base, per;
  if (v != NULL && sscanf(v, "%lld,%lld", &base, &per) == 2 && base >= 0 && per >= 0) {
    gDelayBase = base;
    gDelayPerSample = per;
  }
}

void fake_trt_set_delay(long long baseNs, long long perSampleNs) {
  pthread_mutex_lock(&gMu);
  gDelayBase = baseNs;
  gDelayPerSample = perSampleNs;
  pthread_mutex_unlock(&gMu);
}

/* fake_trt_fail_enqueue makes the n-th enqueue from now fail (n >= 1). */
void fake_trt_fail_enqueue(long long n) {
  pthread_mutex_lock(&gMu);
  gFailAt = n > 0 ? gEnqueues + n : 0;
  pthread_mutex_unlock(&gMu);
}

void fake_trt_stats(long long *enqueues, long long *samples) {
  pthread_mutex_lock(&gMu);
  *enqueues = gEnqueues;
  *samples = gSamples;
  pthread_mutex_unlock(&gMu);
}

/* fake_trt_batches copies the sizes of the last batches run (up to cap,
 * oldest first) and returns how many it wrote. */
int fake_trt_batches(int *out, int cap) {
  pthread_mutex_lock(&gMu);
  long long n = gLogged < MAX_LOG ? gLogged : MAX_LOG;
  if (n > cap) {
    n = cap;
  }
  for (long long i = 0; i < n; i++) {
    out[i] = gLog[(gLogged - n + i) % MAX_LOG];
  }
  pthread_mutex_unlock(&gMu);
  return (int)n;
}

void fake_trt_live(int *runtimes, int *engines, int *contexts) {
  pthread_mutex_lock(&gMu);
  *runtimes = gRuntimes;
  *engines = gEngines;
  *contexts = gContexts;
  pthread_mutex_unlock(&gMu);
}
