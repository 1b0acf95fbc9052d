// Depthwise convolution (one filter per channel) with bias, residual and
// activation fused. 3×3 filters with unit dilation at stride 1 or 2 (what
// MobileNet-style models use) copy each input plane into a zero-bordered
// scratch plane (at stride 2 split into its even and odd columns, so that
// no tap needs a shuffle) and compute every output row four values at a
// time: no output is computed one at a time, which on MobileNet's 7×7 and
// 14×14 planes was most of the work. Anything else copies each plane into
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

// fast reports whether the bordered 3×3 path serves the shape.
INLINE int fast(int32_t kh, int32_t kw, int32_t dh, int32_t dw, int32_t sh, int32_t sw) {
  return kh == 3 && kw == 3 && dh == 1 && dw == 1 && sh == sw && (sw == 1 || sw == 2);
}

// The fast path's bordered plane: rows of fast_w floats (at stride 2,
// each of the two column planes), enough that the last group of 4 outputs
// of a row reads inside it.
INLINE int64_t fast_groups(int32_t ow) { return ((int64_t)ow + 3) / 4; }

INLINE int64_t fast_w(int32_t w, int32_t ow, int32_t s, int32_t pad_l) {
  int64_t cols = (int64_t)w + pad_l, reach = (int64_t)4 * fast_groups(ow) + 2; // columns the groups read (stride 1)
  if (s == 1) return cols > reach ? cols : reach;
  cols = (cols + 1) / 2, reach = (int64_t)4 * fast_groups(ow) + 1; // at stride 2, per column plane
  return cols > reach ? cols : reach;
}

// FAST_TMP is the scratch after the plane(s): a row tail's 4 outputs.
#define FAST_TMP 4

INLINE int64_t fast_rows(int32_t h, int32_t oh, int32_t s, int32_t pad_t) {
  int64_t rows = (int64_t)h + pad_t, reach = (int64_t)(oh - 1) * s + 3;
  return rows > reach ? rows : reach;
}

// fast_len is the fast path's scratch in floats (2^62 where it cannot
// fit memory).
INLINE int64_t fast_len(int32_t h, int32_t w, int32_t oh, int32_t ow, int32_t s, int32_t pad_t, int32_t pad_l) {
  int64_t rows = fast_rows(h, oh, s, pad_t), cols = fast_w(w, ow, s, pad_l);
  if (rows > ((int64_t)1 << 30) || cols > ((int64_t)1 << 30)) return (int64_t)1 << 62;
  return rows * cols * s + FAST_TMP;
}

// depthwise_scratch_len is the floats a call needs: the bordered plane for
// the fast path, a padded plane for the generic one.
EXPORT(depthwise_scratch_len)(int32_t h, int32_t w, int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                              int32_t sw, int32_t dh, int32_t dw, int32_t pad_t, int32_t pad_l) {
  int64_t n = fast(kh, kw, dh, dw, sh, sw) ? fast_len(h, w, oh, ow, sh, pad_t, pad_l)
                                           : (int64_t)padded_h(h, oh, kh, sh, dh, pad_t) * padded_w(w, ow, kw, sw, dw, pad_l);
  return n > 0x3fffffff ? -1 : (int32_t)n;
}

// finish4 adds the residual and applies the activation.
INLINE v4 finish4(v4 acc, const float* res, int32_t x, int32_t act, v4 lo, v4 hi) {
  if (res) acc = wasm_f32x4_add(acc, wasm_v128_load(res + x));
  return act4(acc, act, lo, hi);
}

#define TAP(acc, wv, v) acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wv, v))

// A 3×3 row pass: the filter and bias splatted once, then `rows` output
// rows of n4 outputs each (a multiple of 4), four at a time. Output row i
// is out + i·ow (residual res + i·ow) and reads bordered rows from in +
// i·step: at stride 1 rows in, in + bw, in + 2bw, output ox reading
// columns ox..ox+2; at stride 2 the same rows of the even column plane
// (e[ox], e[ox + 1]) and of the odd one `odd` floats on (o[ox]). One call
// per plane (and one per row tail): wazero's calls and splats cost more
// than a 7×7 plane's arithmetic.
#define DW_SETUP                                                                                                      \
  v4 lo = wasm_f32x4_splat(flo), hi = wasm_f32x4_splat(fhi);                                                          \
  v4 w0 = wasm_v128_load32_splat(wt + 0), w1 = wasm_v128_load32_splat(wt + 1), w2 = wasm_v128_load32_splat(wt + 2);   \
  v4 w3 = wasm_v128_load32_splat(wt + 3), w4 = wasm_v128_load32_splat(wt + 4), w5 = wasm_v128_load32_splat(wt + 5);   \
  v4 w6 = wasm_v128_load32_splat(wt + 6), w7 = wasm_v128_load32_splat(wt + 7), w8 = wasm_v128_load32_splat(wt + 8);   \
  v4 b = wasm_f32x4_splat(bias);

