/*
 * fakecudart.c: a fake of the CUDA runtime subset the TensorRT plugin binds.
 *
 * "Device memory" is host memory tagged with a device; each stream is a
 * worker thread that runs its operations in order, so copies, kernels and
 * events complete asynchronously the way they do on a GPU. The fake checks
 * what a GPU would reject or silently corrupt: copies whose direction does
 * not match the pointers, memory of another device, allocations beyond the
 * device's memory, and work issued from a thread whose current device is
 * not the stream's.
 *
 * It also refuses what is undefined on a GPU and would corrupt the test
 * process here: freeing memory that queued stream work still reads or
 * writes, destroying an event whose recorded work has not run, destroying
 * a stream with work queued, and asynchronous copies from or to host
 * memory that is not pinned (Go memory may move or be freed before the
 * stream gets to it). Such a call does nothing, returns fakeErrorInUse and
 * is recorded: fake_violations (fakedevice.h) reports the first one, so a
 * test fails with a message instead of a heap corruption.
 *
 * Control and inspection entry points (fakecuda_*) let tests configure the
 * devices, inject a failing device and read per-stream busy time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_NAME "fakecudart"
#define FAKE_MAX_DEV 16
#include "fakedevice.h"

enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureIsolation = 905,
  cudaErrorStreamCaptureWrongThread = 908,
  /* Not a CUDA code: the fake refused a call (see fake_violations). */
  fakeErrorInUse = 9001,
};

enum { kindH2H = 0, kindH2D = 1, kindD2H = 2, kindD2D = 3, kindDefault = 4 };

#define MAX_DEV FAKE_MAX_DEV

enum { allocDevice = 1, allocPinned = 2 };

typedef struct alloc {
  char *base;
  size_t size;
  int dev;
  int kind;
  /* cpus: the allocating thread's CPUs (the first 64), where its pages
   * would be placed first. */
  unsigned long long cpus;
  struct alloc *next;
} alloc;

/* opWait waits for an event's record; opGather is a launch of the gather
 * kernel (dst, table of count source addresses, n bytes per row). */
enum { opCopy = 1, opSleep = 2, opEvent = 3, opWait = 4, opGather = 5 };

struct event;

typedef struct op {
  int kind;
  void *dst;
  const void *src;
  size_t n;
  long long ns;
  struct event *ev;
  unsigned long long seq;
  /* table and count: the gather kernel's source addresses and rows. */
  const uint64_t *table;
  size_t count;
  struct op *next;
} op;

typedef struct stream {
  int dev;
  int index;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  op *head, *tail;
  /* cur is the operation the worker runs now, NULL between operations. */
  op *cur;
  int stop;
  unsigned long long busyNs, ops;
  struct stream *nextLive;
  /* While capturing, pushed work goes to capHead..capTail instead of the
   * queue; capBroken is set by a call the capture does not allow. */
  int capturing, capBroken;
  pthread_t capThread;
  op *capHead, *capTail;
} stream;

typedef struct event {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned long long recorded, done;
  int err;
} event;

static pthread_mutex_t gMu = PTHREAD_MUTEX_INITIALIZER;
static alloc *gAllocs;
static int gDevices = 2;
static size_t gMemory = (size_t)1 << 30;
static size_t gUsed[MAX_DEV];
static volatile int gFailed[MAX_DEV];
static int gStreams, gEvents, gNextStream;
/* Statistics of every stream ever created, by creation index. */
#define MAX_STATS 256
static int gStatDev[MAX_STATS];
static unsigned long long gStatBusy[MAX_STATS], gStatOps[MAX_STATS];
static __thread int tDevice;
/* tHasContext: the thread called cudaSetDevice, so the runtime made the
 * device's primary context current (what the driver API needs). */
static __thread int tHasContext;
/* tCapture is the stream this thread captures, if any. */
static __thread struct stream *tCapture;
/* gLive lists the streams not destroyed yet, under gMu. Lock order: gMu,
 * then a stream's mu; the worker never takes gMu while holding its mu. */
static stream *gLive;
/* The CUDA version reported, which also selects cudaMemcpyBatchAsync's
 * signature: 12.8 to 12.9 take a failIdx before the stream, 13 does not. */
static int gVersion = 12040;
/* gSerial: each device runs one kernel (sleep) at a time, holding
 * gDevRun[dev]; else every stream runs its own at once. */
static int gSerial;
static pthread_mutex_t gDevRun[MAX_DEV];

/* For a plugin run as a process, the environment configures the fake at
 * load: FAKECUDA_SERIAL=1 serializes kernels, FAKECUDA_DEVICES=N sets the
 * number of devices. */
__attribute__((constructor)) static void configureFromEnvironment(void) {
  for (int d = 0; d < MAX_DEV; d++) {
    pthread_mutex_init(&gDevRun[d], NULL);
  }
  const char *v = getenv("FAKECUDA_SERIAL");
  gSerial = v != NULL && strcmp(v, "1") == 0;
  v = getenv("FAKECUDA_DEVICES");
  int n;
  if (v != NULL && sscanf(v, "%d", &n) == 1 && n >= 1 && n <= MAX_DEV) {
    gDevices = n;
  }
}
static long long gBatchCopies;
/* cudaMemcpyAsync calls queued, by cudaMemcpyKind (1 to 3 used). */
static long long gAsyncCopies[5];
/* Per device, for the last host-to-device copy queued: the CPUs of the
 * thread that queued it and of the thread that allocated its source. */
static unsigned long long gCopyCPUs[MAX_DEV], gCopySrcCPUs[MAX_DEV];

/* cudaStreamQuery calls that found work still queued. */
static long long gBusyQueries;

/* findAlloc returns the allocation containing [p, p+n), or NULL. Callers
 * hold gMu. */
