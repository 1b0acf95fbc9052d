// Winograd minimal filtering F(m×m, 3×3) for 3×3 convolutions of stride
// 1, dilation 1 and one group: each m×m output tile is
//
//	Y = Aᵀ [ Σ_cin (G g Gᵀ) ⊙ (Bᵀ d B) ] A
//
// over (m+2)×(m+2) input tiles d, so the multiplies become one GEMM per
// frequency ξ of the (m+2)² (U[ξ] = Cout×Cin, V[ξ] = Cin×tiles): 2.25×
// fewer than the direct convolution for m = 2, 4× for m = 4. The weights
// U = G g Gᵀ are transformed and packed at load (kernels.Conv, 8-row
// panels per frequency, as the GEMM's A); per call the input is padded
// once, then tiles are processed in blocks of nt: input transform into V
// (plain rows), each frequency's GEMM on the 8×6 micro-kernel into the
// products P, and the output transform with the epilogue (bias, residual,
// activation) into y.
//
// The transforms are vectorized over 4 tiles (input) or 4 output channels
// (output), so that they are adds and multiplies by constants with no
// shuffle but the 4×4 transposes at their ends.
#include "kernels.h"

// wino_desc mirrors kernels.simdWinoDesc (winograd_wasm.go).
typedef struct {
  int32_t n, cin, h, w, cout, oh, ow, pad_t, pad_l;
  int32_t m;  // output tile: 2 or 4
  int32_t nt; // tiles per block: a multiple of 12, at most NC
  uint32_t x, u, y, bias, res;
  int32_t act;
  float lo, hi;
  uint32_t scratch;    // floats, aligned to 16 bytes
  int32_t scratch_len; // in floats: at least wino_scratch_len()
} wino_desc;
_Static_assert(sizeof(wino_desc) == 84, "wino_desc changed: update winograd_wasm.go and its size");

#define TMP_LEN (2 * 36 * 4) // two transform temporaries of (m+2)² vectors
#define MAX_SCRATCH ((int64_t)1 << 28)

// wino_len is the scratch a call needs in floats: packed B of one block,
// one micro tile, the temporaries, V, P and the padded input; -1 when the
// arguments are out of range or it exceeds MAX_SCRATCH.
static int64_t wino_len(int32_t n, int32_t cin, int32_t cout, int32_t oh, int32_t ow, int32_t m, int32_t nt) {
  if (n < 0 || cin <= 0 || cout <= 0 || oh <= 0 || ow <= 0 || (m != 2 && m != 4) || nt < 12 || nt > NC || nt % 12)
    return -1;
  if (n > MAX_SCRATCH || cin > MAX_SCRATCH || cout > MAX_SCRATCH || oh > MAX_SCRATCH || ow > MAX_SCRATCH) return -1;
  int64_t alpha = m + 2, t = alpha * alpha;
  int64_t th = (oh + m - 1) / m, tw = (ow + m - 1) / m;
  int64_t pp = (th * m + 2) * (tw * m + 2);
  int64_t mp8 = ((int64_t)cout + MR - 1) / MR * MR;
  if (pp > MAX_SCRATCH || (int64_t)n * cin > MAX_SCRATCH) return -1;
  int64_t padded = (int64_t)n * cin * pp;
  if (padded > MAX_SCRATCH) return -1;
  int64_t len = (int64_t)KC * nt * 4 + MR * NR + TMP_LEN + t * cin * nt + t * mp8 * nt + padded;
  return len > MAX_SCRATCH ? -1 : len;
}

EXPORT(wino_scratch_len)(int32_t n, int32_t cin, int32_t cout, int32_t oh, int32_t ow, int32_t m, int32_t nt) {
  return (int32_t)wino_len(n, cin, cout, oh, ow, m, nt);
}

