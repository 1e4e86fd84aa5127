// rankmeter/model.hpp — evaluation straight from embeddings (docs/model.md): the scores of a users x items
// tile from user and item factors (float32), and, while the tile is in cache, each user's top k (the order of
// Recs.from_scores: score descending, column ascending) and the exact full-catalog rank of every truth item,
// with the AUC counts of auc.hpp. The full matrix is never stored. Bound by cpp/src/bind_model.cpp.
//
// The score of (u, i) is defined as one float32 fused multiply-add chain over the dimensions in order:
//   s = 0; for d in 0..D-1: s = fma(U[u, d], V[i, d], s)
// Every path (AVX-512, AVX2 + FMA, scalar std::fma) computes each element with exactly that sequence of
// roundings, one element per vector lane, so a score never depends on the tile shape, the block size, the
// thread count or the CPU: the same bits as factor_scores (the materialised matrix).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "auc.hpp"
#include "inputs.hpp"
#include "parallel.hpp"
#include "status.hpp"

namespace rankmeter::core {

namespace model_detail {
constexpr int64_t kLanes = 16;  // items per packed panel
constexpr int64_t kMR = 6;      // users per register strip
constexpr int64_t kSeg = 2048;  // scores per counting segment (the unit of auc_detail::count_chunk)

// The scalar definition of one score (also the path of CPUs without AVX2 + FMA, through the library's fmaf).
inline float dot_fma_soft(const float* a, const float* b, int64_t d) {
  float s = 0.0f;
  for (int64_t k = 0; k < d; ++k) s = std::fma(a[k], b[k], s);
  return s;
}
#ifdef RANKMETER_TOPK_AVX2
// The same chain with the FMA instruction (one rounding per step, as std::fma).
__attribute__((target("fma"))) inline float dot_fma_hw(const float* a, const float* b, int64_t d) {
  __m128 s = _mm_setzero_ps();
  for (int64_t k = 0; k < d; ++k) s = _mm_fmadd_ss(_mm_load_ss(a + k), _mm_load_ss(b + k), s);
  return _mm_cvtss_f32(s);
}
inline const bool kHasFma = __builtin_cpu_supports("fma");
inline float dot_fma(const float* a, const float* b, int64_t d) {
  return kHasFma ? dot_fma_hw(a, b, d) : dot_fma_soft(a, b, d);
}
// dot_fma of a with the rows cols[0..n) of V into out, four chains at a time (each in its own order: the same
// bits as one at a time; the four latencies overlap).
__attribute__((target("fma"))) inline void dots_fma_hw(const float* a, const float* V, const int64_t* cols, int64_t n,
                                                       int64_t d, float* out) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float *b0 = V + cols[i] * d, *b1 = V + cols[i + 1] * d, *b2 = V + cols[i + 2] * d, *b3 = V + cols[i + 3] * d;
    __m128 s0 = _mm_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t k = 0; k < d; ++k) {
      const __m128 x = _mm_load_ss(a + k);
      s0 = _mm_fmadd_ss(x, _mm_load_ss(b0 + k), s0);
      s1 = _mm_fmadd_ss(x, _mm_load_ss(b1 + k), s1);
      s2 = _mm_fmadd_ss(x, _mm_load_ss(b2 + k), s2);
      s3 = _mm_fmadd_ss(x, _mm_load_ss(b3 + k), s3);
    }
    out[i] = _mm_cvtss_f32(s0);
    out[i + 1] = _mm_cvtss_f32(s1);
    out[i + 2] = _mm_cvtss_f32(s2);
    out[i + 3] = _mm_cvtss_f32(s3);
  }
  for (; i < n; ++i) out[i] = dot_fma_hw(a, V + cols[i] * d, d);
}
inline void dots_fma(const float* a, const float* V, const int64_t* cols, int64_t n, int64_t d, float* out) {
  if (kHasFma) return dots_fma_hw(a, V, cols, n, d, out);
  for (int64_t i = 0; i < n; ++i) out[i] = dot_fma_soft(a, V + cols[i] * d, d);
}
#else
inline float dot_fma(const float* a, const float* b, int64_t d) { return dot_fma_soft(a, b, d); }
inline void dots_fma(const float* a, const float* V, const int64_t* cols, int64_t n, int64_t d, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = dot_fma_soft(a, V + cols[i] * d, d);
}
#endif

// V (n x d, row-major) into panels of kLanes items: P[p][k][lane] = V[p * kLanes + lane][k], zero past n.
inline void pack_items(const float* V, int64_t n, int64_t d, float* P, int64_t n_panels, int threads) {
  const int T = effective_threads(threads, n_panels * 16);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(static)
#endif
  for (int64_t p = 0; p < n_panels; ++p) {
    float* dst = P + p * d * kLanes;
    for (int64_t lane = 0; lane < kLanes; ++lane) {
      const int64_t i = p * kLanes + lane;
      for (int64_t k = 0; k < d; ++k) dst[k * kLanes + lane] = i < n ? V[i * d + k] : 0.0f;
    }
  }
}