static alloc *findAlloc(const void *p, size_t n) {
  const char *c = (const char *)p;
  for (alloc *a = gAllocs; a != NULL; a = a->next) {
    if (c >= a->base && c < a->base + (a->size == 0 ? 1 : a->size) && c + n <= a->base + a->size) {
      return a;
    }
  }
  return NULL;
}

/* checkCopy validates a copy against the allocation table. dev is the
 * device the copy runs on. */
static int checkCopy(void *dst, const void *src, size_t n, int kind, int dev, int async) {
  pthread_mutex_lock(&gMu);
  alloc *d = findAlloc(dst, n);
  alloc *s = findAlloc(src, n);
  int dDev = d != NULL && d->kind == allocDevice;
  int sDev = s != NULL && s->kind == allocDevice;
  int rc = cudaSuccess;
  switch (kind) {
  case kindH2H:
    rc = (dDev || sDev) ? cudaErrorInvalidValue : cudaSuccess;
    break;
  case kindH2D:
    rc = (dDev && !sDev) ? cudaSuccess : cudaErrorInvalidValue;
    break;
  case kindD2H:
    rc = (sDev && !dDev) ? cudaSuccess : cudaErrorInvalidValue;
    break;
  case kindD2D:
    rc = (sDev && dDev) ? cudaSuccess : cudaErrorInvalidValue;
    break;
  case kindDefault:
    break;
  default:
    rc = cudaErrorInvalidValue;
  }
  if (rc == cudaSuccess && ((dDev && d->dev != dev) || (sDev && s->dev != dev))) {
    rc = cudaErrorInvalidDevice;
  }
  /* The stream's worker copies later: host memory must be pinned memory
   * that stays put until then, never caller memory such as a Go slice. */
  int unpinned = (!dDev && (d == NULL || d->kind != allocPinned)) ||
                 (!sDev && (s == NULL || s->kind != allocPinned));
  pthread_mutex_unlock(&gMu);
  if (rc == cudaSuccess && async && unpinned) {
    violation("asynchronous copy of %zu bytes from %p to %p involves host memory that is not pinned", n, src,
              dst);
    rc = fakeErrorInUse;
  }
  return rc;
}

/* overlaps reports whether [p, p+n) meets [base, base+size). */
static int overlaps(const void *p, size_t n, const char *base, size_t size) {
  const char *c = (const char *)p;
  return c < base + (size == 0 ? 1 : size) && c + (n == 0 ? 1 : n) > base;
}

/* opUses reports whether o reads or writes [base, base+size). */
static int opUses(const op *o, const char *base, size_t size) {
  if (o == NULL) {
    return 0;
  }
  if (o->kind == opCopy) {
    return overlaps(o->dst, o->n, base, size) || overlaps(o->src, o->n, base, size);
  }
  if (o->kind != opGather) {
    return 0;
  }
  if (overlaps(o->dst, o->n * o->count, base, size) || overlaps(o->table, 8 * o->count, base, size)) {
    return 1;
  }
  for (size_t b = 0; b < o->count; b++) {
    if (overlaps((const void *)(uintptr_t)o->table[b], o->n, base, size)) {
      return 1;
    }
  }
  return 0;
}

/* inUse returns a live stream with queued or running work that touches
 * [base, base+size), or NULL. Callers hold gMu. */
static stream *inUse(const char *base, size_t size) {
  for (stream *s = gLive; s != NULL; s = s->nextLive) {
    pthread_mutex_lock(&s->mu);
    int used = opUses(s->cur, base, size);
    for (op *o = s->head; o != NULL && !used; o = o->next) {
      used = opUses(o, base, size);
    }
    pthread_mutex_unlock(&s->mu);
    if (used) {
      return s;
    }
  }
  return NULL;
}

/* setCurrent records the operation s runs now. */
static void setCurrent(stream *s, op *o) {
  pthread_mutex_lock(&s->mu);
  s->cur = o;
  pthread_mutex_unlock(&s->mu);
}

/* readable reports whether the device dev can read [p, p+n): its own
 * device memory or pinned host memory (unified addressing). */
static int readable(const void *p, size_t n, int dev) {
  pthread_mutex_lock(&gMu);
  alloc *a = findAlloc(p, n);
  int ok = a != NULL && (a->kind == allocPinned || a->dev == dev);
  pthread_mutex_unlock(&gMu);
  return ok;
}

/* runGather runs a gather kernel the way a GPU would: an address it may
 * not touch is an illegal access, a sticky error of its device. */
static void runGather(stream *s, op *o) {
  int ok = readable(o->table, 8 * o->count, s->dev);
  pthread_mutex_lock(&gMu);
  alloc *d = findAlloc(o->dst, o->n * o->count);
  ok = ok && d != NULL && d->kind == allocDevice && d->dev == s->dev;
  pthread_mutex_unlock(&gMu);
  for (size_t b = 0; ok && b < o->count; b++) {
    ok = readable((const void *)(uintptr_t)o->table[b], o->n, s->dev);
  }
  if (!ok) {
    violation("gather kernel on device %d touches memory it cannot address (Go memory, another device's, or "
              "freed): an illegal address on a GPU",
              s->dev);
    gFailed[s->dev] = 1;
    return;
  }
  for (size_t b = 0; b < o->count; b++) {
    memmove((char *)o->dst + b * o->n, (const void *)(uintptr_t)o->table[b], o->n);
  }
}

