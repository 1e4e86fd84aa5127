// rankmeter/exposure.hpp — item-side exposure fairness (docs/metrics.md 3.23): the per-user lookups the exposure
// and equal-opportunity metrics read, and attention-weighted rank fairness (AWRF) per user.
//
// Inputs, all CSR owned by the caller over one dense item code (0..n_items-1), users aligned:
//   the ranked lists as prepared (duplicates and max_items applied), read up to k (0: whole lists);
//   the truth (item codes, distinct within a user; grades, or none: every grade 1);
//   the train histories (item codes, distinct within a user), optional.
// exposure_lookup writes, for the top-k entries of every user in list order (user by user):
//   e_grade  the grade of the entry's item in the user's truth (0 when absent);
//   e_first  1 for the first occurrence of an item in the user's top k (0 for a repeat);
// for every truth entry: t_seen 1 when the item is in the user's history; and per user (ideal != 0) the ideal
// DCG of the positive grades cut at k, discount 1/log2(j + 1) (ideal = 1) or 1/log2(max(j, 2)) (ideal = 2).
// awrf_values writes per user 1 - JSD(d, t) / ln(base), clamped to [0, 1]: d the user's attention-weighted group
// distribution (entry attention a[e], an item of m groups adding a / m to each, or a with multi_each; an item
// without a group adds to group `n_groups - 1` when own_bucket, else nothing), t a fixed distribution over the
// groups (fixed != null, summing to 1) or the user's relevant truth items' groups (t_rel flags, same weights);
// NaN when d or t is empty. Each user is computed by one thread from its own data, in list order, so the values
// do not depend on the thread count. Kernels never throw.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "parallel.hpp"