static int32_t wino_check(const wino_desc* d) {
  if (d->h <= 0 || d->w <= 0 || d->pad_t < 0 || d->pad_l < 0 || d->act < 0 || d->act > ACT_CLIP) return SIMD_ERR_ARG;
  int64_t need = wino_len(d->n, d->cin, d->cout, d->oh, d->ow, d->m, d->nt);
  if (need < 0 || d->scratch % 16 != 0 || d->scratch_len < need) return SIMD_ERR_ARG;
  if ((int64_t)d->h * d->w > MAX_SCRATCH || (int64_t)d->oh * d->ow > MAX_SCRATCH) return SIMD_ERR_ARG;
  uint64_t alpha = (uint64_t)d->m + 2, mp8 = ((uint64_t)d->cout + MR - 1) / MR * MR;
  uint64_t xlen = (uint64_t)d->n * (uint32_t)d->cin * (uint32_t)d->h * (uint32_t)d->w;
  uint64_t ylen = (uint64_t)d->n * (uint32_t)d->cout * (uint32_t)d->oh * (uint32_t)d->ow;
  if (!span_ok(d->scratch, (uint32_t)d->scratch_len, 4) || !span_ok(d->x, xlen, 4) ||
      !span_ok(d->u, alpha * alpha * mp8 * (uint32_t)d->cin, 4) || !span_ok(d->y, ylen, 4) ||
      (d->res && !span_ok(d->res, ylen, 4)) || (d->bias && !span_ok(d->bias, (uint32_t)d->cout, 4)))
    return SIMD_ERR_RANGE;
  // The call writes the scratch and y: neither may lie over the
  // descriptor or the other.
  uint32_t self = (uint32_t)(uintptr_t)d;
  uint64_t sb = (uint64_t)(uint32_t)d->scratch_len * 4, yb = ylen * 4;
  if (!apart(d->scratch, sb, self, sizeof(wino_desc)) || !apart(d->y, yb, self, sizeof(wino_desc)) ||
      !apart(d->y, yb, d->scratch, sb))
    return SIMD_ERR_RANGE;
  return SIMD_OK;
}

// pad_image copies the planes of x into padded planes of ph×pw (zeros
// around and past the image), one row per iteration.
static void pad_image(float* dst, const float* x, int32_t planes, int32_t h, int32_t w, int32_t ph, int32_t pw,
                      int32_t pad_t, int32_t pad_l) {
  int32_t left = imin(pad_l, pw), run = imax(0, imin(w, pw - pad_l));
  for (int32_t p = 0; p < planes; p++) {
    const float* src = x + p * h * w;
    float* out = dst + p * ph * pw;
    for (int32_t py = 0; py < ph; py++, out += pw) {
      int32_t iy = py - pad_t;
      if (iy < 0 || iy >= h) {
        zero_floats(out, pw);
        continue;
      }
      zero_floats(out, left);
      copy_floats(out + left, src + iy * w, run);
      zero_floats(out + left + run, pw - left - run);
    }
  }
}

#define ADD wasm_f32x4_add
#define SUB wasm_f32x4_sub
#define MUL wasm_f32x4_mul
#define K(c) wasm_f32x4_splat(c)
#define LD(p) wasm_v128_load(p)
#define ST(p, v) wasm_v128_store(p, v)

// TRANSPOSE4 transposes the 4×4 matrix of rows a, b, c, d in place.
#define TRANSPOSE4(a, b, c, d)                                                           \
  {                                                                                      \
    v4 t0_ = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), t1_ = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); \
    v4 t2_ = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), t3_ = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7); \
    a = wasm_i32x4_shuffle(t0_, t2_, 0, 1, 4, 5), b = wasm_i32x4_shuffle(t0_, t2_, 2, 3, 6, 7); \
    c = wasm_i32x4_shuffle(t1_, t3_, 0, 1, 4, 5), d = wasm_i32x4_shuffle(t1_, t3_, 2, 3, 6, 7); \
  }

// ---- F(2×2, 3×3): Bᵀ (4×4), Aᵀ (2×4) ----