static void *worker(void *arg) {
  stream *s = (stream *)arg;
  for (;;) {
    pthread_mutex_lock(&s->mu);
    while (s->head == NULL && !s->stop) {
      pthread_cond_wait(&s->cv, &s->mu);
    }
    if (s->head == NULL && s->stop) {
      pthread_mutex_unlock(&s->mu);
      break;
    }
    op *o = s->head;
    s->head = o->next;
    if (s->head == NULL) {
      s->tail = NULL;
    }
    s->cur = o;
    pthread_mutex_unlock(&s->mu);

    long long t0 = nowNs();
    if (o->kind == opWait) {
      event *e = o->ev;
      pthread_mutex_lock(&e->mu);
      while (e->done < o->seq) {
        pthread_cond_wait(&e->cv, &e->mu);
      }
      pthread_mutex_unlock(&e->mu);
    } else if (o->kind == opGather && !gFailed[s->dev]) {
      runGather(s, o);
    } else if (o->kind == opCopy && !gFailed[s->dev]) {
      memmove(o->dst, o->src, o->n);
    } else if (o->kind == opSleep && !gFailed[s->dev]) {
      kernelWait();
      /* A serialized device runs one kernel at a time, as a GPU does with
       * kernels that fill it: streams then share its time. */
      if (gSerial) {
        pthread_mutex_lock(&gDevRun[s->dev]);
      }
      t0 = kernelStart(s->dev);
      struct timespec ts = {o->ns / 1000000000LL, o->ns % 1000000000LL};
      while (nanosleep(&ts, &ts) != 0) {
      }
      kernelEnd(s->dev);
      if (gSerial) {
        pthread_mutex_unlock(&gDevRun[s->dev]);
      }
    } else if (o->kind == opEvent) {
      /* The operation is over before the event fires: whoever it wakes may
       * free memory or destroy the event at once. */
      setCurrent(s, NULL);
      event *e = o->ev;
      pthread_mutex_lock(&e->mu);
      if (gFailed[s->dev]) {
        e->err = cudaErrorLaunchFailure;
      }
      if (o->seq > e->done) {
        e->done = o->seq;
      }
      pthread_cond_broadcast(&e->cv);
      pthread_mutex_unlock(&e->mu);
    }
    long long t1 = nowNs();
    setCurrent(s, NULL);
    free(o);

    pthread_mutex_lock(&gMu);
    s->ops++;
    s->busyNs += (unsigned long long)(t1 - t0);
    gStatBusy[s->index] = s->busyNs;
    gStatOps[s->index] = s->ops;
    pthread_mutex_unlock(&gMu);
  }
  return NULL;
}

static int push(stream *s, op *o) {
  if (s == NULL) {
    free(o);
    return cudaErrorInvalidResourceHandle;
  }
  o->next = NULL;
  pthread_mutex_lock(&s->mu);
  if (s->capturing) {
    /* Captured, not run: the graph runs it when launched. */
    if (s->capTail == NULL) {
      s->capHead = s->capTail = o;
    } else {
      s->capTail->next = o;
      s->capTail = o;
    }
    pthread_mutex_unlock(&s->mu);
    return cudaSuccess;
  }
  if (s->tail == NULL) {
    s->head = s->tail = o;
  } else {
    s->tail->next = o;
    s->tail = o;
  }
  pthread_cond_signal(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return cudaSuccess;
}

/* captureForbids reports whether the calling thread is capturing a
 * stream, and breaks that capture: a call that may synchronize is not
 * allowed during thread-local capture, and the capture is invalidated. */
static int captureForbids(void) {
  if (tCapture == NULL) {
    return 0;
  }
  pthread_mutex_lock(&tCapture->mu);
  tCapture->capBroken = 1;
  pthread_mutex_unlock(&tCapture->mu);
  return 1;
}

/* ---- CUDA runtime entry points ---- */

const char *cudaGetErrorString(int err) {
  switch (err) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorNoDevice:
    return "no CUDA-capable device is detected";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  case cudaErrorInvalidResourceHandle:
    return "invalid resource handle";
  case cudaErrorNotReady:
    return "device not ready";
  case cudaErrorLaunchFailure:
    return "unspecified launch failure";
  case fakeErrorInUse:
    return "fake: refused, queued stream work still uses the resource or the host memory is not pinned "
           "(a GPU would fault or corrupt memory)";
  }
  return "unknown error";
}

int cudaGetDeviceCount(int *n) {
  if (gDevices == 0) {
    *n = 0;
    return cudaErrorNoDevice;
  }
  *n = gDevices;
  return cudaSuccess;
}

int cudaSetDevice(int dev) {
  if (dev < 0 || dev >= gDevices) {
    return cudaErrorInvalidDevice;
  }
  tDevice = dev;
  tHasContext = 1;
  return cudaSuccess;
}

int cudaGetDevice(int *dev) {
  *dev = tDevice;
  return cudaSuccess;
}

int cudaDeviceGetAttribute(int *value, int attr, int dev) {
  if (dev < 0 || dev >= gDevices) {
    return cudaErrorInvalidDevice;
  }
  switch (attr) {
  case 13: /* cudaDevAttrClockRate, kHz */
    *value = 1980000;
    break;
  case 16: /* cudaDevAttrMultiProcessorCount */
    *value = 132;
    break;
  case 37: /* cudaDevAttrGlobalMemoryBusWidth, bits */
    *value = 5120;
    break;
  case 75: /* cudaDevAttrComputeCapabilityMajor */
    *value = 9;
    break;
  case 76: /* cudaDevAttrComputeCapabilityMinor */
    *value = 0;
    break;
  default:
    *value = 0;
  }
  return cudaSuccess;
}

int cudaGetDeviceProperties(void *prop, int dev) {
  if (dev < 0 || dev >= gDevices) {
    return cudaErrorInvalidDevice;
  }
  /* The prefix of cudaDeviceProp shared by CUDA 10 to 13: name[256],
   * uuid[16], luid[8], luidDeviceNodeMask, then totalGlobalMem at 288. */
  snprintf((char *)prop, 256, "Fake GPU %d", dev);
  /* uuid[16] follows the name: a fixed pattern with the ordinal in it. */
  unsigned char *uuid = (unsigned char *)prop + 256;
  for (int i = 0; i < 16; i++) {
    uuid[i] = (unsigned char)(0xa0 + i);
  }
  uuid[15] = (unsigned char)dev;
  *(size_t *)((char *)prop + 288) = gMemory;
  return cudaSuccess;
}