namespace rankmeter::core {

struct ExposureLists {
  int64_t n_users;
  const int64_t* l_indptr;  // [n_users + 1]
  const int64_t* l_items;
  const int64_t* e_start;  // [n_users]: the first output entry of every user (the top-k lengths, cumulated)
  int64_t k;               // 0: whole lists
};

inline void exposure_lookup(const ExposureLists& L, const int64_t* t_indptr, const int64_t* t_items,
                            const double* t_grades, const int64_t* h_indptr, const int64_t* h_items, int64_t n_items,
                            int ideal, double* e_grade, uint8_t* e_first, uint8_t* t_seen, double* ideal_dcg,
                            int threads) {
  const int T = effective_threads(threads, L.n_users);
#pragma omp parallel num_threads(T)
  {
    // marks by stamp: mark[c] == u + 1 when code c is in user u's truth (slot[c] its truth index)
    std::vector<int64_t> mark(static_cast<size_t>(n_items), 0), seen(static_cast<size_t>(n_items), 0);
    std::vector<int64_t> slot(static_cast<size_t>(n_items), 0);
    std::vector<double> gains;
#pragma omp for schedule(dynamic, 1024)
    for (int64_t u = 0; u < L.n_users; ++u) {
      const int64_t stamp = u + 1;
      const int64_t t0 = t_indptr[u], t1 = t_indptr[u + 1];
      for (int64_t j = t0; j < t1; ++j) {
        mark[t_items[j]] = stamp;
        slot[t_items[j]] = j;
      }
      const int64_t l0 = L.l_indptr[u];
      int64_t n = L.l_indptr[u + 1] - l0;
      if (L.k > 0 && n > L.k) n = L.k;
      const int64_t e0 = L.e_start[u];
      for (int64_t j = 0; j < n; ++j) {
        const int64_t c = L.l_items[l0 + j];
        e_grade[e0 + j] = mark[c] == stamp ? (t_grades ? t_grades[slot[c]] : 1.0) : 0.0;
        e_first[e0 + j] = seen[c] != stamp;
        seen[c] = stamp;
      }
      if (h_indptr) {
        // (a second stamp array: `seen` now holds this user's top k; reuse it with -stamp for the history)
        for (int64_t j = h_indptr[u]; j < h_indptr[u + 1]; ++j) seen[h_items[j]] = -stamp;
        for (int64_t j = t0; j < t1; ++j) t_seen[j] = seen[t_items[j]] == -stamp;
      }
      if (ideal) {
        gains.clear();
        for (int64_t j = t0; j < t1; ++j) {
          const double g = t_grades ? t_grades[j] : 1.0;
          if (g > 0) gains.push_back(g);
        }
        int64_t m = static_cast<int64_t>(gains.size());
        if (L.k > 0 && m > L.k) m = L.k;
        std::partial_sort(gains.begin(), gains.begin() + m, gains.end(), std::greater<double>());
        double s = 0.0;
        for (int64_t j = 0; j < m; ++j) {
          const double pos = static_cast<double>(j + 1);
          s += gains[j] / (ideal == 2 ? std::log2(std::max(pos, 2.0)) : std::log2(pos + 1.0));
        }
        ideal_dcg[u] = s;
      }
    }
  }
}

struct AwrfGroups {
  const int64_t* g_indptr;  // [n_items + 1]: the groups of every item code
  const int64_t* g_codes;   // group codes 0..n_groups-1 (the bucket n_groups - 1 is never listed)
  int64_t n_items;
  int64_t n_groups;  // the size of the distributions (with the "no group" bucket when own_bucket)
  bool own_bucket;
  bool multi_each;
};

inline void awrf_values(const ExposureLists& L, const double* a, const AwrfGroups& G, const double* fixed,
                        const int64_t* t_indptr, const int64_t* t_items, const uint8_t* t_rel, double log_base,
                        double* values, int threads) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double ln2 = std::log(2.0), lnb = std::log(log_base);
  const int T = effective_threads(threads, L.n_users);
#pragma omp parallel num_threads(T)
  {
    std::vector<double> d(static_cast<size_t>(G.n_groups), 0.0), t(static_cast<size_t>(G.n_groups), 0.0);
    std::vector<int64_t> touched;
    std::vector<uint8_t> on(static_cast<size_t>(G.n_groups), 0);
    auto add = [&](std::vector<double>& dist, int64_t c, double w) {
      const int64_t g0 = c < G.n_items ? G.g_indptr[c] : 0, g1 = c < G.n_items ? G.g_indptr[c + 1] : 0;
      if (g1 == g0) {
        if (!G.own_bucket) return;
        const int64_t b = G.n_groups - 1;
        if (!on[b]) on[b] = 1, touched.push_back(b);
        dist[b] += w;
        return;
      }
      const double share = G.multi_each ? w : w / static_cast<double>(g1 - g0);
      for (int64_t j = g0; j < g1; ++j) {
        const int64_t g = G.g_codes[j];
        if (!on[g]) on[g] = 1, touched.push_back(g);
        dist[g] += share;
      }
    };
#pragma omp for schedule(dynamic, 1024)
    for (int64_t u = 0; u < L.n_users; ++u) {
      touched.clear();
      const int64_t l0 = L.l_indptr[u];
      int64_t n = L.l_indptr[u + 1] - l0;
      if (L.k > 0 && n > L.k) n = L.k;
      const int64_t e0 = L.e_start[u];
      for (int64_t j = 0; j < n; ++j) add(d, L.l_items[l0 + j], a[e0 + j]);
      if (!fixed)
        for (int64_t j = t_indptr[u]; j < t_indptr[u + 1]; ++j)
          if (t_rel[j]) add(t, t_items[j], 1.0);
      double ds = 0.0, ts = 0.0;
      for (int64_t g : touched) ds += d[g], ts += fixed ? 0.0 : t[g];
      double v = nan;
      if (ds > 0 && (fixed || ts > 0)) {
        // JSD = sum_g 1/2 d ln(2d / (d + t)) + 1/2 t ln(2t / (d + t)); a fixed target's groups outside d add
        // 1/2 t ln 2 each, summed as 1/2 ln 2 (1 - their complement)
        double js = 0.0, t_in = 0.0;
        for (int64_t g : touched) {
          const double dg = d[g] / ds, tg = fixed ? fixed[g] : t[g] / ts, m = dg + tg;
          if (dg > 0) js += 0.5 * dg * std::log(2.0 * dg / m);
          if (tg > 0) js += 0.5 * tg * std::log(2.0 * tg / m);
          t_in += tg;
        }
        if (fixed) js += 0.5 * ln2 * std::max(0.0, 1.0 - t_in);
        v = std::min(1.0, std::max(0.0, 1.0 - js / lnb));
      }
      values[u] = v;
      for (size_t i = 0; i < touched.size(); ++i) {
        const int64_t g = touched[i];
        d[g] = t[g] = 0.0;
        on[g] = 0;
      }
    }
  }
}

}  // namespace rankmeter::core
