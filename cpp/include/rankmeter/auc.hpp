// rankmeter/auc.hpp — the AUC family (docs/metrics.md, section 3.19.10-3.19.12): per-user AUC, its partial
// (McClish-standardised) form, GAUC's weighted terms and the limited AUC of a top-k list.
//
// A user's candidates are ordered by score (or by list position), and the share of (positive, negative)
// pairs in the right order is counted with ties worth 1/2: walking the tie groups from the top with TP and FP
// positives and negatives above,
//   2 P N AUC = Σ_groups dFP (2 TP + dTP),
// an integer, so the full AUC is one correctly rounded division. O(n log n) per user for n candidates
// with scores (one sort), O(n + m) without; no pair is visited.
//
// The candidates of a user:
//   scored mode (catalog == nullptr): the top k of the list (k = 0: the whole list) and nothing else.
//   catalog mode: the top k of the list, then one group tied below it holding every other candidate: the
//     catalog items and the positives not in the top k, less the user's seen items (history) that are
//     neither positive nor in the top k. List items past k count as any item outside the list.
// Per-user output: rel (relevant truth items), pos / neg (counts of candidates), num2 (2 P N AUC, as a double: exact
// below 2^53), and value (the AUC, or the standardised partial AUC when max_fpr < 1); NaN when pos or neg is 0. Every
// user is computed by one thread from its own data: nothing depends on the thread count.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "beyond.hpp"
#include "parallel.hpp"

