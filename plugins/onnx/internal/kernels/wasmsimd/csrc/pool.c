// Max pooling without dilation: the maximum over the window's elements
// inside the input (padding takes no part), -inf for a window with none,
// NaN when any is NaN. 2×2 and 3×3 windows at stride 2 (a ResNet's stem, a
// small CNN's pools) take four outputs at a time, reading rows in place
// (a row of -inf stands for a row outside the input); edge columns and
// every other shape go one value at a time.
#include "kernels.h"

// maxpool_desc mirrors kernels.simdMaxPoolDesc.
typedef struct {
  int32_t n, c, h, w, oh, ow, kh, kw, sh, sw, pad_t, pad_l;
  uint32_t x, y;
  uint32_t scratch;
  int32_t scratch_len; // floats: at least w + 16
} maxpool_desc;
_Static_assert(sizeof(maxpool_desc) == 64, "maxpool_desc changed: update simd_wasm.go and its size");

#define NEG_INF (-__builtin_inff())

// max1 is the scalar maximum with NaN propagation.
INLINE float max1(float m, float v) { return (v > m || v != v) ? v : m; }

#define EVEN(a, b) wasm_i32x4_shuffle(a, b, 0, 2, 4, 6)
#define ODD(a, b) wasm_i32x4_shuffle(a, b, 1, 3, 5, 7)

// row_s2 is the maximum over k (2 or 3) columns 2x+dx.. of one row for 4
// outputs from ox.
INLINE v4 row_s2(const float* r, int32_t i, int32_t k) {
  v4 c = wasm_v128_load(r + i), d = wasm_v128_load(r + i + 4);
  v4 m = wasm_f32x4_max(EVEN(c, d), ODD(c, d));
  if (k == 3) m = wasm_f32x4_max(m, EVEN(wasm_v128_load(r + i + 2), wasm_v128_load(r + i + 6)));
  return m;
}

// vec_s2 computes outputs [lo, hi) (a multiple of 4 apart) of one output
// row at stride 2 with a k×k window over rows r0..r2 (r2 unused for k 2).
static NOINLINE void vec_s2(int32_t lo, int32_t hi, int32_t dx, int32_t k, const float* r0, const float* r1,
                            const float* r2, float* out) {
  for (int32_t ox = lo; ox < hi; ox += 4) {
    int32_t i = 2 * ox + dx;
    v4 m = wasm_f32x4_max(row_s2(r0, i, k), row_s2(r1, i, k));
    if (k == 3) m = wasm_f32x4_max(m, row_s2(r2, i, k));
    wasm_v128_store(out + ox, m);
  }
}

// window is the maximum over the valid elements of one window.
static float window(const float* in, int32_t h, int32_t w, int32_t kh, int32_t kw, int32_t y0, int32_t x0) {
  float m = NEG_INF;
  for (int32_t ky = 0; ky < kh; ky++) {
    int32_t iy = y0 + ky;
    if ((uint32_t)iy >= (uint32_t)h) continue;
    for (int32_t kx = 0; kx < kw; kx++) {
      int32_t ix = x0 + kx;
      if ((uint32_t)ix < (uint32_t)w) m = max1(m, in[iy * w + ix]);
    }
  }
  return m;
}

EXPORT(maxpool)(uint32_t desc) {
  if (!span_ok(desc, sizeof(maxpool_desc), 1)) return SIMD_ERR_RANGE;
  const maxpool_desc* d = (const maxpool_desc*)desc;
  const int32_t n = d->n, c = d->c, h = d->h, w = d->w, oh = d->oh, ow = d->ow, kh = d->kh, kw = d->kw;
  const int32_t sh = d->sh, sw = d->sw, pad_t = d->pad_t, pad_l = d->pad_l, scratch_len = d->scratch_len;
  const uint32_t x = d->x, y = d->y, scratch = d->scratch;
  if (n < 0 || c <= 0 || h <= 0 || w <= 0 || oh <= 0 || ow <= 0 || kh <= 0 || kw <= 0 || sh <= 0 || sw <= 0 ||
      pad_t < 0 || pad_l < 0 || scratch % 16 != 0 || (int64_t)scratch_len < (int64_t)w + 16)
    return SIMD_ERR_ARG;
  uint64_t planes = (uint64_t)n * (uint32_t)c, in = (uint64_t)h * (uint32_t)w, out = (uint64_t)oh * (uint32_t)ow;
  if (planes > ((uint64_t)1 << 30) || in > ((uint64_t)1 << 30) || out > ((uint64_t)1 << 30)) return SIMD_ERR_RANGE;
  if (!span_ok(scratch, scratch_len, 4) || !span_ok(x, planes * in, 4) || !span_ok(y, planes * out, 4))
    return SIMD_ERR_RANGE;
  float* ninf = (float*)scratch;
  for (int32_t i = 0; i < w + 16; i++) ninf[i] = NEG_INF;
  int vec = sh == 2 && sw == 2 && kh == kw && (kh == 2 || kh == 3);
  // Vector groups of 4 outputs from ox read columns 2ox - pad_l up to
  // 2ox - pad_l + 9 (3×3) or + 7 (2×2).
  int32_t dx = -pad_l, reach = kw == 3 ? 9 : 7;
  int32_t lo = (pad_l + 1) / 2, hi = lo;
  if (vec && w - 1 - reach - dx >= 0 && lo < ow) {
    int32_t last = (w - 1 - reach - dx) / 2;
    if (last >= lo) hi = lo + 4 * imin((last - lo) / 4 + 1, (ow - lo) / 4);
  }
  for (uint64_t p = 0; p < planes; p++) {
    const float* xp = (const float*)x + p * in;
    float* yp = (float*)y + p * out;
    for (int32_t oy = 0; oy < oh; oy++) {
      int32_t y0 = oy * sh - pad_t;
      float* orow = yp + oy * ow;
      if (hi > lo) {
        const float* r0 = (uint32_t)y0 < (uint32_t)h ? xp + y0 * w : ninf;
        const float* r1 = (uint32_t)(y0 + 1) < (uint32_t)h ? xp + (y0 + 1) * w : ninf;
        const float* r2 = kh == 3 && (uint32_t)(y0 + 2) < (uint32_t)h ? xp + (y0 + 2) * w : ninf;
        vec_s2(lo, hi, dx, kh, r0, r1, r2, orow);
      }
      for (int32_t ox = 0; ox < ow; ox++) {
        if (ox == lo && hi > lo) ox = hi;
        if (ox >= ow) break;
        orow[ox] = window(xp, h, w, kh, kw, y0, ox * sw - pad_l);
      }
    }
  }
  return SIMD_OK;
}
