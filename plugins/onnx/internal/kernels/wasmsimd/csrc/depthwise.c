// Depthwise convolution (one filter per channel) with bias, residual and
// activation fused. 3×3 filters with unit dilation at stride 1 or 2 (what
// MobileNet-style models use) read the input plane in place: rows above
// or below it read a row of zeros, and the few columns whose window
// crosses the left or right edge are computed one at a time; the rest of
// each row, four outputs at a time. Anything else copies each plane into
// a zero-padded scratch plane and takes a scalar loop.
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
_Static_assert(sizeof(dw_desc) == 96, "dw_desc changed: update simd_wasm.go and its size");

// The generic path's padded plane covers every window.
INLINE int32_t padded_w(int32_t w, int32_t ow, int32_t kw, int32_t sw, int32_t dw, int32_t pad_l) {
  return imax(w + pad_l, (ow - 1) * sw + (kw - 1) * dw + 1);
}

INLINE int32_t padded_h(int32_t h, int32_t oh, int32_t kh, int32_t sh, int32_t dh, int32_t pad_t) {
  return imax(h + pad_t, (oh - 1) * sh + (kh - 1) * dh + 1);
}

// fast reports whether the in-place 3×3 path serves the shape.
INLINE int fast(int32_t kh, int32_t kw, int32_t dh, int32_t dw, int32_t sh, int32_t sw) {
  return kh == 3 && kw == 3 && dh == 1 && dw == 1 && sh == sw && (sw == 1 || sw == 2);
}

// depthwise_scratch_len is the floats a call needs: a row of zeros for
// the fast path, a padded plane for the generic one.
EXPORT(depthwise_scratch_len)(int32_t h, int32_t w, int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                              int32_t sw, int32_t dh, int32_t dw, int32_t pad_t, int32_t pad_l) {
  if (fast(kh, kw, dh, dw, sh, sw)) return w + 16;
  int64_t n = (int64_t)padded_h(h, oh, kh, sh, dh, pad_t) * padded_w(w, ow, kw, sw, dw, pad_l);
  return n > 0x3fffffff ? -1 : (int32_t)n;
}

// finish4 adds the residual and applies the activation.
INLINE v4 finish4(v4 acc, const float* res, int32_t x, int32_t act, v4 lo, v4 hi) {
  if (res) acc = wasm_f32x4_add(acc, wasm_v128_load(res + x));
  return act4(acc, act, lo, hi);
}

#define TAP(acc, wv, v) acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wv, v))

