// rankmeter/inputs.hpp — the input kernels: score-matrix top-k, long tables to CSR,
// TREC text to columns. Bound by cpp/src/bind_inputs.cpp.
#pragma once
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RANKMETER_TOPK_AVX2 1
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "parallel.hpp"
#include "status.hpp"

namespace rankmeter::core {

// ===========================================================================
// Whether every value of x[0..n) is finite: one parallel pass of integer
// operations the compiler vectorises (a value is not finite when all its
// exponent bits are set; adding the lowest exponent bit to them then carries
// into the sign bit). float or double.
template <class F>
inline bool all_finite(const F* x, int64_t n, int threads) {
  using U = std::conditional_t<sizeof(F) == 8, uint64_t, uint32_t>;
  constexpr int kMant = sizeof(F) == 8 ? 52 : 23;
  constexpr U kExp = sizeof(F) == 8 ? U(0x7FF) << kMant : U(0xFF) << kMant;
  constexpr U kOne = U(1) << kMant;
  constexpr U kSign = U(1) << (sizeof(U) * 8 - 1);
  const int T = effective_threads(threads, n / 65536 + 1);
  U bad = 0;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) reduction(| : bad) schedule(static)
#endif
  for (int t = 0; t < T; ++t) {
    const int64_t b = n * t / T, e = n * (t + 1) / T;
    U acc = 0;
    for (int64_t i = b; i < e; ++i) {
      U u;
      std::memcpy(&u, &x[i], sizeof(u));
      acc |= (u & kExp) + kOne;
    }
    bad |= acc;
  }
  return (bad & kSign) == 0;
}

