// rawort: raw ONNX Runtime, driven from C the way its C API documents,
// as the baseline for the Go ORT engine (see ortcompare).
//
//   rawort LIBRARY MODEL THREADS BATCH
//
// It loads MODEL with THREADS intra-op threads (sequential execution,
// every graph optimization), makes one input tensor of batch BATCH over a
// buffer filled with the same pattern ortcompare uses, and runs the model
// three times to warm up. Then, for each line "N" read from stdin, it runs
// the model N times and prints one line: "ok" and the N latencies in
// nanoseconds. Outputs are allocated by ONNX Runtime and released after
// each run, as a C caller usually does.
//
// No ONNX Runtime header is needed: the few entries used are called
// through the OrtApi function table by their index in struct OrtApi
// (onnxruntime_c_api.h), like the Go binding does. Build:
//   gcc -O2 -o rawort rawort.c -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *status_t; // OrtStatus*, NULL on success

// struct OrtApiBase
typedef struct {
  const void *(*get_api)(uint32_t version);
  const char *(*get_version_string)(void);
} api_base_t;

// Indices in struct OrtApi (all from version 1 of the table).
enum {
  GET_ERROR_MESSAGE = 2,
  CREATE_ENV = 3,
  CREATE_SESSION_FROM_ARRAY = 8,
  RUN = 9,
  CREATE_SESSION_OPTIONS = 10,
  SET_EXECUTION_MODE = 13,
  SET_GRAPH_OPTIMIZATION_LEVEL = 23,
  SET_INTRA_OP_THREADS = 24,
  SET_INTER_OP_THREADS = 25,
  SESSION_GET_INPUT_COUNT = 30,
  SESSION_GET_OUTPUT_COUNT = 31,
  SESSION_GET_INPUT_TYPE_INFO = 33,
  SESSION_GET_INPUT_NAME = 36,
  SESSION_GET_OUTPUT_NAME = 37,
  CREATE_TENSOR_WITH_DATA = 49,
  CAST_TYPE_INFO_TO_TENSOR_INFO = 55,
  GET_TENSOR_ELEMENT_TYPE = 60,
  GET_DIMENSIONS_COUNT = 61,
  GET_DIMENSIONS = 62,
  CREATE_CPU_MEMORY_INFO = 69,
  GET_DEFAULT_ALLOCATOR = 78,
  RELEASE_VALUE = 96,
};

static void *const *api;

#define FN(type, index) ((type)api[index])