/* cudaDeviceGetPCIBusId writes the device's PCI address: domain 0x0fa0 (which no
 * real machine is likely to have in its sysfs), bus 0x3b + dev. */
int cudaDeviceGetPCIBusId(char *busId, int len, int dev) {
  if (busId == NULL || len <= 0) {
    return cudaErrorInvalidValue;
  }
  if (dev < 0 || dev >= gDevices) {
    return cudaErrorInvalidDevice;
  }
  snprintf(busId, (size_t)len, "0fa0:%02x:00.0", 0x3b + dev);
  return cudaSuccess;
}

int cudaMemGetInfo(size_t *freeBytes, size_t *total) {
  pthread_mutex_lock(&gMu);
  *total = gMemory;
  *freeBytes = gMemory - gUsed[tDevice];
  pthread_mutex_unlock(&gMu);
  return cudaSuccess;
}

int cudaDriverGetVersion(int *v) {
  *v = gVersion;
  return cudaSuccess;
}

int cudaRuntimeGetVersion(int *v) {
  *v = gVersion;
  return cudaSuccess;
}

static int allocate(void **p, size_t size, int kind) {
  pthread_mutex_lock(&gMu);
  if (kind == allocDevice && gUsed[tDevice] + size > gMemory) {
    pthread_mutex_unlock(&gMu);
    return cudaErrorMemoryAllocation;
  }
  alloc *a = calloc(1, sizeof(alloc));
  /* Never hand out a zero-sized range: it would alias its neighbour. */
  a->base = calloc(1, size == 0 ? 1 : size);
  a->size = size;
  a->dev = tDevice;
  a->kind = kind;
  a->cpus = threadCPUs();
  a->next = gAllocs;
  gAllocs = a;
  if (kind == allocDevice) {
    gUsed[tDevice] += size;
  }
  *p = a->base;
  pthread_mutex_unlock(&gMu);
  return cudaSuccess;
}

static int release(void *p, int kind) {
  if (p == NULL) {
    return cudaSuccess;
  }
  pthread_mutex_lock(&gMu);
  for (alloc **pp = &gAllocs; *pp != NULL; pp = &(*pp)->next) {
    alloc *a = *pp;
    if (a->base == p && a->kind == kind) {
      stream *user = inUse(a->base, a->size);
      if (user != NULL) {
        pthread_mutex_unlock(&gMu);
        violation("%s of %p (%zu bytes) while stream %d of device %d still has work queued that uses it",
                  kind == allocDevice ? "cudaFree" : "cudaFreeHost", p, a->size, user->index, user->dev);
        return fakeErrorInUse;
      }
      *pp = a->next;
      if (kind == allocDevice) {
        gUsed[a->dev] -= a->size;
      }
      /* Poison what is left behind: a stale read sees 0xdb bytes. */
      memset(a->base, 0xdb, a->size);
      free(a->base);
      free(a);
      pthread_mutex_unlock(&gMu);
      return cudaSuccess;
    }
  }
  pthread_mutex_unlock(&gMu);
  return cudaErrorInvalidValue;
}

int cudaMalloc(void **p, size_t size) {
  return captureForbids() ? cudaErrorStreamCaptureUnsupported : allocate(p, size, allocDevice);
}
int cudaFree(void *p) { return captureForbids() ? cudaErrorStreamCaptureUnsupported : release(p, allocDevice); }
int cudaMallocHost(void **p, size_t size) {
  return captureForbids() ? cudaErrorStreamCaptureUnsupported : allocate(p, size, allocPinned);
}
int cudaFreeHost(void *p) { return captureForbids() ? cudaErrorStreamCaptureUnsupported : release(p, allocPinned); }

int cudaMemcpy(void *dst, const void *src, size_t n, int kind) {
  if (captureForbids()) {
    return cudaErrorStreamCaptureUnsupported;
  }
  int rc = checkCopy(dst, src, n, kind, tDevice, 0);
  if (rc != cudaSuccess) {
    return rc;
  }
  if (gFailed[tDevice]) {
    return cudaErrorLaunchFailure;
  }
  memmove(dst, src, n);
  return cudaSuccess;
}

