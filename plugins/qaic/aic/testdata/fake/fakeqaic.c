/*
 * fakeqaic.c: a fake of the Qualcomm Cloud AI 100 runtime C API (libQAic.so)
 * as far as the qaic plugin uses it: contexts, queues, QPCs, programs with
 * load/activate, exec objects with heap buffers, asynchronous enqueue and
 * wait, and resource queries for device discovery.
 *
 * A "QPC" is a text file:
 *
 *   fakeqpc 1
 *   batch 4
 *   cores 4
 *   input  x 16
 *   output y 16
 *
 * giving the compiled batch size, the NSP cores one activation takes and,
 * per buffer, its bytes for one batch row. Running an exec object writes
 * row b of output k := row b of input (k mod #inputs), repeated or cut to
 * the output's row size, after a configurable run time. Each queue has
 * worker threads that run exec objects in order of submission.
 *
 * The fake rejects what the runtime would: exec objects of programs that
 * are not loaded and activated, queues of another device, buffer arrays
 * of the wrong length or size, and activations beyond a device's cores.
 * fakeqaic_* entry points configure devices, inject failures and report
 * statistics.
 *
 * It also refuses to tear down what a submitted exec object still uses:
 * releasing the exec object, deactivating, unloading or releasing its
 * program, or releasing a queue with exec objects waiting. On hardware the
 * device would still read and write the exec object's buffers; here the
 * worker thread would. Such a call does nothing, returns QS_BUSY and is
 * recorded: fake_violations (fakedevice.h) reports the first one.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_NAME "fakeqaic"
/* QIDs index the per-device tables: cards are QIDs 0 to 99, derived
 * devices (partitions of a card) QIDs from 100, as the runtime numbers
 * them. */
#define FAKE_MAX_DEV 128
#define QID_DERIVED_BASE 100
#include "fakedevice.h"

typedef enum {
  QS_SUCCESS = 0,
  QS_AGAIN = 2,
  QS_NOMEM = 3,
  QS_BUSY = 4,
  QS_NODEV = 5,
  QS_INVAL = 6,
  QS_NOSPC = 7,
  QS_TIMEDOUT = 9,
  QS_DEV_ERROR = 300,
  QS_ERROR = 500,
} QStatus;

typedef int32_t QID;

typedef struct {
  size_t size;
  uint8_t *data;
} QData;

typedef struct {
  size_t size;
  uint8_t *buf;
  uint64_t handle;
  uint32_t offset;
  uint32_t type;
} QBuffer;

typedef struct {
  char *bufferName;
  uint32_t index;
  uint32_t ioType; /* 1 input, 2 output */
  uint32_t size;
  bool isPartialBufferAllowed;
  uint32_t dataType;
} QAicBufferMappings;

typedef struct {
  uint32_t numBufferMappings;
  QAicBufferMappings *bufferMappings;
} QAicIoBufferInfo;

typedef struct {
  int32_t reservationId;
  uint64_t dramTotal, dramFree;
  uint8_t vcTotal, vcFree, nspTotal, nspFree;
  uint32_t mcidTotal, mcidFree, semTotal, semFree;
  uint8_t pcTotal, pcReserved;
  uint8_t padding[6];
} QResourceInfo;

typedef struct {
  uint32_t properties;
  uint32_t numThreadsPerQueue;
} QAicQueueProperties;

#define MAX_DEV FAKE_MAX_DEV
#define MAX_BUF 16
#define MAX_STATS 256

static pthread_mutex_t gMu = PTHREAD_MUTEX_INITIALIZER;
static int gDevices = 2, gNsp = 16;
/* gDerived derived devices answer as QIDs 100 and up. */
static int gDerived;
/* gStatus is each device's QDevStatus: 0 initializing, 1 ready, 2 error;
 * gStatusSet marks the ones a test set (the others are ready). */
static int gStatus[FAKE_MAX_DEV], gStatusSet[FAKE_MAX_DEV];
static int gNspUsed[MAX_DEV];
static volatile int gFailed[MAX_DEV];
static long long gDelayBase, gDelayPerRow, gEnqueues, gFailAt, gRuns;
static long long gDevDelay[MAX_DEV];
/* Per device, the CPUs of the queue thread of its last run and of the
 * thread of its last qaicEnqueueExecObj. */
