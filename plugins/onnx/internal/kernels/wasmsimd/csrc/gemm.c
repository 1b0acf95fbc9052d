// GEMM: C[b] = act(alpha·A[b mod groups]·B[b] + beta·C[b] + bias + residual)
// for each batch item b, with A packed at load (8-row panels) and B packed
// here block by block, from a strided matrix or straight from an image
// (implicit im2col).
//
// The register tile is 8 rows × 6 columns held as 12 vectors of 4 rows
// (vectorized over M): A's 8 values of one k are two plain loads, and B is
// packed "splatted" (each value repeated 4 times), so the inner loop has
// no shuffle at all. wazero lowers a lane splat or a shuffle to several
// instructions while a load folds into the multiply, which makes this
// layout 2.6x faster under wazero than broadcasting A (measured). The cost
// is B packing that writes 16 bytes per value and a transpose when the
// tile is stored into a row-major C.
#include "kernels.h"


// gemm_desc mirrors kernels.simdGemmDesc (simd_wasm.go): 4-byte fields
// only, so both sides agree on the layout.
typedef struct {
  int32_t m, n, k, batch;
  uint32_t a;      // uint32 array of `groups` pointers to packed A
  int32_t groups;  // batch item b uses A[b % groups] (and bias + (b % groups)·m)
  int32_t src;     // SRC_MATRIX or SRC_CONV
  uint32_t b;      // matrix or image base
  int32_t b_rs, b_cs, b_batch;
  // conv (src == SRC_CONV): batch item b is image b / groups, group b % groups
  int32_t ch, h, w, kh, kw, sh, sw, dh, dw, pad_t, pad_l, ow;
  uint32_t c;
  int32_t c_rs, c_cs, c_batch;
  float alpha, beta;
  uint32_t bias;
  int32_t bias_per_row;
  uint32_t res;
  int32_t res_rs, res_cs;
  int32_t act;
  float lo, hi;
  uint32_t scratch;     // floats, aligned to 16 bytes
  int32_t scratch_len;  // in floats: at least gemm_scratch_len()
  int32_t a_layout;     // A_ROWS8 or A_SPLAT6 (see below)
} gemm_desc;
_Static_assert(sizeof(gemm_desc) == 160, "gemm_desc changed: update simd_wasm.go and its size");

// A's packed layouts. A_ROWS8: panels of 8 rows, K groups of 8 values
// (the tile above). A_SPLAT6: panels of 6 rows, K groups of 6 values each
// repeated 4 times, for the N-vectorized tile of gemm_nv below; it needs a
// B matrix with contiguous rows (a pointwise convolution's input) and no
// B packing at all.
enum { A_ROWS8 = 0, A_SPLAT6 = 1 };

enum { SRC_MATRIX = 0, SRC_CONV = 1 };

// Scratch: the packed B block, the row block it is packed from, one tile,
// then the blocking loops' state
// (kept in the caller's memory: a local struct whose address is taken
// would need a shadow stack).
#define PACKB_LEN (KC * NC * 4)
#define ROWS_LEN (KC * (NC + NR))
#define TILE_LEN (MR * NR)
#define STATE_LEN 64
#define SCRATCH_LEN (PACKB_LEN + ROWS_LEN + TILE_LEN + STATE_LEN)

EXPORT(gemm_scratch_len)(void) { return SCRATCH_LEN; }

#define FMA(acc, a, b) acc = wasm_f32x4_add(acc, wasm_f32x4_mul(a, b))

// One k step of the 8×6 tile: A at pa+oa (8 floats), splatted B at
// pb+ob (6 vectors). The highest offsets are loaded first, so wazero
// checks each pointer's bounds once.
#define STEP(oa, ob)                                                         \
  {                                                                          \
    v4 a1 = wasm_v128_load(pa + (oa) + 4), a0 = wasm_v128_load(pa + (oa));    \
    v4 bb;                                                                   \
    bb = wasm_v128_load(pb + (ob) + 20); FMA(c05, a0, bb); FMA(c15, a1, bb); \
    bb = wasm_v128_load(pb + (ob) + 0); FMA(c00, a0, bb); FMA(c10, a1, bb);  \
    bb = wasm_v128_load(pb + (ob) + 4); FMA(c01, a0, bb); FMA(c11, a1, bb);  \
    bb = wasm_v128_load(pb + (ob) + 8); FMA(c02, a0, bb); FMA(c12, a1, bb);  \
    bb = wasm_v128_load(pb + (ob) + 12); FMA(c03, a0, bb); FMA(c13, a1, bb); \
    bb = wasm_v128_load(pb + (ob) + 16); FMA(c04, a0, bb); FMA(c14, a1, bb); \
  }