static void check(status_t st, const char *what) {
  if (st == NULL) return;
  const char *msg = FN(const char *(*)(status_t), GET_ERROR_MESSAGE)(st);
  fprintf(stderr, "rawort: %s: %s\n", what, msg);
  exit(1);
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = malloc(n);
  if (!buf || fread(buf, 1, n, f) != (size_t)n) { fprintf(stderr, "rawort: read %s\n", path); exit(1); }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: rawort LIBRARY MODEL THREADS BATCH\n");
    return 2;
  }
  int threads = atoi(argv[3]);
  int64_t batch = atoll(argv[4]);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "rawort: %s\n", dlerror()); return 1; }
  const api_base_t *(*get_base)(void) = (const api_base_t *(*)(void))dlsym(lib, "OrtGetApiBase");
  if (!get_base) { fprintf(stderr, "rawort: %s\n", dlerror()); return 1; }
  api = (void *const *)get_base()->get_api(30);
  if (!api) { fprintf(stderr, "rawort: library has no OrtApi version 30\n"); return 1; }

  void *env, *opts, *session, *mem, *alloc, *type_info;
  const void *tensor_info;
  check(FN(status_t (*)(int, const char *, void **), CREATE_ENV)(3, "rawort", &env), "create env");
  check(FN(status_t (*)(void **), CREATE_SESSION_OPTIONS)(&opts), "session options");
  check(FN(status_t (*)(void *, int), SET_INTRA_OP_THREADS)(opts, threads), "intra-op threads");
  check(FN(status_t (*)(void *, int), SET_INTER_OP_THREADS)(opts, 1), "inter-op threads");
  check(FN(status_t (*)(void *, int), SET_EXECUTION_MODE)(opts, 0), "execution mode");
  check(FN(status_t (*)(void *, int), SET_GRAPH_OPTIMIZATION_LEVEL)(opts, 99), "optimization level");
  size_t model_len;
  void *model = read_file(argv[2], &model_len);
  check(FN(status_t (*)(void *, const void *, size_t, void *, void **), CREATE_SESSION_FROM_ARRAY)(env, model, model_len, opts, &session),
        "create session");
  free(model);
  check(FN(status_t (*)(void **), GET_DEFAULT_ALLOCATOR)(&alloc), "allocator");

  size_t n_in, n_out;
  check(FN(status_t (*)(void *, size_t *), SESSION_GET_INPUT_COUNT)(session, &n_in), "input count");
  check(FN(status_t (*)(void *, size_t *), SESSION_GET_OUTPUT_COUNT)(session, &n_out), "output count");
  if (n_in != 1) { fprintf(stderr, "rawort: model has %zu inputs, want 1\n", n_in); return 1; }
  char *in_name;
  char **out_names = calloc(n_out, sizeof(char *));
  void **outputs = calloc(n_out, sizeof(void *));
  check(FN(status_t (*)(void *, size_t, void *, char **), SESSION_GET_INPUT_NAME)(session, 0, alloc, &in_name), "input name");
  for (size_t i = 0; i < n_out; i++)
    check(FN(status_t (*)(void *, size_t, void *, char **), SESSION_GET_OUTPUT_NAME)(session, i, alloc, &out_names[i]), "output name");

  // Input shape and type: free dimensions take the batch size.
  int elem;
  size_t rank;
  int64_t dims[16];
  check(FN(status_t (*)(void *, size_t, void **), SESSION_GET_INPUT_TYPE_INFO)(session, 0, &type_info), "input type");
  check(FN(status_t (*)(const void *, const void **), CAST_TYPE_INFO_TO_TENSOR_INFO)(type_info, &tensor_info), "tensor info");
  check(FN(status_t (*)(const void *, int *), GET_TENSOR_ELEMENT_TYPE)(tensor_info, &elem), "element type");
  check(FN(status_t (*)(const void *, size_t *), GET_DIMENSIONS_COUNT)(tensor_info, &rank), "rank");
  if (rank > 16) { fprintf(stderr, "rawort: rank %zu\n", rank); return 1; }
  check(FN(status_t (*)(const void *, int64_t *, size_t), GET_DIMENSIONS)(tensor_info, dims, rank), "dims");
  size_t count = 1;
  for (size_t i = 0; i < rank; i++) {
    if (dims[i] < 0) dims[i] = batch;
    count *= (size_t)dims[i];
  }
  size_t esize = elem == 1 ? 4 : elem == 2 || elem == 3 ? 1 : 0; // float, uint8, int8
  if (esize == 0) { fprintf(stderr, "rawort: input element type %d\n", elem); return 1; }
  // The pattern ortcompare fills its input with: element i is i mod 251
  // (divided by 251 for float).
  void *data = malloc(count * esize);
  for (size_t i = 0; i < count; i++) {
    if (esize == 4) ((float *)data)[i] = (float)(i % 251) / 251.0f;
    else ((uint8_t *)data)[i] = (uint8_t)(i % 251);
  }
  void *input;
  check(FN(status_t (*)(int, int, void **), CREATE_CPU_MEMORY_INFO)(1, 0, &mem), "memory info");
  check(FN(status_t (*)(const void *, void *, size_t, const int64_t *, size_t, int, void **), CREATE_TENSOR_WITH_DATA)(
            mem, data, count * esize, dims, rank, elem, &input),
        "input tensor");

  typedef status_t (*run_fn)(void *, const void *, const char *const *, const void *const *, size_t, const char *const *, size_t,
                             void **);
  run_fn run = FN(run_fn, RUN);
  void (*release_value)(void *) = FN(void (*)(void *), RELEASE_VALUE);
  const char *in_names[1] = {in_name};
  const void *inputs[1] = {input};
  for (int w = 0; w < 3; w++) {
    check(run(session, NULL, in_names, inputs, 1, (const char *const *)out_names, n_out, outputs), "run");
    for (size_t i = 0; i < n_out; i++) { release_value(outputs[i]); outputs[i] = NULL; }
  }
  printf("ready\n");
  fflush(stdout);

  // "N": N timed runs, answered "ok ns1 ns2 ...". "cpu N": the same with
  // each run's process CPU time too, answered "ok wall1 cpu1 wall2 cpu2 ..."
  // (on a loaded machine CPU time is the steadier measure).
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    int cpu = strncmp(line, "cpu ", 4) == 0;
    long n = atol(cpu ? line + 4 : line);
    if (n <= 0) break;
    int64_t *ns = malloc(2 * n * sizeof(int64_t));
    for (long r = 0; r < n; r++) {
      int64_t t0 = now_ns(), c0 = cpu_ns();
      check(run(session, NULL, in_names, inputs, 1, (const char *const *)out_names, n_out, outputs), "run");
      for (size_t i = 0; i < n_out; i++) { release_value(outputs[i]); outputs[i] = NULL; }
      ns[2 * r] = now_ns() - t0;
      ns[2 * r + 1] = cpu_ns() - c0;
    }
    printf("ok");
    for (long r = 0; r < n; r++) {
      printf(" %lld", (long long)ns[2 * r]);
      if (cpu) printf(" %lld", (long long)ns[2 * r + 1]);
    }
    printf("\n");
    fflush(stdout);
    free(ns);
  }
  return 0;
}
