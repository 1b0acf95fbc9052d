/*
 * fakenvml.c: the NVML calls the tensorrt plugin makes to list MIG
 * instances, against a machine described by a string:
 *
 *   fakenvml_configure("1g.10gb,1g.10gb,3g.40gb;off;7g.80gb")
 *
 * or, for a plugin run as a process, FAKE_NVML_MIG with the same text,
 * read at nvmlInit. GPUs are separated by ';': each lists the profiles
 * of its MIG instances (in slots 0, 1, ...; the others of its 7 slots are
 * empty), "off" is a GPU with MIG mode off and "none" one that cannot do
 * MIG. Instance s of GPU g is named "NVIDIA H100 80GB HBM3 MIG <profile>",
 * has the memory its profile names (10gb: 10 GiB) and the UUID whose
 * bytes are a0 a1 ... ae followed by g*8+s: the fake CUDA runtime's
 * device d has the bytes a0 ... ae d, so CUDA device 0 "is" instance 0 of
 * GPU 0, as in a process given CUDA_VISIBLE_DEVICES=that instance.
 *
 * Like NVML it refuses calls before nvmlInit_v2 or after the matching
 * nvmlShutdown (NVML_ERROR_UNINITIALIZED), handles it did not hand out,
 * slot indices beyond the GPU's (NVML_ERROR_INVALID_ARGUMENT) and buffers
 * too small (NVML_ERROR_INSUFFICIENT_SIZE); an empty slot is
 * NVML_ERROR_NOT_FOUND, MIG mode on a GPU without it
 * NVML_ERROR_NOT_SUPPORTED.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK 0
#define UNINITIALIZED 1
#define INVALID_ARGUMENT 2
#define NOT_SUPPORTED 3
#define NOT_FOUND 6
#define INSUFFICIENT_SIZE 7

#define MAX_GPUS 8
#define SLOTS 7

typedef struct {
  int gpu, slot; /* slot -1: the GPU itself */
} handle;

typedef struct {
  int capable, on, n;
  char profile[SLOTS][32];
} gpu;

static pthread_mutex_t gMu = PTHREAD_MUTEX_INITIALIZER;
static int gInits, gConfigured, gNumGPUs;
static gpu gGPUs[MAX_GPUS];
static handle gGPUHandles[MAX_GPUS];
static handle gMigHandles[MAX_GPUS][SLOTS];

/* fakenvml_configure describes the machine (see above). */
void fakenvml_configure(const char *spec) {
  pthread_mutex_lock(&gMu);
  memset(gGPUs, 0, sizeof gGPUs);
  gNumGPUs = 0;
  gConfigured = 1;
  char *copy = strdup(spec == NULL ? "" : spec), *save = NULL;
  for (char *g = strtok_r(copy, ";", &save); g != NULL && gNumGPUs < MAX_GPUS; g = strtok_r(NULL, ";", &save)) {
    gpu *x = &gGPUs[gNumGPUs];
    gGPUHandles[gNumGPUs] = (handle){gNumGPUs, -1};
    for (int s = 0; s < SLOTS; s++) {
      gMigHandles[gNumGPUs][s] = (handle){gNumGPUs, s};
    }
    gNumGPUs++;
    if (strcmp(g, "none") == 0) {
      continue;
    }
    x->capable = 1;
    if (strcmp(g, "off") == 0) {
      continue;
    }
    x->on = 1;
    char *psave = NULL;
    for (char *p = strtok_r(g, ",", &psave); p != NULL && x->n < SLOTS; p = strtok_r(NULL, ",", &psave)) {
      snprintf(x->profile[x->n++], sizeof x->profile[0], "%s", p);
    }
  }
  free(copy);
  pthread_mutex_unlock(&gMu);
}

/* fakenvml_inits returns how many nvmlInit_v2 calls have no nvmlShutdown. */
int fakenvml_inits(void) {
  pthread_mutex_lock(&gMu);
  int n = gInits;
  pthread_mutex_unlock(&gMu);
  return n;
}

int nvmlInit_v2(void) {
  const char *env = getenv("FAKE_NVML_MIG");
  pthread_mutex_lock(&gMu);
  int configured = gConfigured;
  gInits++;
  pthread_mutex_unlock(&gMu);
  if (!configured) {
    fakenvml_configure(env);
  }
  return OK;
}

int nvmlShutdown(void) {
  pthread_mutex_lock(&gMu);
  int rc = gInits > 0 ? OK : UNINITIALIZED;
  if (gInits > 0) {
    gInits--;
  }
  pthread_mutex_unlock(&gMu);
  return rc;
}

const char *nvmlErrorString(int r) {
  switch (r) {
  case OK:
    return "Success";
  case UNINITIALIZED:
    return "Uninitialized";
  case INVALID_ARGUMENT:
    return "Invalid Argument";
  case NOT_SUPPORTED:
    return "Not Supported";
  case NOT_FOUND:
    return "Not Found";
  case INSUFFICIENT_SIZE:
    return "Insufficient Size";
  }
  return "Unknown Error";
}

/* ready reports NVML's state for a call: OK once initialized. */
static int ready(void) {
  pthread_mutex_lock(&gMu);
  int n = gInits;
  pthread_mutex_unlock(&gMu);
  return n > 0 ? OK : UNINITIALIZED;
}