// micro computes the 8×6 product of kc steps of an A panel and a B panel
// into t, column by column (t[j*8 .. j*8+8) is column j). It is a function
// of its own so that the loop sees only its own values: inlined into the
// blocking loops, wazero's register allocator spills the accumulators.
// The main loop does four k steps per iteration: the host's loop guard
// costs a few cycles per iteration (wazero reloads state around its rare
// call), 28% of this kernel at one step per iteration, 15% at two... per
// four steps it is small.
NOINLINE void micro(int32_t kc, const float* pa, const float* pb, float* t) {
  v4 c00 = wasm_f32x4_splat(0), c01 = c00, c02 = c00, c03 = c00, c04 = c00, c05 = c00;
  v4 c10 = c00, c11 = c00, c12 = c00, c13 = c00, c14 = c00, c15 = c00;
  for (int32_t r = kc & 3; r > 0; r--, pa += MR, pb += NR * 4) STEP(0, 0)
  const float* end = pa + (kc & ~3) * MR;
  for (; pa != end; pa += 4 * MR, pb += 4 * NR * 4) {
    STEP(3 * MR, 3 * NR * 4)
    STEP(0, 0)
    STEP(MR, NR * 4)
    STEP(2 * MR, 2 * NR * 4)
  }
  wasm_v128_store(t + 44, c15);
  wasm_v128_store(t + 0, c00), wasm_v128_store(t + 4, c10);
  wasm_v128_store(t + 8, c01), wasm_v128_store(t + 12, c11);
  wasm_v128_store(t + 16, c02), wasm_v128_store(t + 20, c12);
  wasm_v128_store(t + 24, c03), wasm_v128_store(t + 28, c13);
  wasm_v128_store(t + 32, c04), wasm_v128_store(t + 36, c14);
  wasm_v128_store(t + 40, c05);
}

// ---- B packing: panels of NR columns, kc rows of NR splatted values ----
//
// Packing goes through a plain row block first (kc rows of nc values,
// padded to whole panels with zeros): gathering from a matrix or an image
// is then copies, and splatting reads six values at constant offsets of
// one pointer, so wazero checks bounds once per panel row instead of once
// per value.

#define ROWS_LD (NC + NR) // row block stride: nc rounded up to whole panels

// splat_rows packs kc rows of the row block (stride ld, nc columns, zero
// padded to whole panels) into splatted panels.
// SPLAT_ROW stores the 6 values at r, each repeated 4 times, at o: the
// furthest load and store first (one bounds check each).
#define SPLAT_ROW(o, r)                                                                                  \
  {                                                                                                      \
    v4 v5 = wasm_v128_load32_splat((r) + 5), v0 = wasm_v128_load32_splat((r) + 0);                      \
    v4 v1 = wasm_v128_load32_splat((r) + 1), v2 = wasm_v128_load32_splat((r) + 2);                      \
    v4 v3 = wasm_v128_load32_splat((r) + 3), v4_ = wasm_v128_load32_splat((r) + 4);                     \
    wasm_v128_store((o) + 20, v5);                                                                       \
    wasm_v128_store((o) + 0, v0), wasm_v128_store((o) + 4, v1), wasm_v128_store((o) + 8, v2);            \
    wasm_v128_store((o) + 12, v3), wasm_v128_store((o) + 16, v4_);                                       \
  }

void splat_rows(float* dst, const float* rows, int32_t ld, int32_t kc, int32_t nc) {
  for (int32_t q = 0; q * NR < nc; q++) {
    float* out = dst + q * kc * NR * 4;
    const float* row = rows + q * NR;
    int32_t kk = 0;
    // Four rows per iteration (the loop guard's cost per iteration).
    for (; kk + 4 <= kc; kk += 4, out += 4 * NR * 4, row += 4 * ld) {
      SPLAT_ROW(out + 3 * NR * 4, row + 3 * ld)
      SPLAT_ROW(out, row)
      SPLAT_ROW(out + NR * 4, row + ld)
      SPLAT_ROW(out + 2 * NR * 4, row + 2 * ld)
    }
    for (; kk < kc; kk++, out += NR * 4, row += ld) SPLAT_ROW(out, row)
  }
}