// rows3s1 computes outputs [ox0, ox0 + n4) (n4 a multiple of 4) of one
// stride-1 output row from input rows r0..r2, whose window for output ox
// starts at column ox + dx.
static NOINLINE void rows3s1(int32_t ox0, int32_t n4, int32_t dx, const float* r0, const float* r1, const float* r2,
                             float* out, const float* res, const float* wt, float bias, int32_t act, float flo,
                             float fhi) {
  v4 lo = wasm_f32x4_splat(flo), hi = wasm_f32x4_splat(fhi);
  v4 w0 = wasm_v128_load32_splat(wt + 0), w1 = wasm_v128_load32_splat(wt + 1), w2 = wasm_v128_load32_splat(wt + 2);
  v4 w3 = wasm_v128_load32_splat(wt + 3), w4 = wasm_v128_load32_splat(wt + 4), w5 = wasm_v128_load32_splat(wt + 5);
  v4 w6 = wasm_v128_load32_splat(wt + 6), w7 = wasm_v128_load32_splat(wt + 7), w8 = wasm_v128_load32_splat(wt + 8);
  v4 b = wasm_f32x4_splat(bias);
  // Two groups of 4 outputs per iteration: two independent sums (each is
  // a chain of 9 dependent additions) and half the loop guard's cost.
  int32_t ox = ox0, end = ox0 + n4;
  for (; ox + 8 <= end; ox += 8) {
    int32_t x = ox + dx;
    v4 p = b, q = b;
    v4 l2 = wasm_v128_load(r0 + x + 6), l0 = wasm_v128_load(r0 + x), l1 = wasm_v128_load(r0 + x + 1);
    TAP(p, w0, l0), TAP(p, w1, l1), TAP(p, w2, wasm_v128_load(r0 + x + 2));
    TAP(q, w0, wasm_v128_load(r0 + x + 4)), TAP(q, w1, wasm_v128_load(r0 + x + 5)), TAP(q, w2, l2);
    l2 = wasm_v128_load(r1 + x + 6), l0 = wasm_v128_load(r1 + x), l1 = wasm_v128_load(r1 + x + 1);
    TAP(p, w3, l0), TAP(p, w4, l1), TAP(p, w5, wasm_v128_load(r1 + x + 2));
    TAP(q, w3, wasm_v128_load(r1 + x + 4)), TAP(q, w4, wasm_v128_load(r1 + x + 5)), TAP(q, w5, l2);
    l2 = wasm_v128_load(r2 + x + 6), l0 = wasm_v128_load(r2 + x), l1 = wasm_v128_load(r2 + x + 1);
    TAP(p, w6, l0), TAP(p, w7, l1), TAP(p, w8, wasm_v128_load(r2 + x + 2));
    TAP(q, w6, wasm_v128_load(r2 + x + 4)), TAP(q, w7, wasm_v128_load(r2 + x + 5)), TAP(q, w8, l2);
    wasm_v128_store(out + ox + 4, finish4(q, res, ox + 4, act, lo, hi));
    wasm_v128_store(out + ox, finish4(p, res, ox, act, lo, hi));
  }
  if (ox < end) {
    int32_t x = ox + dx;
    // Each row's furthest load first (one bounds check per row); the sum
    // in the portable kernel's order.
    v4 a2 = wasm_v128_load(r0 + x + 2), a0 = wasm_v128_load(r0 + x), a1 = wasm_v128_load(r0 + x + 1);
    v4 b2 = wasm_v128_load(r1 + x + 2), b0 = wasm_v128_load(r1 + x), b1 = wasm_v128_load(r1 + x + 1);
    v4 c2 = wasm_v128_load(r2 + x + 2), c0 = wasm_v128_load(r2 + x), c1 = wasm_v128_load(r2 + x + 1);
    v4 acc = b;
    TAP(acc, w0, a0), TAP(acc, w1, a1), TAP(acc, w2, a2);
    TAP(acc, w3, b0), TAP(acc, w4, b1), TAP(acc, w5, b2);
    TAP(acc, w6, c0), TAP(acc, w7, c1), TAP(acc, w8, c2);
    wasm_v128_store(out + ox, finish4(acc, res, ox, act, lo, hi));
  }
}

// even and odd deinterleave the 8 values of a and b.
#define EVEN(a, b) wasm_i32x4_shuffle(a, b, 0, 2, 4, 6)
#define ODD(a, b) wasm_i32x4_shuffle(a, b, 1, 3, 5, 7)

// rows3s2 is rows3s1 at stride 2: output ox reads columns 2ox + dx + 0..2.
static NOINLINE void rows3s2(int32_t ox0, int32_t n4, int32_t dx, const float* r0, const float* r1, const float* r2,
                             float* out, const float* res, const float* wt, float bias, int32_t act, float flo,
                             float fhi) {
  v4 lo = wasm_f32x4_splat(flo), hi = wasm_f32x4_splat(fhi);
  v4 w0 = wasm_v128_load32_splat(wt + 0), w1 = wasm_v128_load32_splat(wt + 1), w2 = wasm_v128_load32_splat(wt + 2);
  v4 w3 = wasm_v128_load32_splat(wt + 3), w4 = wasm_v128_load32_splat(wt + 4), w5 = wasm_v128_load32_splat(wt + 5);
  v4 w6 = wasm_v128_load32_splat(wt + 6), w7 = wasm_v128_load32_splat(wt + 7), w8 = wasm_v128_load32_splat(wt + 8);
  v4 b = wasm_f32x4_splat(bias);
  for (int32_t ox = ox0; ox < ox0 + n4; ox += 4) {
    int32_t i = 2 * ox + dx;
    v4 acc = b, a, c, d, f;
    // Columns i.. (c, d) give taps 0 and 1, columns i+2.. (f, a) tap 2.
    a = wasm_v128_load(r0 + i + 6), c = wasm_v128_load(r0 + i), d = wasm_v128_load(r0 + i + 4),
    f = wasm_v128_load(r0 + i + 2);
    TAP(acc, w0, EVEN(c, d)), TAP(acc, w1, ODD(c, d)), TAP(acc, w2, EVEN(f, a));
    a = wasm_v128_load(r1 + i + 6), c = wasm_v128_load(r1 + i), d = wasm_v128_load(r1 + i + 4),
    f = wasm_v128_load(r1 + i + 2);
    TAP(acc, w3, EVEN(c, d)), TAP(acc, w4, ODD(c, d)), TAP(acc, w5, EVEN(f, a));
    a = wasm_v128_load(r2 + i + 6), c = wasm_v128_load(r2 + i), d = wasm_v128_load(r2 + i + 4),
    f = wasm_v128_load(r2 + i + 2);
    TAP(acc, w6, EVEN(c, d)), TAP(acc, w7, ODD(c, d)), TAP(acc, w8, EVEN(f, a));
    wasm_v128_store(out + ox, finish4(acc, res, ox, act, lo, hi));
  }
}