// BT4 stores Bᵀ·(d0..d3) at o, o+os, o+2os, o+3os.
#define BT4(o, os, d0, d1, d2, d3)                                                \
  {                                                                               \
    ST((o) + 3 * (os), SUB(d1, d3));                                              \
    ST((o), SUB(d0, d2)), ST((o) + (os), ADD(d1, d2)), ST((o) + 2 * (os), SUB(d2, d1)); \
  }

// input_f2 transforms channel c of 4 tiles (padded-plane offsets o0..o3)
// into V: frequency ξ = 4r+k at v + ξ·vs.
INLINE void input_f2(const float* p0, const float* p1, const float* p2, const float* p3, int32_t pw, float* tmp,
                     float* v, int32_t vs) {
  for (int32_t r = 0; r < 4; r++) {
    v4 a = LD(p0 + r * pw), b = LD(p1 + r * pw), c = LD(p2 + r * pw), d = LD(p3 + r * pw);
    TRANSPOSE4(a, b, c, d) // a..d: columns 0..3 of row r, one lane per tile
    BT4(tmp + r * 16, 4, a, b, c, d)
  }
  for (int32_t k = 0; k < 4; k++) {
    const float* t = tmp + k * 4;
    BT4(v + k * vs, 4 * vs, LD(t), LD(t + 16), LD(t + 32), LD(t + 48))
  }
}

// AT4 stores Aᵀ·(m0..m3) at o and o+os.
#define AT4(o, os, m0, m1, m2, m3)                                                             \
  {                                                                                            \
    v4 s_ = ADD(m1, m2);                                                                       \
    ST((o) + (os), SUB(SUB(m1, m2), m3)), ST((o), ADD(m0, s_));                                \
  }

// ---- F(4×4, 3×3): Bᵀ (6×6), Aᵀ (4×6) ----

// BT6 stores Bᵀ·(d0..d5) at o + i·os.
#define BT6(o, os, d0, d1, d2, d3, d4, d5)                                          \
  {                                                                                 \
    v4 f4_ = K(4), f2_ = K(2), f5_ = K(5);                                          \
    v4 a_ = SUB(d4, MUL(f4_, d2)), b_ = SUB(d3, MUL(f4_, d1));                      \
    v4 c_ = SUB(d4, d2), e_ = MUL(f2_, SUB(d3, d1));                                 \
    ST((o) + 5 * (os), ADD(SUB(MUL(f4_, d1), MUL(f5_, d3)), d5));                    \
    ST((o), ADD(SUB(MUL(f4_, d0), MUL(f5_, d2)), d4));                               \
    ST((o) + (os), ADD(a_, b_)), ST((o) + 2 * (os), SUB(a_, b_));                    \
    ST((o) + 3 * (os), ADD(c_, e_)), ST((o) + 4 * (os), SUB(c_, e_));                \
  }

// input_f4 is input_f2 for 6×6 tiles: a row of 4 tiles is a 4×4 transpose
// of their first four columns and two pairs for the last two.
INLINE void input_f4(const float* p0, const float* p1, const float* p2, const float* p3, int32_t pw, float* tmp,
                     float* v, int32_t vs) {
  for (int32_t r = 0; r < 6; r++) {
    const float *q0 = p0 + r * pw, *q1 = p1 + r * pw, *q2 = p2 + r * pw, *q3 = p3 + r * pw;
    v4 e0 = wasm_v128_load64_zero(q0 + 4), e1 = wasm_v128_load64_zero(q1 + 4);
    v4 e2 = wasm_v128_load64_zero(q2 + 4), e3 = wasm_v128_load64_zero(q3 + 4);
    v4 a = LD(q0), b = LD(q1), c = LD(q2), d = LD(q3);
    TRANSPOSE4(a, b, c, d)
    v4 e01 = wasm_i32x4_shuffle(e0, e1, 0, 4, 1, 5), e23 = wasm_i32x4_shuffle(e2, e3, 0, 4, 1, 5);
    v4 c4 = wasm_i32x4_shuffle(e01, e23, 0, 1, 4, 5), c5 = wasm_i32x4_shuffle(e01, e23, 2, 3, 6, 7);
    BT6(tmp + r * 24, 4, a, b, c, d, c4, c5)
  }
  for (int32_t k = 0; k < 6; k++) {
    const float* t = tmp + k * 4;
    BT6(v + k * vs, 6 * vs, LD(t), LD(t + 24), LD(t + 48), LD(t + 72), LD(t + 96), LD(t + 120))
  }
}