// zero_pad clears columns [nc, whole panels) of kc rows of the row block.
static void zero_pad(float* rows, int32_t kc, int32_t nc) {
  int32_t end = (nc + NR - 1) / NR * NR;
  if (end == nc) return;
  for (int32_t kk = 0; kk < kc; kk++)
    for (int32_t j = nc; j < end; j++) rows[kk * ROWS_LD + j] = 0;
}

// pack_matrix packs rows [k0, k0+kc) and columns [j0, j0+nc) of the
// strided matrix at base, through the row block.
static void pack_matrix(float* dst, float* rows, const float* base, int32_t rs, int32_t cs, int32_t k0,
                        int32_t kc, int32_t j0, int32_t nc) {
  for (int32_t kk = 0; kk < kc; kk++) {
    const float* src = base + (k0 + kk) * rs + j0 * cs;
    float* out = rows + kk * ROWS_LD;
    if (cs == 1) {
      copy_floats(out, src, nc);
    } else {
      for (int32_t j = 0; j < nc; j++) out[j] = src[j * cs];
    }
  }
  zero_pad(rows, kc, nc);
  splat_rows(dst, rows, ROWS_LD, kc, nc);
}

// conv_geom is the implicit im2col matrix of one image and group: row
// k = (channel, ky, kx), column j = output pixel.
typedef struct {
  const float* img; // the group's first channel plane
  int32_t h, w, kh, kw, sh, sw, dh, dw, pad_t, pad_l, ow;
} conv_geom;

// pack_conv packs rows [k0, k0+kc) and columns [j0, j0+nc) of the im2col
// matrix, reading the image directly (zeros where the tap is in padding).
static void pack_conv(float* dst, float* rows, const conv_geom* g, int32_t k0, int32_t kc, int32_t j0,
                      int32_t nc) {
  // Fields are read once: stores may alias *g (it lives in linear
  // memory), which would make the compiler reload them per value.
  const float* img = g->img;
  const int32_t h = g->h, w = g->w, kw = g->kw, sh = g->sh, sw = g->sw, dh = g->dh, dw = g->dw;
  const int32_t pad_t = g->pad_t, pad_l = g->pad_l, ow = g->ow, taps = g->kh * g->kw, hw = h * w;
  for (int32_t kk = 0; kk < kc; kk++) {
    int32_t k = k0 + kk, ch = k / taps, r = k % taps;
    int32_t dy = (r / kw) * dh - pad_t, dx = (r % kw) * dw - pad_l;
    const float* plane = img + ch * hw;
    int32_t oy = j0 / ow, ox = j0 % ow;
    float* out = rows + kk * ROWS_LD;
    for (int32_t j = 0; j < nc;) {
      int32_t iy = oy * sh + dy;
      // The run of columns left on this output row.
      int32_t run = imin(nc - j, ow - ox);
      if (iy < 0 || iy >= h) {
        zero_floats(out + j, run);
      } else {
        const float* line = plane + iy * w;
        int32_t ix = ox * sw + dx;
        // Columns whose tap is inside the row: [lo, hi) of the run.
        int32_t lo = 0, hi = run;
        if (ix < 0) lo = imin(run, (-ix + sw - 1) / sw);
        int32_t lastx = ix + (run - 1) * sw;
        if (lastx >= w) hi = imax(lo, run - ((lastx - w) / sw + 1));
        zero_floats(out + j, lo);
        const float* src = line + ix + lo * sw;
        if (sw == 1) {
          copy_floats(out + j + lo, src, hi - lo);
        } else {
          int32_t i = lo;
          for (; i + 4 <= hi; i += 4, src += 4 * sw) { // four per iteration: the loop guard's cost
            float v3 = src[3 * sw], v0 = src[0], v1 = src[sw], v2 = src[2 * sw];
            out[j + i + 3] = v3, out[j + i] = v0, out[j + i + 1] = v1, out[j + i + 2] = v2;
          }
          for (; i < hi; i++, src += sw) out[j + i] = *src;
        }
        zero_floats(out + j + hi, run - hi);
      }
      j += run;
      ox += run;
      if (ox == ow) ox = 0, oy++;
    }
  }
  zero_pad(rows, kc, nc);
  splat_rows(dst, rows, ROWS_LD, kc, nc);
}