static unsigned long long gRunCPUs[MAX_DEV], gEnqueueCPUs[MAX_DEV];
static int gContexts, gQueues, gQpcs, gPrograms, gExecs;
/* Busy time of every activation (program) ever created, by creation
 * index, and of every device (time at least one of its programs ran). */
static int gNextProgram, gStatDev[MAX_STATS];
static long long gStatBusy[MAX_STATS], gStatRuns[MAX_STATS];
/* Threads blocked in qaicExecObjWaitForCompletion now. */
static int gWaiting;

typedef struct {
  int n;
  uint32_t batch, cores;
  char names[MAX_BUF][64];
  uint32_t rowBytes[MAX_BUF];
  uint32_t ioType[MAX_BUF];
} qpcDesc;

typedef struct QAicQpcObj {
  qpcDesc d;
} QAicQpcObj;

typedef struct QAicContext {
  int ndev;
  QID devs[MAX_DEV];
} QAicContext;

struct QAicExecObj;

typedef struct QAicQueue {
  QAicContext *ctx;
  QID dev;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct QAicExecObj *head, *tail;
  int stop, nthreads;
  pthread_t threads[8];
} QAicQueue;

typedef struct QAicProgram {
  /* runMu serializes execution: an activation runs one exec object at a
   * time on its cores; more exec objects only queue behind it. */
  pthread_mutex_t runMu;
  QAicContext *ctx;
  QID dev;
  qpcDesc d;
  int loaded, active, index;
  /* pending counts exec objects of this program submitted and not yet
   * run to completion, under gMu. */
  int pending;
  QAicIoBufferInfo info;
  QAicBufferMappings maps[MAX_BUF];
  char iodesc[32];
} QAicProgram;

typedef struct QAicExecObj {
  QAicProgram *prog;
  QBuffer bufs[MAX_BUF];
  int nbufs;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned long long submitted, done;
  int status;
  /* event is the event of the submission in flight, if it has one. */
  struct QAicEvent *event;
  struct QAicExecObj *next;
} QAicExecObj;

/* QAIC_EVENT_DEVICE_COMPLETE as the fake defines it; QAicApi.h is not
 * public, so this is the plugin's default event_type, not a verified
 * value. */
#define FAKE_EVENT_DEVICE_COMPLETE 0

/* An event: the callback to call, with its user data, when a submission
 * made with the event completes. */
typedef struct QAicEvent {
  pthread_mutex_t mu;
  void (*cb)(struct QAicEvent *, int, void *);
  void *user;
  int signaled, users;
} QAicEvent;

static int gEvents;

/* ---- execution ---- */

static void tile(uint8_t *dst, const uint8_t *src, uint32_t n, uint32_t m) {
  for (uint32_t off = 0; off < n; off += m) {
    memcpy(dst + off, src, n - off < m ? n - off : m);
  }
}

static void run(QAicExecObj *e, QID dev) {
  QAicProgram *p = e->prog;
  kernelWait();
  pthread_mutex_lock(&p->runMu);
  long long t0 = kernelStart(dev);
  pthread_mutex_lock(&gMu);
  long long delay = gDelayBase + gDelayPerRow * p->d.batch + gDevDelay[dev];
  gRunCPUs[dev] = threadCPUs();
  pthread_mutex_unlock(&gMu);

  int status = QS_SUCCESS;
  if (gFailed[dev]) {
    status = QS_DEV_ERROR;
  } else {
    if (delay > 0) {
      struct timespec ts = {delay / 1000000000LL, delay % 1000000000LL};
      while (nanosleep(&ts, &ts) != 0) {
      }
    }
    int ins[MAX_BUF], nin = 0, out = 0;
    for (int i = 0; i < p->d.n; i++) {
      if (p->d.ioType[i] == 1) {
        ins[nin++] = i;
      }
    }
    for (int i = 0; i < p->d.n; i++) {
      if (p->d.ioType[i] != 2) {
        continue;
      }
      int src = ins[out++ % nin];
      for (uint32_t b = 0; b < p->d.batch; b++) {
        tile(e->bufs[i].buf + b * p->d.rowBytes[i], e->bufs[src].buf + b * p->d.rowBytes[src],
             p->d.rowBytes[i], p->d.rowBytes[src]);
      }
    }
  }

  long long t1 = kernelEnd(dev);
  pthread_mutex_lock(&gMu);
  gStatBusy[p->index] += t1 - t0;
  gStatRuns[p->index]++;
  gRuns++;
  p->pending--;
  pthread_mutex_unlock(&gMu);
  pthread_mutex_unlock(&p->runMu);

  pthread_mutex_lock(&e->mu);
  e->status = status;
  e->done++;
  QAicEvent *ev = e->event;
  e->event = NULL;
  pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
  if (ev != NULL) {
    /* The runtime calls back on its own thread once the exec object is
     * complete: the callback may enqueue it again at once. */
    pthread_mutex_lock(&ev->mu);
    ev->signaled = 1;
    void (*cb)(QAicEvent *, int, void *) = ev->cb;
    void *user = ev->user;
    ev->users--;
    pthread_mutex_unlock(&ev->mu);
    if (cb != NULL) {
      cb(ev, FAKE_EVENT_DEVICE_COMPLETE, user);
    }
  }
}