// AT6 stores Aᵀ·(m0..m5) at o + i·os.
#define AT6(o, os, m0, m1, m2, m3, m4, m5)                                            \
  {                                                                                   \
    v4 s12_ = ADD(m1, m2), d12_ = SUB(m1, m2), s34_ = ADD(m3, m4), d34_ = SUB(m3, m4); \
    ST((o) + 3 * (os), ADD(ADD(d12_, MUL(K(8), d34_)), m5));                          \
    ST((o), ADD(ADD(m0, s12_), s34_));                                                \
    ST((o) + (os), ADD(d12_, MUL(K(2), d34_)));                                       \
    ST((o) + 2 * (os), ADD(s12_, MUL(K(4), s34_)));                                   \
  }

// ---- the output tiles with the epilogue ----

// out_ctx is what the output transform needs besides the tile: kept in
// the scratch, since a local struct whose address is taken would need a
// shadow stack.
typedef struct {
  float* y;
  const float *bias, *res;
  int32_t cout, oh, ow, m, act;
  float lo, hi;
} out_ctx;

// store_row stores row q of output channel co of the rows' values v (m
// columns from ox), adding the residual and applying the activation.
INLINE void store_row(const out_ctx* s, v4 v, int32_t plane, int32_t oy, int32_t ox, v4 lo, v4 hi) {
  int32_t off = plane * s->oh * s->ow + oy * s->ow + ox, cols = imin(s->m, s->ow - ox);
  float* p = s->y + off;
  if (cols == 4) {
    if (s->res) v = ADD(v, LD(s->res + off));
    ST(p, act4(v, s->act, lo, hi));
    return;
  }
  if (cols == 2 && s->m == 2) {
    if (s->res) v = ADD(v, wasm_v128_load64_zero(s->res + off));
    wasm_v128_store64_lane(p, act4(v, s->act, lo, hi), 0);
    return;
  }
  float t0 = wasm_f32x4_extract_lane(v, 0), t1 = wasm_f32x4_extract_lane(v, 1), t2 = wasm_f32x4_extract_lane(v, 2);
  for (int32_t j = 0; j < cols; j++) {
    float f = j == 0 ? t0 : (j == 1 ? t1 : t2);
    if (s->res) f += s->res[off + j];
    p[j] = act1(f, s->act, s->lo, s->hi);
  }
}