namespace rankmeter::core {

struct AucInput {
  int64_t n_users = 0;
  int64_t n_items = 0;  // item codes are 0..n_items-1 (lists, truth, history, catalog mask)
  const int64_t* l_indptr = nullptr;
  const int64_t* l_items = nullptr;
  const double* l_scores = nullptr;  // nullable: list positions order the items, no ties
  TruthCodes truth;
  const uint8_t* catalog = nullptr;   // nullable: scored mode
  int64_t n_catalog = 0;              // number of items set in `catalog`
  const int64_t* h_indptr = nullptr;  // nullable: no history to leave out (catalog mode only)
  const int64_t* h_items = nullptr;
};

namespace auc_detail {
// Area under the ROC curve up to max_fpr (trapezoids, the segment crossing max_fpr interpolated), McClish
// standardised: 0.5 (1 + (A - m^2/2) / (m - m^2/2)). `groups` holds (dFP, dTP) of each tie group, top first.
inline double partial_auc(const std::vector<std::pair<int64_t, int64_t>>& groups, int64_t P, int64_t N,
                          double max_fpr) {
  const double dn = static_cast<double>(N), dp = static_cast<double>(P);
  double area = 0.0, x0 = 0.0, y0 = 0.0;
  int64_t F = 0, T = 0;
  for (const auto& g : groups) {
    F += g.first;
    T += g.second;
    const double x1 = static_cast<double>(F) / dn, y1 = static_cast<double>(T) / dp;
    if (x1 > max_fpr) {
      const double y = y0 + (y1 - y0) * ((max_fpr - x0) / (x1 - x0));
      area += (max_fpr - x0) * (y0 + y) / 2.0;
      x0 = max_fpr;
      break;
    }
    area += (x1 - x0) * (y0 + y1) / 2.0;
    x0 = x1;
    y0 = y1;
  }
  const double min_area = 0.5 * max_fpr * max_fpr;
  return 0.5 * (1.0 + (area - min_area) / (max_fpr - min_area));
}
}  // namespace auc_detail

// k: the cutoff (0: whole lists). max_fpr in (0, 1] (1: the full AUC).
inline void auc_values(const AucInput& in, int64_t k, double max_fpr, int threads, int64_t* rel, int64_t* pos,
                       int64_t* neg, double* num2, double* value) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, in.n_users);
  const bool partial = max_fpr < 1.0;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
    const auto bit = [](int64_t it) { return uint64_t{1} << ((static_cast<uint64_t>(it) * kMul) >> 58); };
    const bool all_in_catalog = in.catalog == nullptr || in.n_catalog == in.n_items;
    std::unique_ptr<Stamped> mark;  // only with a history: the user's top k and seen items
    if (in.h_indptr) mark = std::make_unique<Stamped>(in.n_items);
    std::vector<int64_t> pv;     // the user's positives (distinct codes), sorted
    std::vector<uint8_t> found;  // per positive: in the top k
    std::vector<uint8_t> flag;   // per top-k position: a positive
    std::vector<std::pair<double, uint8_t>> scored;
    std::vector<std::pair<int64_t, int64_t>> groups;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int64_t u = 0; u < in.n_users; ++u) {
      const TruthCodes& t = in.truth;
      pv.clear();
      for (int64_t p = t.indptr[u]; p < t.indptr[u + 1]; ++p)
        if (t.relevant(t.grade(p))) pv.push_back(t.items[p]);
      std::sort(pv.begin(), pv.end());
      pv.erase(std::unique(pv.begin(), pv.end()), pv.end());
      const int64_t R = static_cast<int64_t>(pv.size());
      uint64_t bloom = 0;  // one bit per positive (hashed): most list items are not positives
      for (int64_t it : pv) bloom |= bit(it);
      const auto positive = [&](int64_t it) -> int64_t {
        if (!(bloom & bit(it))) return -1;
        const auto f = std::lower_bound(pv.begin(), pv.end(), it);
        return f != pv.end() && *f == it ? f - pv.begin() : -1;
      };
      const int64_t b = in.l_indptr[u], n = in.l_indptr[u + 1] - b;
      const int64_t kk = k > 0 && k < n ? k : n;
      const int64_t* L = in.l_items + b;
      found.assign(static_cast<size_t>(R), 0);
      flag.resize(static_cast<size_t>(kk));
      int64_t pos_top = 0;
      for (int64_t q = 0; q < kk; ++q) {
        const int64_t j = R ? positive(L[q]) : -1;
        flag[q] = j >= 0;
        if (j >= 0) found[j] = 1;
        pos_top += j >= 0;
      }
      int64_t P = pos_top, N = kk - pos_top, Pb = 0, Nb = 0;
      if (in.catalog) {
        // the candidates: catalog ∪ top k ∪ positives, less the seen items neither positive nor in the top k
        int64_t outside = 0;  // top-k items and positives outside the catalog
        if (!all_in_catalog) {
          for (int64_t q = 0; q < kk; ++q) outside += in.catalog[L[q]] == 0;
          for (int64_t j = 0; j < R; ++j) outside += !found[j] && in.catalog[pv[j]] == 0;
        }
        int64_t seen = 0;
        if (in.h_indptr && in.h_indptr[u + 1] > in.h_indptr[u]) {
          mark->next();
          for (int64_t q = 0; q < kk; ++q) mark->set(L[q], 1);
          for (int64_t p = in.h_indptr[u]; p < in.h_indptr[u + 1]; ++p) {
            const int64_t it = in.h_items[p];
            if (mark->has(it) || !in.catalog[it]) continue;
            mark->set(it, 1);  // counted once
            if (R == 0 || positive(it) < 0) ++seen;
          }
        }
        const int64_t U = in.n_catalog + outside - seen;
        P = R;
        N = U - R;
        Pb = R - pos_top;
        Nb = N - (kk - pos_top);
      }
      rel[u] = R;
      pos[u] = P;
      neg[u] = N;
      if (P == 0 || N == 0) {
        num2[u] = value[u] = kNaN;
        continue;
      }
      // walk the tie groups from the top: acc = Σ dFP (2 TP + dTP); the groups are kept only for a partial AUC
      __int128 acc = 0;
      int64_t tp_above = 0;
      groups.clear();
      const auto group = [&](int64_t dfp, int64_t dtp) {
        acc += static_cast<__int128>(dfp) * (2 * static_cast<__int128>(tp_above) + dtp);
        tp_above += dtp;
        if (partial) groups.emplace_back(dfp, dtp);
      };
      if (in.l_scores) {
        scored.resize(static_cast<size_t>(kk));
        const double* s = in.l_scores + b;
        for (int64_t q = 0; q < kk; ++q) scored[q] = {s[q], flag[q]};
        const auto desc = [](const auto& a, const auto& c) { return a.first > c.first; };
        if (!std::is_sorted(scored.begin(), scored.end(), desc)) std::sort(scored.begin(), scored.end(), desc);
        for (int64_t q = 0; q < kk;) {
          int64_t e = q, tp = 0;
          while (e < kk && scored[e].first == scored[q].first) tp += scored[e++].second;
          group((e - q) - tp, tp);
          q = e;
        }
      } else if (!partial) {
        for (int64_t q = 0; q < kk; ++q) {  // one item per group: a negative adds 2 TP, a positive nothing
          acc += flag[q] ? 0 : 2 * static_cast<__int128>(tp_above);
          tp_above += flag[q];
        }
      } else {
        for (int64_t q = 0; q < kk; ++q) group(1 - flag[q], flag[q]);
      }
      if (Pb + Nb > 0) group(Nb, Pb);
      num2[u] = static_cast<double>(acc);
      value[u] = partial ? auc_detail::partial_auc(groups, P, N, max_fpr)
                         : static_cast<double>(acc) / (2.0 * static_cast<double>(P) * static_cast<double>(N));
    }
  }
}

}  // namespace rankmeter::core