static void *queueWorker(void *arg) {
  QAicQueue *q = (QAicQueue *)arg;
  pthread_mutex_lock(&q->mu);
  for (;;) {
    while (q->head == NULL && !q->stop) {
      pthread_cond_wait(&q->cv, &q->mu);
    }
    if (q->head == NULL) {
      break;
    }
    QAicExecObj *e = q->head;
    q->head = e->next;
    if (q->head == NULL) {
      q->tail = NULL;
    }
    pthread_mutex_unlock(&q->mu);
    run(e, q->dev);
    pthread_mutex_lock(&q->mu);
  }
  pthread_mutex_unlock(&q->mu);
  return NULL;
}

/* ---- runtime API ---- */

QStatus qaicGetAicVersion(uint16_t *major, uint16_t *minor, const char **patch, const char **variant) {
  *major = 1;
  *minor = 20;
  *patch = "2.0";
  *variant = "fake";
  return QS_SUCCESS;
}

/* validQID reports whether a device answers as dev. */
static int validQID(QID dev) {
  return (dev >= 0 && dev < gDevices) || (dev >= QID_DERIVED_BASE && dev < QID_DERIVED_BASE + gDerived);
}

QStatus qaicGetResourceInfo(QID dev, QResourceInfo *info) {
  if (!validQID(dev)) {
    return QS_NODEV;
  }
  memset(info, 0, sizeof(*info));
  info->reservationId = -1;
  info->dramTotal = 16384;
  info->dramFree = 16000;
  pthread_mutex_lock(&gMu);
  info->nspTotal = (uint8_t)gNsp;
  info->nspFree = (uint8_t)(gNsp - gNspUsed[dev]);
  pthread_mutex_unlock(&gMu);
  return QS_SUCCESS;
}

/* QDevInfo begins with the QDevStatus; the fake writes that, the QID and
 * zeroes the rest of its 16 KiB bound (the real struct is smaller). */
QStatus qaicGetDeviceInfo(QID dev, void *info) {
  if (info == NULL) {
    return QS_INVAL;
  }
  if (!validQID(dev)) {
    return QS_NODEV;
  }
  memset(info, 0, 1024);
  pthread_mutex_lock(&gMu);
  *(int32_t *)info = gStatusSet[dev] ? gStatus[dev] : 1;
  pthread_mutex_unlock(&gMu);
  return QS_SUCCESS;
}

QStatus qaicCreateContext(QAicContext **out, void *props, uint32_t numDevices, const QID *devices,
                          void *logCb, void *logData, void *errCb, void *errData) {
  (void)props;
  (void)logCb;
  (void)logData;
  (void)errCb;
  (void)errData;
  if (out == NULL || numDevices == 0 || numDevices > MAX_DEV || devices == NULL) {
    return QS_INVAL;
  }
  for (uint32_t i = 0; i < numDevices; i++) {
    if (!validQID(devices[i])) {
      return QS_NODEV;
    }
  }
  QAicContext *c = calloc(1, sizeof(QAicContext));
  c->ndev = (int)numDevices;
  memcpy(c->devs, devices, sizeof(QID) * numDevices);
  pthread_mutex_lock(&gMu);
  gContexts++;
  pthread_mutex_unlock(&gMu);
  *out = c;
  return QS_SUCCESS;
}

QStatus qaicReleaseContext(QAicContext *c) {
  if (c == NULL) {
    return QS_INVAL;
  }
  free(c);
  pthread_mutex_lock(&gMu);
  gContexts--;
  pthread_mutex_unlock(&gMu);
  return QS_SUCCESS;
}

