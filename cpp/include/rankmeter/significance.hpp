// rankmeter/significance.hpp — resampling kernels of the paired significance tests.
//
// Contract (both kernels):
//   * inputs are row-major float64 matrices, one row per user, one column per
//     compared vector (a run's per-user metric values, or a per-user
//     difference); the caller (python/rankmeter/compare) has already replaced
//     the values of users left out of a comparison by 0 (randomization) or
//     removed those users (bootstrap);
//   * resample r draws its random bits from a counter-based generator keyed on
//     (seed, r) only (splitmix64's output function applied to a counter), so a
//     resample's outcome never depends on the thread that runs it;
//   * every output element is accumulated in double, in a fixed order, by one
//     thread: results are bit-identical for any thread count;
//   * OpenMP parallelizes over resamples; no exception is thrown inside the
//     parallel region (nothing can fail there).
// tests/support/reference_stats.py re-implements both kernels in plain Python, operation
// for operation, and the tests check bit-for-bit equality.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "rankmeter/parallel.hpp"

namespace rankmeter::core {

// ---------------------------------------------------------------- generator
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

// splitmix64's output function (Steele, Lea & Flood 2014).
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Domains keep the streams of the two tests apart for the same seed.
constexpr uint64_t kDomainSignFlip = 1;
constexpr uint64_t kDomainBootstrap = 2;

// The key of resample r: a splitmix64 state derived from (seed, domain, r).
inline uint64_t resample_key(uint64_t seed, uint64_t domain, uint64_t r) {
  return mix64(mix64(seed + kGolden * domain) + kGolden * (r + 1));
}

// Word w of the stream of a key: what splitmix64 seeded with `key` returns at
// its (w + 1)-th call.
inline uint64_t stream_word(uint64_t key, uint64_t w) { return mix64(key + kGolden * (w + 1)); }

// A uniform index in [0, n) from a 64-bit word (Lemire's multiply-shift).
inline uint64_t bounded(uint64_t word, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(word) * n) >> 64);
}

// ---------------------------------------------------------------- sign flips
// Fisher's randomization test, paired: in resample r user u keeps the sign of
// its values when bit (u % 64) of word (u / 64) of the resample's stream is 1
// and flips it when the bit is 0; every column c gets
//     sums[r, c] = sum_u  s_{r,u} * X[u, c]
// and observed[c] the same sum with every sign +1.
//
// Fixed order (what the Python reference replays): users are taken in groups of
// 4 (g = u / 4, the last group padded with zeros); the group's signed partial
// sum for the 16 sign patterns is t = ((0 + ±x0) + ±x1) + ±x2) + ±x3 (a
// table built once per group), and the column sum adds the groups' table
// entries one after another, g = 0, 1, 2, ... A 4-bit pattern per group means
// one table load and add per 4 users and column instead of four.
//
// X: n x C row-major. sums: R x C row-major (written). observed: C (written).
namespace detail {
constexpr int64_t kGroup = 4;         // users per table
constexpr int64_t kPatterns = 16;     // 2^kGroup
constexpr int64_t kChunkGroups = 64;  // groups per chunk: 256 users = 4 words
constexpr int64_t kChunkUsers = kGroup * kChunkGroups;

// tables[(g * 16 + p) * C + c] for the groups of users [u0, u0 + 256).
inline void build_tables(const double* X, int64_t n, int64_t C, int64_t u0, double* tables) {
  for (int64_t g = 0; g < kChunkGroups; ++g) {
    double* tg = tables + g * kPatterns * C;
    for (int64_t p = 0; p < kPatterns; ++p) {
      double* row = tg + p * C;
      for (int64_t c = 0; c < C; ++c) row[c] = 0.0;
      for (int64_t j = 0; j < kGroup; ++j) {
        const int64_t u = u0 + g * kGroup + j;
        const bool plus = (p >> j) & 1;
        if (u < n) {
          const double* x = X + u * C;
          if (plus)
            for (int64_t c = 0; c < C; ++c) row[c] += x[c];
          else
            for (int64_t c = 0; c < C; ++c) row[c] += -x[c];
        } else {  // padding: a zero value (its sign is irrelevant to the sum)
          for (int64_t c = 0; c < C; ++c) row[c] += 0.0;
        }
      }
    }
  }
}
// out[c] += tables[offs[g] + c] for g = 0..groups-1 in that order, every column;
// columns in blocks of 8 held in registers (the order per column is unchanged).
template <int W>
inline void add_rows_block(const double* tables, const int64_t* offs, int64_t groups, int64_t c0, double* out) {
  double a[W];
  for (int i = 0; i < W; ++i) a[i] = out[c0 + i];
  for (int64_t g = 0; g < groups; ++g) {
    const double* row = tables + offs[g] + c0;
    for (int i = 0; i < W; ++i) a[i] += row[i];
  }
  for (int i = 0; i < W; ++i) out[c0 + i] = a[i];
}

inline void add_rows(const double* tables, const int64_t* offs, int64_t groups, int64_t C, double* out) {
  int64_t c0 = 0;
  for (; c0 + 8 <= C; c0 += 8) add_rows_block<8>(tables, offs, groups, c0, out);
  for (; c0 + 4 <= C; c0 += 4) add_rows_block<4>(tables, offs, groups, c0, out);
  for (; c0 < C; ++c0) add_rows_block<1>(tables, offs, groups, c0, out);
}
}  // namespace detail

