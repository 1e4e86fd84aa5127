// rankmeter/ranking/plan.hpp — the inputs of the fused pass and its plan: everything that is
// decided once per call before any user is read (docs/architecture.md, "The fused pass").
//
// Inputs (all contiguous, owned by the caller, never written):
//   truth  CSR: t_indptr[n_users+1], t_items[nnz], t_grades[nnz] float64 or t_grades32[nnz]
//          float32 (both null: grade 1)
//   recs   CSR: r_indptr[rows+1], r_items[nnz]           (r_padded == false)
//          or a row-major 2-D array rows x r_stride padded with r_pad at the end
//   r_rowmap[n_users] (nullable): the recs row of each truth user, -1 for none.
//
// The plan: the bounds of every row (memory safety) and the scratch sizes; the distinct
// cutoffs (one snapshot each) and each column's snapshot; the gain variants of the DCG family
// and their discount tables; the slots of the ideal-DCG and walk columns; how much of each
// list is read (depth); the lookup (dense marker array or hash) and the tables of the integer
// grade levels 0..15.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "../parallel.hpp"
#include "../status.hpp"
#include "columns.hpp"
#include "scan.hpp"

namespace rankmeter::core {

// Item ids are int64 or int32 (`Id`), the same type on both sides, read in place.
template <typename Id>
struct RankingDataT {
  int64_t n_users = 0;
  const int64_t* t_indptr = nullptr;
  const Id* t_items = nullptr;
  const double* t_grades = nullptr;
  const float* t_grades32 = nullptr;  // float32 grades read in place (each widened exactly); t_grades null
  int64_t t_nnz = 0;
  const int64_t* r_indptr = nullptr;
  const Id* r_items = nullptr;
  int64_t r_nnz = 0;
  int64_t r_rows = 0;
  bool r_padded = false;
  int64_t r_stride = 0;
  int64_t r_pad = -1;
  const int64_t* r_rowmap = nullptr;
  const double* r_costs = nullptr;  // C/W/L costs aligned with r_items (NaN: none given); null: no costs
  int64_t id_bound = 0;             // > 0: every id on both sides is in 0..id_bound-1 (the lookup covers them)
};
using RankingData = RankingDataT<int64_t>;

struct RankingOptions {
  bool has_min_relevance = false;
  double min_relevance = 0.0;
  EmptyPolicy empty = EmptyPolicy::skip;
  DupPolicy dups = DupPolicy::error;  // an item repeated in the part of a list that is read
  bool whole_lists = false;           // look for duplicates in whole lists whatever the cutoffs (trec_eval)
  int64_t max_items = 0;              // 0: no truncation
  int threads = 0;                    // 0: all cores
  bool simd = true;                   // the vector list scan where the CPU has it (see simd_enabled)
  bool costs = false;                 // C/W/L costs given: bpm's cutoff is a cost limit, not a depth
};

namespace detail {

constexpr int64_t kAll = std::numeric_limits<int64_t>::max();

struct Plan {
  // sizes (pre-pass)
  int64_t max_m = 0, max_n = 0, max_sum = 0;
  // snapshots: the distinct cutoffs, ascending; column i reads snapshot snap_of[i] (nc: the whole list)
  std::vector<int64_t> cutoffs;
  int nc = 0;
  std::vector<int> snap_of, variant_of;
  // gain variants of the DCG family: (gain, log base, below_zero), with their discount tables
  std::vector<Gain> var_gain;
  std::vector<double> var_base;
  std::vector<char> var_below;
  std::vector<char> var_div;   // Discount::divide: disc[v][p] holds log_b(p + 1), the divisor
  std::vector<char> var_clip;  // Discount::clip: disc[v][p] holds ln(b) / ln(max(p, 2))
  int nv = 0;
  std::vector<std::vector<double>> disc, disc_prefix;  // disc_prefix: sums of 1 / log_b(p + 1) either way
  std::vector<double> slot_sum;  // k_slots ideal of a finite cutoff: sum of the first `cutoff` discounts
  bool need_cg[6] = {false, false, false, false, false, false};
  bool any_cg = false, any_short = false;  // a cg column; a short_lists="evidently" column
  bool need_ideal = false;
  std::vector<char> ideal_variant;  // the variants some NDCG column reads
  int64_t ideal_depth = 0;          // ideal positions read by any NDCG column
  std::vector<int> ndcg_slot, walk_slot;
  int n_ndcg = 0, n_walk = 0;
  // what is read of a list: the first `trunc` positions (max_items), of which `depth` positions
  // (`depth` distinct items under duplicates="first")
  int64_t trunc = kAll, depth = 0;
  // relevance and the integer grade levels 0..15
  bool has_min = false;
  double min_rel = 0.0;
  std::vector<double> level_gain;  // [variant * 16 + level]
  bool level_rel[16], level_adds[16];
  double level_cg[6][16];
  // the truth lookup
  int threads = 1;
  int64_t cap_max = 16;
  bool dense = false;
  int64_t dense_ids = 0;  // ids 0..dense_ids-1 of the dense array