// C[r][j] (r < m rows of U from `urow`, j < 16 * np items from panel p0) into C with row stride ldc.
inline void tile_scalar(const float* U, int64_t d, int64_t m, const float* P, int64_t np, float* C, int64_t ldc) {
  for (int64_t p = 0; p < np; ++p) {
    const float* pp = P + p * d * kLanes;
    for (int64_t r = 0; r < m; ++r) {
      const float* u = U + r * d;
      float acc[kLanes] = {};
      for (int64_t k = 0; k < d; ++k)
        for (int64_t l = 0; l < kLanes; ++l) acc[l] = std::fma(u[k], pp[k * kLanes + l], acc[l]);
      std::memcpy(C + r * ldc + p * kLanes, acc, sizeof acc);
    }
  }
}

#ifdef RANKMETER_TOPK_AVX2
// AVX2 + FMA: strips of MR users x one panel (16 items, two registers per user).
// The users of a strip of MR rows packed dimension-major, u[k * MR + r] (pack_strip), so the broadcasts of a
// step read one cache line through one pointer.
template <int MR>
inline void pack_strip(const float* U, int64_t d, float* u) {
  for (int64_t k = 0; k < d; ++k)
    for (int r = 0; r < MR; ++r) u[k * MR + r] = U[r * d + k];
}
template <int MR>
__attribute__((target("avx2,fma"))) inline void strip_avx2(const float* U, int64_t d, const float* pp, float* C,
                                                           int64_t ldc) {
  __m256 a[MR][2];
  for (int r = 0; r < MR; ++r) a[r][0] = a[r][1] = _mm256_setzero_ps();
  for (int64_t k = 0; k < d; ++k) {
    const __m256 v0 = _mm256_loadu_ps(pp + k * kLanes), v1 = _mm256_loadu_ps(pp + k * kLanes + 8);
    for (int r = 0; r < MR; ++r) {
      const __m256 b = _mm256_broadcast_ss(U + k * MR + r);
      a[r][0] = _mm256_fmadd_ps(b, v0, a[r][0]);
      a[r][1] = _mm256_fmadd_ps(b, v1, a[r][1]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_ps(C + r * ldc, a[r][0]);
    _mm256_storeu_ps(C + r * ldc + 8, a[r][1]);
  }
}
// The strips of tile_avx2 (kMR rows, then the rest) packed into up (m x d floats), strip r at up + r * d.
inline void pack_strips_avx2(const float* U, int64_t d, int64_t m, float* up) {
  int64_t r = 0;
  for (; r + kMR <= m; r += kMR) pack_strip<kMR>(U + r * d, d, up + r * d);
  switch (m - r) {
    case 5:
      pack_strip<5>(U + r * d, d, up + r * d);
      break;
    case 4:
      pack_strip<4>(U + r * d, d, up + r * d);
      break;
    case 3:
      pack_strip<3>(U + r * d, d, up + r * d);
      break;
    case 2:
      pack_strip<2>(U + r * d, d, up + r * d);
      break;
    case 1:
      pack_strip<1>(U + r * d, d, up + r * d);
      break;
    default:
      break;
  }
}
__attribute__((target("avx2,fma"))) inline void tile_avx2(int64_t d, int64_t m, const float* P, int64_t np, float* C,
                                                          int64_t ldc, const float* up) {
  for (int64_t p = 0; p < np; ++p) {
    const float* pp = P + p * d * kLanes;
    int64_t r = 0;
    for (; r + kMR <= m; r += kMR) strip_avx2<kMR>(up + r * d, d, pp, C + r * ldc + p * kLanes, ldc);
    switch (m - r) {
      case 5:
        strip_avx2<5>(up + r * d, d, pp, C + r * ldc + p * kLanes, ldc);
        break;
      case 4:
        strip_avx2<4>(up + r * d, d, pp, C + r * ldc + p * kLanes, ldc);
        break;
      case 3:
        strip_avx2<3>(up + r * d, d, pp, C + r * ldc + p * kLanes, ldc);
        break;
      case 2:
        strip_avx2<2>(up + r * d, d, pp, C + r * ldc + p * kLanes, ldc);
        break;
      case 1:
        strip_avx2<1>(up + r * d, d, pp, C + r * ldc + p * kLanes, ldc);
        break;
      default:
        break;
    }
  }
}
// AVX-512: strips of MR users x two panels (32 items, two registers per user).
template <int MR>
__attribute__((target("avx512f"))) inline void strip_avx512(const float* U, int64_t d, const float* p0, const float* p1,
                                                            float* C, int64_t ldc, bool two) {
  __m512 a[MR][2];
  for (int r = 0; r < MR; ++r) a[r][0] = a[r][1] = _mm512_setzero_ps();
  if (two) {
    for (int64_t k = 0; k < d; ++k) {
      const __m512 v0 = _mm512_loadu_ps(p0 + k * kLanes), v1 = _mm512_loadu_ps(p1 + k * kLanes);
      for (int r = 0; r < MR; ++r) {
        const __m512 b = _mm512_set1_ps(U[k * MR + r]);
        a[r][0] = _mm512_fmadd_ps(b, v0, a[r][0]);
        a[r][1] = _mm512_fmadd_ps(b, v1, a[r][1]);
      }
    }
  } else {
    for (int64_t k = 0; k < d; ++k) {
      const __m512 v0 = _mm512_loadu_ps(p0 + k * kLanes);
      for (int r = 0; r < MR; ++r) a[r][0] = _mm512_fmadd_ps(_mm512_set1_ps(U[k * MR + r]), v0, a[r][0]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    _mm512_storeu_ps(C + r * ldc, a[r][0]);
    if (two) _mm512_storeu_ps(C + r * ldc + kLanes, a[r][1]);
  }
}
constexpr int kMR512 = 12;
// The strips of tile_avx512 (kMR512 rows, then 4, then 1) packed into up, strip r at up + r * d.
inline void pack_strips_avx512(const float* U, int64_t d, int64_t m, float* up) {
  int64_t r = 0;
  for (; r + kMR512 <= m; r += kMR512) pack_strip<kMR512>(U + r * d, d, up + r * d);
  for (; r + 4 <= m; r += 4) pack_strip<4>(U + r * d, d, up + r * d);
  for (; r < m; ++r) pack_strip<1>(U + r * d, d, up + r * d);
}
__attribute__((target("avx512f"))) inline void tile_avx512(int64_t d, int64_t m, const float* P, int64_t np, float* C,
                                                           int64_t ldc, const float* up) {
  for (int64_t p = 0; p < np; p += 2) {
    const bool two = p + 1 < np;
    const float* p0 = P + p * d * kLanes;
    const float* p1 = two ? p0 + d * kLanes : p0;
    float* c = C + p * kLanes;
    int64_t r = 0;
    for (; r + kMR512 <= m; r += kMR512) strip_avx512<kMR512>(up + r * d, d, p0, p1, c + r * ldc, ldc, two);
    for (; r + 4 <= m; r += 4) strip_avx512<4>(up + r * d, d, p0, p1, c + r * ldc, ldc, two);
    for (; r < m; ++r) strip_avx512<1>(up + r * d, d, p0, p1, c + r * ldc, ldc, two);
  }
}
#endif

// Which kernels run: 3 AVX-512 with the float16 counts (count_scan_fp16), 2 AVX-512, 1 AVX2 + FMA, 0 scalar;
// RANKMETER_SIMD=0 forces the scalar ones, RANKMETER_SIMD=avx2 caps them at AVX2 and RANKMETER_SIMD=avx512 at
// AVX-512 without float16 (how the tests reach every path). All give the same bits.
inline int tile_path() {
#ifdef RANKMETER_TOPK_AVX2
  const char* env = std::getenv("RANKMETER_SIMD");
  const auto is = [env](const char* v) { return env && std::strcmp(env, v) == 0; };
  if (is("0")) return 0;
  if (__builtin_cpu_supports("avx512f") && !is("avx2")) {
    return __builtin_cpu_supports("avx512fp16") && __builtin_cpu_supports("avx512bw") && !is("avx512") ? 3 : 2;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
  return 0;
}

// The users of a block as the tile kernel of `path` reads them (up: m x d floats; the scalar kernel reads U).
inline void pack_users(int path, const float* U, int64_t d, int64_t m, float* up) {
#ifdef RANKMETER_TOPK_AVX2
  if (path >= 2) return pack_strips_avx512(U, d, m, up);
  if (path == 1) return pack_strips_avx2(U, d, m, up);
#endif
  (void)path, (void)U, (void)d, (void)m, (void)up;
}

// The scores of the block's m users (U, packed into up by pack_users) against np panels.
inline void tile(int path, const float* U, int64_t d, int64_t m, const float* P, int64_t np, float* C, int64_t ldc,
                 const float* up) {
#ifdef RANKMETER_TOPK_AVX2
  if (path >= 2) return tile_avx512(d, m, P, np, C, ldc, up);
  if (path == 1) return tile_avx2(d, m, P, np, C, ldc, up);
#endif
  (void)path;
  (void)up;
  tile_scalar(U, d, m, P, np, C, ldc);
}
}  // namespace model_detail

// The materialised score matrix (n_users x n_items float32, row-major) by the tile kernel: what evaluate_model
// and from_factors rank, for tests and small problems. P: the packed items (model_detail::pack_items).
inline void factor_scores(const float* U, int64_t n_users, const float* P, int64_t n_items, int64_t d, float* out,
                          int threads) {
  using namespace model_detail;
  const int64_t np = (n_items + kLanes - 1) / kLanes;
  const int path = tile_path();
  constexpr int64_t MB = 48, NB = 64;  // panels per tile
  const int64_t n_ub = (n_users + MB - 1) / MB;
  const int T = effective_threads(threads, n_users);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    std::vector<float> C(static_cast<size_t>(MB * NB * kLanes)), up(static_cast<size_t>(MB * d));
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int64_t b = 0; b < n_ub; ++b) {
      const int64_t u0 = b * MB, m = std::min(MB, n_users - u0);
      pack_users(path, U + u0 * d, d, m, up.data());
      for (int64_t p0 = 0; p0 < np; p0 += NB) {
        const int64_t npp = std::min(NB, np - p0), j0 = p0 * kLanes, nj = std::min(npp * kLanes, n_items - j0);
        tile(path, U + u0 * d, d, m, P + p0 * d * kLanes, npp, C.data(), NB * kLanes, up.data());
        for (int64_t r = 0; r < m; ++r)
          std::memcpy(out + (u0 + r) * n_items + j0, C.data() + r * NB * kLanes, static_cast<size_t>(nj) * 4);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// factor_pass: the top k and the exact ranks of one call.
//
// Inputs: U (n_users x d), the packed items P of V (n_items x d); k; exclusions as CSR over the users (columns,
// duplicates allowed); the truth per user row as CSR (t_cols: a column, or any value outside [0, n_items) for an
// item that is no column; t_rel: 1 when the entry is relevant). block_users x block_items: the tile.
// Outputs:
//   out_cols / out_scores [n_users x kk] and out_len: each user's top kk (kk = min(k, n_items)) of the eligible
//     (non-excluded) columns, score descending then column ascending — the lists of Recs.from_scores (FloatKey);
//   rank[p] for every truth entry: 1 + #{eligible j : s_j > s_c or (s_j == s_c and j < c)}, the entry's position in
//     the full eligible list; 0 when the entry is no column or is excluded;
//   rel / pos / neg / num2 / auc per user as auc_matrix writes them, over the eligible columns: rel the distinct
//     relevant truth columns + relevant non-columns (as auc_matrix), pos the distinct relevant eligible columns,
//     neg the other eligible columns, num2 = 2 P N AUC (an integer; a tied pair counts as `ties` says, as in
//     auc_matrix), auc = num2 / (2 P N) (NaN: P or N is 0).
// A non-finite score (a product that overflows) is Code::bad_score at the lowest user, then column.
struct FactorPassOut {
  int64_t* cols;
  double* scores;
  int64_t* len;
  int64_t* rank;
  int64_t* rel;
  int64_t* pos;
  int64_t* neg;
  double* num2;
  double* auc;
};

namespace model_detail {
// counts over x[0..len) against the levels, as auc_detail::count_chunk_generic (lt: below, le: at or below),
// plus the number of non-finite scores; the AVX-512 build of the same loop
#ifdef RANKMETER_TOPK_AVX2
__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq"))) inline int64_t count_chunk_avx512(
    const float* x, int64_t len, const float* lv, int64_t L, int64_t* lt, int64_t* le) {
  return auc_detail::count_chunk_body(x, len, lv, L, lt, le);  // inlined: compiled for AVX-512 here
}
#endif
// The positions j < len (len < 2^16) with x[j] >= t, ascending, into pos; returns how many.
inline int64_t scan_ge_generic(const float* x, int64_t len, float t, uint16_t* pos) {
  int64_t n = 0, j = 0;
  for (; j + topk_detail::kSub <= len; j += topk_detail::kSub) {
    uint32_t hits = topk_detail::ge_mask(x + j, t);
    while (hits) {
      pos[n++] = static_cast<uint16_t>(j + __builtin_ctz(hits));
      hits &= hits - 1;
    }
  }
  for (; j < len; ++j) {
    pos[n] = static_cast<uint16_t>(j);
    n += x[j] >= t;
  }
  return n;
}
#ifdef RANKMETER_TOPK_AVX2
__attribute__((target("avx512f"))) inline int64_t scan_ge_avx512(const float* x, int64_t len, float t, uint16_t* pos) {
  int64_t n = 0, j = 0;
  const __m512 tv = _mm512_set1_ps(t);
  for (; j + 16 <= len; j += 16) {
    uint32_t hits = _mm512_cmp_ps_mask(_mm512_loadu_ps(x + j), tv, _CMP_GE_OQ);
    while (hits) {
      pos[n++] = static_cast<uint16_t>(j + __builtin_ctz(hits));
      hits &= hits - 1;
    }
  }
  for (; j < len; ++j) {
    pos[n] = static_cast<uint16_t>(j);
    n += x[j] >= t;
  }
  return n;
}
#endif
inline int64_t scan_ge(int path, const float* x, int64_t len, float t, uint16_t* pos) {
#ifdef RANKMETER_TOPK_AVX2
  if (path >= 2) return scan_ge_avx512(x, len, t, pos);
#endif
  (void)path;
  return scan_ge_generic(x, len, t, pos);
}
#ifdef RANKMETER_TOPK_AVX2
// One pass of G levels over the scores x[0..len) (n32: the part read 32 at a time), 32 scores at a time rounded
// to float16 (round to nearest: monotone, so a score whose float16 is below the level's float16 is below the
// level, one above it above). Per level and 32 scores: one "below" compare adding 1 to the level's int16 lane
// counters where it holds, and one "equal" compare, or-ed over the levels; only a block with some float16 tie
// (rare) is looked at again, its ties compared exactly. A lane counts at most 2^15 - 1 blocks between flushes.
// SCAN: the same pass also finds the non-finite scores (false: some score is NaN or infinite; a float16 NaN or
// infinity, which a large finite score also gives, is checked on the float32) and writes the positions j with
// x[j] >= thr, ascending, into pos (*nh of them; len < 2^16).
template <int G, bool SCAN>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16"))) inline bool fp16_pass(
    const float* x, int64_t len, int64_t n32, const float* lv, int64_t* lt, int64_t* le, float thr, uint16_t* pos,
    int64_t* nh) {
  constexpr int GG = G > 0 ? G : 1;
  __m512h H[GG];
  __m512i C[GG];
  float V[GG];
  int64_t clt[GG], cle[GG];
  const __m512i one = _mm512_set1_epi16(1);
  const __m512 tv = _mm512_set1_ps(thr);
  const float big = std::numeric_limits<float>::max();
  int64_t n = 0;
  for (int q = 0; q < G; ++q) {
    V[q] = lv[q];
    clt[q] = cle[q] = 0;
    C[q] = _mm512_setzero_si512();
    const __m256h h = _mm512_cvtxps_ph(_mm512_set1_ps(V[q]));
    H[q] = _mm512_castsi512_ph(
        _mm512_inserti32x8(_mm512_castsi256_si512(_mm256_castph_si256(h)), _mm256_castph_si256(h), 1));
  }
  constexpr int64_t kFlush = 32 * 32767;
  for (int64_t j0 = 0; j0 < n32; j0 += kFlush) {
    const int64_t j1 = std::min(n32, j0 + kFlush);
    for (int64_t j = j0; j < j1; j += 32) {
      const __m512 a0 = _mm512_loadu_ps(x + j), a1 = _mm512_loadu_ps(x + j + 16);
      const __m256h h0 = _mm512_cvtxps_ph(a0);
      const __m256h h1 = _mm512_cvtxps_ph(a1);
      const __m512h hx = _mm512_castsi512_ph(
          _mm512_inserti32x8(_mm512_castsi256_si512(_mm256_castph_si256(h0)), _mm256_castph_si256(h1), 1));
      if constexpr (SCAN) {
        if (__builtin_expect(_mm512_fpclass_ph_mask(hx, 0x99) != 0, 0)) {  // NaN or infinity in float16
          for (int64_t i = j; i < j + 32; ++i)
            if (!(std::abs(x[i]) <= big)) return false;
        }
        uint32_t hits = static_cast<uint32_t>(_mm512_cmp_ps_mask(a0, tv, _CMP_GE_OQ)) |
                        (static_cast<uint32_t>(_mm512_cmp_ps_mask(a1, tv, _CMP_GE_OQ)) << 16);
        while (hits) {
          pos[n++] = static_cast<uint16_t>(j + __builtin_ctz(hits));
          hits &= hits - 1;
        }
      }
      __mmask32 any = 0;
#pragma GCC unroll 8
      for (int q = 0; q < G; ++q) {
        C[q] = _mm512_mask_add_epi16(C[q], _mm512_cmp_ph_mask(hx, H[q], _CMP_LT_OQ), C[q], one);
        any |= _mm512_cmp_ph_mask(hx, H[q], _CMP_EQ_OQ);
      }
      if (__builtin_expect(any != 0, 0)) {  // float16 ties with some level: compared exactly
        for (int q = 0; q < G; ++q) {
          uint32_t same = _mm512_cmp_ph_mask(hx, H[q], _CMP_EQ_OQ);
          while (same) {
            const float e = x[j + __builtin_ctz(same)];
            same &= same - 1;
            clt[q] += e < V[q];
            cle[q] += e <= V[q];
          }
        }
      }
    }
    for (int q = 0; q < G; ++q) {  // the lane counters into the counts
      const int64_t c = _mm512_reduce_add_epi32(_mm512_madd_epi16(C[q], one));
      clt[q] += c;
      cle[q] += c;
      C[q] = _mm512_setzero_si512();
    }
  }
  for (int64_t j = n32; j < len; ++j) {
    if constexpr (SCAN) {
      if (!(std::abs(x[j]) <= big)) return false;
      pos[n] = static_cast<uint16_t>(j);
      n += x[j] >= thr;
    }
    for (int q = 0; q < G; ++q) {
      clt[q] += x[j] < V[q];
      cle[q] += x[j] <= V[q];
    }
  }
  for (int q = 0; q < G; ++q) {
    lt[q] += clt[q];
    le[q] += cle[q];
  }
  if constexpr (SCAN) *nh = n;
  return true;
}
// count_chunk and scan_ge in passes of up to 8 levels over the scores, the first of which also checks the scores
// and scans them for the candidates (scan false: thr is taken as +inf, no candidate). Returns false when some
// score is not finite; else the counts of count_chunk_generic and the positions of scan_ge.
using Fp16Pass = bool (*)(const float*, int64_t, int64_t, const float*, int64_t*, int64_t*, float, uint16_t*, int64_t*);
inline constexpr Fp16Pass kFirstPass[9] = {fp16_pass<0, true>, fp16_pass<1, true>, fp16_pass<2, true>,
                                           fp16_pass<3, true>, fp16_pass<4, true>, fp16_pass<5, true>,
                                           fp16_pass<6, true>, fp16_pass<7, true>, fp16_pass<8, true>};
inline constexpr Fp16Pass kNextPass[9] = {nullptr,
                                          fp16_pass<1, false>,
                                          fp16_pass<2, false>,
                                          fp16_pass<3, false>,
                                          fp16_pass<4, false>,
                                          fp16_pass<5, false>,
                                          fp16_pass<6, false>,
                                          fp16_pass<7, false>,
                                          fp16_pass<8, false>};
inline bool count_scan_fp16(const float* x, int64_t len, const float* lv, int64_t L, int64_t* lt, int64_t* le,
                            bool scan, float thr, uint16_t* pos, int64_t* nh) {
  const int64_t n32 = len / 32 * 32;
  if (!scan) thr = std::numeric_limits<float>::infinity();  // +inf: no finite score; an infinite one is refused first
  int64_t l0 = std::min<int64_t>(L, 8);
  if (!kFirstPass[l0](x, len, n32, lv, lt, le, thr, pos, nh)) return false;
  for (; l0 < L; l0 += 8) {
    const int64_t g = std::min<int64_t>(L - l0, 8);
    kNextPass[g](x, len, n32, lv + l0, lt + l0, le + l0, thr, pos, nh);
  }
  return true;
}
#endif
inline int64_t count_chunk(int path, const float* x, int64_t len, const float* lv, int64_t L, int64_t* lt,
                           int64_t* le) {
#ifdef RANKMETER_TOPK_AVX2
  if (path == 2) return count_chunk_avx512(x, len, lv, L, lt, le);
  if (path == 1) return auc_detail::count_chunk_avx2(x, len, lv, L, lt, le);
#endif
  (void)path;
  return auc_detail::count_chunk_generic(x, len, lv, L, lt, le);
}

// The kk largest of the distinct keys buf[0..n) moved to buf[0..kk), the kk-th largest at buf[kk - 1]
// (1 <= kk <= n; tmp: n keys of scratch). Partitions around a pivot taken from a sample, without branches on the
// data (a quickselect with data-dependent branches mispredicts about every other key on scores), until a short
// range is left to std::nth_element.
inline void top_keys(uint64_t* buf, int64_t n, int64_t kk, uint64_t* tmp) {
  int64_t lo = 0, hi = n, want = kk;  // buf[0..lo) are among the kk largest; the `want` largest of buf[lo..hi) too
  constexpr int S = 16;
  for (int it = 0; it < 8 && hi - lo > 96; ++it) {
    const int64_t len = hi - lo;
    uint64_t smp[S];
    for (int i = 0; i < S; ++i) smp[i] = buf[lo + (2 * i + 1) * len / (2 * S)];
    std::sort(smp, smp + S, std::greater<uint64_t>());
    const uint64_t pivot = smp[std::min<int64_t>(S - 1, want * S / len + 1)];  // about want keys above it, or more
    int64_t f = 0, b = 0;  // keys above the pivot to tmp[0..f), the others to tmp[len - b..len)
    for (int64_t i = lo; i < hi; ++i) {
      const uint64_t x = buf[i];
      const int64_t g = x > pivot;
      tmp[f] = x;
      tmp[len - 1 - b] = x;
      f += g;
      b += 1 - g;
    }
    std::memcpy(buf + lo, tmp, static_cast<size_t>(f) * sizeof(uint64_t));
    if (f >= want) {
      hi = lo + f;
    } else {
      std::memcpy(buf + lo + f, tmp + f, static_cast<size_t>(b) * sizeof(uint64_t));
      lo += f;
      want -= f;
    }
  }
  std::nth_element(buf + lo, buf + lo + want - 1, buf + hi, std::greater<uint64_t>());
}

// What one thread keeps for each user of its current block of users.
struct UserState {
  std::vector<uint64_t> buf;  // top-k candidates (FloatKey), excluded ones dropped at each prune
  int64_t nbuf = 0;
  float thr = 0.0f;             // the worst kept candidate once kk are kept (-inf before)
  std::vector<int64_t> excl;    // distinct excluded columns, sorted
  size_t next_excl = 0;         // the first of them at or after the last candidate's column
  std::vector<int64_t> tcol;    // targets: distinct eligible truth columns, sorted
  std::vector<int64_t> tlev;    // the level of each target
  std::vector<int64_t> eqb;     // scores equal to the target's at a lower column (excluded ones included)
  std::vector<float> lv;        // distinct target scores, ascending (the levels)
  std::vector<int64_t> lt, le;  // per level: scores below / at or below (excluded ones included)
  bool bad = false;
};
}  // namespace model_detail

inline Status factor_pass(const float* U, int64_t n_users, const float* V, const float* P, int64_t n_items, int64_t d,
                          int64_t k, const int64_t* ex_indptr, const int64_t* ex_cols, const int64_t* t_indptr,
                          const int64_t* t_cols, const uint8_t* t_rel, int64_t block_users, int64_t block_items,
                          AucTies ties, int threads, const FactorPassOut& o) {
  using namespace model_detail;
  using Key = topk_detail::FloatKey;
  const int64_t kk = std::min(k, n_items);
  const int64_t np = (n_items + kLanes - 1) / kLanes;
  const int64_t MB = std::max<int64_t>(1, block_users);
  const int64_t NB = std::max<int64_t>(1, (block_items + kLanes - 1) / kLanes);  // panels per tile
  const int64_t ldc = NB * kLanes;
  const int64_t n_ub = (n_users + MB - 1) / MB;
  const int path = tile_path();
  const int T_ = effective_threads(threads, n_users);
  std::vector<Status> tstatus(static_cast<size_t>(T_));
  // A prune when the candidates reach 2 kk + 64 raises the threshold to the kk-th best score seen: the scores
  // seen between two prunes about double, so a row of n scores prunes O(log(n / kk)) times, each O(kk).
  const int64_t cap = 2 * kk + 64;
  constexpr float kLow = -std::numeric_limits<float>::infinity();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T_)
#endif
  {
    Status& tst = tstatus[static_cast<size_t>(thread_id())];
    std::vector<float> C(static_cast<size_t>(MB * ldc)), up(static_cast<size_t>(MB * d));
    std::vector<UserState> st(static_cast<size_t>(MB));
    std::vector<int64_t> slt, sle;
    std::vector<uint16_t> hitpos(static_cast<size_t>(kSeg));
    auto excluded = [](const UserState& s, int64_t c) { return std::binary_search(s.excl.begin(), s.excl.end(), c); };
    // keep the kk best candidates and raise the threshold to the worst of them (Key::before is `>` on the keys)
    std::vector<uint64_t> scratch(static_cast<size_t>(cap + kSeg));
    auto prune = [&](UserState& s) {
      if (s.nbuf >= kk) {
        top_keys(s.buf.data(), s.nbuf, kk, scratch.data());
        s.nbuf = kk;
        s.thr = static_cast<float>(Key::score(s.buf[static_cast<size_t>(kk - 1)]));
      }
    };
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int64_t ub = 0; ub < n_ub; ++ub) {
      const int64_t u0 = ub * MB, m = std::min(MB, n_users - u0);
      // 1. per user: exclusions, targets and their scores (the scalar definition: the bits of the tile), levels
      for (int64_t r = 0; r < m; ++r) {
        const int64_t u = u0 + r;
        UserState& s = st[static_cast<size_t>(r)];
        s.excl.clear();
        if (ex_indptr) s.excl.assign(ex_cols + ex_indptr[u], ex_cols + ex_indptr[u + 1]);
        std::sort(s.excl.begin(), s.excl.end());
        s.excl.erase(std::unique(s.excl.begin(), s.excl.end()), s.excl.end());
        s.next_excl = 0;
        s.buf.resize(static_cast<size_t>(cap + kSeg));
        s.nbuf = 0;
        s.thr = kLow;
        s.bad = false;
        s.tcol.clear();
        for (int64_t p = t_indptr[u]; p < t_indptr[u + 1]; ++p) {
          const int64_t c = t_cols[p];
          if (c >= 0 && c < n_items && !excluded(s, c)) s.tcol.push_back(c);
        }
        std::sort(s.tcol.begin(), s.tcol.end());
        s.tcol.erase(std::unique(s.tcol.begin(), s.tcol.end()), s.tcol.end());
        std::vector<float> sc(s.tcol.size());
        dots_fma(U + u * d, V, s.tcol.data(), static_cast<int64_t>(s.tcol.size()), d, sc.data());
        s.lv.assign(sc.begin(), sc.end());
        std::sort(s.lv.begin(), s.lv.end());
        s.lv.erase(std::unique(s.lv.begin(), s.lv.end()), s.lv.end());  // -0 == +0: one level
        s.tlev.resize(s.tcol.size());
        for (size_t t = 0; t < s.tcol.size(); ++t)
          s.tlev[t] = std::lower_bound(s.lv.begin(), s.lv.end(), sc[t]) - s.lv.begin();
        s.eqb.assign(s.tcol.size(), 0);
        s.lt.assign(s.lv.size(), 0);
        s.le.assign(s.lv.size(), 0);
      }
      // 2. tile by tile over the items: the scores, then each user's counts and candidates while in cache
      pack_users(path, U + u0 * d, d, m, up.data());
      for (int64_t p0 = 0; p0 < np; p0 += NB) {
        const int64_t npp = std::min(NB, np - p0), j0 = p0 * kLanes, nj = std::min(npp * kLanes, n_items - j0);
        tile(path, U + u0 * d, d, m, P + p0 * d * kLanes, npp, C.data(), ldc, up.data());
        for (int64_t r = 0; r < m; ++r) {
          UserState& s = st[static_cast<size_t>(r)];
          if (s.bad) continue;
          float* row = C.data() + r * ldc;
          const int64_t L = static_cast<int64_t>(s.lv.size());
          for (int64_t a0 = 0; a0 < nj; a0 += kSeg) {
            const int64_t len = std::min(kSeg, nj - a0);
            float* x = row + a0;
            slt.assign(static_cast<size_t>(L), 0);
            sle.assign(static_cast<size_t>(L), 0);
            int64_t nh = 0;
            bool ok;
#ifdef RANKMETER_TOPK_AVX2
            if (path == 3) {
              ok = count_scan_fp16(x, len, s.lv.data(), L, slt.data(), sle.data(), kk > 0, s.thr, hitpos.data(), &nh);
            } else
#endif
            {
              ok = count_chunk(path, x, len, s.lv.data(), L, slt.data(), sle.data()) == 0;
              if (ok && kk > 0) nh = scan_ge(path, x, len, s.thr, hitpos.data());
            }
            if (!ok) {
              int64_t j = 0;
              while (std::abs(x[j]) <= std::numeric_limits<float>::max()) ++j;
              tst.record(Code::bad_score, u0 + r, j0 + a0 + j);
              s.bad = true;
              break;
            }
            const int64_t c_lo = j0 + a0, c_hi = c_lo + len;
            for (size_t t = 0; t < s.tcol.size(); ++t) {
              const int64_t l = s.tlev[t], c = s.tcol[t];
              const int64_t eq = sle[static_cast<size_t>(l)] - slt[static_cast<size_t>(l)];
              // eq == 1 for a target of this segment: the target itself
              if (eq == 0 || c < c_lo || (eq == 1 && c < c_hi)) continue;
              if (c >= c_hi) {
                s.eqb[t] += eq;
              } else {
                const float v = s.lv[static_cast<size_t>(l)];
                for (int64_t j = c_lo; j < c; ++j) s.eqb[t] += x[j - c_lo] == v;
              }
            }
            for (int64_t l = 0; l < L; ++l) {
              s.lt[static_cast<size_t>(l)] += slt[static_cast<size_t>(l)];
              s.le[static_cast<size_t>(l)] += sle[static_cast<size_t>(l)];
            }
            // candidates: the scores >= the threshold (a prune raises it for the next segment), in column order,
            // but for the excluded columns (passed over in step with them)
            for (int64_t h = 0; h < nh; ++h) {
              const int64_t c = c_lo + hitpos[static_cast<size_t>(h)];
              while (s.next_excl < s.excl.size() && s.excl[s.next_excl] < c) ++s.next_excl;
              if (s.next_excl < s.excl.size() && s.excl[s.next_excl] == c) continue;
              s.buf[static_cast<size_t>(s.nbuf++)] = Key::make(x[c - c_lo], c);
            }
            if (s.nbuf >= cap) prune(s);
          }
        }
      }
      // 3. per user: the list, the exclusions taken out of the counts, the ranks and the AUC counts
      for (int64_t r = 0; r < m; ++r) {
        const int64_t u = u0 + r;
        UserState& s = st[static_cast<size_t>(r)];
        const float* uu = U + u * d;
        for (int64_t p = t_indptr[u]; p < t_indptr[u + 1]; ++p) o.rank[p] = 0;
        o.len[u] = 0;
        o.num2[u] = o.auc[u] = std::numeric_limits<double>::quiet_NaN();
        o.rel[u] = o.pos[u] = o.neg[u] = 0;
        if (s.bad) continue;
        if (kk > 0) {
          prune(s);
          std::sort(s.buf.begin(), s.buf.begin() + s.nbuf, std::greater<uint64_t>());
          for (int64_t j = 0; j < s.nbuf; ++j) {
            const uint64_t x = s.buf[static_cast<size_t>(j)];
            const int64_t c = Key::col(x);
            const double v = Key::score(x);  // the key keeps the score but for the sign of a zero
            o.cols[u * kk + j] = c;
            o.scores[u * kk + j] = v != 0.0 ? v : static_cast<double>(dot_fma(uu, V + c * d, d));  // -0 stays -0
          }
          o.len[u] = s.nbuf;
        }
        const int64_t L = static_cast<int64_t>(s.lv.size());
        std::vector<float> xs(s.excl.size());
        dots_fma(uu, V, s.excl.data(), static_cast<int64_t>(s.excl.size()), d, xs.data());
        for (size_t x = 0; x < s.excl.size(); ++x) {
          const int64_t e = s.excl[x];
          const float se = xs[x];
          for (int64_t l = 0; l < L; ++l) {
            s.lt[static_cast<size_t>(l)] -= se < s.lv[static_cast<size_t>(l)];
            s.le[static_cast<size_t>(l)] -= se <= s.lv[static_cast<size_t>(l)];
          }
          for (size_t t = 0; t < s.tcol.size(); ++t)
            s.eqb[t] -= (e < s.tcol[t]) & (se == s.lv[static_cast<size_t>(s.tlev[t])]);
        }
        const int64_t n_elig = n_items - static_cast<int64_t>(s.excl.size());
        // the distinct relevant codes (rel), the positives among the targets and their count per level
        std::vector<int64_t> relc, cnt(static_cast<size_t>(L), 0);
        for (int64_t p = t_indptr[u]; p < t_indptr[u + 1]; ++p) {
          const int64_t c = t_cols[p];
          auto it = std::lower_bound(s.tcol.begin(), s.tcol.end(), c);
          const bool target = it != s.tcol.end() && *it == c;
          if (target) {
            const size_t t = static_cast<size_t>(it - s.tcol.begin());
            const int64_t l = s.tlev[t];
            o.rank[p] = 1 + (n_elig - s.le[static_cast<size_t>(l)]) + s.eqb[t];
          }
          if (t_rel[p]) relc.push_back(c);
        }
        std::sort(relc.begin(), relc.end());
        relc.erase(std::unique(relc.begin(), relc.end()), relc.end());
        int64_t P_ = 0;
        for (int64_t c : relc) {
          auto it = std::lower_bound(s.tcol.begin(), s.tcol.end(), c);
          if (it != s.tcol.end() && *it == c) {
            ++cnt[static_cast<size_t>(s.tlev[static_cast<size_t>(it - s.tcol.begin())])];
            ++P_;
          }
        }
        const int64_t N_ = n_elig - P_;
        o.rel[u] = static_cast<int64_t>(relc.size());
        o.pos[u] = P_;
        o.neg[u] = N_;
        if (P_ == 0 || N_ == 0) continue;
        const int64_t w = auc_detail::tie_weight(ties);
        __int128 acc = 0;
        int64_t below = 0;  // positives below the level
        for (int64_t l = 0; l < L; ++l) {
          const int64_t c = cnt[static_cast<size_t>(l)];
          if (c == 0) continue;
          const int64_t nb = s.lt[static_cast<size_t>(l)] - below,
                        ne = s.le[static_cast<size_t>(l)] - s.lt[static_cast<size_t>(l)] - c;
          acc += static_cast<__int128>(c) * (2 * static_cast<__int128>(nb) + w * static_cast<__int128>(ne));
          below += c;
        }
        o.num2[u] = static_cast<double>(acc);
        o.auc[u] = static_cast<double>(acc) / (2.0 * static_cast<double>(P_) * static_cast<double>(N_));
      }
    }
  }
  Status status;
  for (const auto& x : tstatus) status.merge(x);
  return status;
}

}  // namespace rankmeter::core
