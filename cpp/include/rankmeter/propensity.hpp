// rankmeter/propensity.hpp — propensity-weighted (inverse propensity scored) metrics (docs/metrics.md 3.19.21).
//
// One per-user kernel reads the evaluated users' top-k lists (the clean CSR of prepare_lists, item codes
// 0..n_items-1), the truth as codes and a weight table w (one value per item code: the inverse propensity
// 1 / p_i, capped and with the rule for items without a propensity applied in Python; only the weights of
// relevant items are read). Per user u with relevant items S (distinct), top k = i_0 .. i_{n-1} (an item
// repeated in the list counts at its first position only) and hits h_r = 1 if i_r is in S:
//
//   precision  sum_r h_r w(i_r) / k                  (no cutoff: / n; an empty list: 0)
//   recall     sum_r h_r w(i_r) / |S|
//   ndcg       sum_r h_r w(i_r) / log2(r + 2) / IDCG,  IDCG = sum_{j < min(|S|, k)} 1 / log2(j + 2)
//   rr         w(i_f) / (f + 1), f the first r with h_r = 1 (0 without a hit)
//   hit_rate   sum_r h_r w(i_r)                      (RecPack's IPSHitRateK; one relevant item: w or 0)
//   ap         sum_r h_r w(i_r) P@(r+1) / |S|,  P@(r+1) = (hits in positions 0..r) / (r + 1)
//
// snips (self-normalised, Yang et al. 2018): every weight is multiplied by |S| / sum_{i in S} w(i), so the
// weights of a user's relevant items average 1 (recall becomes sum h w / sum_S w); a user whose relevant
// weights sum to 0 gets NaN. n_rel[u] = |S| lets the caller apply `empty` (the value is 0 there).
// Each user's value is computed by one thread from its own data in a fixed order: results do not depend on
// the thread count, the batch split or the order of users.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "beyond.hpp"
#include "parallel.hpp"

namespace rankmeter::core {

enum class IpsKind : int { precision = 0, recall = 1, ndcg = 2, rr = 3, hit_rate = 4, ap = 5 };

struct IpsSpec {
  int64_t k = 0;                   // cutoff (0: whole lists)
  const double* weight = nullptr;  // one weight per item code (read for relevant items only)
  IpsKind kind = IpsKind::recall;
  bool snips = false;
};

inline void ips_values(const Lists& L, const TruthCodes& t, const IpsSpec& s, int threads, double* out,
                       int64_t* n_rel) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, L.n_users);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    // per thread: stamp[i] == 2 now marks a relevant item of the current user, 2 now + 1 one already found
    std::vector<uint64_t> stamp(static_cast<size_t>(L.n_items), 0);
    uint64_t now = 0;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < L.n_users; ++u) {
      now += 1;
      const uint64_t rel = 2 * now, found = 2 * now + 1;
      int64_t nr = 0;
      double wsum = 0.0;
      for (int64_t p = t.indptr[u]; p < t.indptr[u + 1]; ++p) {
        const int64_t item = t.items[p];
        if (t.relevant(t.grade(p)) && stamp[item] != rel) {
          stamp[item] = rel;
          ++nr;
          wsum += s.weight[item];
        }
      }
      n_rel[u] = nr;
      const int64_t b = L.indptr[u], n = top_len(L.indptr, u, s.k);
      double hits_w = 0.0, dcg_w = 0.0, rr_w = 0.0, ap_w = 0.0;
      int64_t hits = 0;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t item = L.items[b + r];
        if (stamp[item] != rel) continue;  // not relevant, or found before
        stamp[item] = found;
        const double w = s.weight[item];
        ++hits;
        hits_w += w;
        dcg_w += w / std::log2(static_cast<double>(r + 2));
        if (hits == 1) rr_w = w / static_cast<double>(r + 1);
        ap_w += w * (static_cast<double>(hits) / static_cast<double>(r + 1));
      }
      double v = 0.0;
      const double nrd = static_cast<double>(nr);
      switch (s.kind) {
        case IpsKind::precision: {
          const int64_t den = s.k > 0 ? s.k : n;
          v = den > 0 ? hits_w / static_cast<double>(den) : 0.0;
          break;
        }
        case IpsKind::recall:
          v = nr > 0 ? hits_w / nrd : 0.0;
          break;
        case IpsKind::ndcg: {
          const int64_t m = s.k > 0 && s.k < nr ? s.k : nr;
          double idcg = 0.0;
          for (int64_t j = 0; j < m; ++j) idcg += 1.0 / std::log2(static_cast<double>(j + 2));
          v = idcg > 0.0 ? dcg_w / idcg : 0.0;
          break;
        }
        case IpsKind::rr:
          v = rr_w;
          break;
        case IpsKind::hit_rate:
          v = hits_w;
          break;
        case IpsKind::ap:
          v = nr > 0 ? ap_w / nrd : 0.0;
          break;
      }
      if (s.snips && nr > 0) v = wsum > 0.0 ? v * (nrd / wsum) : kNaN;
      out[u] = v;
    }
  }
}

}  // namespace rankmeter::core
