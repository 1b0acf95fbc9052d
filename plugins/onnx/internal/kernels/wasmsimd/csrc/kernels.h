// The onnx plugin's SIMD128 kernels, compiled to a wasm32 module that
// `make onnx-simd` links into the plugin's Go guest (see ../doc.go).
//
// Rules every kernel follows, which the linker checks on the built module:
// no data segments, no globals (hence no shadow stack: no local arrays, no
// address-taken locals), no tables and no imports but the guest's memory.
// All memory a kernel touches is passed in by the caller, and each kernel
// checks every range it was given against the memory's size before it
// touches anything: a bad pointer is an error code, never a trap.
#ifndef ONNX_SIMD_KERNELS_H
#define ONNX_SIMD_KERNELS_H

#include <stdint.h>
#include <wasm_simd128.h>

#define EXPORT(name) __attribute__((export_name(#name))) int32_t name
#define NOINLINE __attribute__((noinline))
#define INLINE static inline __attribute__((always_inline))

typedef v128_t v4;

// Status codes every exported kernel returns.
enum {
  SIMD_OK = 0,
  SIMD_ERR_RANGE = 1, // a pointer range lies outside linear memory, or a written one over what the call reads back
  SIMD_ERR_ARG = 2,   // a size or stride is negative or inconsistent
};

// Activations fused into outputs (kernels.ActKind).
enum { ACT_NONE = 0, ACT_RELU = 1, ACT_CLIP = 2 };

// mem_bytes is the size of linear memory now (kernels never grow it).
INLINE uint64_t mem_bytes(void) { return (uint64_t)__builtin_wasm_memory_size(0) << 16; }

// Extents are element counts in 64 bits, computed by the caller from
// sizes and strides it has checked are not negative (so each is below
// 2^31): a product of two is below 2^62 and a sum of three such products
// cannot wrap. Anything past linear memory (at most 2^32 bytes) fails.

// span_ok reports whether the elements p[0..extent) of size bytes each
// lie in linear memory; 0 elements touch nothing.
INLINE int span_ok(uint32_t p, uint64_t extent, uint64_t size) {
  if (extent == 0) return 1;
  if (extent > ((uint64_t)1 << 32)) return 0;
  return (uint64_t)p + extent * size <= mem_bytes();
}

// apart reports whether the byte ranges [p, p+pn) and [q, q+qn) do not
// overlap; an empty range overlaps nothing.
INLINE int apart(uint32_t p, uint64_t pn, uint32_t q, uint64_t qn) {
  return pn == 0 || qn == 0 || (uint64_t)p + pn <= q || (uint64_t)q + qn <= p;
}

// strided_extent is one past the largest index of an r×c view with the
// given non-negative strides (0 for broadcast).
INLINE uint64_t strided_extent(int32_t r, int32_t c, int32_t rs, int32_t cs) {
  if (r <= 0 || c <= 0) return 0;
  return (uint64_t)(r - 1) * (uint32_t)rs + (uint64_t)(c - 1) * (uint32_t)cs + 1;
}

INLINE v4 act4(v4 v, int32_t act, v4 lo, v4 hi) {
  if (act == ACT_RELU) return wasm_f32x4_pmax(v, wasm_f32x4_splat(0));
  if (act == ACT_CLIP) return wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi);
  return v;
}

// act1 is act4 for one value; like the Go kernels, NaN stays NaN.
INLINE float act1(float v, int32_t act, float lo, float hi) {
  if (act == ACT_RELU) return v < 0 ? 0 : v;
  if (act == ACT_CLIP) return v < lo ? lo : (v > hi ? hi : v);
  return v;
}

INLINE int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
INLINE int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }

// copy_floats copies n floats (n >= 0) with vector loads and stores, 16
// per iteration where it can.
INLINE void copy_floats(float* dst, const float* src, int32_t n) {
  int32_t i = 0;
  for (; i + 32 <= n; i += 32) { // 32 per iteration: the loop guard's cost
    v4 d = wasm_v128_load(src + i + 28), a = wasm_v128_load(src + i), b = wasm_v128_load(src + i + 4),
       c = wasm_v128_load(src + i + 8);
    wasm_v128_store(dst + i + 28, d);
    wasm_v128_store(dst + i, a), wasm_v128_store(dst + i + 4, b), wasm_v128_store(dst + i + 8, c);
    a = wasm_v128_load(src + i + 12), b = wasm_v128_load(src + i + 16), c = wasm_v128_load(src + i + 20),
    d = wasm_v128_load(src + i + 24);
    wasm_v128_store(dst + i + 12, a), wasm_v128_store(dst + i + 16, b), wasm_v128_store(dst + i + 20, c);
    wasm_v128_store(dst + i + 24, d);
  }
  if (i + 16 <= n) {
    v4 d = wasm_v128_load(src + i + 12), a = wasm_v128_load(src + i), b = wasm_v128_load(src + i + 4),
       c = wasm_v128_load(src + i + 8);
    wasm_v128_store(dst + i + 12, d);
    wasm_v128_store(dst + i, a), wasm_v128_store(dst + i + 4, b), wasm_v128_store(dst + i + 8, c);
    i += 16;
  }
  for (; i + 4 <= n; i += 4) wasm_v128_store(dst + i, wasm_v128_load(src + i));
  for (; i < n; i++) dst[i] = src[i];
}

INLINE void zero_floats(float* dst, int32_t n) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(dst + i, wasm_f32x4_splat(0));
  for (; i < n; i++) dst[i] = 0;
}

// ---- the GEMM's blocking and micro-kernel (gemm.c), shared with the
// Winograd convolution (winograd.c) ----

#define MR 8
#define NR 6
#define KC 256 // K block: an 8 KB A panel and a 24 KB B panel stay in L1
#define NC 96  // columns per packed B block (16 panels, 384 KB at KC)

// micro computes the MR×NR product of kc steps of an A panel (K groups of
// MR values) and a splatted B panel (K groups of NR values, each repeated
// 4 times) into t, column by column.
void micro(int32_t kc, const float* pa, const float* pb, float* t);

// splat_rows packs kc rows of a row block (stride ld, nc columns, whole
// panels of NR readable) into splatted B panels of kc·NR·4 floats each.
void splat_rows(float* dst, const float* rows, int32_t ld, int32_t kc, int32_t nc);

#endif