  bool relevant(double g) const { return has_min ? g >= min_rel : g > 0.0; }
  // gain g at list position p under variant v: g / log_b(p + 1) (divide) or g * (1 / log_b(p + 1))
  double weigh(int v, double g, int64_t p) const { return var_div[v] ? g / disc[v][p] : g * disc[v][p]; }
};

// Pre-pass: bounds of every row (memory safety) and scratch sizes.
template <typename Id>
Status plan_sizes(const RankingDataT<Id>& d, Plan& P) {
  Status status;
  int64_t max_m = 0, max_n = 0, max_sum = 0;
  for (int64_t u = 0; u < d.n_users; ++u) {
    const int64_t t0 = d.t_indptr[u], t1 = d.t_indptr[u + 1];
    if (t0 < 0 || t1 < t0 || t1 > d.t_nnz) {
      status.record(Code::bad_indptr, u, 0);
      return status;
    }
    int64_t n = 0;
    const int64_t row = d.r_rowmap ? d.r_rowmap[u] : u;
    if (row >= 0) {
      if (row >= d.r_rows) {
        status.record(Code::bad_rowmap, u, row);
        return status;
      }
      if (d.r_padded) {
        n = d.r_stride;
      } else {
        const int64_t b = d.r_indptr[row], e = d.r_indptr[row + 1];
        if (b < 0 || e < b || e > d.r_nnz) {
          status.record(Code::bad_indptr, u, 1);
          return status;
        }
        n = e - b;
      }
    }
    const int64_t m = t1 - t0;
    max_m = std::max(max_m, m);
    max_n = std::max(max_n, n);
    max_sum = std::max(max_sum, m + n);
  }
  if (max_sum >= kMaxPerUser) {
    status.record(Code::too_large, 0, max_sum);
    return status;
  }
  P.max_m = max_m;
  P.max_n = max_n;
  P.max_sum = max_sum;
  return status;
}

// Cutoffs, gain variants, discount tables, slots, depth and grade-level tables.
inline Status plan_columns(const std::vector<Column>& cols, const RankingOptions& opt, Plan& P) {
  Status status;
  const int n_cols = static_cast<int>(cols.size());
  auto& cutoffs = P.cutoffs;
  for (const auto& c : cols)
    if (c.cutoff > 0) cutoffs.push_back(c.cutoff);
  std::sort(cutoffs.begin(), cutoffs.end());
  cutoffs.erase(std::unique(cutoffs.begin(), cutoffs.end()), cutoffs.end());
  const int nc = P.nc = static_cast<int>(cutoffs.size());

  P.snap_of.assign(n_cols, 0);
  P.variant_of.assign(n_cols, -1);
  for (int i = 0; i < n_cols; ++i) {
    const Column& c = cols[i];
    P.snap_of[i] = c.cutoff > 0
                       ? static_cast<int>(std::lower_bound(cutoffs.begin(), cutoffs.end(), c.cutoff) - cutoffs.begin())
                       : nc;
    if (c.kind == Kind::cg) P.need_cg[static_cast<int>(c.gain) + 3 * c.below_zero()] = true;
    if (c.kind == Kind::dcg || c.kind == Kind::ndcg) {
      const double base = c.kind == Kind::ndcg ? 2.0 : c.log_base;  // log_base never changes NDCG
      int v = -1;
      for (size_t j = 0; j < P.var_gain.size(); ++j)
        if (P.var_gain[j] == c.gain && P.var_base[j] == base && P.var_below[j] == c.below_zero() &&
            P.var_div[j] == (c.discount == Discount::divide) && P.var_clip[j] == (c.discount == Discount::clip))
          v = static_cast<int>(j);
      if (v < 0) {
        if (P.var_gain.size() >= static_cast<size_t>(kMaxVariants)) {
          status.record(Code::too_many_variants, 0, kMaxVariants);
          return status;
        }
        v = static_cast<int>(P.var_gain.size());
        P.var_gain.push_back(c.gain);
        P.var_base.push_back(base);
        P.var_below.push_back(c.below_zero());
        P.var_div.push_back(c.discount == Discount::divide);
        P.var_clip.push_back(c.discount == Discount::clip);
      }
      P.variant_of[i] = v;
      if (c.kind == Kind::ndcg) P.need_ideal = true;
    }
  }
  const int nv = P.nv = static_cast<int>(P.var_gain.size());
  const int64_t table_len = std::max(P.max_m, P.max_n) + 2;
  P.disc.assign(nv, {});
  P.disc_prefix.assign(nv, {});
  for (int v = 0; v < nv; ++v) {
    auto& dv = P.disc[v];
    auto& dp = P.disc_prefix[v];
    dv.resize(table_len);
    dp.resize(table_len);
    dv[0] = 0.0;
    dp[0] = 0.0;
    for (int64_t p = 1; p < table_len; ++p) {
      const double r = P.var_clip[v] ? discount_clip(P.var_base[v], p) : discount(P.var_base[v], p);
      dv[p] = P.var_div[v] ? discount_log(P.var_base[v], p) : r;
      dp[p] = dp[p - 1] + r;
    }
  }
  // k_slots ideal for a finite cutoff: sum of the first `cutoff` discounts (user independent).
  P.slot_sum.assign(n_cols, 0.0);
  for (int i = 0; i < n_cols; ++i) {
    const Column& c = cols[i];
    if (c.kind == Kind::ndcg && c.ideal == Ideal::k_slots && c.cutoff > 0) {
      const int v = P.variant_of[i];
      if (c.cutoff < table_len) {
        P.slot_sum[i] = P.disc_prefix[v][c.cutoff];
      } else {
        double s = P.disc_prefix[v][table_len - 1];
        for (int64_t p = table_len; p <= c.cutoff; ++p)
          s += P.var_clip[v] ? discount_clip(P.var_base[v], p) : discount(P.var_base[v], p);
        P.slot_sum[i] = s;
      }
    }
  }
  P.ideal_variant.assign(std::max(nv, 1), 0);
  for (int i = 0; i < n_cols; ++i)
    if (cols[i].kind == Kind::ndcg) P.ideal_variant[P.variant_of[i]] = 1;
  // Ideal positions read: the largest cutoff of a "cut" NDCG column, every truth
  // item for "all" or no cutoff; "k_slots" reads only the largest grade.
  P.ideal_depth = 0;
  for (const auto& c : cols) {
    if (c.kind != Kind::ndcg || c.ideal == Ideal::k_slots) continue;
    if (c.ideal == Ideal::cut && c.cutoff > 0 && P.ideal_depth != kAll)
      P.ideal_depth = std::max(P.ideal_depth, c.cutoff);
    else
      P.ideal_depth = kAll;
  }

  P.has_min = opt.has_min_relevance;
  P.min_rel = opt.min_relevance;
  P.trunc = opt.max_items > 0 ? opt.max_items : kAll;  // raw positions kept (max_items)
  // Positions read per list (distinct items under "first"): the largest cutoff, or all of them
  // when a column has no cutoff (num_rel reads no list item) or whole lists are asked for.
  P.depth = 0;
  for (const auto& c : cols)
    if (c.kind != Kind::num_rel) {
      // with costs (or items costing other than 1), bpm's cutoff K limits the cost so far: it reads
      // as far as its depth
      const bool costs = opt.costs || c.max_cost != 1.0 || c.min_cost != 1.0;
      const bool cost_limit = costs && (c.kind == Kind::bpm || c.kind == Kind::bpm_dynamic);
      P.depth = c.cutoff > 0 && !cost_limit && P.depth != kAll ? std::max(P.depth, c.cutoff) : kAll;
    }
  if (opt.whole_lists) P.depth = kAll;

  // The gain of each integer grade 0..15 per variant, for the counting-sort ideal:
  // the same value gain_of gives that grade, so the ideal sums are unchanged.
  P.level_gain.assign(static_cast<size_t>(std::max(nv, 1) * 16), 0.0);
  for (int v = 0; v < nv; ++v)
    for (int lv = 0; lv < 16; ++lv) {
      const double g = static_cast<double>(lv);
      P.level_gain[static_cast<size_t>(v * 16 + lv)] = gain_of(P.var_gain[v], P.var_below[v], g, P.relevant(g));
    }
  // The same for every user whose truth grades are all integers 0..15 (the usual
  // scales): each truth item's level is found once, and the walk over the finds
  // reads relevance and gains from these tables (equal to relevant() and
  // gain_of() of that grade, so the sums are unchanged).
  for (const auto& c : cols) P.any_short |= c.short_repeat();
  for (int gk = 0; gk < 6; ++gk) P.any_cg |= P.need_cg[gk];
  for (int lv = 0; lv < 16; ++lv) {
    const double g = static_cast<double>(lv);
    P.level_rel[lv] = P.relevant(g);
    P.level_adds[lv] = g > 0.0 || P.level_rel[lv];
    for (int gk = 0; gk < 6; ++gk) P.level_cg[gk][lv] = gain_of(static_cast<Gain>(gk % 3), gk >= 3, g, P.level_rel[lv]);
  }

  // Per-column ideal DCG slots (one per NDCG column) kept per user of a block.
  P.ndcg_slot.assign(n_cols, -1);
  for (int i = 0; i < n_cols; ++i)
    if (cols[i].kind == Kind::ndcg) P.ndcg_slot[i] = P.n_ndcg++;
  // Columns computed per user from the finds directly (one value each, kept per
  // user of a block): the registry's "walk" stage (bpref, RBP, ERR, judged).
  P.walk_slot.assign(n_cols, -1);
  for (int i = 0; i < n_cols; ++i)
    if (is_walk(cols[i].kind)) P.walk_slot[i] = P.n_walk++;
  return status;
}

// The truth lookup: direct addressing when every truth id is small and non-negative and the
// per-thread array stays small next to the input (2 bytes per id); else hash tables.
template <typename Id>
void plan_lookup(const RankingDataT<Id>& d, int threads, Plan& P) {
  const int T = P.threads = threads;
  P.cap_max = next_pow2(4 * P.max_sum + 2);
  const int64_t dense_limit = std::max<int64_t>(int64_t(1) << 21, (d.t_nnz + d.r_nnz) / (2 * static_cast<int64_t>(T)));
  int64_t tmin = 0, tmax = -1;
  // First the bitwise OR of every truth id (a vectorised pass): when it is
  // non-negative and below the limit it bounds every id, and the array covers
  // 0..OR (any bound gives the same results). Otherwise the exact min and max.
  uint64_t t_or = 0;
  if (d.id_bound > 0 && d.id_bound <= dense_limit) {  // ids known to be small: the array covers every one
    P.dense = P.max_m <= DenseLookup::kMaxTruth;
    P.dense_ids = P.dense ? d.id_bound : 0;
    return;
  }
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) reduction(| : t_or) schedule(static)
#endif
  for (int64_t i = 0; i < d.t_nnz; ++i) t_or |= static_cast<uint64_t>(static_cast<int64_t>(d.t_items[i]));
  if (d.t_nnz > 0 && t_or < static_cast<uint64_t>(dense_limit)) {
    tmax = static_cast<int64_t>(t_or);
  } else if (d.t_nnz > 0) {
    tmin = std::numeric_limits<int64_t>::max();
    tmax = std::numeric_limits<int64_t>::min();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) reduction(min : tmin) reduction(max : tmax) schedule(static)
#endif
    for (int64_t i = 0; i < d.t_nnz; ++i) {
      tmin = std::min<int64_t>(tmin, d.t_items[i]);
      tmax = std::max<int64_t>(tmax, d.t_items[i]);
    }
  }
  P.dense = tmin >= 0 && tmax < dense_limit && P.max_m <= DenseLookup::kMaxTruth;
  P.dense_ids = P.dense ? tmax + 1 : 0;  // tmax may be INT64_MAX on the hash path
}

}  // namespace detail

}  // namespace rankmeter::core
