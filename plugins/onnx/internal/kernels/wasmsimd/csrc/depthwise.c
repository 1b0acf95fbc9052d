// Depthwise convolution (one filter per channel) with bias, residual and
// activation fused: each (image, channel) plane is copied into a
// zero-padded scratch plane, then every output row is computed four
// columns at a time. 3×3 filters with unit dilation at stride 1 or 2 (what
// MobileNet-style models use) have vector paths; anything else takes the
// scalar loop over the same padded plane.
#include "kernels.h"

// dw_desc mirrors kernels.simdDepthwiseDesc.
typedef struct {
  int32_t n, c, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pad_t, pad_l;
  uint32_t x, y, wts, bias, res; // bias and res may be 0
  int32_t act;
  float lo, hi;
  uint32_t scratch;
  int32_t scratch_len; // floats: at least depthwise_scratch_len(...)
} dw_desc;

// The padded plane: rows and columns cover every window of the output
// rounded up to 4 columns, plus 8 columns that the stride-2 path reads
// ahead.
INLINE int32_t padded_w(int32_t w, int32_t ow, int32_t kw, int32_t sw, int32_t dw, int32_t pad_l) {
  int32_t ow4 = (ow + 3) & ~3;
  return imax(w + pad_l, (ow4 - 1) * sw + (kw - 1) * dw + 1 + 8);
}

INLINE int32_t padded_h(int32_t h, int32_t oh, int32_t kh, int32_t sh, int32_t dh, int32_t pad_t) {
  return imax(h + pad_t, (oh - 1) * sh + (kh - 1) * dh + 1);
}

EXPORT(depthwise_scratch_len)(int32_t h, int32_t w, int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                              int32_t sw, int32_t dh, int32_t dw, int32_t pad_t, int32_t pad_l) {
  int64_t n = (int64_t)padded_h(h, oh, kh, sh, dh, pad_t) * padded_w(w, ow, kw, sw, dw, pad_l);
  return n > 0x3fffffff ? -1 : (int32_t)n;
}

// pad_plane copies an h×w plane into the wp-wide padded plane at (pad_t,
// pad_l), zeros elsewhere.
static void pad_plane(float* pad, int32_t hp, int32_t wp, const float* in, int32_t h, int32_t w, int32_t pad_t,
                      int32_t pad_l) {
  v4 zero = wasm_f32x4_splat(0);
  int32_t n = hp * wp, i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(pad + i, zero);
  for (; i < n; i++) pad[i] = 0;
  for (int32_t y = 0; y < h; y++) {
    float* dst = pad + (y + pad_t) * wp + pad_l;
    const float* src = in + y * w;
    int32_t x = 0;
    for (; x + 4 <= w; x += 4) wasm_v128_store(dst + x, wasm_v128_load(src + x));
    for (; x < w; x++) dst[x] = src[x];
  }
}

// finish adds the residual row and applies the activation to out[0..n),
// storing whole vectors only below n4 = n rounded down to 4.
INLINE void finish_row(float* out, const float* res, int32_t n, int32_t act, float lo, float hi) {
  v4 vlo = wasm_f32x4_splat(lo), vhi = wasm_f32x4_splat(hi);
  int32_t x = 0;
  for (; x + 4 <= n; x += 4) {
    v4 v = wasm_v128_load(out + x);
    if (res) v = wasm_f32x4_add(v, wasm_v128_load(res + x));
    wasm_v128_store(out + x, act4(v, act, vlo, vhi));
  }
  for (; x < n; x++) {
    float v = out[x];
    if (res) v += res[x];
    out[x] = act1(v, act, lo, hi);
  }
}

#define TAP(acc, wv, v) acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wv, v))

