// rankmeter/agreement.hpp — agreement between two runs, per user: overlap, RecTools' intersection, Jaccard,
// rank-biased overlap (extrapolated or lower bound), Kendall's tau and Spearman's rho over the shared items,
// RePlay's unexpectedness (docs/metrics.md, "Agreement between runs").
//
// Inputs per user u: the ranked list of run A (items a_items[a_start[u] .. a_start[u] + a_len[u]), best first)
// and that of run B, as int64 ids or codes shared by both runs (a user a run lacks: length 0). Each column
// reads the top ka of A and the top kb of B (0: the whole list). Every position read must hold a distinct
// item: the first user (lowest index) whose read prefix repeats an item is reported and the values are then
// not to be used. Output: values[c * n_users + u]. Each user's values depend on that user's lists only, so
// they are the same for any thread count. Kernels never throw.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "exact_sum.hpp"
#include "parallel.hpp"

namespace rankmeter::core {

enum class AgreeKind : int {
  overlap = 0,         // |A_ka ∩ B_kb|
  intersection = 1,    // |A_ka ∩ B_kb| / |A_ka| (RecTools Intersection; NaN when A_ka is empty)
  jaccard = 2,         // |A ∩ B| / |A ∪ B| (1 when both are empty)
  rbo = 3,             // rank-biased overlap (Webber, Moffat & Zobel 2010), variant 0: RBO_ext, 1: RBO_min
  kendall = 4,         // Kendall's tau over the shared items (NaN for fewer than 2)
  spearman = 5,        // Spearman's rho over the shared items (NaN for fewer than 2)
  unexpectedness = 6,  // 1 - |A_k ∩ B_k| / k (RePlay; 0 when either whole list is empty)
};

struct AgreeInput {
  int64_t n_users;
  const int64_t* a_items;
  const int64_t* a_start;  // [n_users]
  const int64_t* a_len;    // [n_users]
  const int64_t* b_items;
  const int64_t* b_start;
  const int64_t* b_len;
};

struct AgreeColumn {
  int kind;     // AgreeKind
  int64_t ka;   // cutoff of A (0: the whole list)
  int64_t kb;   // cutoff of B (0: the whole list)
  double p;     // rbo's persistence
  int variant;  // rbo: 0 extrapolated, 1 lower bound
};

namespace agree_detail {

using Pair = std::pair<int64_t, int64_t>;

struct Scratch {
  std::vector<Pair> a, b;         // (item, position) of each read prefix, sorted by item
  std::vector<Pair> shared;       // (position in A, position in B) of every shared item
  std::vector<Pair> sel;          // the shared items a column reads, by position in A
  std::vector<int64_t> depth;     // rbo: shared items first seen at each depth
  std::vector<int64_t> seq, tmp;  // kendall / spearman: positions in B in the order of A
};

constexpr int64_t kAhead = 8;   // users prefetched ahead
constexpr int64_t kSmall = 24;  // prefixes up to this length are compared by direct scans

// no item of the first n repeats (short prefixes)
inline bool distinct_small(const int64_t* items, int64_t n) {
  for (int64_t i = 1; i < n; ++i)
    for (int64_t j = 0; j < i; ++j)
      if (items[i] == items[j]) return false;
  return true;
}

// (item, position) of the first n items, sorted by item; false when an item repeats
inline bool sorted_prefix(const int64_t* items, int64_t n, std::vector<Pair>& out) {
  out.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = {items[i], i};
  std::sort(out.begin(), out.end());
  for (int64_t i = 1; i < n; ++i)
    if (out[i].first == out[i - 1].first) return false;
  return true;
}

// inversions of seq (pairs i < j with seq[i] > seq[j]), by merge sort; seq is left sorted
inline int64_t inversions(std::vector<int64_t>& seq, std::vector<int64_t>& tmp) {
  const int64_t n = static_cast<int64_t>(seq.size());
  tmp.resize(seq.size());
  int64_t inv = 0;
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      int64_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi) {
        if (seq[j] < seq[i]) {
          inv += mid - i;
          tmp[o++] = seq[j++];
        } else {
          tmp[o++] = seq[i++];
        }
      }
      while (i < mid) tmp[o++] = seq[i++];
      while (j < hi) tmp[o++] = seq[j++];
    }
    seq.swap(tmp);
  }
  return inv;
}