// ---- storing a tile ----

// store_ctx is what storing a tile into C needs besides the tile.
typedef struct {
  float* c;        // C of this batch item
  int32_t c_rs, c_cs;
  const float* bias; // this batch item's bias, or 0
  int32_t bias_per_row;
  const float* res;  // residual of this batch item, or 0
  int32_t res_rs, res_cs;
  float alpha, beta;
  int32_t act;
  float lo, hi;
} store_ctx;

// store_scalar merges an mm×nn tile at (i0, j0), element by element: any
// strides, partial tiles, alpha and beta. first: this is the first K
// block (C is overwritten, or scaled by beta); last: apply bias, residual
// and activation.
INLINE void store_scalar(const store_ctx* s, const float* t, int32_t i0, int32_t j0, int32_t mm, int32_t nn,
                         int first, int last) {
  for (int32_t r = 0; r < mm; r++) {
    int32_t i = i0 + r;
    for (int32_t j = 0; j < nn; j++) {
      float* p = s->c + i * s->c_rs + (j0 + j) * s->c_cs;
      float v = s->alpha * t[j * MR + r];
      if (!first) v += *p;
      else if (s->beta != 0) v += s->beta * *p;
      if (last) {
        if (s->bias) v += s->bias_per_row ? s->bias[i] : s->bias[j0 + j];
        if (s->res) v += s->res[i * s->res_rs + (j0 + j) * s->res_cs];
        v = act1(v, s->act, s->lo, s->hi);
      }
      *p = v;
    }
  }
}

// store_cols is the fast path for a full tile when C's rows are adjacent
// (c_rs == 1, a transposed output): each tile vector is 4 adjacent
// elements of C.
INLINE void store_cols(const store_ctx* s, const float* t, int32_t i0, int32_t j0, int first, int last) {
  v4 lo = wasm_f32x4_splat(s->lo), hi = wasm_f32x4_splat(s->hi);
  for (int32_t j = 0; j < NR; j++) {
    float* p = s->c + i0 + (j0 + j) * s->c_cs;
    for (int32_t h = 0; h < MR; h += 4) {
      v4 v = wasm_v128_load(t + j * MR + h);
      if (!first) v = wasm_f32x4_add(v, wasm_v128_load(p + h));
      if (last) {
        if (s->bias) {
          v4 b = s->bias_per_row ? wasm_v128_load(s->bias + i0 + h) : wasm_v128_load32_splat(s->bias + j0 + j);
          v = wasm_f32x4_add(v, b);
        }
        if (s->res) {
          const float* rp = s->res + (i0 + h) * s->res_rs + (j0 + j) * s->res_cs;
          v4 rv = s->res_rs == 1 ? wasm_v128_load(rp)
                                 : wasm_f32x4_make(rp[0], rp[s->res_rs], rp[2 * s->res_rs], rp[3 * s->res_rs]);
          v = wasm_f32x4_add(v, rv);
        }
        v = act4(v, s->act, lo, hi);
      }
      wasm_v128_store(p + h, v);
    }
  }
}