// row3x3s1 computes n4 (a multiple of 4) outputs of one stride-1 row from
// padded rows r0..r2 into out.
static NOINLINE void row3x3s1(int32_t n4, const float* r0, const float* r1, const float* r2, float* out,
                              const float* wt, float bias) {
  v4 w0 = wasm_v128_load32_splat(wt + 0), w1 = wasm_v128_load32_splat(wt + 1), w2 = wasm_v128_load32_splat(wt + 2);
  v4 w3 = wasm_v128_load32_splat(wt + 3), w4 = wasm_v128_load32_splat(wt + 4), w5 = wasm_v128_load32_splat(wt + 5);
  v4 w6 = wasm_v128_load32_splat(wt + 6), w7 = wasm_v128_load32_splat(wt + 7), w8 = wasm_v128_load32_splat(wt + 8);
  v4 b = wasm_f32x4_splat(bias);
  for (int32_t x = 0; x < n4; x += 4) {
    // Each row's furthest load first (one bounds check per row); the sum
    // in the portable kernel's order.
    v4 a2 = wasm_v128_load(r0 + x + 2), a0 = wasm_v128_load(r0 + x), a1 = wasm_v128_load(r0 + x + 1);
    v4 b2 = wasm_v128_load(r1 + x + 2), b0 = wasm_v128_load(r1 + x), b1 = wasm_v128_load(r1 + x + 1);
    v4 c2 = wasm_v128_load(r2 + x + 2), c0 = wasm_v128_load(r2 + x), c1 = wasm_v128_load(r2 + x + 1);
    v4 acc = b;
    TAP(acc, w0, a0), TAP(acc, w1, a1), TAP(acc, w2, a2);
    TAP(acc, w3, b0), TAP(acc, w4, b1), TAP(acc, w5, b2);
    TAP(acc, w6, c0), TAP(acc, w7, c1), TAP(acc, w8, c2);
    wasm_v128_store(out + x, acc);
  }
}

// even and odd deinterleave the 8 values of a and b.
#define EVEN(a, b) wasm_i32x4_shuffle(a, b, 0, 2, 4, 6)
#define ODD(a, b) wasm_i32x4_shuffle(a, b, 1, 3, 5, 7)

// row3x3s2 is row3x3s1 at stride 2: padded columns 2x, 2x+1, 2x+2.
static NOINLINE void row3x3s2(int32_t n4, const float* r0, const float* r1, const float* r2, float* out,
                              const float* wt, float bias) {
  v4 w0 = wasm_v128_load32_splat(wt + 0), w1 = wasm_v128_load32_splat(wt + 1), w2 = wasm_v128_load32_splat(wt + 2);
  v4 w3 = wasm_v128_load32_splat(wt + 3), w4 = wasm_v128_load32_splat(wt + 4), w5 = wasm_v128_load32_splat(wt + 5);
  v4 w6 = wasm_v128_load32_splat(wt + 6), w7 = wasm_v128_load32_splat(wt + 7), w8 = wasm_v128_load32_splat(wt + 8);
  v4 b = wasm_f32x4_splat(bias);
  for (int32_t x = 0; x < n4; x += 4) {
    int32_t i = 2 * x;
    v4 acc = b, a, c, d, e;
    // Columns 2x.. (c, d) give taps 0 and 1, columns 2x+2.. (e, a) tap 2.
    a = wasm_v128_load(r0 + i + 6), c = wasm_v128_load(r0 + i), d = wasm_v128_load(r0 + i + 4),
    e = wasm_v128_load(r0 + i + 2);
    TAP(acc, w0, EVEN(c, d)), TAP(acc, w1, ODD(c, d)), TAP(acc, w2, EVEN(e, a));
    a = wasm_v128_load(r1 + i + 6), c = wasm_v128_load(r1 + i), d = wasm_v128_load(r1 + i + 4),
    e = wasm_v128_load(r1 + i + 2);
    TAP(acc, w3, EVEN(c, d)), TAP(acc, w4, ODD(c, d)), TAP(acc, w5, EVEN(e, a));
    a = wasm_v128_load(r2 + i + 6), c = wasm_v128_load(r2 + i), d = wasm_v128_load(r2 + i + 4),
    e = wasm_v128_load(r2 + i + 2);
    TAP(acc, w6, EVEN(c, d)), TAP(acc, w7, ODD(c, d)), TAP(acc, w8, EVEN(e, a));
    wasm_v128_store(out + x, acc);
  }
}

// row_generic computes a whole output row with any filter, stride and
// dilation, one value at a time.
static void row_generic(const float* row0, int32_t wp, int32_t ow, int32_t kh, int32_t kw, int32_t sw, int32_t dh,
                        int32_t dw, float* out, const float* wt, float bias) {
  for (int32_t ox = 0; ox < ow; ox++) {
    float acc = bias;
    for (int32_t ky = 0; ky < kh; ky++) {
      const float* r = row0 + ky * dh * wp + ox * sw;
      for (int32_t kx = 0; kx < kw; kx++) acc += wt[ky * kw + kx] * r[kx * dw];
    }
    out[ox] = acc;
  }
}