// rank-biased overlap of a top s and a top l (either list may be the shorter): `depth[d]` (d = 1..L, L =
// max(s, l)) counts the shared items whose later position (1-based) is d, so X_d = depth[1] + ... + depth[d]
// is the overlap at depth d (past the end of the shorter list: that whole list against the longer one's top d).
// Extrapolated (Webber et al. 2010, eq. 32, S the shorter list of length s, L the longer of length l):
//   (1-p)/p * (sum_{d=1..l} X_d/d p^d + sum_{d=s+1..l} X_s (d-s)/(s d) p^d) + ((X_l - X_s)/l + X_s/s) p^l
// Lower bound (eq. 11, no agreement past what is seen): (1-p)/p * (sum_{d=1..l} (X_d - X_l)/d p^d - X_l ln(1-p)).
// Two empty lists: 1 (extrapolated), 0 (lower bound); one empty list: 0.
inline double rbo(const std::vector<int64_t>& depth, int64_t s, int64_t l, double p, int variant) {
  if (s > l) std::swap(s, l);
  if (l == 0) return variant == 0 ? 1.0 : 0.0;
  int64_t x = 0, xs = 0;
  double pd = 1.0, sum = 0.0;
  int64_t xl = 0;
  for (int64_t d = 1; d <= l; ++d) xl += depth[d];
  for (int64_t d = 1; d <= l; ++d) {
    x += depth[d];
    pd *= p;
    if (d == s) xs = x;
    if (variant == 0) {
      sum += static_cast<double>(x) / static_cast<double>(d) * pd;
      if (d > s && s > 0)
        sum += static_cast<double>(xs) * static_cast<double>(d - s) /
               (static_cast<double>(s) * static_cast<double>(d)) * pd;
    } else {
      sum += static_cast<double>(x - xl) / static_cast<double>(d) * pd;
    }
  }
  if (variant == 0) {
    const double tail = (static_cast<double>(xl - xs) / static_cast<double>(l) +
                         (s > 0 ? static_cast<double>(xs) / static_cast<double>(s) : 0.0)) *
                        pd;
    return (1.0 - p) / p * sum + tail;
  }
  return (1.0 - p) / p * (sum - static_cast<double>(xl) * std::log1p(-p));
}

// one user's value of one column (`shared`: every shared item of the prefixes read for all columns)
inline double column_value(const AgreeColumn& col, int64_t len_a, int64_t len_b, Scratch& s) {
  const int64_t ka = col.ka > 0 ? std::min(col.ka, len_a) : len_a;
  const int64_t kb = col.kb > 0 ? std::min(col.kb, len_b) : len_b;
  const auto kind = static_cast<AgreeKind>(col.kind);
  int64_t n = 0;
  if (kind == AgreeKind::kendall || kind == AgreeKind::spearman || kind == AgreeKind::rbo) {
    s.sel.clear();
    for (const Pair& q : s.shared)
      if (q.first < ka && q.second < kb) s.sel.push_back(q);
    n = static_cast<int64_t>(s.sel.size());
  } else {
    for (const Pair& q : s.shared) n += (q.first < ka && q.second < kb);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (kind) {
    case AgreeKind::overlap:
      return static_cast<double>(n);
    case AgreeKind::intersection:
      return ka > 0 ? static_cast<double>(n) / static_cast<double>(ka) : nan;
    case AgreeKind::jaccard:
      return ka + kb > 0 ? static_cast<double>(n) / static_cast<double>(ka + kb - n) : 1.0;
    case AgreeKind::unexpectedness:
      if (len_a == 0 || len_b == 0) return 0.0;
      return 1.0 - static_cast<double>(n) / static_cast<double>(col.ka);
    case AgreeKind::rbo: {
      const int64_t L = std::max(ka, kb);
      s.depth.assign(static_cast<size_t>(L + 1), 0);
      for (const Pair& q : s.sel) ++s.depth[std::max(q.first, q.second) + 1];
      return rbo(s.depth, ka, kb, col.p, col.variant);
    }
    case AgreeKind::kendall:
    case AgreeKind::spearman: {
      if (n < 2) return nan;
      s.seq.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) s.seq[i] = s.sel[i].second;
      if (kind == AgreeKind::kendall) {
        const int64_t pairs = n * (n - 1) / 2;
        const int64_t disc = inversions(s.seq, s.tmp);
        return static_cast<double>(pairs - 2 * disc) / static_cast<double>(pairs);
      }
      // ranks among the shared items: i in A's order, the rank of its position in B
      for (int64_t i = 0; i < n; ++i) s.seq[i] = s.sel[i].second;
      s.tmp.assign(s.seq.begin(), s.seq.end());
      std::sort(s.tmp.begin(), s.tmp.end());
      __int128 d2 = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t rb = std::lower_bound(s.tmp.begin(), s.tmp.end(), s.seq[i]) - s.tmp.begin();
        const __int128 d = static_cast<__int128>(i - rb);
        d2 += d * d;
      }
      const __int128 den = static_cast<__int128>(n) * (static_cast<__int128>(n) * n - 1);
      return static_cast<double>(den - 6 * d2) / static_cast<double>(den);
    }
  }
  return nan;
}

}  // namespace agree_detail

