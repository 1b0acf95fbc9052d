// A product with a few rows of A (a fully connected layer at small
// batch), where packing for the tiled GEMM would waste most of a tile:
// C = act(alpha·A·B' + beta·C + bias), bias per column, with B' = Bᵀ
// (B stored N×K: every output is a dot product) or B (stored K×N: rows of
// C accumulate scaled rows of B).
#include "kernels.h"

// smallm_desc mirrors kernels.simdSmallMDesc.
typedef struct {
  int32_t m, n, k;
  uint32_t a;
  int32_t lda;
  uint32_t b;
  int32_t ldb, trans_b;
  uint32_t c;
  int32_t ldc;
  float alpha, beta;
  uint32_t bias; // 0 for none
  int32_t act;
  float lo, hi;
} smallm_desc;
_Static_assert(sizeof(smallm_desc) == 64, "smallm_desc changed: update simd_wasm.go and its size");

INLINE float hsum(v4 v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

// dot4 returns the dot products of a with b0..b3 (k values each) in out.
static NOINLINE void dot4(int32_t k, const float* a, const float* b0, const float* b1, const float* b2,
                          const float* b3, float* out) {
  v4 s0 = wasm_f32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
  int32_t i = 0;
  for (; i + 4 <= k; i += 4) {
    v4 av = wasm_v128_load(a + i);
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(av, wasm_v128_load(b0 + i)));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(av, wasm_v128_load(b1 + i)));
    s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(av, wasm_v128_load(b2 + i)));
    s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(av, wasm_v128_load(b3 + i)));
  }
  float r0 = hsum(s0), r1 = hsum(s1), r2 = hsum(s2), r3 = hsum(s3);
  for (; i < k; i++) {
    float av = a[i];
    r0 += av * b0[i], r1 += av * b1[i], r2 += av * b2[i], r3 += av * b3[i];
  }
  out[0] = r0, out[1] = r1, out[2] = r2, out[3] = r3;
}

INLINE float merge(const smallm_desc* d, float v, float old, int32_t j) {
  v *= d->alpha;
  if (d->beta != 0) v += d->beta * old;
  if (d->bias) v += ((const float*)d->bias)[j];
  return act1(v, d->act, d->lo, d->hi);
}

EXPORT(smallm)(uint32_t desc, uint32_t scratch) {
  if (!span_ok(desc, sizeof(smallm_desc), 1) || !span_ok(scratch, 4, 4)) return SIMD_ERR_RANGE;
  const smallm_desc dd = *(const smallm_desc*)desc;
  const smallm_desc* d = &dd;
  if (d->m < 0 || d->n < 0 || d->k < 0 || d->lda < 0 || d->ldb < 0 || d->ldc < 0) return SIMD_ERR_ARG;
  if (d->m == 0 || d->n == 0) return SIMD_OK;
  uint64_t bext = d->trans_b ? strided_extent(d->n, d->k, d->ldb, 1) : strided_extent(d->k, d->n, d->ldb, 1);
  if (!span_ok(d->a, strided_extent(d->m, d->k, d->lda, 1), 4) || !span_ok(d->b, bext, 4) ||
      !span_ok(d->c, strided_extent(d->m, d->n, d->ldc, 1), 4) || (d->bias && !span_ok(d->bias, d->n, 4)))
    return SIMD_ERR_RANGE;
  float* out = (float*)scratch;
  for (int32_t i = 0; i < d->m; i++) {
    const float* a = (const float*)d->a + i * d->lda;
    float* c = (float*)d->c + i * d->ldc;
    if (d->trans_b) {
      const float* b = (const float*)d->b;
      int32_t j = 0;
      for (; j + 4 <= d->n; j += 4) {
        const float* bj = b + j * d->ldb;
        dot4(d->k, a, bj, bj + d->ldb, bj + 2 * d->ldb, bj + 3 * d->ldb, out);
        for (int32_t t = 0; t < 4; t++) c[j + t] = merge(d, out[t], c[j + t], j + t);
      }
      for (; j < d->n; j++) {
        const float* bj = b + j * d->ldb;
        dot4(d->k, a, bj, bj, bj, bj, out);
        c[j] = merge(d, out[0], c[j], j);
      }
      continue;
    }
    // c = a·B row by row of B, 4 columns at a time, then merged.
    int32_t j = 0;
    for (; j + 4 <= d->n; j += 4) {
      v4 acc = wasm_f32x4_splat(0);
      const float* bj = (const float*)d->b + j;
      for (int32_t kk = 0; kk < d->k; kk++)
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_v128_load32_splat(a + kk), wasm_v128_load(bj + kk * d->ldb)));
      for (int32_t t = 0; t < 4; t++) c[j + t] = merge(d, wasm_f32x4_extract_lane(acc, 0), c[j + t], j + t),
                                        acc = wasm_i32x4_shuffle(acc, acc, 1, 2, 3, 0);
    }
    for (; j < d->n; j++) {
      float acc = 0;
      for (int32_t kk = 0; kk < d->k; kk++) acc += a[kk] * ((const float*)d->b)[kk * d->ldb + j];
      c[j] = merge(d, acc, c[j], j);
    }
  }
  return SIMD_OK;
}
