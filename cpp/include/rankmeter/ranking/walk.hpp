// rankmeter/ranking/walk.hpp — stage 2 of the fused pass: from a user's finds to the values
// every column reads (docs/architecture.md, "The fused pass", "snapshots", "walk columns").
//
// Every accuracy metric at every cutoff is a function of the finds (the list position and the
// truth index of each truth item the list holds), the list length and |R|. One walk over the
// (few) finds takes a snapshot of the running sums at each cutoff (walk_snapshots); the walk
// columns (bpref, RBP, ERR, judged) take one more walk of their own (walk_value in
// columns.hpp); NDCG columns divide by the user's ideal DCG (ideal_dcg).
//
// NDCG's ideal: with a cutoff k, "cut" uses the best min(k, m) truth gains; without a cutoff
// nothing is cut ("cut" = "all": every truth gain), so a short list never scores higher for
// being short. "k_slots" without a cutoff takes k = n (the list length after truncation and
// duplicate removal), as every metric does.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "columns.hpp"
#include "plan.hpp"
#include "scan.hpp"  // RANKMETER_ALWAYS_INLINE

namespace rankmeter::core::detail {

// Walk the finds in list order; a snapshot of the running sums at every cutoff (snap[0..nc-1])
// and at the end of the list read (snap[nc]). Relevance and gains come from the grade-level
// tables when every truth grade of the user is an integer 0..15 (`small`: lvl[i] is the level
// of truth item i), else from the grades themselves (grade(i) of truth index i). Returns the
// hits within the first |R| positions (r_precision).
template <class Grade>
RANKMETER_ALWAYS_INLINE int64_t walk_snapshots(const Plan& P, const Finds& f, bool small, const uint8_t* lvl,
                                               Grade grade, Snap* snap) {
  const int nc = P.nc, nv = P.nv;
  const bool any_cg = P.any_cg;
  const int64_t nrel = f.nrel;
  int64_t hits = 0, first = 0;
  double ap = 0.0, ar = 0.0, arhr = 0.0;
  double dcg[kMaxVariants];
  double cgs[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  dcg[0] = 0.0;
  for (int v = 1; v < nv; ++v) dcg[v] = 0.0;
  auto take = [&](Snap& sn) {
    sn.hits = hits;
    sn.first = first;
    sn.ap = ap;
    sn.ar = ar;
    sn.arhr = arhr;
    if (any_cg)
      for (int gk = 0; gk < 6; ++gk) sn.cg[gk] = cgs[gk];
    if (nv == 1)  // the usual case, without a call to memcpy
      sn.dcg[0] = dcg[0];
    else
      for (int v = 0; v < nv; ++v) sn.dcg[v] = dcg[v];
  };
  int ci = 0;
  int64_t hits_at_R = -1;
  for (int64_t q = 0; q < f.n; ++q) {
    const int64_t p = f.pos[q];
    while (ci < nc && P.cutoffs[ci] < p) take(snap[ci++]);
    if (hits_at_R < 0 && p > nrel) hits_at_R = hits;
    bool rel;
    if (small) {
      const int lv = lvl[f.ti[q]];
      rel = P.level_rel[lv];
      if (P.level_adds[lv]) {
        for (int v = 0; v < nv; ++v) dcg[v] += P.weigh(v, P.level_gain[static_cast<size_t>(v * 16 + lv)], p);
        for (int gk = 0; gk < 6 && any_cg; ++gk)
          if (P.need_cg[gk]) cgs[gk] += P.level_cg[gk][lv];
      }
    } else {
      const double g = grade(f.ti[q]);
      rel = P.relevant(g);
      if (g > 0.0 || rel) {
        for (int v = 0; v < nv; ++v) dcg[v] += P.weigh(v, gain_of(P.var_gain[v], P.var_below[v], g, rel), p);
        for (int gk = 0; gk < 6; ++gk)
          if (P.need_cg[gk]) cgs[gk] += gain_of(static_cast<Gain>(gk % 3), gk >= 3, g, rel);
      }
    }
    if (rel) {
      ++hits;
      ap += static_cast<double>(hits) / static_cast<double>(p);
      ar += static_cast<double>(hits);
      arhr += 1.0 / static_cast<double>(p);
      if (first == 0) first = p;
    }
  }
  while (ci < nc) take(snap[ci++]);
  take(snap[nc]);
  return hits_at_R < 0 ? hits : hits_at_R;
}

// Ideal DCG of every NDCG column of one user: the truth grades sorted descending, one prefix
// sum of gain * discount per gain variant, read at each column's cut. m truth rows from
// grade(0..m-1); `small`: every grade is an integer level 0..15 with count[lv] rows of level
// lv and bit lv of `present` set. Writes bidcg[slot * kBlock + j] for each NDCG column.
// gbuf: m + 1 doubles of scratch; ipre: the prefix sums, (max_m + 1) per variant.
template <int64_t kBlock, class Grade>
RANKMETER_ALWAYS_INLINE void ideal_dcg(const Plan& P, const std::vector<Column>& cols, int64_t m, int64_t n_read,
                                       bool small, const int32_t* count, uint32_t present, Grade grade, double* gbuf,
                                       double* ipre, double* bidcg, int64_t j) {
  const int nv = P.nv;
  const int n_cols = static_cast<int>(cols.size());
  const int64_t stride = P.max_m + 1;
  // Fast path: grades that are integers 0..15 (the usual 0-3 or 1-5
  // scales) are ordered by a counting sort; comparison sorts
  // mispredict constantly on such random small values. Grade 0 gives
  // gain 0 and is never relevant unless min_relevance <= 0, which
  // takes the general path.
  const bool by_count = small && !(P.has_min && P.min_rel <= 0.0);
  // Only the first `upto_u` ideal positions are read by any column.
  const int64_t upto_u = std::min(m, P.ideal_depth);
  if (by_count) {
    // The prefix sums straight from the counts, level by level (largest
    // grade first): the same additions in the same order as over the sorted
    // grades, without writing them out. gbuf[0] = the largest grade (k_slots).
    const uint32_t above0 = present & ~1u;
    const int top = above0 ? 31 - __builtin_clz(above0) : 0;
    gbuf[0] = static_cast<double>(top);
    for (int v = 0; v < nv; ++v) {
      if (!P.ideal_variant[v]) continue;
      double* pre = ipre + static_cast<int64_t>(v) * stride;
      const double* dv = P.disc[v].data();
      const double* lg = P.level_gain.data() + v * 16;
      double acc = 0.0;
      pre[0] = acc;
      int64_t q = 0;
      // the levels present, largest first (an absent level adds nothing)
      for (uint32_t left = present; left != 0 && q < upto_u;) {
        const int lv = 31 - __builtin_clz(left);
        left &= ~(1u << lv);
        const double g = lg[lv];
        const int64_t q_end = std::min<int64_t>(upto_u, q + count[lv]);
        if (P.var_div[v])
          for (; q < q_end; ++q) {
            acc = acc + g / dv[q + 1];
            pre[q + 1] = acc;
          }
        else
          for (; q < q_end; ++q) {
            acc = acc + g * dv[q + 1];
            pre[q + 1] = acc;
          }
      }
    }
  } else {
    for (int64_t i = 0; i < m; ++i) gbuf[i] = grade(i);
    std::sort(gbuf, gbuf + m, std::greater<double>());
    for (int v = 0; v < nv; ++v) {
      if (!P.ideal_variant[v]) continue;
      double* pre = ipre + static_cast<int64_t>(v) * stride;
      pre[0] = 0.0;
      for (int64_t q = 0; q < upto_u; ++q)
        pre[q + 1] = pre[q] + P.weigh(v, gain_of(P.var_gain[v], P.var_below[v], gbuf[q], P.relevant(gbuf[q])), q + 1);
    }
  }
  for (int i = 0; i < n_cols; ++i) {
    const int q = P.ndcg_slot[i];
    if (q < 0) continue;
    const Column& c = cols[i];
    const int v = P.variant_of[i];
    double idcg;
    if (c.ideal == Ideal::k_slots) {
      // k slots of the largest gain; no cutoff: k = n, the list length
      const double gmax = m > 0 ? gain_of(c.gain, c.below_zero(), gbuf[0], P.relevant(gbuf[0])) : 0.0;
      idcg = gmax * (c.cutoff > 0 ? P.slot_sum[i] : P.disc_prefix[v][n_read]);
    } else {
      // "cut" stops at the cutoff; without one nothing is cut (every truth gain, as "all")
      const int64_t upto = c.ideal == Ideal::cut && c.cutoff > 0 ? std::min(c.cutoff, m) : m;
      idcg = ipre[static_cast<int64_t>(v) * stride + upto];
    }
    bidcg[q * kBlock + j] = idcg;
  }
}

}  // namespace rankmeter::core::detail