static int inContext(QAicContext *c, QID dev) {
  for (int i = 0; i < c->ndev; i++) {
    if (c->devs[i] == dev) {
      return 1;
    }
  }
  return 0;
}

QStatus qaicCreateQueue(QAicContext *c, QAicQueue **out, const QAicQueueProperties *props, QID dev) {
  if (c == NULL || out == NULL || !inContext(c, dev)) {
    return QS_INVAL;
  }
  QAicQueue *q = calloc(1, sizeof(QAicQueue));
  q->ctx = c;
  q->dev = dev;
  q->nthreads = props != NULL && props->numThreadsPerQueue > 0 ? (int)props->numThreadsPerQueue : 4;
  if (q->nthreads > 8) {
    q->nthreads = 8;
  }
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->cv, NULL);
  for (int i = 0; i < q->nthreads; i++) {
    pthread_create(&q->threads[i], NULL, queueWorker, q);
  }
  pthread_mutex_lock(&gMu);
  gQueues++;
  pthread_mutex_unlock(&gMu);
  *out = q;
  return QS_SUCCESS;
}

QStatus qaicReleaseQueue(QAicQueue *q) {
  if (q == NULL) {
    return QS_INVAL;
  }
  pthread_mutex_lock(&q->mu);
  int waiting = q->head != NULL;
  if (!waiting) {
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
  }
  pthread_mutex_unlock(&q->mu);
  if (waiting) {
    violation("qaicReleaseQueue of the queue of device %d with exec objects still waiting in it", q->dev);
    return QS_BUSY;
  }
  for (int i = 0; i < q->nthreads; i++) {
    pthread_join(q->threads[i], NULL);
  }
  free(q);
  pthread_mutex_lock(&gMu);
  gQueues--;
  pthread_mutex_unlock(&gMu);
  return QS_SUCCESS;
}

static QStatus parseQpc(qpcDesc *d, const char *text, size_t size) {
  char *s = malloc(size + 1);
  memcpy(s, text, size);
  s[size] = 0;
  QStatus rc = QS_SUCCESS;
  int header = 0;
  d->batch = 1;
  char *save = NULL;
  for (char *line = strtok_r(s, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
    char kind[16], name[64];
    unsigned v;
    if (!header) {
      header = strcmp(line, "fakeqpc 1") == 0;
      if (!header) {
        rc = QS_INVAL;
        break;
      }
      continue;
    }
    if (sscanf(line, "batch %u", &v) == 1) {
      d->batch = v;
    } else if (sscanf(line, "cores %u", &v) == 1) {
      d->cores = v;
    } else if (sscanf(line, "%15s %63s %u", kind, name, &v) == 3 && d->n < MAX_BUF) {
      snprintf(d->names[d->n], 64, "%s", name);
      d->rowBytes[d->n] = v;
      d->ioType[d->n] = strcmp(kind, "input") == 0 ? 1 : strcmp(kind, "output") == 0 ? 2 : 0;
      if (d->ioType[d->n] == 0 || v == 0) {
        rc = QS_INVAL;
        break;
      }
      d->n++;
    } else {
      rc = QS_INVAL;
      break;
    }
  }
  free(s);
  if (rc == QS_SUCCESS && (!header || d->n == 0 || d->batch == 0)) {
    rc = QS_INVAL;
  }
  return rc;
}

QStatus qaicOpenQpc(QAicQpcObj **out, const uint8_t *buf, size_t size, bool copy) {
  (void)copy;
  if (out == NULL || buf == NULL) {
    return QS_INVAL;
  }
  QAicQpcObj *q = calloc(1, sizeof(QAicQpcObj));
  QStatus rc = parseQpc(&q->d, (const char *)buf, size);
  if (rc != QS_SUCCESS) {
    free(q);
    return rc;
  }
  pthread_mutex_lock(&gMu);
  gQpcs++;
  pthread_mutex_unlock(&gMu);
  *out = q;
  return QS_SUCCESS;
}

QStatus qaicOpenQpcFile(QAicQpcObj **out, const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    return QS_INVAL;
  }
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return qaicOpenQpc(out, (const uint8_t *)buf, n, true);
}