EXPORT(depthwise)(uint32_t desc) {
  if (!span_ok(desc, sizeof(dw_desc), 1)) return SIMD_ERR_RANGE;
  // Fields in locals: the kernel's stores may alias the descriptor.
  const dw_desc* d = (const dw_desc*)desc;
  const int32_t n = d->n, c = d->c, h = d->h, w = d->w, oh = d->oh, ow = d->ow, kh = d->kh, kw = d->kw;
  const int32_t sh = d->sh, sw = d->sw, dh = d->dh, dw = d->dw, pad_t = d->pad_t, pad_l = d->pad_l;
  const uint32_t x = d->x, y = d->y, wts = d->wts, bias = d->bias, res = d->res, scratch = d->scratch;
  const int32_t act = d->act, scratch_len = d->scratch_len;
  const float lo = d->lo, hi = d->hi;
  if (n < 0 || c <= 0 || h <= 0 || w <= 0 || oh <= 0 || ow <= 0 || kh <= 0 || kw <= 0 || sh <= 0 || sw <= 0 ||
      dh <= 0 || dw <= 0 || pad_t < 0 || pad_l < 0 || scratch % 16 != 0)
    return SIMD_ERR_ARG;
  int32_t hp = padded_h(h, oh, kh, sh, dh, pad_t), wp = padded_w(w, ow, kw, sw, dw, pad_l);
  if ((int64_t)hp * wp > scratch_len) return SIMD_ERR_ARG;
  uint64_t planes = (uint64_t)n * (uint32_t)c, in = (uint64_t)h * (uint32_t)w, out = (uint64_t)oh * (uint32_t)ow;
  // Each fits in memory (2^30 floats) or the call cannot; their products
  // then cannot wrap.
  if (planes > ((uint64_t)1 << 30) || in > ((uint64_t)1 << 30) || out > ((uint64_t)1 << 30)) return SIMD_ERR_RANGE;
  if (!span_ok(scratch, scratch_len, 4) || !span_ok(x, planes * in, 4) || !span_ok(y, planes * out, 4) ||
      !span_ok(wts, (uint64_t)c * (uint32_t)kh * (uint32_t)kw, 4) || (bias && !span_ok(bias, c, 4)) || (res && !span_ok(res, planes * out, 4)))
    return SIMD_ERR_RANGE;
  float* pad = (float*)scratch;
  int vec = kh == 3 && kw == 3 && dh == 1 && dw == 1 && (sw == 1 || sw == 2);
  int32_t n4 = ow & ~3;
  for (uint64_t p = 0; p < planes; p++) {
    int32_t ch = (int32_t)(p % c);
    const float* wt = (const float*)wts + ch * kh * kw;
    float b = bias ? ((const float*)bias)[ch] : 0;
    pad_plane(pad, hp, wp, (const float*)x + p * in, h, w, pad_t, pad_l);
    float* yp = (float*)y + p * out;
    const float* rp = res ? (const float*)res + p * out : 0;
    for (int32_t oy = 0; oy < oh; oy++) {
      float* orow = yp + oy * ow;
      const float* r0 = pad + oy * sh * wp;
      if (!vec) {
        row_generic(r0, wp, ow, kh, kw, sw, dh, dw, orow, wt, b);
      } else {
        if (sw == 1) row3x3s1(n4, r0, r0 + wp, r0 + 2 * wp, orow, wt, b);
        else row3x3s2(n4, r0, r0 + wp, r0 + 2 * wp, orow, wt, b);
        // The last ow mod 4 columns, one at a time.
        for (int32_t ox = n4; ox < ow; ox++) {
          const float* a = r0 + ox * sw;
          orow[ox] = b + wt[0] * a[0] + wt[1] * a[1] + wt[2] * a[2] + wt[3] * a[wp] + wt[4] * a[wp + 1] +
                     wt[5] * a[wp + 2] + wt[6] * a[2 * wp] + wt[7] * a[2 * wp + 1] + wt[8] * a[2 * wp + 2];
        }
      }
      finish_row(orow, rp ? rp + oy * ow : 0, ow, act, lo, hi);
    }
  }
  return SIMD_OK;
}