// output_tile stores the m×m tile of 4 output channels from co (fewer at
// the end) of image img at (ty, tx): rows i of t (m vectors each, one lane
// per channel), plus the bias.
static void output_tile(const out_ctx* sp, const float* t, int32_t img, int32_t co, int32_t ty, int32_t tx) {
  const out_ctx sc = *sp; // a copy in locals: stores into y may alias *sp
  const out_ctx* s = &sc;
  int32_t m = s->m, chans = imin(4, s->cout - co);
  v4 b = K(0);
  if (s->bias) {
    b = chans == 4 ? LD(s->bias + co)
                   : wasm_f32x4_make(s->bias[co], chans > 1 ? s->bias[co + 1] : 0, chans > 2 ? s->bias[co + 2] : 0, 0);
  }
  v4 lo = K(s->lo), hi = K(s->hi);
  int32_t plane = img * s->cout + co;
  for (int32_t i = 0; i < m && ty * m + i < s->oh; i++) {
    int32_t oy = ty * m + i, ox = tx * m;
    const float* r = t + i * m * 4;
    if (m == 4) {
      v4 c0 = ADD(LD(r), b), c1 = ADD(LD(r + 4), b), c2 = ADD(LD(r + 8), b), c3 = ADD(LD(r + 12), b);
      TRANSPOSE4(c0, c1, c2, c3) // c0..c3: the row of channels co..co+3
      store_row(s, c0, plane, oy, ox, lo, hi);
      if (chans > 1) store_row(s, c1, plane + 1, oy, ox, lo, hi);
      if (chans > 2) store_row(s, c2, plane + 2, oy, ox, lo, hi);
      if (chans > 3) store_row(s, c3, plane + 3, oy, ox, lo, hi);
    } else {
      v4 c0 = ADD(LD(r), b), c1 = ADD(LD(r + 4), b);
      v4 p01 = wasm_i32x4_shuffle(c0, c1, 0, 4, 1, 5), p23 = wasm_i32x4_shuffle(c0, c1, 2, 6, 3, 7);
      store_row(s, p01, plane, oy, ox, lo, hi);
      if (chans > 1) store_row(s, wasm_i32x4_shuffle(p01, p01, 2, 3, 2, 3), plane + 1, oy, ox, lo, hi);
      if (chans > 2) store_row(s, p23, plane + 2, oy, ox, lo, hi);
      if (chans > 3) store_row(s, wasm_i32x4_shuffle(p23, p23, 2, 3, 2, 3), plane + 3, oy, ox, lo, hi);
    }
  }
}

// output_block transforms the products of a block's nb tiles (from tile
// t0) and stores them: P holds, per frequency (ps floats apart) and
// 8-channel panel, nt tiles of 8 channels.
static void output_block(const out_ctx* s, const float* prod, int32_t ps, int32_t nt, int32_t t0, int32_t nb,
                         int32_t tpi, int32_t tw, float* tmp) {
  const int32_t m = s->m, cout = s->cout;
  float* z = tmp + 36 * 4;
  for (int32_t co = 0; co < cout; co += 4) {
    const float* pc = prod + (co / MR) * nt * MR + co % MR;
    for (int32_t j = 0; j < nb; j++) {
      const float* q = pc + j * MR;
      if (m == 4) {
        for (int32_t r = 0; r < 6; r++) {
          const float* g = q + r * 6 * ps;
          AT6(tmp + r * 16, 4, LD(g), LD(g + ps), LD(g + 2 * ps), LD(g + 3 * ps), LD(g + 4 * ps), LD(g + 5 * ps))
        }
        for (int32_t c = 0; c < 4; c++) {
          const float* g = tmp + c * 4;
          AT6(z + c * 4, 16, LD(g), LD(g + 16), LD(g + 32), LD(g + 48), LD(g + 64), LD(g + 80))
        }
      } else {
        for (int32_t r = 0; r < 4; r++) {
          const float* g = q + r * 4 * ps;
          AT4(tmp + r * 8, 4, LD(g), LD(g + ps), LD(g + 2 * ps), LD(g + 3 * ps))
        }
        for (int32_t c = 0; c < 2; c++) {
          const float* g = tmp + c * 4;
          AT4(z + c * 4, 8, LD(g), LD(g + 8), LD(g + 16), LD(g + 24))
        }
      }
      int32_t ti = t0 + j, img = ti / tpi, r = ti % tpi;
      output_tile(s, z, img, co, r / tw, r % tw);
    }
  }
}