int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *st) {
  stream *s = (stream *)st;
  if (s == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  int rc = checkCopy(dst, src, n, kind, s->dev, 1);
  if (rc != cudaSuccess) {
    return rc;
  }
  op *o = calloc(1, sizeof(op));
  o->kind = opCopy;
  o->dst = dst;
  o->src = src;
  o->n = n;
  rc = push(s, o);
  if (rc == cudaSuccess) {
    unsigned long long cpus = threadCPUs();
    pthread_mutex_lock(&gMu);
    gAsyncCopies[kind]++;
    if (kind == kindH2D) {
      alloc *from = findAlloc(src, 1);
      gCopyCPUs[s->dev] = cpus;
      gCopySrcCPUs[s->dev] = from != NULL ? from->cpus : 0;
    }
    pthread_mutex_unlock(&gMu);
  }
  return rc;
}

/* fakecuda_copy_cpus reports, for dev's last host-to-device copy, the CPUs
 * of the thread that queued it and of the one that allocated its source. */
void fakecuda_copy_cpus(int dev, unsigned long long *thread, unsigned long long *source) {
  pthread_mutex_lock(&gMu);
  *thread = gCopyCPUs[dev];
  *source = gCopySrcCPUs[dev];
  pthread_mutex_unlock(&gMu);
}

/* fakecuda_async_copies counts the cudaMemcpyAsync calls of kind queued so
 * far (1 host to device, 2 device to host, 3 device to device). */
long long fakecuda_async_copies(int kind) {
  if (kind < 0 || kind > 4) {
    return -1;
  }
  pthread_mutex_lock(&gMu);
  long long n = gAsyncCopies[kind];
  pthread_mutex_unlock(&gMu);
  return n;
}

/* cudaMemcpyAttributes (CUDA 12.8 and later). */
struct fakeMemcpyAttributes {
  int srcAccessOrder;
  int srcLocType, srcLocId;
  int dstLocType, dstLocId;
  unsigned int flags;
};

/* cudaMemcpyBatchAsync for both signatures: with CUDA 13 the eighth
 * argument is the stream and the ninth is not passed. */
int cudaMemcpyBatchAsync(void **dsts, void **srcs, size_t *sizes, size_t count,
                         struct fakeMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                         void *arg8, void *arg9) {
  if (gVersion < 12080) {
    return cudaErrorInvalidValue; /* not in this "release" */
  }
  size_t *failIdx = gVersion >= 13000 ? NULL : (size_t *)arg8;
  stream *s = (stream *)(gVersion >= 13000 ? arg8 : arg9);
  if (s == NULL || count == 0 || numAttrs == 0 || attrsIdxs[0] != 0) {
    return cudaErrorInvalidValue;
  }
  for (size_t a = 0; a < numAttrs; a++) {
    if (attrs[a].srcAccessOrder < 1 || attrs[a].srcAccessOrder > 3) {
      return cudaErrorInvalidValue;
    }
  }
  for (size_t i = 0; i < count; i++) {
    int rc = checkCopy(dsts[i], srcs[i], sizes[i], kindDefault, s->dev, 1);
    if (rc != cudaSuccess) {
      if (failIdx != NULL) {
        *failIdx = i;
      }
      return rc;
    }
  }
  for (size_t i = 0; i < count; i++) {
    op *o = calloc(1, sizeof(op));
    o->kind = opCopy;
    o->dst = dsts[i];
    o->src = srcs[i];
    o->n = sizes[i];
    push(s, o);
  }
  pthread_mutex_lock(&gMu);
  gBatchCopies++;
  pthread_mutex_unlock(&gMu);
  return cudaSuccess;
}

int cudaStreamCreateWithFlags(void **out, unsigned int flags) {
  (void)flags;
  stream *s = calloc(1, sizeof(stream));
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  s->dev = tDevice;
  pthread_mutex_lock(&gMu);
  if (gNextStream >= MAX_STATS) {
    pthread_mutex_unlock(&gMu);
    free(s);
    return cudaErrorMemoryAllocation;
  }
  s->index = gNextStream++;
  gStatDev[s->index] = s->dev;
  gStreams++;
  s->nextLive = gLive;
  gLive = s;
  pthread_mutex_unlock(&gMu);
  pthread_create(&s->thread, NULL, worker, s);
  *out = s;
  return cudaSuccess;
}

int cudaStreamDestroy(void *st) {
  stream *s = (stream *)st;
  if (s == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  pthread_mutex_lock(&s->mu);
  int busy = s->head != NULL || s->cur != NULL;
  if (!busy) {
    s->stop = 1;
    pthread_cond_signal(&s->cv);
  }
  pthread_mutex_unlock(&s->mu);
  if (busy) {
    violation("cudaStreamDestroy of stream %d of device %d with work still queued", s->index, s->dev);
    return fakeErrorInUse;
  }
  pthread_join(s->thread, NULL);
  pthread_mutex_lock(&gMu);
  for (stream **pp = &gLive; *pp != NULL; pp = &(*pp)->nextLive) {
    if (*pp == s) {
      *pp = s->nextLive;
      break;
    }
  }
  gStreams--;
  pthread_mutex_unlock(&gMu);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv);
  free(s);
  return cudaSuccess;
}

/* cudaStreamQuery: not ready while work is queued or running; once idle,
 * the sticky error of a failed device. */
int cudaStreamQuery(void *st) {
  stream *s = (stream *)st;
  if (s == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  pthread_mutex_lock(&s->mu);
  if (s->capturing) {
    s->capBroken = 1;
    pthread_mutex_unlock(&s->mu);
    return cudaErrorStreamCaptureUnsupported;
  }
  int busy = s->head != NULL || s->cur != NULL;
  pthread_mutex_unlock(&s->mu);
  if (busy) {
    pthread_mutex_lock(&gMu);
    gBusyQueries++;
    pthread_mutex_unlock(&gMu);
    return cudaErrorNotReady;
  }
  return gFailed[s->dev] ? cudaErrorLaunchFailure : cudaSuccess;
}

int cudaEventCreateWithFlags(void **out, unsigned int flags) {
  (void)flags;
  event *e = calloc(1, sizeof(event));
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  pthread_mutex_lock(&gMu);
  gEvents++;
  pthread_mutex_unlock(&gMu);
  *out = e;
  return cudaSuccess;
}

int cudaEventDestroy(void *ev) {
  event *e = (event *)ev;
  if (e == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  pthread_mutex_lock(&e->mu);
  unsigned long long recorded = e->recorded, done = e->done;
  pthread_mutex_unlock(&e->mu);
  if (done < recorded) {
    violation("cudaEventDestroy of an event whose record %llu has not run yet (last run: %llu)", recorded, done);
    return fakeErrorInUse;
  }
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
  pthread_mutex_lock(&gMu);
  gEvents--;
  pthread_mutex_unlock(&gMu);
  return cudaSuccess;
}

int cudaEventRecord(void *ev, void *st) {
  event *e = (event *)ev;
  stream *s = (stream *)st;
  if (e == NULL || s == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  op *o = calloc(1, sizeof(op));
  o->kind = opEvent;
  o->ev = e;
  pthread_mutex_lock(&s->mu);
  int capturing = s->capturing;
  pthread_mutex_unlock(&s->mu);
  if (!capturing) {
    /* A captured record is numbered when its graph is launched. */
    pthread_mutex_lock(&e->mu);
    o->seq = ++e->recorded;
    pthread_mutex_unlock(&e->mu);
  }
  return push(s, o);
}

/* cudaStreamWaitEvent: work queued on st after this waits for the event's
 * last record (none: no wait). */
int cudaStreamWaitEvent(void *st, void *ev, unsigned int flags) {
  stream *s = (stream *)st;
  event *e = (event *)ev;
  if (s == NULL || e == NULL || flags != 0) {
    return cudaErrorInvalidValue;
  }
  pthread_mutex_lock(&s->mu);
  int capturing = s->capturing;
  if (capturing) {
    s->capBroken = 1;
  }
  pthread_mutex_unlock(&s->mu);
  if (capturing) {
    /* Waiting on work recorded outside the capture is not allowed. */
    return cudaErrorStreamCaptureIsolation;
  }
  op *o = calloc(1, sizeof(op));
  o->kind = opWait;
  o->ev = e;
  pthread_mutex_lock(&e->mu);
  o->seq = e->recorded;
  pthread_mutex_unlock(&e->mu);
  return push(s, o);
}

int cudaEventSynchronize(void *ev) {
  event *e = (event *)ev;
  if (e == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  if (captureForbids()) {
    return cudaErrorStreamCaptureUnsupported;
  }
  pthread_mutex_lock(&e->mu);
  unsigned long long want = e->recorded;
  while (e->done < want) {
    pthread_cond_wait(&e->cv, &e->mu);
  }
  int rc = e->err;
  pthread_mutex_unlock(&e->mu);
  return rc;
}

int cudaEventQuery(void *ev) {
  event *e = (event *)ev;
  if (e == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  pthread_mutex_lock(&e->mu);
  int rc = e->err != 0 ? e->err : (e->done < e->recorded ? cudaErrorNotReady : cudaSuccess);
  pthread_mutex_unlock(&e->mu);
  return rc;
}

int cudaStreamSynchronize(void *st) {
  if (captureForbids()) {
    return cudaErrorStreamCaptureUnsupported;
  }
  void *ev;
  cudaEventCreateWithFlags(&ev, 0);
  int rc = cudaEventRecord(ev, st);
  if (rc == cudaSuccess) {
    rc = cudaEventSynchronize(ev);
  }
  cudaEventDestroy(ev);
  return rc;
}

/* cudaPointerAttributes as in CUDA 11 and later: type, device,
 * devicePointer, hostPointer. */
struct fakePointerAttributes {
  int type;
  int device;
  void *devicePointer;
  void *hostPointer;
};

int cudaPointerGetAttributes(struct fakePointerAttributes *attr, const void *p) {
  pthread_mutex_lock(&gMu);
  alloc *a = findAlloc(p, 1);
  memset(attr, 0, sizeof(*attr));
  if (a == NULL) {
    attr->type = 0; /* cudaMemoryTypeUnregistered */
  } else if (a->kind == allocDevice) {
    attr->type = 2; /* cudaMemoryTypeDevice */
    attr->device = a->dev;
    attr->devicePointer = (void *)p;
  } else {
    attr->type = 1; /* cudaMemoryTypeHost */
    attr->device = a->dev;
    attr->hostPointer = (void *)p;
  }
  pthread_mutex_unlock(&gMu);
  return cudaSuccess;
}

/* ---- CUDA graphs ---- */

/* A graph (and its executable form) is the list of operations a capture
 * recorded, on the capturing stream's device. */
typedef struct graph {
  int dev;
  op *ops;
} graph;

static int gGraphs, gGraphExecs;
static long long gGraphLaunches;

/* cloneOps copies an operation list. */
static op *cloneOps(const op *from) {
  op *head = NULL, **tail = &head;
  for (; from != NULL; from = from->next) {
    op *o = malloc(sizeof(op));
    *o = *from;
    o->next = NULL;
    *tail = o;
    tail = &o->next;
  }
  return head;
}

static void freeOps(op *o) {
  while (o != NULL) {
    op *next = o->next;
    free(o);
    o = next;
  }
}

int cudaStreamBeginCapture(void *st, int mode) {
  stream *s = (stream *)st;
  if (s == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  if (mode != 1 || tCapture != NULL) {
    return cudaErrorInvalidValue; /* the fake knows thread-local capture, one at a time */
  }
  pthread_mutex_lock(&s->mu);
  if (s->capturing) {
    pthread_mutex_unlock(&s->mu);
    return cudaErrorInvalidValue;
  }
  s->capturing = 1;
  s->capBroken = 0;
  s->capThread = pthread_self();
  s->capHead = s->capTail = NULL;
  pthread_mutex_unlock(&s->mu);
  tCapture = s;
  return cudaSuccess;
}

int cudaStreamEndCapture(void *st, void **out) {
  stream *s = (stream *)st;
  *out = NULL;
  if (s == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  pthread_mutex_lock(&s->mu);
  if (!s->capturing) {
    pthread_mutex_unlock(&s->mu);
    return cudaErrorInvalidValue;
  }
  if (!pthread_equal(s->capThread, pthread_self())) {
    pthread_mutex_unlock(&s->mu);
    return cudaErrorStreamCaptureWrongThread;
  }
  op *ops = s->capHead;
  int broken = s->capBroken;
  s->capturing = 0;
  s->capHead = s->capTail = NULL;
  pthread_mutex_unlock(&s->mu);
  tCapture = NULL;
  if (broken) {
    freeOps(ops);
    return cudaErrorStreamCaptureInvalidated;
  }
  graph *g = calloc(1, sizeof(graph));
  g->dev = s->dev;
  g->ops = ops;
  pthread_mutex_lock(&gMu);
  gGraphs++;
  pthread_mutex_unlock(&gMu);
  *out = g;
  return cudaSuccess;
}

int cudaGraphInstantiateWithFlags(void **out, void *gr, unsigned long long flags) {
  graph *g = (graph *)gr;
  if (g == NULL || flags != 0) {
    return cudaErrorInvalidValue;
  }
  graph *x = calloc(1, sizeof(graph));
  x->dev = g->dev;
  x->ops = cloneOps(g->ops);
  pthread_mutex_lock(&gMu);
  gGraphExecs++;
  pthread_mutex_unlock(&gMu);
  *out = x;
  return cudaSuccess;
}

/* cudaGraphLaunch queues the graph's operations on st. A graph belongs to
 * its device; a copy of memory freed since the capture would be a use
 * after free on a GPU: the fake refuses the launch. */
int cudaGraphLaunch(void *gx, void *st) {
  graph *x = (graph *)gx;
  stream *s = (stream *)st;
  if (x == NULL || s == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  if (s->dev != x->dev) {
    return cudaErrorInvalidDevice;
  }
  for (const op *o = x->ops; o != NULL; o = o->next) {
    if (o->kind != opCopy) {
      continue;
    }
    pthread_mutex_lock(&gMu);
    int live = findAlloc(o->dst, o->n) != NULL && findAlloc(o->src, o->n) != NULL;
    pthread_mutex_unlock(&gMu);
    if (!live) {
      violation("cudaGraphLaunch replays a copy of %zu bytes from %p to %p, memory freed since the capture", o->n,
                o->src, o->dst);
      return fakeErrorInUse;
    }
  }
  for (op *o = cloneOps(x->ops), *next; o != NULL; o = next) {
    next = o->next;
    if (o->kind == opEvent) {
      pthread_mutex_lock(&o->ev->mu);
      o->seq = ++o->ev->recorded;
      pthread_mutex_unlock(&o->ev->mu);
    }
    push(s, o);
  }
  pthread_mutex_lock(&gMu);
  gGraphLaunches++;
  pthread_mutex_unlock(&gMu);
  return cudaSuccess;
}

int cudaGraphExecDestroy(void *gx) {
  graph *x = (graph *)gx;
  if (x == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  freeOps(x->ops);
  free(x);
  pthread_mutex_lock(&gMu);
  gGraphExecs--;
  pthread_mutex_unlock(&gMu);
  return cudaSuccess;
}

int cudaGraphDestroy(void *gr) {
  graph *g = (graph *)gr;
  if (g == NULL) {
    return cudaErrorInvalidResourceHandle;
  }
  freeOps(g->ops);
  free(g);
  pthread_mutex_lock(&gMu);
  gGraphs--;
  pthread_mutex_unlock(&gMu);
  return cudaSuccess;
}

/* ---- CUDA driver API: modules and kernel launches ---- */

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
};

#define MAX_ENTRIES 8

/* A module is the entry points of the PTX it was loaded from, on the
 * device current when it was loaded. */
typedef struct module {
  int dev;
  int n;
  char entries[MAX_ENTRIES][64];
} module;

typedef struct function {
  module *m;
  char name[64];
  struct function *next;
} function;

static int gModules;
static long long gKernelLaunches;

int cuInit(unsigned int flags) { return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }

int cuGetErrorString(int code, const char **str) {
  switch (code) {
  case CUDA_SUCCESS:
    *str = "no error";
    break;
  case CUDA_ERROR_INVALID_VALUE:
    *str = "invalid argument";
    break;
  case CUDA_ERROR_INVALID_CONTEXT:
    *str = "invalid device context";
    break;
  case CUDA_ERROR_INVALID_PTX:
    *str = "a PTX JIT compilation failed";
    break;
  case CUDA_ERROR_INVALID_HANDLE:
    *str = "invalid resource handle";
    break;
  case CUDA_ERROR_NOT_FOUND:
    *str = "named symbol not found";
    break;
  default:
    *str = "unknown error";
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* cuModuleLoadData takes PTX text, as the JIT compiler would: it must
 * declare its version, target and address size, and its entry points
 * are what cuModuleGetFunction finds. */
int cuModuleLoadData(void **out, const void *image) {
  const char *ptx = (const char *)image;
  if (!tHasContext) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (ptx == NULL || strstr(ptx, ".version ") == NULL || strstr(ptx, ".target ") == NULL ||
      strstr(ptx, ".address_size 64") == NULL) {
    return CUDA_ERROR_INVALID_PTX;
  }
  module *m = calloc(1, sizeof(module));
  m->dev = tDevice;
  for (const char *p = strstr(ptx, ".entry "); p != NULL && m->n < MAX_ENTRIES; p = strstr(p + 1, ".entry ")) {
    p += strlen(".entry ");
    size_t len = strcspn(p, "( \n");
    if (len == 0 || len >= sizeof m->entries[0]) {
      free(m);
      return CUDA_ERROR_INVALID_PTX;
    }
    memcpy(m->entries[m->n++], p, len);
  }
  if (m->n == 0) {
    free(m);
    return CUDA_ERROR_INVALID_PTX;
  }
  pthread_mutex_lock(&gMu);
  gModules++;
  pthread_mutex_unlock(&gMu);
  *out = m;
  return CUDA_SUCCESS;
}

static function *gFunctions;

int cuModuleGetFunction(void **out, void *mod, const char *name) {
  module *m = (module *)mod;
  if (m == NULL) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  for (int i = 0; i < m->n; i++) {
    if (strcmp(m->entries[i], name) == 0) {
      function *f = calloc(1, sizeof(function));
      f->m = m;
      snprintf(f->name, sizeof f->name, "%s", name);
      pthread_mutex_lock(&gMu);
      f->next = gFunctions;
      gFunctions = f;
      pthread_mutex_unlock(&gMu);
      *out = f;
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

int cuModuleUnload(void *mod) {
  module *m = (module *)mod;
  if (m == NULL) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  pthread_mutex_lock(&gMu);
  for (function **pp = &gFunctions; *pp != NULL;) {
    if ((*pp)->m == m) {
      function *f = *pp;
      *pp = f->next;
      free(f);
    } else {
      pp = &(*pp)->next;
    }
  }
  gModules--;
  pthread_mutex_unlock(&gMu);
  free(m);
  return CUDA_SUCCESS;
}

/* cuLaunchKernel knows one kernel, mlph_gather(dst, table, rowBytes): one
 * block per row. Its addresses are checked when it runs, as a GPU would
 * (see runGather). */
int cuLaunchKernel(void *fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                   unsigned int bz, unsigned int shmem, void *st, void **params, void **extra) {
  function *f = (function *)fn;
  stream *s = (stream *)st;
  if (f == NULL || s == NULL) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (gx == 0 || gy != 1 || gz != 1 || bx == 0 || bx * by * bz > 1024 || shmem > 48 * 1024 || extra != NULL ||
      params == NULL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (s->dev != f->m->dev) {
    return CUDA_ERROR_INVALID_HANDLE; /* the module is loaded in another device's context */
  }
  if (strcmp(f->name, "mlph_gather") != 0) {
    return CUDA_ERROR_NOT_FOUND;
  }
  op *o = calloc(1, sizeof(op));
  o->kind = opGather;
  o->dst = (void *)(uintptr_t)(*(uint64_t *)params[0]);
  o->table = (const uint64_t *)(uintptr_t)(*(uint64_t *)params[1]);
  o->n = (size_t)(*(uint64_t *)params[2]);
  o->count = gx;
  int rc = push(s, o);
  if (rc == cudaSuccess) {
    pthread_mutex_lock(&gMu);
    gKernelLaunches++;
    pthread_mutex_unlock(&gMu);
  }
  return rc == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* ---- fake-only entry points ---- */

/* fakecuda_graphs reports the live graphs and executable graphs, and how
 * many graph launches and kernel launches were queued. */
void fakecuda_graphs(int *graphs, int *execs, long long *launches, long long *kernels) {
  pthread_mutex_lock(&gMu);
  *graphs = gGraphs;
  *execs = gGraphExecs;
  *launches = gGraphLaunches;
  *kernels = gKernelLaunches;
  pthread_mutex_unlock(&gMu);
}

/* fakecuda_modules reports the modules loaded and not unloaded. */
int fakecuda_modules(void) {
  pthread_mutex_lock(&gMu);
  int n = gModules;
  pthread_mutex_unlock(&gMu);
  return n;
}

/* fakecuda_sleep_async enqueues ns of busy time on a stream: the fake
 * TensorRT shim uses it as the kernel's run time. */
int fakecuda_sleep_async(void *st, long long ns) {
  op *o = calloc(1, sizeof(op));
  o->kind = opSleep;
  o->ns = ns;
  return push((stream *)st, o);
}

/* fakecuda_alloc_extent reports how many bytes of its allocation follow p
 * and on which device it lives (-1 when p is not device memory). */
long long fakecuda_alloc_extent(const void *p, int *dev) {
  pthread_mutex_lock(&gMu);
  alloc *a = findAlloc(p, 1);
  long long n = -1;
  *dev = -1;
  if (a != NULL && a->kind == allocDevice) {
    n = (long long)(a->base + a->size - (const char *)p);
    *dev = a->dev;
  }
  pthread_mutex_unlock(&gMu);
  return n;
}

void fakecuda_configure(int devices, long long memoryPerDevice) {
  pthread_mutex_lock(&gMu);
  gDevices = devices;
  gMemory = (size_t)memoryPerDevice;
  pthread_mutex_unlock(&gMu);
}

/* fakecuda_fail_device makes every later operation on dev fail the way a
 * GPU that hit an unrecoverable error does: sticky launch failures. */
void fakecuda_fail_device(int dev) {
  if (dev >= 0 && dev < MAX_DEV) {
    gFailed[dev] = 1;
  }
}

void fakecuda_live(int *allocs, int *streams, int *events) {
  pthread_mutex_lock(&gMu);
  int n = 0;
  for (alloc *a = gAllocs; a != NULL; a = a->next) {
    n++;
  }
  *allocs = n;
  *streams = gStreams;
  *events = gEvents;
  pthread_mutex_unlock(&gMu);
}

int fakecuda_stream_count(void) {
  pthread_mutex_lock(&gMu);
  int n = gNextStream;
  pthread_mutex_unlock(&gMu);
  return n;
}

int fakecuda_stream_stats(int index, int *dev, unsigned long long *busyNs,
                          unsigned long long *ops) {
  pthread_mutex_lock(&gMu);
  if (index < 0 || index >= gNextStream) {
    pthread_mutex_unlock(&gMu);
    return -1;
  }
  *dev = gStatDev[index];
  *busyNs = gStatBusy[index];
  *ops = gStatOps[index];
  pthread_mutex_unlock(&gMu);
  return 0;
}

void fakecuda_set_version(int v) { gVersion = v; }

/* fakecuda_serialize makes each device run one kernel at a time (1) or
 * every stream its own at once (0, the default). */
void fakecuda_serialize(int on) { gSerial = on; }

long long fakecuda_batch_copies(void) {
  pthread_mutex_lock(&gMu);
  long long n = gBatchCopies;
  pthread_mutex_unlock(&gMu);
  return n;
}

/* fakecuda_busy_queries counts cudaStreamQuery calls that answered "not
 * ready". */
long long fakecuda_busy_queries(void) {
  pthread_mutex_lock(&gMu);
  long long n = gBusyQueries;
  pthread_mutex_unlock(&gMu);
  return n;
}