// edge computes output ox of a 3×3 row one value at a time, reading zero
// for the columns outside [0, w).
INLINE float edge(int32_t ox, int32_t s, int32_t dx, int32_t w, const float* r0, const float* r1, const float* r2,
                  const float* wt, float bias) {
  float acc = bias;
  int32_t ix = ox * s + dx;
  for (int32_t kx = 0; kx < 3; kx++)
    if ((uint32_t)(ix + kx) < (uint32_t)w) acc += wt[kx] * r0[ix + kx];
  for (int32_t kx = 0; kx < 3; kx++)
    if ((uint32_t)(ix + kx) < (uint32_t)w) acc += wt[3 + kx] * r1[ix + kx];
  for (int32_t kx = 0; kx < 3; kx++)
    if ((uint32_t)(ix + kx) < (uint32_t)w) acc += wt[6 + kx] * r2[ix + kx];
  return acc;
}

// plane3x3 convolves one plane with the in-place path.
static void plane3x3(const float* in, float* out, const float* res, const float* zero, int32_t h, int32_t w, int32_t oh,
                     int32_t ow, int32_t s, int32_t pad_t, int32_t pad_l, const float* wt, float bias, int32_t act,
                     float flo, float fhi) {
  int32_t dx = -pad_l;
  // A group of 4 outputs from ox reads columns s*ox + dx up to
  // s*ox + dx + reach; groups start at lo (the first ox reading no column
  // left of the plane), and the vector path covers [lo, hi).
  int32_t reach = s == 1 ? 5 : 9;
  int32_t lo = (pad_l + s - 1) / s, hi = lo;
  if (w - 1 - reach - dx >= 0 && lo < ow) {
    int32_t last = (w - 1 - reach - dx) / s; // the last ox a group may start at
    if (last >= lo) hi = lo + 4 * imin((last - lo) / 4 + 1, (ow - lo) / 4);
  }
  for (int32_t oy = 0; oy < oh; oy++) {
    int32_t iy = oy * s - pad_t;
    const float* r0 = (uint32_t)iy < (uint32_t)h ? in + iy * w : zero;
    const float* r1 = (uint32_t)(iy + 1) < (uint32_t)h ? in + (iy + 1) * w : zero;
    const float* r2 = (uint32_t)(iy + 2) < (uint32_t)h ? in + (iy + 2) * w : zero;
    float* orow = out + oy * ow;
    const float* rrow = res ? res + oy * ow : 0;
    if (hi > lo) {
      if (s == 1) rows3s1(lo, hi - lo, dx, r0, r1, r2, orow, rrow, wt, bias, act, flo, fhi);
      else rows3s2(lo, hi - lo, dx, r0, r1, r2, orow, rrow, wt, bias, act, flo, fhi);
    }
    for (int32_t ox = 0; ox < ow; ox++) {
      if (ox == lo && hi > lo) ox = hi;
      if (ox >= ow) break;
      float v = edge(ox, s, dx, w, r0, r1, r2, wt, bias);
      if (rrow) v += rrow[ox];
      orow[ox] = act1(v, act, flo, fhi);
    }
  }
}