QStatus qaicCloseQpc(QAicQpcObj *q) {
  if (q == NULL) {
    return QS_INVAL;
  }
  free(q);
  pthread_mutex_lock(&gMu);
  gQpcs--;
  pthread_mutex_unlock(&gMu);
  return QS_SUCCESS;
}

/* The program properties are opaque to the plugin; the fake writes a
 * recognisable default. */
QStatus qaicProgramPropertiesInitDefault(uint32_t *props) {
  if (props == NULL) {
    return QS_INVAL;
  }
  props[0] = 0;
  props[1] = 5;
  props[2] = 0;
  return QS_SUCCESS;
}

QStatus qaicCreateProgram(QAicContext *c, QAicProgram **out, const uint32_t *props, QID dev,
                          const char *name, const QAicQpcObj *qpc) {
  (void)name;
  if (c == NULL || out == NULL || qpc == NULL || !inContext(c, dev) || (props != NULL && props[1] != 5)) {
    return QS_INVAL;
  }
  QAicProgram *p = calloc(1, sizeof(QAicProgram));
  pthread_mutex_init(&p->runMu, NULL);
  p->ctx = c;
  p->dev = dev;
  p->d = qpc->d;
  for (int i = 0; i < p->d.n; i++) {
    p->maps[i].bufferName = p->d.names[i];
    p->maps[i].index = (uint32_t)i;
    p->maps[i].ioType = p->d.ioType[i];
    p->maps[i].size = p->d.rowBytes[i] * p->d.batch;
    p->maps[i].dataType = 0;
  }
  p->info.numBufferMappings = (uint32_t)p->d.n;
  p->info.bufferMappings = p->maps;
  snprintf(p->iodesc, sizeof p->iodesc, "iodesc:%d", p->d.n);
  pthread_mutex_lock(&gMu);
  if (gNextProgram >= MAX_STATS) {
    pthread_mutex_unlock(&gMu);
    free(p);
    return QS_NOMEM;
  }
  p->index = gNextProgram++;
  gStatDev[p->index] = dev;
  gPrograms++;
  pthread_mutex_unlock(&gMu);
  *out = p;
  return QS_SUCCESS;
}

QStatus qaicLoadProgram(QAicProgram *p) {
  if (p == NULL) {
    return QS_INVAL;
  }
  if (gFailed[p->dev]) {
    return QS_DEV_ERROR;
  }
  p->loaded = 1;
  return QS_SUCCESS;
}

QStatus qaicRunActivationCmd(QAicProgram *p, uint32_t cmd) {
  if (p == NULL || !p->loaded) {
    return QS_INVAL;
  }
  pthread_mutex_lock(&gMu);
  QStatus rc = QS_SUCCESS;
  if (cmd == 0 && !p->active) {
    if (gNspUsed[p->dev] + (int)p->d.cores > gNsp) {
      rc = QS_NOSPC;
    } else {
      gNspUsed[p->dev] += (int)p->d.cores;
      p->active = 1;
    }
  } else if (cmd == 1 && p->active && p->pending > 0) {
    rc = QS_BUSY;
  } else if (cmd == 1 && p->active) {
    gNspUsed[p->dev] -= (int)p->d.cores;
    p->active = 0;
  } else if (cmd > 1) {
    rc = QS_INVAL;
  }
  int pending = p->pending;
  pthread_mutex_unlock(&gMu);
  if (rc == QS_BUSY) {
    violation("qaicRunActivationCmd deactivates program %d with %d exec objects still submitted", p->index, pending);
  }
  return rc;
}

/* busyProgram refuses op on p while exec objects of p are submitted. */
static int busyProgram(QAicProgram *p, const char *op) {
  pthread_mutex_lock(&gMu);
  int pending = p->pending;
  pthread_mutex_unlock(&gMu);
  if (pending > 0) {
    violation("%s of program %d with %d exec objects still submitted", op, p->index, pending);
  }
  return pending > 0;
}

QStatus qaicUnloadProgram(QAicProgram *p) {
  if (p == NULL || p->active) {
    return QS_INVAL;
  }
  if (busyProgram(p, "qaicUnloadProgram")) {
    return QS_BUSY;
  }
  p->loaded = 0;
  return QS_SUCCESS;
}