// ===========================================================================
// top-k selection from a dense score matrix.
//
// Inputs: S (n_users x n_items, row-major, float or double), k, and an optional
// exclusion CSR (ex_indptr[n_users+1], ex_cols: columns never to recommend to
// that user, e.g. the training items). Output per user: up to k columns, best
// first: higher score first, equal scores in column order (ties="input"), and
// their scores as double. A user with fewer than k eligible columns gets a
// shorter list (out_len). Any non-finite score in S is an error (the lowest
// user, then column, is reported), checked before anything is written.
//
// Per row, two passes, the second over a few blocks only:
//   1. one streaming pass over the row in blocks of 64 scores: a branch-free
//      (vectorised) loop per block checks that every score is finite and takes the
//      block's maximum (the row is read from memory once, at memory speed);
//   2. the k-th largest block maximum t is a lower bound of the row's k-th best score
//      (k blocks each hold a score >= t), so the k best are among the scores >= t,
//      which lie in the blocks whose maximum is >= t: usually about k blocks of the
//      row's n/64, read again while still in cache. Those candidates are selected
//      (nth_element) and sorted (score descending, column ascending).
// Excluded columns are left out of their block's maximum. Parallel over users;
// per-thread scratch: the block maxima, the candidates and an exclusion stamp array.
namespace topk_detail {
struct Cand {
  double s;
  int64_t c;
};
// a is better than b: higher score, or equal score and lower column
inline bool better(const Cand& a, const Cand& b) { return a.s > b.s || (a.s == b.s && a.c < b.c); }
// How a candidate is held: (score, column) pairs compared by `better`, or, for float
// scores and columns < 2^32, one 64-bit key whose integer order is that same order
// (high half: the score's bits made monotone, -0 taken as +0; low half: ~column), so
// selecting and sorting compare plain integers.
struct PairKey {
  using type = Cand;
  static Cand make(double v, int64_t c) { return Cand{v, c}; }
  static int64_t col(const Cand& x) { return x.c; }
  static double score(const Cand& x) { return x.s; }
  static bool before(const Cand& a, const Cand& b) { return better(a, b); }
};
struct FloatKey {
  using type = uint64_t;
  static uint64_t make(float v, int64_t c) {
    uint32_t u;
    const float w = v + 0.0f;  // -0 -> +0 (equal scores tie on the column, as in `better`)
    std::memcpy(&u, &w, sizeof u);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return (static_cast<uint64_t>(u) << 32) | (0xFFFFFFFFu - static_cast<uint32_t>(c));
  }
  static int64_t col(uint64_t x) { return static_cast<int64_t>(0xFFFFFFFFu - static_cast<uint32_t>(x)); }
  static double score(uint64_t x) {
    uint32_t u = static_cast<uint32_t>(x >> 32);
    u = (u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u;
    float v;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }
  static bool before(uint64_t a, uint64_t b) { return a > b; }
};
constexpr int64_t kBlock = 64;
// Maximum of n <= kBlock scores into *mx; false when one of them is NaN or infinite.
// v - v is 0 for a finite score and NaN otherwise, so the sum is 0 exactly when every
// score is finite (in any order of the sum).
template <class T>
inline bool block_max(const T* blk, int64_t n, T* mx_out) {
  T zero = T(0), mx = -std::numeric_limits<T>::infinity();
  if (n == kBlock) {
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp simd reduction(+ : zero) reduction(max : mx)
#endif
    for (int64_t j = 0; j < kBlock; ++j) {
      const T v = blk[j];
      zero += v - v;
      mx = v > mx ? v : mx;
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const T v = blk[j];
      zero += v - v;
      mx = v > mx ? v : mx;
    }
  }
  *mx_out = mx;
  return zero == T(0);
}
#ifdef RANKMETER_TOPK_AVX2
// block_max for a full block of 64 float scores with AVX2 (compiled for this function
// only, chosen at run time): eight scores per instruction, two accumulators. The same
// answer as block_max: the maximum is exact whatever the order, and the sum of v - v is
// 0 exactly when every score is finite (a NaN or an infinity makes it NaN).
__attribute__((target("avx2"))) inline bool block_max_avx2(const float* blk, float* mx_out) {
  __m256 m0 = _mm256_set1_ps(-std::numeric_limits<float>::infinity()), m1 = m0;
  __m256 z0 = _mm256_setzero_ps(), z1 = z0;
  for (int j = 0; j < kBlock; j += 16) {
    const __m256 a = _mm256_loadu_ps(blk + j), b = _mm256_loadu_ps(blk + j + 8);
    z0 = _mm256_add_ps(z0, _mm256_sub_ps(a, a));
    z1 = _mm256_add_ps(z1, _mm256_sub_ps(b, b));
    m0 = _mm256_max_ps(m0, a);
    m1 = _mm256_max_ps(m1, b);
  }
  const __m256 z = _mm256_add_ps(z0, z1), m = _mm256_max_ps(m0, m1);
  __m128 z4 = _mm_add_ps(_mm256_castps256_ps128(z), _mm256_extractf128_ps(z, 1));
  __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  z4 = _mm_add_ps(z4, _mm_movehl_ps(z4, z4));
  m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
  z4 = _mm_add_ss(z4, _mm_shuffle_ps(z4, z4, 1));
  m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
  *mx_out = _mm_cvtss_f32(m4);
  return _mm_cvtss_f32(z4) == 0.0f;
}
#endif
// The AVX2 block maxima for float scores: where the CPU has AVX2, unless RANKMETER_SIMD=0.
inline bool topk_avx2_enabled() {
#ifdef RANKMETER_TOPK_AVX2
  const char* env = std::getenv("RANKMETER_SIMD");
  return !(env && std::strcmp(env, "0") == 0) && __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}
constexpr int64_t kSub = 16;
// Bit j set when p[j] >= t, for kSub scores: four SSE compares for float on x86-64
// (SSE2 is part of the base instruction set there), a scalar loop otherwise.
template <class T>
inline uint32_t ge_mask(const T* p, T t) {
  uint32_t m = 0;
  for (int64_t j = 0; j < kSub; ++j) m |= static_cast<uint32_t>(p[j] >= t) << j;
  return m;
}
#if defined(__SSE2__)
template <>
inline uint32_t ge_mask<float>(const float* p, float t) {
  const __m128 tv = _mm_set1_ps(t);
  uint32_t m = 0;
  for (int j = 0; j < 4; ++j)
    m |= static_cast<uint32_t>(_mm_movemask_ps(_mm_cmpge_ps(_mm_loadu_ps(p + 4 * j), tv))) << (4 * j);
  return m;
}
#endif
}  // namespace topk_detail

template <class T, class Key>
Status topk_rows_with(const T* S, int64_t n_users, int64_t n_items, int64_t k, const int64_t* ex_indptr,
                      const int64_t* ex_cols, int threads, int64_t* out_cols, double* out_scores, int64_t* out_len) {
  using namespace topk_detail;
  using K = typename Key::type;
  const int T_ = effective_threads(threads, n_users);
  std::vector<Status> tstatus(T_);
  const int64_t kk = std::min(k, n_items);
  constexpr int64_t B = kBlock;
  const int64_t nb = (n_items + B - 1) / B;
  constexpr T kLow = -std::numeric_limits<T>::infinity();
  [[maybe_unused]] const bool avx2 = std::is_same_v<T, float> && topk_avx2_enabled();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T_)
#endif
  {
    std::vector<T> bm(static_cast<size_t>(nb)), sel;
    T guess = kLow;
    bool have_guess = false;
    const int64_t slack = kk / 4 + 8;
    const int64_t cap = 4 * kk + 64;
    std::vector<K> buf(static_cast<size_t>(cap + B));  // room for one more block past cap
    int64_t nbuf = 0;
    std::vector<uint32_t> stamp(ex_indptr ? static_cast<size_t>(n_items) : 0, 0);
    uint32_t now = 0;
    Status& tst = tstatus[thread_id()];
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < n_users; ++u) {
      const T* row = S + u * n_items;
      if (ex_indptr) {
        if (++now == 0) {
          std::fill(stamp.begin(), stamp.end(), 0);
          now = 1;
        }
        for (int64_t p = ex_indptr[u]; p < ex_indptr[u + 1]; ++p) stamp[ex_cols[p]] = now;
      }
      // Scores >= t of columns [c0, c0 + n) (n <= kBlock) into the buffer: 16-score pieces
      // whose maximum is below t are skipped, the others are written branch-free (a slot is
      // kept when the score qualifies). A full buffer keeps its kk best and raises t to the
      // worst of them (later equal scores have higher columns, so they can never displace).
      auto collect = [&](int64_t c0, int64_t n, T& t) {
        for (int64_t s0 = 0; s0 < n; s0 += kSub) {
          const int64_t m = std::min(kSub, n - s0);
          if (m == kSub) {
            uint32_t hits = ge_mask(row + c0 + s0, t);  // one bit per score >= t
            while (hits) {
              const int64_t c = c0 + s0 + __builtin_ctz(hits);
              hits &= hits - 1;
              buf[static_cast<size_t>(nbuf)] = Key::make(row[c], c);
              nbuf += !(ex_indptr && stamp[c] == now);
            }
            continue;
          }
          for (int64_t c = c0 + s0; c < c0 + s0 + m; ++c) {
            const T v = row[c];
            buf[static_cast<size_t>(nbuf)] = Key::make(v, c);
            nbuf += (v >= t) & !(ex_indptr && stamp[c] == now);
          }
        }
        if (nbuf >= cap) {
          std::nth_element(buf.begin(), buf.begin() + (kk - 1), buf.begin() + nbuf, Key::before);
          nbuf = kk;
          t = static_cast<T>(Key::score(buf[static_cast<size_t>(kk - 1)]));
        }
      };
      // 1. one read of the row: finite check and block maxima; with a guess t (the previous
      // row's), the scores >= t of a block whose maximum reaches t are taken while the block
      // is in L1. A full buffer keeps its kk best and raises t to the worst of them.
      bool bad = false;
      nbuf = 0;
      T thr = have_guess ? guess : kLow;
      for (int64_t b = 0; b < nb; ++b) {
        const int64_t c0 = b * B, n = std::min(B, n_items - c0);
        bool finite;
#ifdef RANKMETER_TOPK_AVX2
        if constexpr (std::is_same_v<T, float>) {
          finite = avx2 && n == B ? block_max_avx2(row + c0, &bm[b]) : block_max(row + c0, n, &bm[b]);
        } else {
          finite = block_max(row + c0, n, &bm[b]);
        }
#else
        finite = block_max(row + c0, n, &bm[b]);
#endif
        if (!finite) {
          for (int64_t j = 0; j < n; ++j)
            if (!std::isfinite(static_cast<double>(row[c0 + j]))) {
              tst.record(Code::bad_score, u, c0 + j);
              break;
            }
          bad = true;
          break;
        }
        if (have_guess && bm[b] >= thr && kk > 0) collect(c0, n, thr);
      }
      if (bad || kk == 0) {
        out_len[u] = 0;
        continue;
      }
      if (ex_indptr) {  // excluded columns leave their block's maximum (kLow: nothing left)
        for (int64_t p = ex_indptr[u]; p < ex_indptr[u + 1]; ++p) {
          const int64_t b = ex_cols[p] / B, c0 = b * B, n = std::min(B, n_items - c0);
          T mx = kLow;
          for (int64_t j = 0; j < n; ++j)
            if (stamp[c0 + j] != now) mx = std::max(mx, row[c0 + j]);
          bm[b] = mx;
        }
      }
      // 2. With kk candidates >= the guess, the kk best are among them (done). Otherwise
      // (first row, or a guess too high) t is the (kk + slack)-th largest block maximum: a
      // lower bound of the kk-th best score (that many blocks each hold a score >= t), and
      // the blocks whose maximum reaches t are read again (still in cache). kLow when fewer
      // blocks are left: every eligible score is a candidate. The guess for the next row is
      // renewed when it failed or was loose (more than 2 (kk + slack) blocks reach it). Any
      // valid bound gives the same answer, so the guess (per thread) never changes a result.
      const bool found = have_guess && nbuf >= kk;
      bool renew = !found;
      if (found && nb > kk) {
        int64_t cnt = 0;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp simd reduction(+ : cnt)
#endif
        for (int64_t b = 0; b < nb; ++b) cnt += bm[b] >= guess ? 1 : 0;
        renew = cnt > 2 * (kk + slack);
      }
      T t = kLow;
      if (renew && nb > kk) {
        const int64_t j = std::min(nb - 1, kk - 1 + slack);
        sel.assign(bm.begin(), bm.end());
        std::nth_element(sel.begin(), sel.begin() + j, sel.end(), [](T x, T y) { return x > y; });
        t = sel[static_cast<size_t>(j)];
        guess = t;
        have_guess = t > kLow;
      }
      if (!found) {
        nbuf = 0;
        for (int64_t b = 0; b < nb; ++b)
          if (bm[b] >= t && bm[b] > kLow) collect(b * B, std::min(B, n_items - b * B), t);
      }
      if (nbuf > kk) {
        std::nth_element(buf.begin(), buf.begin() + (kk - 1), buf.begin() + nbuf, Key::before);
        nbuf = kk;
      }
      std::sort(buf.begin(), buf.begin() + nbuf, Key::before);
      int64_t* oc = out_cols + u * kk;
      double* os = out_scores + u * kk;
      for (int64_t j = 0; j < nbuf; ++j) {
        oc[j] = Key::col(buf[static_cast<size_t>(j)]);
        os[j] = static_cast<double>(row[oc[j]]);  // the score as given (a -0 stays -0)
      }
      out_len[u] = nbuf;
    }
  }
  Status st;
  for (const auto& x : tstatus) st.merge(x);
  return st;
}