// wino runs the whole call described at desc.
EXPORT(winograd)(uint32_t desc) {
  if (!span_ok(desc, sizeof(wino_desc), 1)) return SIMD_ERR_RANGE;
  const wino_desc* d = (const wino_desc*)desc;
  int32_t st = wino_check(d);
  if (st != SIMD_OK || d->n == 0) return st;
  const int32_t n = d->n, cin = d->cin, cout = d->cout, m = d->m, nt = d->nt;
  const int32_t alpha = m + 2, nfreq = alpha * alpha, mp8 = (cout + MR - 1) / MR * MR;
  const int32_t th = (d->oh + m - 1) / m, tw = (d->ow + m - 1) / m, tpi = th * tw, total = n * tpi;
  const int32_t ph = th * m + 2, pw = tw * m + 2, pp = ph * pw;
  const float* u = (const float*)d->u;
  float* packb = (float*)d->scratch;
  float* tile = packb + KC * nt * 4;
  float* tmp = tile + MR * NR;
  float* v = tmp + TMP_LEN;
  float* prod = v + nfreq * cin * nt;
  float* padded = prod + nfreq * mp8 * nt;
  _Static_assert(sizeof(out_ctx) <= MR * NR * 4, "out_ctx does not fit the tile");
  out_ctx* s = (out_ctx*)tile; // the tile is only used by the GEMM
  pad_image(padded, (const float*)d->x, n * cin, d->h, d->w, ph, pw, d->pad_t, d->pad_l);
  const int32_t vs = cin * nt, ps = mp8 * nt;
  for (int32_t t0 = 0; t0 < total; t0 += nt) {
    const int32_t nb = imin(nt, total - t0), ncols = (nb + NR - 1) / NR * NR;
    // Input transform, 4 tiles at a time (lanes past the last tile repeat it).
    for (int32_t j = 0; j < ncols; j += 4) {
      int32_t o[4];
#define TILE_OFF(l)                                                        \
  {                                                                        \
    int32_t ti_ = imin(t0 + j + (l), total - 1), r_ = ti_ % tpi;           \
    o[l] = (ti_ / tpi) * cin * pp + (r_ / tw) * m * pw + (r_ % tw) * m;    \
  }
      TILE_OFF(0) TILE_OFF(1) TILE_OFF(2) TILE_OFF(3)
#undef TILE_OFF
      const float *p0 = padded + o[0], *p1 = padded + o[1], *p2 = padded + o[2], *p3 = padded + o[3];
      for (int32_t c = 0; c < cin; c++) {
        if (m == 4) input_f4(p0 + c * pp, p1 + c * pp, p2 + c * pp, p3 + c * pp, pw, tmp, v + c * nt + j, vs);
        else input_f2(p0 + c * pp, p1 + c * pp, p2 + c * pp, p3 + c * pp, pw, tmp, v + c * nt + j, vs);
      }
    }
    // One GEMM per frequency: P[ξ] = U[ξ]·V[ξ], K blocked.
    for (int32_t f = 0; f < nfreq; f++) {
      const float* uf = u + f * mp8 * cin;
      float* pf = prod + f * ps;
      for (int32_t k0 = 0; k0 < cin; k0 += KC) {
        int32_t kc = imin(KC, cin - k0);
        splat_rows(packb, v + f * vs + k0 * nt, nt, kc, ncols);
        for (int32_t i0 = 0; i0 < mp8; i0 += MR) {
          const float* pa = uf + i0 * cin + k0 * MR;
          float* out = pf + i0 * nt;
          for (int32_t jj = 0; jj < ncols; jj += NR) {
            float* dst = out + jj * MR;
            if (k0 == 0) {
              micro(kc, pa, packb + jj * kc * 4, dst);
              continue;
            }
            micro(kc, pa, packb + jj * kc * 4, tile);
            for (int32_t e = 0; e < MR * NR; e += 16) {
              ST(dst + e, ADD(LD(dst + e), LD(tile + e)));
              ST(dst + e + 4, ADD(LD(dst + e + 4), LD(tile + e + 4)));
              ST(dst + e + 8, ADD(LD(dst + e + 8), LD(tile + e + 8)));
              ST(dst + e + 12, ADD(LD(dst + e + 12), LD(tile + e + 12)));
            }
          }
        }
      }
    }
    *s = (out_ctx){.y = (float*)d->y, .bias = (const float*)d->bias, .res = (const float*)d->res, .cout = cout,
                   .oh = d->oh, .ow = d->ow, .m = m, .act = d->act, .lo = d->lo, .hi = d->hi};
    output_block(s, prod, ps, nt, t0, nb, tpi, tw, tmp);
  }
  return SIMD_OK;
}