QStatus qaicReleaseProgram(QAicProgram *p) {
  if (p == NULL || p->active) {
    return QS_INVAL;
  }
  if (busyProgram(p, "qaicReleaseProgram")) {
    return QS_BUSY;
  }
  pthread_mutex_destroy(&p->runMu);
  free(p);
  pthread_mutex_lock(&gMu);
  gPrograms--;
  pthread_mutex_unlock(&gMu);
  return QS_SUCCESS;
}

QStatus qaicProgramGetIoDescriptor(QAicProgram *p, QData *iod) {
  if (p == NULL || iod == NULL) {
    return QS_INVAL;
  }
  iod->data = (uint8_t *)p->iodesc;
  iod->size = strlen(p->iodesc);
  return QS_SUCCESS;
}

QStatus qaicProgramGetIoBufferInfo(QAicProgram *p, QAicIoBufferInfo **info) {
  if (p == NULL || info == NULL) {
    return QS_INVAL;
  }
  *info = &p->info;
  return QS_SUCCESS;
}

QStatus qaicCreateExecObj(QAicContext *c, QAicExecObj **out, const uint32_t *props, QAicProgram *p,
                          const QData *iod, uint32_t *numBuffers, QBuffer **buffers) {
  (void)numBuffers;
  (void)buffers;
  if (c == NULL || out == NULL || p == NULL || p->ctx != c) {
    return QS_INVAL;
  }
  if (props != NULL && *props != 0x04) {
    return QS_INVAL;
  }
  if (iod != NULL && (iod->data == NULL || strncmp((const char *)iod->data, p->iodesc, iod->size) != 0)) {
    return QS_INVAL;
  }
  if (!p->loaded || !p->active) {
    return QS_INVAL;
  }
  QAicExecObj *e = calloc(1, sizeof(QAicExecObj));
  e->prog = p;
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  pthread_mutex_lock(&gMu);
  gExecs++;
  pthread_mutex_unlock(&gMu);
  *out = e;
  return QS_SUCCESS;
}

QStatus qaicReleaseExecObj(QAicExecObj *e) {
  if (e == NULL) {
    return QS_INVAL;
  }
  pthread_mutex_lock(&e->mu);
  unsigned long long submitted = e->submitted, done = e->done;
  pthread_mutex_unlock(&e->mu);
  if (done < submitted) {
    violation("qaicReleaseExecObj of an exec object of program %d whose submission has not completed",
              e->prog->index);
    return QS_BUSY;
  }
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
  pthread_mutex_lock(&gMu);
  gExecs--;
  pthread_mutex_unlock(&gMu);
  return QS_SUCCESS;
}

QStatus qaicExecObjSetData(QAicExecObj *e, uint32_t n, const QBuffer *bufs) {
  if (e == NULL || bufs == NULL || (int)n != e->prog->d.n) {
    return QS_INVAL;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (bufs[i].type != 0 || bufs[i].buf == NULL ||
        bufs[i].size != (size_t)e->prog->d.rowBytes[i] * e->prog->d.batch) {
      return QS_INVAL;
    }
  }
  memcpy(e->bufs, bufs, sizeof(QBuffer) * n);
  e->nbufs = (int)n;
  return QS_SUCCESS;
}

QStatus qaicEnqueueExecObj(QAicQueue *q, QAicExecObj *e, QAicEvent *event) {
  if (q == NULL || e == NULL || e->nbufs == 0 || q->dev != e->prog->dev) {
    return QS_INVAL;
  }
  if (event != NULL) {
    pthread_mutex_lock(&event->mu);
    int pending = event->users > 0 || event->signaled;
    pthread_mutex_unlock(&event->mu);
    if (pending) {
      /* An event serves one submission: clear it before reuse. */
      return QS_BUSY;
    }
  }
  pthread_mutex_lock(&gMu);
  gEnqueues++;
  gEnqueueCPUs[q->dev] = threadCPUs();
  int injected = gFailAt > 0 && gEnqueues == gFailAt;
  pthread_mutex_unlock(&gMu);
  if (injected) {
    return QS_ERROR;
  }
  pthread_mutex_lock(&e->mu);
  if (e->submitted != e->done) {
    pthread_mutex_unlock(&e->mu);
    return QS_BUSY; /* one submission at a time per exec object */
  }
  e->submitted++;
  e->event = event;
  if (event != NULL) {
    pthread_mutex_lock(&event->mu);
    event->users++;
    pthread_mutex_unlock(&event->mu);
  }
  pthread_mutex_unlock(&e->mu);
  pthread_mutex_lock(&gMu);
  e->prog->pending++;
  pthread_mutex_unlock(&gMu);
  e->next = NULL;
  pthread_mutex_lock(&q->mu);
  if (q->tail == NULL) {
    q->head = q->tail = e;
  } else {
    q->tail->next = e;
    q->tail = e;
  }
  pthread_cond_signal(&q->cv);
  pthread_mutex_unlock(&q->mu);
  return QS_SUCCESS;
}