// pad_plane copies an h×w plane into the wp-wide padded plane at (pad_t,
// pad_l), zeros elsewhere.
static void pad_plane(float* pad, int32_t hp, int32_t wp, const float* in, int32_t h, int32_t w, int32_t pad_t,
                      int32_t pad_l) {
  int32_t n = hp * wp;
  for (int32_t i = 0; i < n; i++) pad[i] = 0;
  for (int32_t y = 0; y < h; y++)
    for (int32_t x = 0; x < w; x++) pad[(y + pad_t) * wp + pad_l + x] = in[y * w + x];
}

// plane_generic convolves one plane with any filter, stride and dilation,
// one value at a time, over the padded plane.
static void plane_generic(const float* pad, int32_t wp, float* out, const float* res, int32_t oh, int32_t ow,
                          int32_t kh, int32_t kw, int32_t sh, int32_t sw, int32_t dh, int32_t dw, const float* wt,
                          float bias, int32_t act, float lo, float hi) {
  for (int32_t oy = 0; oy < oh; oy++)
    for (int32_t ox = 0; ox < ow; ox++) {
      float acc = bias;
      for (int32_t ky = 0; ky < kh; ky++) {
        const float* r = pad + (oy * sh + ky * dh) * wp + ox * sw;
        for (int32_t kx = 0; kx < kw; kx++) acc += wt[ky * kw + kx] * r[kx * dw];
      }
      if (res) acc += res[oy * ow + ox];
      out[oy * ow + ox] = act1(acc, act, lo, hi);
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
  int in_place = fast(kh, kw, dh, dw, sh, sw);
  int32_t hp = padded_h(h, oh, kh, sh, dh, pad_t), wp = padded_w(w, ow, kw, sw, dw, pad_l);
  if ((in_place ? (int64_t)w + 16 : (int64_t)hp * wp) > scratch_len) return SIMD_ERR_ARG;
  // Each fits in memory (2^30 floats) or the call cannot; their products
  // then cannot wrap.
  uint64_t planes = (uint64_t)n * (uint32_t)c, in = (uint64_t)h * (uint32_t)w, out = (uint64_t)oh * (uint32_t)ow;
  if (planes > ((uint64_t)1 << 30) || in > ((uint64_t)1 << 30) || out > ((uint64_t)1 << 30)) return SIMD_ERR_RANGE;
  if (!span_ok(scratch, scratch_len, 4) || !span_ok(x, planes * in, 4) || !span_ok(y, planes * out, 4) ||
      !span_ok(wts, (uint64_t)c * (uint32_t)kh * (uint32_t)kw, 4) || (bias && !span_ok(bias, c, 4)) ||
      (res && !span_ok(res, planes * out, 4)))
    return SIMD_ERR_RANGE;
  // The in-place path reads rows up to column w - 1 only (edges are
  // computed one at a time), so only the generic path needs windows to
  // fit the padded plane, which padded_h and padded_w guarantee.
  float* pad = (float*)scratch;
  if (in_place)
    for (int32_t i = 0; i < w + 16; i++) pad[i] = 0; // the row of zeros
  for (uint64_t p = 0; p < planes; p++) {
    int32_t ch = (int32_t)(p % (uint32_t)c);
    const float* wt = (const float*)wts + ch * kh * kw;
    float b = bias ? ((const float*)bias)[ch] : 0;
    const float* xp = (const float*)x + p * in;
    float* yp = (float*)y + p * out;
    const float* rp = res ? (const float*)res + p * out : 0;
    if (in_place) {
      plane3x3(xp, yp, rp, pad, h, w, oh, ow, sh, pad_t, pad_l, wt, b, act, lo, hi);
    } else {
      pad_plane(pad, hp, wp, xp, h, w, pad_t, pad_l);
      plane_generic(pad, wp, yp, rp, oh, ow, kh, kw, sh, sw, dh, dw, wt, b, act, lo, hi);
    }
  }
  return SIMD_OK;
}