template <class T>
Status topk_rows(const T* S, int64_t n_users, int64_t n_items, int64_t k, const int64_t* ex_indptr,
                 const int64_t* ex_cols, int threads, int64_t* out_cols, double* out_scores, int64_t* out_len) {
  if constexpr (std::is_same_v<T, float>) {
    if (n_items <= int64_t{0xFFFFFFFF})
      return topk_rows_with<T, topk_detail::FloatKey>(S, n_users, n_items, k, ex_indptr, ex_cols, threads, out_cols,
                                                      out_scores, out_len);
  }
  return topk_rows_with<T, topk_detail::PairKey>(S, n_users, n_items, k, ex_indptr, ex_cols, threads, out_cols,
                                                 out_scores, out_len);
}

// ===========================================================================
// long tables to CSR without sorting.
//
// A long table holds one row per (user, item); rankmeter wants the rows of each
// user together, users in order of first appearance. Three O(rows) passes, no
// comparison sort:
//
//   factorize_ids: int64 user ids -> dense codes 0..n-1 in order of first
//     appearance (open addressing hash table, grown as needed; a row equal to
//     the previous row's id reuses its code, so grouped tables cost one probe
//     per user, not per row).
//   group_stable: a counting sort of the rows by code (rows of one user keep
//     their table order) -> indptr and the row order.
//   group_by_rank: each row goes straight to slot indptr[code] + rank - 1; a
//     rank outside 1..count(user) or a slot already taken is an error naming
//     the first such row (ranks of a user that are 1..n without gaps or
//     repeats are exactly a permutation, so this check is complete).
// codes[i] for every row; first_row[c] = the first row holding code c. Returns the number of codes.
inline int64_t factorize_ids(const int64_t* ids, int64_t n, int64_t* codes, std::vector<int64_t>& first_row) {
  first_row.clear();
  if (n == 0) return 0;
  // one slot = key and code side by side (one cache line per probe); the slot of a key is the top bits of
  // key x 2^64 / phi (Fibonacci hashing), then linear probing; the load stays under 1/2
  struct Slot {
    int64_t key;
    int64_t code;  // -1: empty
  };
  int bits = 10;
  std::vector<Slot> slots(size_t{1} << bits, Slot{0, -1});
  uint64_t mask = (uint64_t{1} << bits) - 1;
  auto slot_of = [&](int64_t key) {
    uint64_t i = (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> (64 - bits);
    for (;; i = (i + 1) & mask) {
      const Slot& x = slots[i];
      if (x.code < 0 || x.key == key) return i;
    }
  };
  int64_t prev_key = 0, prev_code = -1;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t key = ids[r];
    if (prev_code >= 0 && key == prev_key) {
      codes[r] = prev_code;
      continue;
    }
    uint64_t i = slot_of(key);
    if (slots[i].code < 0) {
      if (static_cast<uint64_t>(first_row.size() + 1) * 2 > mask + 1) {  // keep the load under 1/2
        std::vector<Slot> old = std::move(slots);
        ++bits;
        mask = (uint64_t{1} << bits) - 1;
        slots.assign(size_t{1} << bits, Slot{0, -1});
        for (const Slot& x : old)
          if (x.code >= 0) slots[slot_of(x.key)] = x;
        i = slot_of(key);
      }
      slots[i] = Slot{key, static_cast<int64_t>(first_row.size())};
      first_row.push_back(r);
    }
    prev_key = key;
    prev_code = slots[i].code;
    codes[r] = prev_code;
  }
  return static_cast<int64_t>(first_row.size());
}