inline void sign_flip_sums(const double* X, int64_t n, int64_t C, int64_t R, uint64_t seed, int threads, double* sums,
                           double* observed) {
  using namespace detail;
  const int64_t n_chunks = (n + kChunkUsers - 1) / kChunkUsers;
  // Work per resample is n * C / 4 adds: one resample is already worth a thread.
  int T = effective_threads(threads, R * kUsersPerThread);
  if (R < T) T = static_cast<int>(R < 1 ? 1 : R);
  for (int64_t i = 0; i < R * C; ++i) sums[i] = 0.0;
  for (int64_t c = 0; c < C; ++c) observed[c] = 0.0;
  const int64_t table_size = kChunkGroups * kPatterns * C;
#pragma omp parallel num_threads(T)
  {
    const int t = thread_id();
    // contiguous block of resamples per thread: each sums[r] row has one owner
    const int64_t r0 = R * t / T, r1 = R * (t + 1) / T;
    std::vector<double> tables(static_cast<size_t>(table_size));
    std::vector<int64_t> offs(static_cast<size_t>(kChunkGroups));
    for (int64_t ch = 0; ch < n_chunks; ++ch) {
      const int64_t u0 = ch * kChunkUsers;
      build_tables(X, n, C, u0, tables.data());
      const int64_t groups = std::min<int64_t>(kChunkGroups, (n - u0 + kGroup - 1) / kGroup);
      if (t == 0) {  // the observed sums: pattern 15 (all signs +1), same order
        for (int64_t g = 0; g < groups; ++g) {
          const double* row = tables.data() + (g * kPatterns + kPatterns - 1) * C;
          for (int64_t c = 0; c < C; ++c) observed[c] += row[c];
        }
      }
      const int64_t w0 = u0 / 64;
      for (int64_t r = r0; r < r1; ++r) {
        const uint64_t key = resample_key(seed, kDomainSignFlip, static_cast<uint64_t>(r));
        // the chunk's table rows of this resample: the pattern of every group
        for (int64_t wi = 0; wi * 16 < groups; ++wi) {
          uint64_t word = stream_word(key, static_cast<uint64_t>(w0 + wi));
          const int64_t g_end = std::min<int64_t>(groups, (wi + 1) * 16);
          for (int64_t g = wi * 16; g < g_end; ++g, word >>= 4)
            offs[g] = (g * kPatterns + static_cast<int64_t>(word & 15)) * C;
        }
        add_rows(tables.data(), offs.data(), groups, C, sums + r * C);
      }
    }
  }
}

