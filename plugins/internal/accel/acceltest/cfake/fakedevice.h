/*
 * fakedevice.h: what the fake accelerator runtimes of the plugin tests
 * share. A fake includes it once, after defining FAKE_NAME (the prefix of
 * its messages) and FAKE_MAX_DEV (how many devices it can have).
 *
 * - Violations: a fake refuses calls that real hardware would fault on or
 *   that would corrupt the test process (freeing memory queued work still
 *   uses, tearing down submitted work). violation() records and prints
 *   one; fake_violations() reports how many there were and the first.
 * - The kernel gate: while closed, kernels wait at their start, so that a
 *   test can see how many run at once. kernelWait() counts a kernel and
 *   waits at the gate; kernelStart() and kernelEnd() bracket its run and
 *   keep each device's busy time (the union over its streams or
 *   programs). fake_gate(), fake_kernels() and fake_device_busy() are the
 *   tests' side.
 *
 * The exported fake_* functions are what package acceltest's Lib calls.
 */
#ifndef FAKEDEVICE_H
#define FAKEDEVICE_H

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* threadCPUs returns the calling thread's CPUs, the first 64 as a mask. */
static unsigned long long threadCPUs(void) {
  cpu_set_t set;
  unsigned long long mask = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < 64; c++) {
      if (CPU_ISSET(c, &set)) {
        mask |= 1ULL << c;
      }
    }
  }
  return mask;
}

static long long nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- violations ---- */

static pthread_mutex_t fdViolationMu = PTHREAD_MUTEX_INITIALIZER;
static int fdViolations;
static char fdViolation[512];

/* violation records a call the fake refused and prints it. */
static void violation(const char *fmt, ...) {
  char msg[sizeof fdViolation];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, FAKE_NAME ": %s\n", msg);
  pthread_mutex_lock(&fdViolationMu);
  if (fdViolations++ == 0) {
    memcpy(fdViolation, msg, sizeof msg);
  }
  pthread_mutex_unlock(&fdViolationMu);
}

/* fake_violations returns how many calls the fake refused and copies the
 * first one's message into buf. */
int fake_violations(char *buf, int cap) {
  pthread_mutex_lock(&fdViolationMu);
  int n = fdViolations;
  if (cap > 0) {
    snprintf(buf, (size_t)cap, "%s", fdViolation);
  }
  pthread_mutex_unlock(&fdViolationMu);
  return n;
}

/* fake_forget_violations clears the record, for a test that made the fake
 * refuse a call on purpose. */
void fake_forget_violations(void) {
  pthread_mutex_lock(&fdViolationMu);
  fdViolations = 0;
  fdViolation[0] = 0;
  pthread_mutex_unlock(&fdViolationMu);
}

/* ---- the kernel gate and device busy time ---- */

static pthread_mutex_t fdGateMu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fdGateCv = PTHREAD_COND_INITIALIZER;
/* fdRunning counts kernels waiting at the gate or running, fdPeak its
 * maximum. */
static int fdGateClosed, fdRunning, fdPeak;
/* Per device: kernels running now, when the device last became busy, and
 * the total time at least one kernel ran. */
static int fdDevActive[FAKE_MAX_DEV];
static long long fdDevSince[FAKE_MAX_DEV], fdDevBusy[FAKE_MAX_DEV];

/* kernelWait counts a kernel and waits while the gate is closed. */
static void kernelWait(void) {
  pthread_mutex_lock(&fdGateMu);
  fdRunning++;
  if (fdRunning > fdPeak) {
    fdPeak = fdRunning;
  }
  pthread_cond_broadcast(&fdGateCv);
  while (fdGateClosed) {
    pthread_cond_wait(&fdGateCv, &fdGateMu);
  }
  pthread_mutex_unlock(&fdGateMu);
}

/* kernelStart marks dev busy and returns the time. */
static long long kernelStart(int dev) {
  pthread_mutex_lock(&fdGateMu);
  long long t0 = nowNs();
  if (fdDevActive[dev]++ == 0) {
    fdDevSince[dev] = t0;
  }
  pthread_mutex_unlock(&fdGateMu);
  return t0;
}

/* kernelEnd ends a kernel that kernelWait counted and kernelStart started
 * on dev, and returns the time. */
static long long kernelEnd(int dev) {
  pthread_mutex_lock(&fdGateMu);
  long long t1 = nowNs();
  fdRunning--;
  if (--fdDevActive[dev] == 0) {
    fdDevBusy[dev] += t1 - fdDevSince[dev];
  }
  pthread_mutex_unlock(&fdGateMu);
  return t1;
}

/* fake_gate closes (1) or opens (0) the kernel gate. */
void fake_gate(int closed) {
  pthread_mutex_lock(&fdGateMu);
  fdGateClosed = closed;
  pthread_cond_broadcast(&fdGateCv);
  pthread_mutex_unlock(&fdGateMu);
}

/* fake_kernels reports the kernels waiting at the gate or running now and
 * the most that ever were at once. */
void fake_kernels(int *running, int *peak) {
  pthread_mutex_lock(&fdGateMu);
  *running = fdRunning;
  *peak = fdPeak;
  pthread_mutex_unlock(&fdGateMu);
}

/* fake_device_busy returns the nanoseconds during which at least one
 * kernel ran on dev. */
long long fake_device_busy(int dev) {
  if (dev < 0 || dev >= FAKE_MAX_DEV) {
    return 0;
  }
  pthread_mutex_lock(&fdGateMu);
  long long n = fdDevBusy[dev];
  if (fdDevActive[dev] > 0) {
    n += nowNs() - fdDevSince[dev];
  }
  pthread_mutex_unlock(&fdGateMu);
  return n;
}

#endif