/* lookup checks a handle: one of ours, of a GPU or an occupied slot. */
static int lookup(const void *h, handle *out) {
  for (int g = 0; g < gNumGPUs; g++) {
    if (h == &gGPUHandles[g]) {
      *out = gGPUHandles[g];
      return OK;
    }
    for (int s = 0; s < SLOTS; s++) {
      if (h == &gMigHandles[g][s] && s < gGPUs[g].n) {
        *out = gMigHandles[g][s];
        return OK;
      }
    }
  }
  return INVALID_ARGUMENT;
}

int nvmlDeviceGetCount_v2(unsigned int *n) {
  if (ready() != OK) {
    return UNINITIALIZED;
  }
  *n = (unsigned int)gNumGPUs;
  return OK;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **h) {
  if (ready() != OK) {
    return UNINITIALIZED;
  }
  if (i >= (unsigned int)gNumGPUs || h == NULL) {
    return INVALID_ARGUMENT;
  }
  *h = &gGPUHandles[i];
  return OK;
}

/* migGPU checks a MIG query on dev: NVML ready, dev a GPU's handle, the
 * GPU able to do MIG; it sets *h. */
static int migGPU(const void *dev, handle *h) {
  if (ready() != OK) {
    return UNINITIALIZED;
  }
  if (lookup(dev, h) != OK || h->slot >= 0) {
    return INVALID_ARGUMENT;
  }
  return gGPUs[h->gpu].capable ? OK : NOT_SUPPORTED;
}

int nvmlDeviceGetMigMode(void *dev, unsigned int *current, unsigned int *pending) {
  handle h;
  int rc = migGPU(dev, &h);
  if (rc == OK) {
    *current = *pending = (unsigned int)gGPUs[h.gpu].on;
  }
  return rc;
}

int nvmlDeviceGetMaxMigDeviceCount(void *dev, unsigned int *count) {
  handle h;
  int rc = migGPU(dev, &h);
  if (rc == OK) {
    *count = SLOTS;
  }
  return rc;
}

int nvmlDeviceGetMigDeviceHandleByIndex(void *dev, unsigned int i, void **mig) {
  handle h;
  int rc = migGPU(dev, &h);
  if (rc != OK) {
    return rc;
  }
  if (i >= SLOTS || mig == NULL) {
    return INVALID_ARGUMENT;
  }
  if (!gGPUs[h.gpu].on || (int)i >= gGPUs[h.gpu].n) {
    return NOT_FOUND;
  }
  *mig = &gMigHandles[h.gpu][i];
  return OK;
}

/* put writes s into buf of len bytes, NUL-terminated. */
static int put(char *buf, unsigned int len, const char *s) {
  if (buf == NULL || strlen(s) + 1 > len) {
    return INSUFFICIENT_SIZE;
  }
  memcpy(buf, s, strlen(s) + 1);
  return OK;
}

int nvmlDeviceGetName(void *dev, char *name, unsigned int len) {
  handle h;
  if (ready() != OK) {
    return UNINITIALIZED;
  }
  if (lookup(dev, &h) != OK) {
    return INVALID_ARGUMENT;
  }
  char s[96];
  if (h.slot < 0) {
    snprintf(s, sizeof s, "NVIDIA H100 80GB HBM3");
  } else {
    snprintf(s, sizeof s, "NVIDIA H100 80GB HBM3 MIG %s", gGPUs[h.gpu].profile[h.slot]);
  }
  return put(name, len, s);
}

int nvmlDeviceGetUUID(void *dev, char *uuid, unsigned int len) {
  handle h;
  if (ready() != OK) {
    return UNINITIALIZED;
  }
  if (lookup(dev, &h) != OK) {
    return INVALID_ARGUMENT;
  }
  unsigned char b[16];
  for (int i = 0; i < 15; i++) {
    b[i] = (unsigned char)((h.slot < 0 ? 0xb0 : 0xa0) + i);
  }
  b[15] = (unsigned char)(h.slot < 0 ? 0x80 + h.gpu : h.gpu * 8 + h.slot);
  char s[96];
  snprintf(s, sizeof s, "%s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
           h.slot < 0 ? "GPU" : "MIG", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
           b[13], b[14], b[15]);
  return put(uuid, len, s);
}

typedef struct {
  unsigned long long total, free, used;
} memory;

int nvmlDeviceGetMemoryInfo(void *dev, memory *m) {
  handle h;
  if (ready() != OK) {
    return UNINITIALIZED;
  }
  if (lookup(dev, &h) != OK || m == NULL) {
    return INVALID_ARGUMENT;
  }
  unsigned long long gib = 80;
  if (h.slot >= 0) {
    const char *dot = strchr(gGPUs[h.gpu].profile[h.slot], '.');
    gib = dot != NULL ? strtoull(dot + 1, NULL, 10) : 0;
  }
  m->total = gib << 30;
  m->used = 0;
  m->free = m->total;
  return OK;
}

typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} pciInfo;

int nvmlDeviceGetPciInfo_v3(void *dev, pciInfo *p) {
  handle h;
  if (ready() != OK) {
    return UNINITIALIZED;
  }
  if (lookup(dev, &h) != OK || h.slot >= 0 || p == NULL) {
    return INVALID_ARGUMENT;
  }
  memset(p, 0, sizeof *p);
  p->bus = 0x3b + (unsigned int)h.gpu;
  snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", p->bus);
  snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0", p->bus);
  return OK;
}