// ---------------------------------------------------------------- bootstrap
// Paired bootstrap: resample r draws n user indices with replacement,
// i_j = bounded(stream_word(key_r, j), n) for j = 0..n-1, counts how often each
// user was drawn (m_u), and writes for every column
//     sums[r, c] = sum over users u = 0..n-1 with m_u > 0 of  m_u * X[u, c]
// accumulated in that order (one rounding for the product, one for the add).
// X: n x C row-major. sums: R x C row-major (written).
inline void bootstrap_sums(const double* X, int64_t n, int64_t C, int64_t R, uint64_t seed, int threads, double* sums) {
  int T = effective_threads(threads, R * kUsersPerThread);
  if (R < T) T = static_cast<int>(R < 1 ? 1 : R);
  for (int64_t i = 0; i < R * C; ++i) sums[i] = 0.0;
  if (n <= 0) return;
#pragma omp parallel num_threads(T)
  {
    const int t = thread_id();
    const int64_t r0 = R * t / T, r1 = R * (t + 1) / T;
    std::vector<uint32_t> counts(static_cast<size_t>(n), 0);
    std::vector<double> acc(static_cast<size_t>(C));
    for (int64_t r = r0; r < r1; ++r) {
      const uint64_t key = resample_key(seed, kDomainBootstrap, static_cast<uint64_t>(r));
      for (int64_t j = 0; j < n; ++j) ++counts[bounded(stream_word(key, static_cast<uint64_t>(j)), n)];
      for (int64_t c = 0; c < C; ++c) acc[c] = 0.0;
      for (int64_t u = 0; u < n; ++u) {
        const uint32_t m = counts[u];
        if (!m) continue;
        counts[u] = 0;
        const double w = static_cast<double>(m);
        const double* x = X + u * C;
        for (int64_t c = 0; c < C; ++c) {
          const double prod = w * x[c];
          acc[c] += prod;
        }
      }
      double* out = sums + r * C;
      for (int64_t c = 0; c < C; ++c) out[c] = acc[c];
    }
  }
}

// ---------------------------------------------------------------- group-label permutations
// The permutation test of the gap between user groups (docs/fairness.md, "The permutation test"). Permutation r
// orders the users by the words of its stream (word u of the key of (seed, kDomainGroups, r), ties by user
// index: numpy's stable argsort of the words), perm; user i takes the group of user perm[i]. Per group g and
// column c: s[g, c] = sum over i in row order with codes[perm[i]] == g of w[i, c], and k[g, c] the same sum of
// valid[i, c] (both as numpy's bincount adds its weights: one double at a time, in index order). The column's
// statistic is max - min of s / k over the groups with k > 0, NaN with fewer than two such groups.
// ranges[r, c] gets it. One permutation per thread at a time: the same bits for any thread count.
constexpr uint64_t kDomainGroups = 3;

inline void group_permutation_ranges(const double* w, const double* valid, const int64_t* codes, int64_t n, int64_t C,
                                     int64_t G, int64_t R, uint64_t seed, int threads, double* ranges) {
  const int T = effective_threads(threads, R);
  const double nan = std::numeric_limits<double>::quiet_NaN();
#pragma omp parallel num_threads(T)
  {
    std::vector<std::pair<uint64_t, int64_t>> order(static_cast<size_t>(n));
    std::vector<double> s(static_cast<size_t>(G * C)), k(static_cast<size_t>(G * C));
#pragma omp for schedule(dynamic, 1)
    for (int64_t r = 0; r < R; ++r) {
      const uint64_t key = resample_key(seed, kDomainGroups, static_cast<uint64_t>(r));
      for (int64_t u = 0; u < n; ++u) order[u] = {stream_word(key, static_cast<uint64_t>(u)), u};
      std::sort(order.begin(), order.end());
      std::fill(s.begin(), s.end(), 0.0);
      std::fill(k.begin(), k.end(), 0.0);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t g = codes[order[i].second];
        double* sg = s.data() + g * C;
        double* kg = k.data() + g * C;
        const double* wi = w + i * C;
        const double* vi = valid + i * C;
        for (int64_t c = 0; c < C; ++c) {
          sg[c] += wi[c];
          kg[c] += vi[c];
        }
      }
      for (int64_t c = 0; c < C; ++c) {
        double hi = -std::numeric_limits<double>::infinity(), lo = std::numeric_limits<double>::infinity();
        int64_t has = 0;
        for (int64_t g = 0; g < G; ++g) {
          const double kk = k[g * C + c];
          if (!(kk > 0.0)) continue;
          const double m = s[g * C + c] / kk;
          hi = std::max(hi, m);
          lo = std::min(lo, m);
          ++has;
        }
        ranges[r * C + c] = has < 2 ? nan : hi - lo;
      }
    }
  }
}

}  // namespace rankmeter::core