QStatus qaicCreateEvent(QAicContext *c, QAicEvent **out, int type) {
  if (c == NULL || out == NULL || type != FAKE_EVENT_DEVICE_COMPLETE) {
    return QS_INVAL;
  }
  QAicEvent *ev = calloc(1, sizeof(QAicEvent));
  pthread_mutex_init(&ev->mu, NULL);
  pthread_mutex_lock(&gMu);
  gEvents++;
  pthread_mutex_unlock(&gMu);
  *out = ev;
  return QS_SUCCESS;
}

QStatus qaicEventClear(QAicEvent *ev) {
  if (ev == NULL) {
    return QS_INVAL;
  }
  pthread_mutex_lock(&ev->mu);
  int busy = ev->users > 0;
  if (!busy) {
    ev->signaled = 0;
  }
  pthread_mutex_unlock(&ev->mu);
  return busy ? QS_BUSY : QS_SUCCESS;
}

QStatus qaicEventAddCallback(QAicEvent *ev, void (*cb)(QAicEvent *, int, void *), void *user) {
  if (ev == NULL || cb == NULL) {
    return QS_INVAL;
  }
  pthread_mutex_lock(&ev->mu);
  ev->cb = cb;
  ev->user = user;
  pthread_mutex_unlock(&ev->mu);
  return QS_SUCCESS;
}

QStatus qaicEventRemoveCallback(QAicEvent *ev, void (*cb)(QAicEvent *, int, void *)) {
  if (ev == NULL) {
    return QS_INVAL;
  }
  pthread_mutex_lock(&ev->mu);
  if (ev->cb == cb) {
    ev->cb = NULL;
    ev->user = NULL;
  }
  pthread_mutex_unlock(&ev->mu);
  return QS_SUCCESS;
}

/* qaicReleaseEvent of an event a submission still holds would leave the
 * runtime calling back through freed memory: refused and recorded. */
QStatus qaicReleaseEvent(QAicEvent *ev) {
  if (ev == NULL) {
    return QS_INVAL;
  }
  pthread_mutex_lock(&ev->mu);
  int users = ev->users;
  pthread_mutex_unlock(&ev->mu);
  if (users > 0) {
    violation("qaicReleaseEvent of an event a submission in flight still holds");
    return QS_BUSY;
  }
  pthread_mutex_destroy(&ev->mu);
  free(ev);
  pthread_mutex_lock(&gMu);
  gEvents--;
  pthread_mutex_unlock(&gMu);
  return QS_SUCCESS;
}

/* fakeqaic_events reports the events created and not released. */
int fakeqaic_events(void) {
  pthread_mutex_lock(&gMu);
  int n = gEvents;
  pthread_mutex_unlock(&gMu);
  return n;
}

/* The timeout is taken in microseconds; 0 waits without limit. */
QStatus qaicExecObjWaitForCompletion(QAicExecObj *e, uint32_t timeoutUs) {
  if (e == NULL) {
    return QS_INVAL;
  }
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  long long ns = deadline.tv_nsec + (long long)timeoutUs * 1000LL;
  deadline.tv_sec += ns / 1000000000LL;
  deadline.tv_nsec = ns % 1000000000LL;
  pthread_mutex_lock(&gMu);
  gWaiting++;
  pthread_mutex_unlock(&gMu);
  pthread_mutex_lock(&e->mu);
  QStatus rc = QS_SUCCESS;
  while (e->done < e->submitted) {
    if (timeoutUs == 0) {
      pthread_cond_wait(&e->cv, &e->mu);
    } else if (pthread_cond_timedwait(&e->cv, &e->mu, &deadline) != 0) {
      rc = QS_TIMEDOUT;
      break;
    }
  }
  if (rc == QS_SUCCESS) {
    rc = (QStatus)e->status;
  }
  pthread_mutex_unlock(&e->mu);
  pthread_mutex_lock(&gMu);
  gWaiting--;
  pthread_mutex_unlock(&gMu);
  return rc;
}