// indptr[n_codes + 1] and order[n]: the rows of code 0 in table order, then code 1, ...
inline void group_stable(const int64_t* codes, int64_t n, int64_t n_codes, int64_t* indptr, int64_t* order) {
  std::vector<int64_t> cursor(static_cast<size_t>(n_codes) + 1, 0);
  for (int64_t r = 0; r < n; ++r) ++cursor[static_cast<size_t>(codes[r]) + 1];
  for (int64_t c = 0; c < n_codes; ++c) cursor[c + 1] += cursor[c];
  for (int64_t c = 0; c <= n_codes; ++c) indptr[c] = cursor[c];
  for (int64_t r = 0; r < n; ++r) order[cursor[codes[r]]++] = r;
}

// As group_stable, but each user's rows are placed by their rank (1-based).
// Returns -1, or the first row whose rank is out of 1..count or repeats a rank.
inline int64_t group_by_rank(const int64_t* codes, const int64_t* rank, int64_t n, int64_t n_codes, int64_t* indptr,
                             int64_t* order) {
  for (int64_t c = 0; c <= n_codes; ++c) indptr[c] = 0;
  for (int64_t r = 0; r < n; ++r) ++indptr[codes[r] + 1];
  for (int64_t c = 0; c < n_codes; ++c) indptr[c + 1] += indptr[c];
  for (int64_t r = 0; r < n; ++r) order[r] = -1;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t c = codes[r];
    const int64_t count = indptr[c + 1] - indptr[c];
    const int64_t k = rank[r];
    if (k < 1 || k > count) return r;
    int64_t& slot = order[indptr[c] + k - 1];
    if (slot >= 0) return r;
    slot = r;
  }
  return -1;
}