static NOINLINE void pass3s1(int32_t rows, int32_t n4, const float* in, int32_t bw, int32_t step, float* out,
                             int32_t ow, const float* res, const float* wt, float bias, int32_t act, float flo,
                             float fhi) {
  DW_SETUP
  for (int32_t row = 0; row < rows; row++, in += step, out += ow, res = res ? res + ow : 0) {
    const float *r0 = in, *r1 = in + bw, *r2 = in + 2 * bw;
    int32_t ox = 0;
    // Two groups of 4 outputs per iteration: two independent sums (each
    // a chain of 9 dependent additions, in the portable kernel's order).
    for (; ox + 8 <= n4; ox += 8) {
      v4 p = b, q = b;
      v4 l2 = wasm_v128_load(r0 + ox + 6), l0 = wasm_v128_load(r0 + ox), l1 = wasm_v128_load(r0 + ox + 1);
      TAP(p, w0, l0), TAP(p, w1, l1), TAP(p, w2, wasm_v128_load(r0 + ox + 2));
      TAP(q, w0, wasm_v128_load(r0 + ox + 4)), TAP(q, w1, wasm_v128_load(r0 + ox + 5)), TAP(q, w2, l2);
      l2 = wasm_v128_load(r1 + ox + 6), l0 = wasm_v128_load(r1 + ox), l1 = wasm_v128_load(r1 + ox + 1);
      TAP(p, w3, l0), TAP(p, w4, l1), TAP(p, w5, wasm_v128_load(r1 + ox + 2));
      TAP(q, w3, wasm_v128_load(r1 + ox + 4)), TAP(q, w4, wasm_v128_load(r1 + ox + 5)), TAP(q, w5, l2);
      l2 = wasm_v128_load(r2 + ox + 6), l0 = wasm_v128_load(r2 + ox), l1 = wasm_v128_load(r2 + ox + 1);
      TAP(p, w6, l0), TAP(p, w7, l1), TAP(p, w8, wasm_v128_load(r2 + ox + 2));
      TAP(q, w6, wasm_v128_load(r2 + ox + 4)), TAP(q, w7, wasm_v128_load(r2 + ox + 5)), TAP(q, w8, l2);
      wasm_v128_store(out + ox + 4, finish4(q, res, ox + 4, act, lo, hi));
      wasm_v128_store(out + ox, finish4(p, res, ox, act, lo, hi));
    }
    if (ox < n4) {
      // Each row's furthest load first (one bounds check per row).
      v4 a2 = wasm_v128_load(r0 + ox + 2), a0 = wasm_v128_load(r0 + ox), a1 = wasm_v128_load(r0 + ox + 1);
      v4 b2 = wasm_v128_load(r1 + ox + 2), b0 = wasm_v128_load(r1 + ox), b1 = wasm_v128_load(r1 + ox + 1);
      v4 c2 = wasm_v128_load(r2 + ox + 2), c0 = wasm_v128_load(r2 + ox), c1 = wasm_v128_load(r2 + ox + 1);
      v4 acc = b;
      TAP(acc, w0, a0), TAP(acc, w1, a1), TAP(acc, w2, a2);
      TAP(acc, w3, b0), TAP(acc, w4, b1), TAP(acc, w5, b2);
      TAP(acc, w6, c0), TAP(acc, w7, c1), TAP(acc, w8, c2);
      wasm_v128_store(out + ox, finish4(acc, res, ox, act, lo, hi));
    }
  }
}

// even and odd deinterleave the 8 values of a and b.
#define EVEN(a, b) wasm_i32x4_shuffle(a, b, 0, 2, 4, 6)
#define ODD(a, b) wasm_i32x4_shuffle(a, b, 1, 3, 5, 7)

