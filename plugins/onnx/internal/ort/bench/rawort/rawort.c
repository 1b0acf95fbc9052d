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
// No ONNX Runtime header is needed: ../ortapi.h calls the few entries used
// through the OrtApi function table. Build:
//   gcc -O2 -o rawort rawort.c -ldl
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../ortapi.h"

#define FN ORTAPI_FN
#define check ortapi_check
typedef ortapi_status status_t;

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

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: rawort LIBRARY MODEL THREADS BATCH\n");
    return 2;
  }
  int threads = atoi(argv[3]);
  int64_t batch = atoll(argv[4]);
  ortapi_load("rawort", argv[1]);

  void *env, *opts, *session, *mem, *alloc, *type_info;
  const void *tensor_info;
  check(FN(status_t (*)(int, const char *, void **), ORTAPI_CREATE_ENV)(3, "rawort", &env), "create env");
  opts = ortapi_session_options(threads);
  size_t model_len;
  void *model = ortapi_read_file(argv[2], &model_len);
  check(FN(status_t (*)(void *, const void *, size_t, void *, void **), ORTAPI_CREATE_SESSION_FROM_ARRAY)(env, model, model_len, opts, &session),
        "create session");
  free(model);
  check(FN(status_t (*)(void **), ORTAPI_GET_DEFAULT_ALLOCATOR)(&alloc), "allocator");

  size_t n_in, n_out;
  check(FN(status_t (*)(void *, size_t *), ORTAPI_SESSION_GET_INPUT_COUNT)(session, &n_in), "input count");
  check(FN(status_t (*)(void *, size_t *), ORTAPI_SESSION_GET_OUTPUT_COUNT)(session, &n_out), "output count");
  if (n_in != 1) { fprintf(stderr, "rawort: model has %zu inputs, want 1\n", n_in); return 1; }
  char *in_name;
  char **out_names = calloc(n_out, sizeof(char *));
  void **outputs = calloc(n_out, sizeof(void *));
  check(FN(status_t (*)(void *, size_t, void *, char **), ORTAPI_SESSION_GET_INPUT_NAME)(session, 0, alloc, &in_name), "input name");
  for (size_t i = 0; i < n_out; i++)
    check(FN(status_t (*)(void *, size_t, void *, char **), ORTAPI_SESSION_GET_OUTPUT_NAME)(session, i, alloc, &out_names[i]), "output name");

  // Input shape and type: free dimensions take the batch size.
  int elem;
  size_t rank;
  int64_t dims[16];
  check(FN(status_t (*)(void *, size_t, void **), ORTAPI_SESSION_GET_INPUT_TYPE_INFO)(session, 0, &type_info), "input type");
  check(FN(status_t (*)(const void *, const void **), ORTAPI_CAST_TYPE_INFO_TO_TENSOR_INFO)(type_info, &tensor_info), "tensor info");
  check(FN(status_t (*)(const void *, int *), ORTAPI_GET_TENSOR_ELEMENT_TYPE)(tensor_info, &elem), "element type");
  check(FN(status_t (*)(const void *, size_t *), ORTAPI_GET_DIMENSIONS_COUNT)(tensor_info, &rank), "rank");
  if (rank > 16) { fprintf(stderr, "rawort: rank %zu\n", rank); return 1; }
  check(FN(status_t (*)(const void *, int64_t *, size_t), ORTAPI_GET_DIMENSIONS)(tensor_info, dims, rank), "dims");
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
  check(FN(status_t (*)(int, int, void **), ORTAPI_CREATE_CPU_MEMORY_INFO)(1, 0, &mem), "memory info");
  check(FN(status_t (*)(const void *, void *, size_t, const int64_t *, size_t, int, void **), ORTAPI_CREATE_TENSOR_WITH_DATA)(
            mem, data, count * esize, dims, rank, elem, &input),
        "input tensor");

  typedef status_t (*run_fn)(void *, const void *, const char *const *, const void *const *, size_t, const char *const *, size_t,
                             void **);
  run_fn run = FN(run_fn, ORTAPI_RUN);
  void (*release_value)(void *) = FN(void (*)(void *), ORTAPI_RELEASE_VALUE);
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