// ===========================================================================
// TREC qrels / run text to columns, in one pass.
//
// Lines are split on ASCII whitespace (space, tab, CR, VT, FF), as trec_eval
// does; blank lines are skipped. For each line the parser keeps field 0 (the
// query), field 2 (the docno) and the number in `value_field` (qrels: grade,
// field 3; run: score, field 4), and checks the field count. Numbers follow
// Python's float() for decimal text (optional sign, digits, point, exponent,
// inf/nan spelled out) and must be finite. The whole buffer must be UTF-8.
// Errors report the 1-based line number.
enum class TrecError : int { ok = 0, fields = 1, not_number = 2, not_finite = 3, not_utf8 = 4 };

struct TrecRow {
  std::string_view query, doc;
  double value;
};

struct TrecParse {
  std::vector<TrecRow> rows;
  TrecError error = TrecError::ok;
  int64_t line = 0;      // 1-based line of the error
  int64_t n_fields = 0;  // fields on that line (fields error)
  int64_t byte = 0;      // offset of the first bad byte (not_utf8)
  std::string_view token;
};

// ===========================================================================
// Ordering lists by score (forms that carry only scores: dicts of item -> score,
// score columns, TREC runs).
//
// Inputs: CSR row pointers indptr[n_users+1], scores[nnz] (finite, checked by the
// caller) and an optional tie key[nnz] (e.g. the rank of each docno in string
// order). Output: order[nnz], a permutation of 0..nnz-1 that lists every user's
// entries by score descending, equal scores by key descending (when given),
// then by position (input order) — the same permutation as a stable sort, and
// independent of the thread count. Parallel over users; each user's segment is
// sorted in place with std::sort on (score, key, position).
inline void order_by_score(const int64_t* indptr, int64_t n_users, const double* scores, const int64_t* key,
                           int64_t* order, int threads) {
  const int T = effective_threads(threads, n_users);
  (void)T;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    // each list is sorted as a contiguous array of (score, key, position) records: the
    // comparisons read neighbouring memory instead of two indirections per comparison
    struct Rec {
      double s;
      int64_t k;
      int64_t i;
    };
    std::vector<Rec> buf;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int64_t u = 0; u < n_users; ++u) {
      const int64_t b = indptr[u], e = indptr[u + 1];
      buf.resize(static_cast<size_t>(e - b));
      for (int64_t i = b; i < e; ++i) buf[static_cast<size_t>(i - b)] = Rec{scores[i], key ? key[i] : 0, i};
      std::sort(buf.begin(), buf.end(), [](const Rec& x, const Rec& y) {
        if (x.s != y.s) return x.s > y.s;
        if (x.k != y.k) return x.k > y.k;
        return x.i < y.i;
      });
      int64_t* o = order + b;
      for (size_t j = 0; j < buf.size(); ++j) o[j] = buf[j].i;
    }
  }
}