static NOINLINE void pass3s2(int32_t rows, int32_t n4, const float* in, int32_t bw, int32_t step, int32_t odd,
                             float* out, int32_t ow, const float* res, const float* wt, float bias, int32_t act,
                             float flo, float fhi) {
  DW_SETUP
  for (int32_t row = 0; row < rows; row++, in += step, out += ow, res = res ? res + ow : 0) {
    const float *e0 = in, *e1 = in + bw, *e2 = in + 2 * bw;
    const float *o0 = e0 + odd, *o1 = e1 + odd, *o2 = e2 + odd;
    int32_t ox = 0;
    for (; ox + 8 <= n4; ox += 8) { // two groups per iteration (see pass3s1)
      v4 p = b, q = b;
      v4 l2 = wasm_v128_load(e0 + ox + 5);
      TAP(p, w0, wasm_v128_load(e0 + ox)), TAP(p, w1, wasm_v128_load(o0 + ox)), TAP(p, w2, wasm_v128_load(e0 + ox + 1));
      TAP(q, w0, wasm_v128_load(e0 + ox + 4)), TAP(q, w1, wasm_v128_load(o0 + ox + 4)), TAP(q, w2, l2);
      l2 = wasm_v128_load(e1 + ox + 5);
      TAP(p, w3, wasm_v128_load(e1 + ox)), TAP(p, w4, wasm_v128_load(o1 + ox)), TAP(p, w5, wasm_v128_load(e1 + ox + 1));
      TAP(q, w3, wasm_v128_load(e1 + ox + 4)), TAP(q, w4, wasm_v128_load(o1 + ox + 4)), TAP(q, w5, l2);
      l2 = wasm_v128_load(e2 + ox + 5);
      TAP(p, w6, wasm_v128_load(e2 + ox)), TAP(p, w7, wasm_v128_load(o2 + ox)), TAP(p, w8, wasm_v128_load(e2 + ox + 1));
      TAP(q, w6, wasm_v128_load(e2 + ox + 4)), TAP(q, w7, wasm_v128_load(o2 + ox + 4)), TAP(q, w8, l2);
      wasm_v128_store(out + ox + 4, finish4(q, res, ox + 4, act, lo, hi));
      wasm_v128_store(out + ox, finish4(p, res, ox, act, lo, hi));
    }
    if (ox < n4) {
      v4 acc = b;
      v4 a2 = wasm_v128_load(e0 + ox + 1), a0 = wasm_v128_load(e0 + ox), a1 = wasm_v128_load(o0 + ox);
      TAP(acc, w0, a0), TAP(acc, w1, a1), TAP(acc, w2, a2);
      a2 = wasm_v128_load(e1 + ox + 1), a0 = wasm_v128_load(e1 + ox), a1 = wasm_v128_load(o1 + ox);
      TAP(acc, w3, a0), TAP(acc, w4, a1), TAP(acc, w5, a2);
      a2 = wasm_v128_load(e2 + ox + 1), a0 = wasm_v128_load(e2 + ox), a1 = wasm_v128_load(o2 + ox);
      TAP(acc, w6, a0), TAP(acc, w7, a1), TAP(acc, w8, a2);
      wasm_v128_store(out + ox, finish4(acc, res, ox, act, lo, hi));
    }
  }
}

// fill_plane copies an h×w plane into the bordered plane (rows bw floats
// apart, its first row and column at pad_t and pad_l): as it is at stride
// 1, split into even and odd column planes (the odd one hp·bw floats on)
// at stride 2. The border, zeroed once per call, is never written.
static void fill_plane(float* dst, int32_t bw, int32_t hp, const float* in, int32_t h, int32_t w, int32_t s,
                       int32_t pad_t, int32_t pad_l) {
  for (int32_t y = 0; y < h; y++) {
    const float* src = in + y * w;
    float* row = dst + (y + pad_t) * bw;
    if (s == 1) {
      copy_floats(row + pad_l, src, w);
      continue;
    }
    // Input column x is bordered column pad_l + x: plane (pad_l + x) % 2,
    // index (pad_l + x) / 2. ev receives the even x, od the odd x.
    float* ev = row + (pad_l & 1) * hp * bw + pad_l / 2;
    float* od = row + ((pad_l + 1) & 1) * hp * bw + (pad_l + 1) / 2;
    int32_t x = 0;
    for (; x + 8 <= w; x += 8) {
      v4 a = wasm_v128_load(src + x + 4), b = wasm_v128_load(src + x);
      wasm_v128_store(ev + x / 2, EVEN(b, a));
      wasm_v128_store(od + x / 2, ODD(b, a));
    }
    if (x + 4 <= w) {
      v4 a = wasm_v128_load(src + x);
      wasm_v128_store64_lane(ev + x / 2, EVEN(a, a), 0);
      wasm_v128_store64_lane(od + x / 2, ODD(a, a), 0);
      x += 4;
    }
    for (; x < w; x++) {
      if (x & 1) od[x / 2] = src[x];
      else ev[x / 2] = src[x];
    }
  }
}

// pass3 is pass3s1 or pass3s2 by the stride s.
INLINE void pass3(int32_t s, int32_t rows, int32_t n4, const float* in, int32_t bw, int32_t odd, float* out, int32_t ow,
                  const float* res, const float* wt, float bias, int32_t act, float flo, float fhi) {
  if (s == 1) pass3s1(rows, n4, in, bw, bw, out, ow, res, wt, bias, act, flo, fhi);
  else pass3s2(rows, n4, in, bw, 2 * bw, odd, out, ow, res, wt, bias, act, flo, fhi);
}