// Per-user values of every column, and each column's exact sum (`sums[c]`) and count (`counts[c]`) of the values
// that are not NaN; returns the index of the first user whose read prefix repeats an item (-1: none) and, in
// *side, which run (0: A, 1: B).
inline int64_t agreement_values(const AgreeInput& in, const AgreeColumn* cols, int64_t n_cols, double* out, int threads,
                                int* side, ExactSum* sums, int64_t* counts) {
  using namespace agree_detail;
  const int64_t n = in.n_users;
  bool whole_a = false, whole_b = false;
  int64_t read_a = 0, read_b = 0;
  for (int64_t c = 0; c < n_cols; ++c) {
    whole_a |= cols[c].ka <= 0;
    whole_b |= cols[c].kb <= 0;
    read_a = std::max(read_a, cols[c].ka);
    read_b = std::max(read_b, cols[c].kb);
  }
  const int T = effective_threads(threads, n);
  std::vector<int64_t> first_bad(static_cast<size_t>(T), -1);
  std::vector<int> bad_side(static_cast<size_t>(T), 0);
  std::vector<ExactSum> part(static_cast<size_t>(T * n_cols));
  std::vector<int64_t> cnt(static_cast<size_t>(T * n_cols), 0);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    Scratch s;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1024)
#endif
    for (int64_t u = 0; u < n; ++u) {
      const int64_t len_a = in.a_len[u], len_b = in.b_len[u];
      const int64_t na = whole_a ? len_a : std::min(len_a, read_a);
      const int64_t nb = whole_b ? len_b : std::min(len_b, read_b);
      if (u + kAhead < n) {  // the prefixes a few users ahead: lists read to a cutoff are strided for the prefetcher
        const int64_t v = u + kAhead;
        prefetch_span(in.a_items + in.a_start[v],
                      whole_a ? std::min<int64_t>(in.a_len[v], 64) : std::min(in.a_len[v], read_a));
        prefetch_span(in.b_items + in.b_start[v],
                      whole_b ? std::min<int64_t>(in.b_len[v], 64) : std::min(in.b_len[v], read_b));
      }
      const int64_t* pa = in.a_items + in.a_start[u];
      const int64_t* pb = in.b_items + in.b_start[u];
      bool ok_a = true, ok_b = true;
      s.shared.clear();
      if (na <= kSmall && nb <= kSmall) {  // short prefixes: direct scans (no sort, nothing allocated)
        ok_a = distinct_small(pa, na);
        ok_b = ok_a && distinct_small(pb, nb);
        if (ok_b)
          for (int64_t i = 0; i < na; ++i)
            for (int64_t j = 0; j < nb; ++j)
              if (pa[i] == pb[j]) {
                s.shared.emplace_back(i, j);
                break;
              }
      } else {
        ok_a = sorted_prefix(pa, na, s.a);
        ok_b = ok_a && sorted_prefix(pb, nb, s.b);
        if (ok_b) {
          for (size_t i = 0, j = 0; i < s.a.size() && j < s.b.size();) {
            if (s.a[i].first < s.b[j].first) {
              ++i;
            } else if (s.b[j].first < s.a[i].first) {
              ++j;
            } else {
              s.shared.emplace_back(s.a[i].second, s.b[j].second);
              ++i;
              ++j;
            }
          }
          std::sort(s.shared.begin(), s.shared.end());  // by position in A
        }
      }
      if (!ok_a || !ok_b) {
        if (first_bad[tid] < 0 || u < first_bad[tid]) {
          first_bad[tid] = u;
          bad_side[tid] = ok_a ? 1 : 0;
        }
        continue;
      }
      for (int64_t c = 0; c < n_cols; ++c) {
        const double v = column_value(cols[c], len_a, len_b, s);
        out[c * n + u] = v;
        if (!std::isnan(v)) {
          part[tid * n_cols + c].add(v);
          ++cnt[tid * n_cols + c];
        }
      }
    }
  }
  for (int64_t c = 0; c < n_cols; ++c) {  // exact: the same sum whatever the split between threads
    sums[c].clear();
    counts[c] = 0;
    for (int t = 0; t < T; ++t) {
      sums[c].merge(part[t * n_cols + c]);
      counts[c] += cnt[t * n_cols + c];
    }
    sums[c].normalize();
  }
  int64_t bad = -1;
  for (int t = 0; t < T; ++t)
    if (first_bad[t] >= 0 && (bad < 0 || first_bad[t] < bad)) {
      bad = first_bad[t];
      *side = bad_side[t];
    }
  return bad;
}

}  // namespace rankmeter::core