// ranx's order of a list ranked by score (ties="ranx"). ranx's Run sorts each query's
// documents with numba's np.argsort of the negated scores, whose default kind is numba's
// quicksort (numba/misc/quicksort.py): an explicit stack of ranges, median-of-three pivot
// moved to the end of its range, Hoare-style partition that stops on equal keys,
// insertion sort for ranges of fewer than 16 entries, the larger side pushed and the
// smaller one sorted next. Unstable but deterministic: this reproduces it step by step
// (NaN keys sort last, as numba's float comparison does). `key[0..n)` are the keys in list
// order; `perm[0..n)` receives the argsort (local positions).
namespace ranx_detail {
inline bool lt(double a, double b) { return a < b || (std::isnan(b) && !std::isnan(a)); }

inline void insertion(const double* key, int64_t* r, int64_t low, int64_t high) {
  for (int64_t i = low + 1; i <= high; ++i) {
    const int64_t moved = r[i];
    const double v = key[moved];
    int64_t j = i;
    for (; j > low && lt(v, key[r[j - 1]]); --j) r[j] = r[j - 1];
    r[j] = moved;
  }
}

inline int64_t partition(const double* key, int64_t* r, int64_t low, int64_t high) {
  const int64_t mid = (low + high) >> 1;
  if (lt(key[r[mid]], key[r[low]])) std::swap(r[low], r[mid]);
  if (lt(key[r[high]], key[r[mid]])) std::swap(r[high], r[mid]);
  if (lt(key[r[mid]], key[r[low]])) std::swap(r[low], r[mid]);
  const double pivot = key[r[mid]];
  std::swap(r[high], r[mid]);
  int64_t i = low, j = high - 1;
  for (;;) {
    while (i < high && lt(key[r[i]], pivot)) ++i;
    while (j >= low && lt(pivot, key[r[j]])) --j;
    if (i >= j) break;
    std::swap(r[i], r[j]);
    ++i;
    --j;
  }
  std::swap(r[i], r[high]);
  return i;
}
}  // namespace ranx_detail

inline void numba_quicksort_argsort(const double* key, int64_t n, int64_t* perm) {
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  if (n < 2) return;
  constexpr int64_t kSmall = 15;  // ranges with high - low < 15 go to the insertion sort
  std::vector<std::pair<int64_t, int64_t>> stack{{0, n - 1}};
  while (!stack.empty()) {
    auto [low, high] = stack.back();
    stack.pop_back();
    while (high - low >= kSmall) {
      const int64_t i = ranx_detail::partition(key, perm, low, high);
      if (high - i > i - low) {  // the right side is larger: push it, go on with the left
        if (high > i) stack.emplace_back(i + 1, high);
        high = i - 1;
      } else {
        if (i > low) stack.emplace_back(low, i - 1);
        low = i + 1;
      }
    }
    ranx_detail::insertion(key, perm, low, high);
  }
}

// order[nnz]: every list (CSR indptr) by numba's quicksort argsort of `keys` (ascending),
// as global positions; `reverse` reverses each list's result (ranx's plain-dict path sorts
// the scores ascending and reads the result backwards).
inline void order_numba_quicksort(const int64_t* indptr, int64_t n_users, const double* keys, bool reverse,
                                  int64_t* order, int threads) {
  const int T = effective_threads(threads, n_users);
  (void)T;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(dynamic, 256)
#endif
  for (int64_t u = 0; u < n_users; ++u) {
    const int64_t b = indptr[u], n = indptr[u + 1] - b;
    int64_t* o = order + b;
    numba_quicksort_argsort(keys + b, n, o);
    if (reverse) std::reverse(o, o + n);
    for (int64_t i = 0; i < n; ++i) o[i] += b;
  }
}

// ===========================================================================
// Sorting distinct strings without a cache miss per comparison.
//
// order[r] = the index of the r-th smallest of the distinct strings s (byte order,
// a proper prefix first). An MSD sort by 8-byte chunks: every string's chunk at
// the current depth is read once into a contiguous (chunk as a big-endian
// integer, length class, index) array that std::sort orders; groups that share
// a chunk and go on are sorted again by their next chunk. A comparison sort of
// string_views instead reads two scattered strings per comparison (n log n
// cache misses: ~6 s for 1.6M docnos against ~0.3 s here). The length class is
// how many bytes of the chunk the string has (0..8), or 9 when it goes on, so a
// string that ends inside the chunk (zero-padded) sorts before any longer one
// with the same bytes.
namespace sort_detail {
struct Key {  // 16 bytes: the sort moves these
  uint64_t chunk;
  int32_t cls;
  int32_t idx;
};
inline uint64_t chunk_at(std::string_view v, size_t depth, int32_t& cls) {
  uint64_t k = 0;
  const size_t len = v.size() > depth ? v.size() - depth : 0;
  const size_t take = len < 8 ? len : 8;
  for (size_t j = 0; j < take; ++j)
    k |= static_cast<uint64_t>(static_cast<unsigned char>(v[depth + j])) << (56 - 8 * j);
  cls = len > 8 ? 9 : static_cast<int32_t>(len);
  return k;
}
}  // namespace sort_detail