/* ---- fake-only control and inspection ---- */

void fakeqaic_configure(int devices, int nspPerDevice) {
  pthread_mutex_lock(&gMu);
  gDevices = devices;
  gNsp = nspPerDevice;
  pthread_mutex_unlock(&gMu);
}

/* fakeqaic_derive makes n derived devices answer as QIDs 100 to 100+n-1. */
void fakeqaic_derive(int n) {
  pthread_mutex_lock(&gMu);
  gDerived = n;
  pthread_mutex_unlock(&gMu);
}

/* fakeqaic_set_status sets the QDevStatus qaicGetDeviceInfo reports. */
void fakeqaic_set_status(int dev, int status) {
  if (dev >= 0 && dev < FAKE_MAX_DEV) {
    pthread_mutex_lock(&gMu);
    gStatus[dev] = status;
    gStatusSet[dev] = 1;
    pthread_mutex_unlock(&gMu);
  }
}

/* FAKEQAIC_DELAY=BASE_NS,PER_ROW_NS in the environment sets each run's
 * time at load, for a plugin run as a process. */
__attribute__((constructor)) static void delayFromEnvironment(void) {
  const char *v = getenv("FAKEQAIC_DELAY");
  long long base, per;
  if (v != NULL && sscanf(v, "%lld,%lld", &base, &per) == 2 && base >= 0 && per >= 0) {
    gDelayBase = base;
    gDelayPerRow = per;
  }
}

/* fakeqaic_cpus reports, for dev's last run, the CPUs of the queue thread
 * that ran it and of the thread that enqueued it. */
void fakeqaic_cpus(int dev, unsigned long long *run, unsigned long long *enqueue) {
  pthread_mutex_lock(&gMu);
  *run = gRunCPUs[dev];
  *enqueue = gEnqueueCPUs[dev];
  pthread_mutex_unlock(&gMu);
}

void fakeqaic_set_delay(long long baseNs, long long perRowNs) {
  pthread_mutex_lock(&gMu);
  gDelayBase = baseNs;
  gDelayPerRow = perRowNs;
  pthread_mutex_unlock(&gMu);
}

/* fakeqaic_set_device_delay adds ns to every run on dev. */
void fakeqaic_set_device_delay(int dev, long long ns) {
  pthread_mutex_lock(&gMu);
  gDevDelay[dev] = ns;
  pthread_mutex_unlock(&gMu);
}

void fakeqaic_fail_enqueue(long long n) {
  pthread_mutex_lock(&gMu);
  gFailAt = n > 0 ? gEnqueues + n : 0;
  pthread_mutex_unlock(&gMu);
}

void fakeqaic_fail_device(int dev) {
  if (dev >= 0 && dev < MAX_DEV) {
    gFailed[dev] = 1;
  }
}

/* fakeqaic_runs returns how many exec objects ran to completion. */
long long fakeqaic_runs(void) {
  pthread_mutex_lock(&gMu);
  long long n = gRuns;
  pthread_mutex_unlock(&gMu);
  return n;
}

void fakeqaic_live(int *contexts, int *queues, int *qpcs, int *programs, int *execs, int *nspUsed) {
  pthread_mutex_lock(&gMu);
  *contexts = gContexts;
  *queues = gQueues;
  *qpcs = gQpcs;
  *programs = gPrograms;
  *execs = gExecs;
  int used = 0;
  for (int d = 0; d < MAX_DEV; d++) {
    used += gNspUsed[d];
  }
  *nspUsed = used;
  pthread_mutex_unlock(&gMu);
}

int fakeqaic_program_count(void) {
  pthread_mutex_lock(&gMu);
  int n = gNextProgram;
  pthread_mutex_unlock(&gMu);
  return n;
}

void fakeqaic_program_stats(int index, int *dev, long long *busyNs, long long *runs) {
  pthread_mutex_lock(&gMu);
  *dev = gStatDev[index];
  *busyNs = gStatBusy[index];
  *runs = gStatRuns[index];
  pthread_mutex_unlock(&gMu);
}

/* fakeqaic_waiting returns how many threads wait for an exec object now. */
int fakeqaic_waiting(void) {
  pthread_mutex_lock(&gMu);
  int n = gWaiting;
  pthread_mutex_unlock(&gMu);
  return n;
}