// store_rows is the fast path for a full tile into a row-major C
// (c_cs == 1): four tile columns are transposed into rows of 4 and the
// last two into pairs.
INLINE void store_rows(const store_ctx* s, const float* t, int32_t i0, int32_t j0, int first, int last) {
  v4 lo = wasm_f32x4_splat(s->lo), hi = wasm_f32x4_splat(s->hi);
  for (int32_t h = 0; h < MR; h += 4) {
    v4 c0 = wasm_v128_load(t + 0 * MR + h), c1 = wasm_v128_load(t + 1 * MR + h);
    v4 c2 = wasm_v128_load(t + 2 * MR + h), c3 = wasm_v128_load(t + 3 * MR + h);
    v4 c4 = wasm_v128_load(t + 4 * MR + h), c5 = wasm_v128_load(t + 5 * MR + h);
    v4 t0 = wasm_i32x4_shuffle(c0, c1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(c0, c1, 2, 6, 3, 7);
    v4 t2 = wasm_i32x4_shuffle(c2, c3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(c2, c3, 2, 6, 3, 7);
    v4 row[4], pair[2];
    row[0] = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
    row[1] = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
    row[2] = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
    row[3] = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
    pair[0] = wasm_i32x4_shuffle(c4, c5, 0, 4, 1, 5); // rows 0 and 1, columns 4 and 5
    pair[1] = wasm_i32x4_shuffle(c4, c5, 2, 6, 3, 7); // rows 2 and 3
    for (int32_t r = 0; r < 4; r++) {
      int32_t i = i0 + h + r;
      float* p = s->c + i * s->c_rs + j0;
      v4 v = row[r];
      // The pair of row r sits in the low (even r) or high half of pair[r/2].
      v4 w = (r & 1) ? wasm_i32x4_shuffle(pair[r >> 1], pair[r >> 1], 2, 3, 2, 3) : pair[r >> 1];
      if (!first) {
        v = wasm_f32x4_add(v, wasm_v128_load(p));
        w = wasm_f32x4_add(w, wasm_v128_load64_zero(p + 4));
      }
      if (last) {
        if (s->bias) {
          if (s->bias_per_row) {
            v4 b = wasm_v128_load32_splat(s->bias + i);
            v = wasm_f32x4_add(v, b), w = wasm_f32x4_add(w, b);
          } else {
            v = wasm_f32x4_add(v, wasm_v128_load(s->bias + j0));
            w = wasm_f32x4_add(w, wasm_v128_load64_zero(s->bias + j0 + 4));
          }
        }
        if (s->res) {
          const float* rp = s->res + i * s->res_rs + j0;
          v = wasm_f32x4_add(v, wasm_v128_load(rp)), w = wasm_f32x4_add(w, wasm_v128_load64_zero(rp + 4));
        }
        v = act4(v, s->act, lo, hi), w = act4(w, s->act, lo, hi);
      }
      wasm_v128_store(p, v);
      wasm_v128_store64_lane(p + 4, w, 0);
    }
  }
}

static void store_tile(const store_ctx* sp, const float* t, int32_t i0, int32_t j0, int32_t mm, int32_t nn,
                       int first, int last) {
  // A copy in locals: stores into C may alias *sp, which lives in linear
  // memory.
  const store_ctx sc = *sp;
  const store_ctx* s = &sc;
  int plain = mm == MR && nn == NR && s->alpha == 1 && s->beta == 0;
  if (plain && s->c_cs == 1 && (!s->res || s->res_cs == 1)) {
    store_rows(s, t, i0, j0, first, last);
  } else if (plain && s->c_rs == 1) {
    store_cols(s, t, i0, j0, first, last);
  } else {
    store_scalar(s, t, i0, j0, mm, nn, first, last);
  }
}

// ---- checks ----

#define MR_NV 6
#define NR_NV 8

static uint64_t packed_a_len(const gemm_desc* d) {
  if (d->a_layout == A_SPLAT6) return (uint64_t)((d->m + MR_NV - 1) / MR_NV) * MR_NV * 4 * (uint32_t)d->k;
  return (uint64_t)((d->m + MR - 1) / MR) * MR * (uint32_t)d->k;
}

static int32_t check(const gemm_desc* d) {
  if (d->m < 0 || d->n < 0 || d->k < 0 || d->batch < 0 || d->groups <= 0) return SIMD_ERR_ARG;
  if (d->a_layout != A_ROWS8 && d->a_layout != A_SPLAT6) return SIMD_ERR_ARG;
  if (d->a_layout == A_SPLAT6 && (d->src != SRC_MATRIX || d->b_cs != 1 || d->alpha != 1 || d->beta != 0 || d->c_cs != 1 ||
                                  (d->res && d->res_cs != 1) || (int64_t)d->k * NR_NV > PACKB_LEN))
    return SIMD_ERR_ARG;
  if (d->b_rs < 0 || d->b_cs < 0 || d->b_batch < 0 || d->c_rs < 0 || d->c_cs < 0 || d->c_batch < 0 ||
      d->res_rs < 0 || d->res_cs < 0)
    return SIMD_ERR_ARG;
  if (d->scratch % 16 != 0 || d->scratch_len < SCRATCH_LEN) return SIMD_ERR_ARG;
  if (!span_ok(d->scratch, d->scratch_len, 4)) return SIMD_ERR_RANGE;
  if (!span_ok(d->a, d->groups, 4)) return SIMD_ERR_RANGE;
  const uint32_t* as = (const uint32_t*)d->a;
  for (int32_t g = 0; g < d->groups; g++)
    if (!span_ok(as[g], packed_a_len(d), 4)) return SIMD_ERR_RANGE;
  if (d->batch == 0 || d->m == 0 || d->n == 0) return SIMD_OK;
  uint64_t last = (uint64_t)(d->batch - 1);
  if (d->src == SRC_MATRIX) {
    if (!span_ok(d->b, last * (uint32_t)d->b_batch + strided_extent(d->k, d->n, d->b_rs, d->b_cs), 4))
      return SIMD_ERR_RANGE;
  } else if (d->src == SRC_CONV) {
    if (d->ch <= 0 || d->h <= 0 || d->w <= 0 || d->kh <= 0 || d->kw <= 0 || d->sh <= 0 || d->sw <= 0 ||
        d->dh <= 0 || d->dw <= 0 || d->pad_t < 0 || d->pad_l < 0 || d->ow <= 0 || d->ch % d->groups != 0 ||
        d->n % d->ow != 0 || (int64_t)(d->ch / d->groups) * d->kh * d->kw != d->k || d->batch % d->groups != 0)
      return SIMD_ERR_ARG;
    uint64_t images = last / (uint32_t)d->groups + 1;
    uint64_t image = (uint64_t)(uint32_t)d->ch * (uint32_t)d->h * (uint32_t)d->w; // < 2^62
    if (image > ((uint64_t)1 << 30) || !span_ok(d->b, images * image, 4)) return SIMD_ERR_RANGE;
  } else {
    return SIMD_ERR_ARG;
  }
  uint64_t cext = last * (uint32_t)d->c_batch + strided_extent(d->m, d->n, d->c_rs, d->c_cs);
  if (!span_ok(d->c, cext, 4)) return SIMD_ERR_RANGE;
  if (d->res && !span_ok(d->res, last * (uint32_t)d->c_batch + strided_extent(d->m, d->n, d->res_rs, d->res_cs), 4))
    return SIMD_ERR_RANGE;
  if (d->bias) {
    uint64_t blen = d->bias_per_row ? (uint64_t)(uint32_t)d->m * (uint32_t)d->groups : (uint32_t)d->n;
    if (!span_ok(d->bias, blen, 4)) return SIMD_ERR_RANGE;
  }
  // The call reads the descriptor, the A pointers and its state in the
  // scratch again after it has stored into C: C may lie over none of them
  // (the checks above would no longer hold), nor may the scratch lie over
  // the first two.
  uint32_t self = (uint32_t)(uintptr_t)d;
  uint64_t cb = cext * 4, sb = (uint64_t)(uint32_t)d->scratch_len * 4, ab = (uint64_t)(uint32_t)d->groups * 4;
  if (!apart(d->c, cb, self, sizeof(gemm_desc)) || !apart(d->c, cb, d->a, ab) || !apart(d->c, cb, d->scratch, sb) ||
      !apart(d->scratch, sb, self, sizeof(gemm_desc)) || !apart(d->scratch, sb, d->a, ab))
    return SIMD_ERR_RANGE;
  return SIMD_OK;
}

// ---- the N-vectorized tile (A_SPLAT6) ----
//
// Vectorized over N: a tile is 6 rows × 8 columns of C, 12 accumulators of
// 4 adjacent columns; per k it loads 8 values of B's row k straight from
// the matrix and multiplies them by the 6 splatted values of A's panel.
// With no B packing and no transpose on store it wins where the
// M-vectorized tile pays most for both: small K or few rows (a
// MobileNet's pointwise convolutions). The cost is A repeated 4 times,
// which the Go side accepts for small matrices only.

#define NV_STEP(ob)                                                                                \
  {                                                                                                \
    v4 b1 = wasm_v128_load(pb + (ob) + 4), b0 = wasm_v128_load(pb + (ob));                          \
    v4 a5 = wasm_v128_load(pa + 20), a;                                                             \
    FMA(c50, a5, b0); FMA(c51, a5, b1);                                                             \
    a = wasm_v128_load(pa + 0); FMA(c00, a, b0); FMA(c01, a, b1);                                   \
    a = wasm_v128_load(pa + 4); FMA(c10, a, b0); FMA(c11, a, b1);                                   \
    a = wasm_v128_load(pa + 8); FMA(c20, a, b0); FMA(c21, a, b1);                                   \
    a = wasm_v128_load(pa + 12); FMA(c30, a, b0); FMA(c31, a, b1);                                  \
    a = wasm_v128_load(pa + 16); FMA(c40, a, b0); FMA(c41, a, b1);                                  \
    pa += MR_NV * 4;                                                                                \
  }

// micro_nv computes the 6×8 product of k steps of a splatted A panel and
// B rows ldb apart into t, row-major.
static NOINLINE void micro_nv(int32_t k, const float* pa, const float* pb, int32_t ldb, float* t) {
  v4 c00 = wasm_f32x4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  v4 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  int32_t kk = 0;
  for (; kk + 4 <= k; kk += 4, pb += 4 * ldb) { // four k per iteration: the loop guard's cost
    NV_STEP(0)
    NV_STEP(ldb)
    NV_STEP(2 * ldb)
    NV_STEP(3 * ldb)
  }
  if (kk + 2 <= k) {
    NV_STEP(0)
    NV_STEP(ldb)
    kk += 2, pb += 2 * ldb;
  }
  if (kk < k) NV_STEP(0)
  wasm_v128_store(t + 44, c51);
  wasm_v128_store(t + 0, c00), wasm_v128_store(t + 4, c01), wasm_v128_store(t + 8, c10), wasm_v128_store(t + 12, c11);
  wasm_v128_store(t + 16, c20), wasm_v128_store(t + 20, c21), wasm_v128_store(t + 24, c30), wasm_v128_store(t + 28, c31);
  wasm_v128_store(t + 32, c40), wasm_v128_store(t + 36, c41), wasm_v128_store(t + 40, c50);
}

// store_nv stores rows [0, mm) and columns [0, nn) of a row-major 6×8
// tile at (i0, j0) of a row-major C with bias per row, residual and
// activation (A_SPLAT6 calls are plain: alpha 1, beta 0, one pass).
static void store_nv(const store_ctx* sp, const float* t, int32_t i0, int32_t j0, int32_t mm, int32_t nn) {
  const store_ctx sc = *sp;
  const store_ctx* s = &sc;
  v4 lo = wasm_f32x4_splat(s->lo), hi = wasm_f32x4_splat(s->hi);
  for (int32_t r = 0; r < mm; r++) {
    int32_t i = i0 + r;
    float* p = s->c + i * s->c_rs + j0;
    const float* rp = s->res ? s->res + i * s->res_rs + j0 : 0;
    float bs = 0;
    if (s->bias) bs = s->bias_per_row ? s->bias[i] : 0;
    if (nn == NR_NV && (!s->bias || s->bias_per_row)) {
      v4 v0 = wasm_f32x4_add(wasm_v128_load(t + r * 8), wasm_f32x4_splat(bs));
      v4 v1 = wasm_f32x4_add(wasm_v128_load(t + r * 8 + 4), wasm_f32x4_splat(bs));
      if (rp) v0 = wasm_f32x4_add(v0, wasm_v128_load(rp)), v1 = wasm_f32x4_add(v1, wasm_v128_load(rp + 4));
      wasm_v128_store(p + 4, act4(v1, s->act, lo, hi));
      wasm_v128_store(p, act4(v0, s->act, lo, hi));
      continue;
    }
    for (int32_t j = 0; j < nn; j++) {
      float v = t[r * 8 + j];
      if (s->bias) v += s->bias_per_row ? bs : s->bias[j0 + j];
      if (rp) v += rp[j];
      p[j] = act1(v, s->act, s->lo, s->hi);
    }
  }
}

// gemm_nv runs batch item b of an A_SPLAT6 call: B is the k×n matrix at
// bm with rows d->b_rs apart. The last columns, fewer than 8, are copied
// into a zero-padded block first so that no load leaves the matrix.
static void gemm_nv(const gemm_desc* d, const float* a, const float* bm, const store_ctx* s, float* tile, float* edge) {
  const int32_t m = d->m, n = d->n, k = d->k, ldb = d->b_rs;
  for (int32_t j0 = 0; j0 < n; j0 += NR_NV) {
    int32_t nn = imin(NR_NV, n - j0);
    const float* pb = bm + j0;
    int32_t ld = ldb;
    if (nn < NR_NV) {
      for (int32_t kk = 0; kk < k; kk++)
        for (int32_t j = 0; j < NR_NV; j++) edge[kk * NR_NV + j] = j < nn ? bm[kk * ldb + j0 + j] : 0;
      ld = NR_NV;
      pb = edge;
    }
    for (int32_t i0 = 0; i0 < m; i0 += MR_NV) {
      micro_nv(k, a + i0 * 4 * k, pb, ld, tile);
      store_nv(s, tile, i0, j0, imin(MR_NV, m - i0), nn);
    }
  }
}

// gemm runs the whole call described at desc.
EXPORT(gemm)(uint32_t desc) {
  if (!span_ok(desc, sizeof(gemm_desc), 1)) return SIMD_ERR_RANGE;
  const gemm_desc* d = (const gemm_desc*)desc;
  int32_t st = check(d);
  if (st != SIMD_OK || d->m == 0 || d->n == 0 || d->batch == 0) return st;
  float* packb = (float*)d->scratch;
  float* rows = packb + PACKB_LEN;
  float* tile = rows + ROWS_LEN;
  const uint32_t* as = (const uint32_t*)d->a;
  _Static_assert(sizeof(store_ctx) + sizeof(conv_geom) <= STATE_LEN * 4, "state does not fit its scratch");
  store_ctx* s = (store_ctx*)(tile + TILE_LEN);
  conv_geom* g = (conv_geom*)(s + 1);
  *s = (store_ctx){.c_rs = d->c_rs, .c_cs = d->c_cs, .bias_per_row = d->bias_per_row, .res_rs = d->res_rs,
                   .res_cs = d->res_cs, .alpha = d->alpha, .beta = d->beta, .act = d->act, .lo = d->lo, .hi = d->hi};
  *g = (conv_geom){.h = d->h, .w = d->w, .kh = d->kh, .kw = d->kw, .sh = d->sh, .sw = d->sw, .dh = d->dh,
                   .dw = d->dw, .pad_t = d->pad_t, .pad_l = d->pad_l, .ow = d->ow};
  int32_t cg = d->src == SRC_CONV ? d->ch / d->groups : 0;
  for (int32_t b = 0; b < d->batch; b++) {
    int32_t grp = b % d->groups;
    const float* a = (const float*)as[grp];
    s->c = (float*)d->c + b * d->c_batch;
    s->bias = d->bias ? (const float*)d->bias + (d->bias_per_row ? grp * d->m : 0) : 0;
    s->res = d->res ? (const float*)d->res + b * d->c_batch : 0;
    g->img = (const float*)d->b + (b / d->groups) * d->ch * d->h * d->w + grp * cg * d->h * d->w;
    const float* bm = (const float*)d->b + b * d->b_batch;
    if (d->a_layout == A_SPLAT6 && d->k > 0) {
      gemm_nv(d, a, bm, s, tile, packb);
      continue;
    }
    if (d->k == 0) {
      // C = epilogue(0): one zero tile stored everywhere.
      for (int32_t i = 0; i < TILE_LEN; i++) tile[i] = 0;
      for (int32_t j0 = 0; j0 < d->n; j0 += NR)
        for (int32_t i0 = 0; i0 < d->m; i0 += MR)
          store_tile(s, tile, i0, j0, imin(MR, d->m - i0), imin(NR, d->n - j0), 1, 1);
      continue;
    }
    for (int32_t k0 = 0; k0 < d->k; k0 += KC) {
      int32_t kc = imin(KC, d->k - k0);
      int first = k0 == 0, last = k0 + kc == d->k;
      for (int32_t j0 = 0; j0 < d->n; j0 += NC) {
        int32_t nc = imin(NC, d->n - j0);
        if (d->src == SRC_CONV) pack_conv(packb, rows, g, k0, kc, j0, nc);
        else pack_matrix(packb, rows, bm, d->b_rs, d->b_cs, k0, kc, j0, nc);
        for (int32_t i0 = 0; i0 < d->m; i0 += MR) {
          const float* pa = a + i0 * d->k + k0 * MR;
          int32_t mm = imin(MR, d->m - i0);
          for (int32_t jj = 0; jj < nc; jj += NR) {
            micro(kc, pa, packb + (jj / NR) * kc * NR * 4, tile);
            store_tile(s, tile, i0, j0 + jj, mm, imin(NR, nc - jj), first, last);
          }
        }
      }
    }
  }
  return SIMD_OK;
}