inline void sort_strings(const std::vector<std::string_view>& s, std::vector<int64_t>& order) {
  using sort_detail::Key;
  const size_t m = s.size();
  if (m >= (size_t(1) << 31)) throw std::length_error("sort_strings: more than 2^31 strings");
  order.resize(m);
  std::vector<Key> keys(m);
  for (size_t i = 0; i < m; ++i) keys[i] = Key{0, 0, static_cast<int32_t>(i)};
  struct Range {
    size_t b, e, depth;
  };
  std::vector<Range> todo{{0, m, 0}};
  while (!todo.empty()) {
    const Range r = todo.back();
    todo.pop_back();
    for (size_t i = r.b; i < r.e; ++i)
      keys[i].chunk = sort_detail::chunk_at(s[static_cast<size_t>(keys[i].idx)], r.depth, keys[i].cls);
    std::sort(keys.begin() + static_cast<std::ptrdiff_t>(r.b), keys.begin() + static_cast<std::ptrdiff_t>(r.e),
              [](const Key& a, const Key& b) { return a.chunk != b.chunk ? a.chunk < b.chunk : a.cls < b.cls; });
    // runs of strings that share this chunk and go on (class 9) are ordered by their next chunk
    for (size_t i = r.b; i < r.e;) {
      size_t j = i + 1;
      while (j < r.e && keys[j].chunk == keys[i].chunk && keys[j].cls == keys[i].cls) ++j;
      if (keys[i].cls == 9 && j - i > 1) todo.push_back(Range{i, j, r.depth + 8});
      i = j;
    }
  }
  for (size_t i = 0; i < m; ++i) order[i] = keys[i].idx;
}

// ===========================================================================
// Strings to dense codes in the strings' order (TREC docnos).
//
// codes[i] for each of the n strings s[i], and labels = the distinct strings in
// ascending order, so that codes[i] < codes[j] exactly when s[i] < s[j]
// compared byte by byte (std::string_view::compare: unsigned bytes, then the
// shorter first), which for UTF-8 text is code point order, Python's str
// order and trec_eval's strcmp order. One hash pass over the n strings (open
// addressing, ids in order of first appearance, load kept under 1/2), one
// sort of the distinct strings only (sort_strings), one pass mapping ids to ranks. Equal
// scores ordered by docno (ties="trec") are then ordered by code.
inline void code_strings_in_order(const std::string_view* s, int64_t n, int64_t* codes,
                                  std::vector<std::string_view>& labels) {
  labels.clear();
  if (n == 0) return;
  if (n >= (int64_t(1) << 31)) throw std::length_error("code_strings_in_order: more than 2^31 strings");
  // a slot (8 bytes: the table is a large share of the memory touched) holds 32 bits of the
  // hash and the id: a probe reads one slot, strings are compared on a tag match only
  struct Slot {
    uint32_t tag;
    int32_t id;  // -1: empty
  };
  size_t cap = 1024;
  while (cap < 2 * static_cast<size_t>(std::min<int64_t>(n, int64_t(1) << 22))) cap <<= 1;
  std::vector<Slot> table(cap, Slot{0, -1});
  uint64_t mask = cap - 1;
  const std::hash<std::string_view> hasher;
  // hashes are computed kAhead strings ahead and their slots prefetched: the probes of a large
  // table are cache misses, and this overlaps them instead of waiting for each in turn
  constexpr int64_t kAhead = 16;
  uint64_t ring[kAhead];
  for (int64_t i = 0; i < std::min(n, kAhead); ++i) {
    ring[i] = hasher(s[i]);
    __builtin_prefetch(&table[ring[i] & mask]);
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t h = ring[i % kAhead];
    if (i + kAhead < n) {
      const uint64_t ha = hasher(s[i + kAhead]);
      ring[i % kAhead] = ha;
      __builtin_prefetch(&table[ha & mask]);
    }
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    uint64_t slot = h & mask;
    for (;; slot = (slot + 1) & mask) {
      const Slot& t = table[slot];
      if (t.id < 0 || (t.tag == tag && labels[static_cast<size_t>(t.id)] == s[i])) break;
    }
    if (table[slot].id >= 0) {
      codes[i] = table[slot].id;
      continue;
    }
    const int64_t id = static_cast<int64_t>(labels.size());
    labels.push_back(s[i]);
    codes[i] = id;
    table[slot] = Slot{tag, static_cast<int32_t>(id)};
    if (labels.size() * 2 > table.size()) {  // grow: re-insert the distinct strings (hashed again)
      table.assign(table.size() * 2, Slot{0, -1});
      mask = table.size() - 1;
      for (size_t j = 0; j < labels.size(); ++j) {
        const uint64_t hj = hasher(labels[j]);
        uint64_t t = hj & mask;
        while (table[t].id >= 0) t = (t + 1) & mask;
        table[t] = Slot{static_cast<uint32_t>(hj >> 32), static_cast<int32_t>(j)};
      }
    }
  }
  const size_t m = labels.size();
  std::vector<int64_t> by_order(m);
  sort_strings(labels, by_order);
  std::vector<int64_t> rank(m);
  std::vector<std::string_view> sorted(m);
  for (size_t r = 0; r < m; ++r) {
    rank[static_cast<size_t>(by_order[r])] = static_cast<int64_t>(r);
    sorted[r] = labels[static_cast<size_t>(by_order[r])];
  }
  for (int64_t i = 0; i < n; ++i) codes[i] = rank[static_cast<size_t>(codes[i])];
  labels.swap(sorted);
}