// plane3x3 convolves one bordered plane (rows bw floats apart; at stride
// 2 the odd column plane hp·bw floats after the even one) into out.
// spill: rows may be written whole groups wide, the last group spilling
// into the next row's first outputs before that row overwrites them (out
// and res do not overlap, ow ≥ 2); the last row, and every row without
// spill, ends with a partial group computed into tmp.
static void plane3x3(const float* pl, int32_t bw, int32_t hp, float* out, const float* res, float* tmp, int32_t oh,
                     int32_t ow, int32_t s, int spill, const float* wt, float bias, int32_t act, float flo, float fhi) {
  int32_t full = ow / 4 * 4, tail = ow - full, odd = hp * bw;
  if (!tail) {
    pass3(s, oh, full, pl, bw, odd, out, ow, res, wt, bias, act, flo, fhi);
    return;
  }
  int32_t oy = 0;
  if (spill && oh > 1) {
    pass3(s, oh - 1, full + 4, pl, bw, odd, out, ow, res, wt, bias, act, flo, fhi);
    oy = oh - 1;
  }
  for (; oy < oh; oy++) {
    const float* in = pl + oy * s * bw;
    float* orow = out + oy * ow;
    const float* rrow = res ? res + oy * ow : 0;
    if (full) pass3(s, 1, full, in, bw, odd, orow, ow, rrow, wt, bias, act, flo, fhi);
    pass3(s, 1, 4, in + full, bw, odd, tmp, 4, 0, wt, bias, 0, 0, 0);
    for (int32_t i = 0; i < tail; i++) {
      float v = tmp[i];
      if (rrow) v += rrow[full + i];
      orow[full + i] = act1(v, act, flo, fhi);
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
  int bordered = fast(kh, kw, dh, dw, sh, sw);
  int32_t hp = padded_h(h, oh, kh, sh, dh, pad_t), wp = padded_w(w, ow, kw, sw, dw, pad_l);
  int64_t need = bordered ? fast_len(h, w, oh, ow, sh, pad_t, pad_l) : (int64_t)hp * wp;
  if (need > scratch_len) return SIMD_ERR_ARG;
  // Each fits in memory (2^30 floats) or the call cannot; their products
  // then cannot wrap.
  uint64_t planes = (uint64_t)n * (uint32_t)c, in = (uint64_t)h * (uint32_t)w, out = (uint64_t)oh * (uint32_t)ow;
  if (planes > ((uint64_t)1 << 30) || in > ((uint64_t)1 << 30) || out > ((uint64_t)1 << 30)) return SIMD_ERR_RANGE;
  if (!span_ok(scratch, scratch_len, 4) || !span_ok(x, planes * in, 4) || !span_ok(y, planes * out, 4) ||
      !span_ok(wts, (uint64_t)c * (uint32_t)kh * (uint32_t)kw, 4) || (bias && !span_ok(bias, c, 4)) ||
      (res && !span_ok(res, planes * out, 4)))
    return SIMD_ERR_RANGE;
  // Both paths' windows fit their planes: padded_h and padded_w for the
  // generic one, fast_w for the fast one (its rows reach every group).
  float* pad = (float*)scratch;
  int32_t bw = bordered ? (int32_t)fast_w(w, ow, sh, pad_l) : 0;
  if (bordered) hp = (int32_t)fast_rows(h, oh, sh, pad_t);
  float* tmp = pad + (need - FAST_TMP);
  if (bordered) zero_floats(pad, (int32_t)need); // the border
  // Spilling rows (plane3x3) rewrites outputs before their residual is
  // read: only where the output and the residual are apart.
  uint64_t yb = y, rb = res, bytes = planes * out * 4;
  int spill = ow >= 2 && (!res || rb + bytes <= yb || yb + bytes <= rb);
  for (uint64_t p = 0; p < planes; p++) {
    int32_t ch = (int32_t)(p % (uint32_t)c);
    const float* wt = (const float*)wts + ch * kh * kw;
    float b = bias ? ((const float*)bias)[ch] : 0;
    const float* xp = (const float*)x + p * in;
    float* yp = (float*)y + p * out;
    const float* rp = res ? (const float*)res + p * out : 0;
    if (bordered) {
      fill_plane(pad, bw, hp, xp, h, w, sh, pad_t, pad_l);
      plane3x3(pad, bw, hp, yp, rp, tmp, oh, ow, sh, spill, wt, b, act, lo, hi);
    } else {
      pad_plane(pad, hp, wp, xp, h, w, pad_t, pad_l);
      plane_generic(pad, wp, yp, rp, oh, ow, kh, kw, sh, sw, dh, dw, wt, b, act, lo, hi);
    }
  }
  return SIMD_OK;
}