// ===========================================================================
// The union of two sorted string tables (TREC docnos of a qrels and a run file).
//
// A table is a blob of UTF-8 bytes and offsets[m + 1]; its strings are distinct and
// ascending (code_strings_in_order's labels). One merge pass gives map_a[i] / map_b[j],
// the position of each string in the union (also ascending, so the union codes still
// compare as the strings), and writes the union table (out_offsets[0..n], n returned).
inline int64_t merge_sorted_strings(const char* a, const int64_t* oa, int64_t ma, const char* b, const int64_t* ob,
                                    int64_t mb, int64_t* map_a, int64_t* map_b, std::vector<char>& out_blob,
                                    std::vector<int64_t>& out_offsets) {
  out_blob.clear();
  out_offsets.assign(1, 0);
  int64_t i = 0, j = 0, n = 0;
  auto put = [&](std::string_view v) {
    out_blob.insert(out_blob.end(), v.begin(), v.end());
    out_offsets.push_back(static_cast<int64_t>(out_blob.size()));
    return n++;
  };
  while (i < ma || j < mb) {
    if (j >= mb) {
      map_a[i] = put(std::string_view(a + oa[i], static_cast<size_t>(oa[i + 1] - oa[i])));
      ++i;
      continue;
    }
    const std::string_view vb(b + ob[j], static_cast<size_t>(ob[j + 1] - ob[j]));
    if (i >= ma) {
      map_b[j++] = put(vb);
      continue;
    }
    const std::string_view va(a + oa[i], static_cast<size_t>(oa[i + 1] - oa[i]));
    const int c = va.compare(vb);
    if (c < 0) {
      map_a[i++] = put(va);
    } else if (c > 0) {
      map_b[j++] = put(vb);
    } else {
      map_a[i++] = map_b[j++] = put(va);
    }
  }
  return n;
}

namespace trec_detail {
inline bool space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Offset of the first byte that is not part of valid UTF-8, or -1.
inline int64_t utf8_invalid_at(const unsigned char* s, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (int j = 1; j < len; ++j) {
      if ((s[i + j] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + j] & 0x3F);
    }
    // overlong forms, surrogates and code points past U+10FFFF are not UTF-8
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += len;
  }
  return -1;
}

inline bool parse_number(std::string_view t, double& out) {
  const char* b = t.data();
  const char* e = b + t.size();
  if (b != e && *b == '+') {
    ++b;
    if (b != e && (*b == '-' || *b == '+')) return false;
  }
  if (b == e) return false;
  auto r = std::from_chars(b, e, out, std::chars_format::general);
  return r.ec == std::errc() && r.ptr == e;
}
}  // namespace trec_detail

inline TrecParse parse_trec(const char* data, int64_t n, int n_min, int n_max, int value_field) {
  using namespace trec_detail;
  TrecParse out;
  const int64_t bad = utf8_invalid_at(reinterpret_cast<const unsigned char*>(data), n);
  if (bad >= 0) {
    out.error = TrecError::not_utf8;
    out.byte = bad;
    return out;
  }
  int64_t line = 0, i = 0;
  std::string_view f[8];
  // one row per line at most: reserving up front avoids regrowing (and copying) a large vector
  out.rows.reserve(static_cast<size_t>(std::count(data, data + n, '\n') + 1));
  while (i < n) {
    ++line;
    int64_t nf = 0;
    // fields of this line
    while (i < n && data[i] != '\n') {
      while (i < n && space(static_cast<unsigned char>(data[i]))) ++i;
      if (i >= n || data[i] == '\n') break;
      const int64_t s = i;
      while (i < n && data[i] != '\n' && !space(static_cast<unsigned char>(data[i]))) ++i;
      if (nf < 8) f[nf] = std::string_view(data + s, static_cast<size_t>(i - s));
      ++nf;
    }
    if (i < n) ++i;  // the '\n'
    if (nf == 0) continue;
    if (nf < n_min || (n_max > 0 && nf > n_max)) {
      out.error = TrecError::fields;
      out.line = line;
      out.n_fields = nf;
      return out;
    }
    double v = 0.0;
    if (!parse_number(f[value_field], v)) {
      out.error = TrecError::not_number;
      out.line = line;
      out.token = f[value_field];
      return out;
    }
    if (!std::isfinite(v)) {
      out.error = TrecError::not_finite;
      out.line = line;
      out.token = f[value_field];
      return out;
    }
    out.rows.push_back(TrecRow{f[0], f[2], v});
  }
  return out;
}

}  // namespace rankmeter::core
