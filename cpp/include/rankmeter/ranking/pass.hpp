// rankmeter/ranking/pass.hpp — the fused accuracy pass: the parallel driver
// (docs/architecture.md, "The fused pass").
//
// One read of the data computes every requested accuracy column at every requested cutoff.
// Users are taken in blocks of 64 (kBlock), blocks spread over the threads (OpenMP, dynamic
// schedule). Phase 1 reads each user of the block once: its truth into the lookup with each
// grade's level (scan.hpp), the part of its list that is read (scan_list: the finds), the
// snapshots at each cutoff, the walk columns and the ideal DCG (walk.hpp). Phase 2 computes
// every column over the block from those (fill_column, columns.hpp), writes the per-user values
// and adds them to the column's exact sum (ExactSum): the means do not depend on the thread
// count, the block split or the schedule. Outputs: values[n_cols * n_users] (column-major;
// nullable: means only), one ExactSum and one count per column (NaN values, i.e. skipped
// users, are not summed; `sums` nullable: per-user values only, and no exact sum is made, which
// is most of the fixed cost of a call on a few users), n_skipped.
//
// What is read of a list (docs/metrics.md, section 6): max_items first truncates the list as
// given; then only its first D positions are read, D being the largest cutoff, or the
// whole list when a column has no cutoff (num_rel reads no list item) or whole_lists is set
// (the trec_eval preset). Duplicates are looked for only there: duplicates="error" rejects one
// within the first D positions; "first" drops it and reads on until D distinct items (the list
// closes up) or the truncated list ends; "miss" keeps the repeat at its position as a non-hit;
// "count" keeps it at its position and finds a repeated truth item again (each occurrence is a
// hit with its grade's gain, so hits can exceed |R| and recall or NDCG exceed 1). A padding
// value ends a padded row; only padding may follow it in the positions that would have been read.
//
// Relevance: grade > 0, or grade >= min_relevance when given. Gains use the grade itself
// (negative grades give 0): linear g, exponential 2^g - 1, binary 1 for relevant items. Users
// with no relevant item follow EmptyPolicy.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "../exact_sum.hpp"
#include "../parallel.hpp"
#include "../status.hpp"
#include "columns.hpp"
#include "plan.hpp"
#include "scan.hpp"
#include "walk.hpp"

namespace rankmeter::core {

// Compute every column for every user. Returns the first problem (lowest user);
// on a problem the outputs are unspecified.
template <typename Id>
Status evaluate_ranking(const RankingDataT<Id>& d, const std::vector<Column>& cols, const RankingOptions& opt,
                        double* values, ExactSum* sums, int64_t* counts, int64_t* n_skipped_out) {
  using namespace detail;
  const int64_t n_users = d.n_users;
  const int n_cols = static_cast<int>(cols.size());

  // ---- The plan (plan.hpp): sizes, cutoffs, gain variants, discounts, slots, lookup.
  Plan P;
  Status status = plan_sizes(d, P);
  if (!status.ok()) return status;
  status = plan_columns(cols, opt, P);
  if (!status.ok()) return status;
  const int T = effective_threads(opt.threads, n_users);
  plan_lookup(d, T, P);
  const int64_t max_m = P.max_m;
  const int nc = P.nc;
  const int n_ndcg = P.n_ndcg, n_walk = P.n_walk;
  const bool need_ideal = P.need_ideal;
  const bool any_short = P.any_short;
  const int64_t depth = P.depth, trunc = P.trunc;
  // The argument of each column's formula: the gain variant (dcg, ndcg) or the cg index.
  std::vector<int> arg_of(n_cols, 0);
  for (int i = 0; i < n_cols; ++i)
    arg_of[i] = cols[i].kind == Kind::cg ? static_cast<int>(cols[i].gain) + 3 * cols[i].below_zero() : P.variant_of[i];

  // ---- Per-thread scratch.
  std::vector<DenseLookup> dense_look;
  std::vector<HashLookup> hash_look;
  for (int t = 0; t < T; ++t) {
    if (P.dense)
      dense_look.emplace_back(P.dense_ids, P.cap_max);
    else
      hash_look.emplace_back(P.cap_max);
  }
  std::vector<std::vector<double>> grade_buf(T, std::vector<double>(max_m + 1));
  // Finds of one user: at most min(|truth|, list length) + 1 slots (the fast scan writes one past
  // the last find); under duplicates="count" a truth item is found at each occurrence, so up to
  // the list length.
  const int64_t find_cap = (opt.dups == DupPolicy::count ? std::max(max_m, P.max_n) : max_m) + 2;
  std::vector<std::vector<int64_t>> find_pos(T, std::vector<int64_t>(find_cap));
  std::vector<std::vector<int32_t>> find_ti(T, std::vector<int32_t>(find_cap));
  std::vector<std::vector<double>> ideal_prefix(
      T, std::vector<double>(static_cast<size_t>(std::max(P.nv, 1) * (max_m + 1))));
  // one exact sum per column and thread (about 17 KiB each), only when the means are asked for
  std::vector<std::vector<ExactSum>> tsums(sums ? T : 0);
  for (auto& ts : tsums) ts.resize(static_cast<size_t>(n_cols));
  std::vector<std::vector<int64_t>> tcounts(T, std::vector<int64_t>(n_cols, 0));
  std::vector<int64_t> tskipped(T, 0);
  std::vector<Status> tstatus(T);
  std::atomic<bool> failed{false};
  std::vector<std::vector<uint8_t>> level_buf(T, std::vector<uint8_t>(max_m + 1));

  const double nan = std::numeric_limits<double>::quiet_NaN();
  [[maybe_unused]] const bool use_simd = opt.simd && simd_supported();
  const double* grades = d.t_grades;
  const float* grades32 = d.t_grades32;
  const Id* r_items = d.r_items;
  const bool padded = d.r_padded;
  const int64_t pad = d.r_pad;
  auto relevant = [&P](double g) { return P.relevant(g); };
  auto grade_at = [grades, grades32](int64_t i) {
    return grades ? grades[i] : grades32 ? static_cast<double>(grades32[i]) : 1.0;
  };

  constexpr int64_t kBlock = 64;  // users scanned before their columns are written
  constexpr int64_t kAhead = 16;  // users ahead whose read prefix is prefetched
  // a block's snapshots and records, row j for its user j (no more rows than users: a call on a few users,
  // such as a drop-in called query by query, does not clear 64 users' worth of snapshots)
  const auto block_rows = static_cast<size_t>(std::min(kBlock, std::max(n_users, int64_t{1})));
  std::vector<std::vector<Snap>> block_snaps(T, std::vector<Snap>(block_rows * static_cast<size_t>(nc + 1)));
  std::vector<std::vector<UserRec>> block_users(T, std::vector<UserRec>(block_rows));
  std::vector<std::vector<double>> block_idcg(T,
                                              std::vector<double>(static_cast<size_t>(kBlock * std::max(n_ndcg, 1))));
  std::vector<std::vector<double>> block_walk(T,
                                              std::vector<double>(static_cast<size_t>(kBlock * std::max(n_walk, 1))));
  const int64_t n_blocks = (n_users + kBlock - 1) / kBlock;

  auto body = [&](auto& look, int tid, auto padded_tag) {
    constexpr bool kPadded = decltype(padded_tag)::value;
    double* gbuf = grade_buf[tid].data();
    uint8_t* lvl = level_buf[tid].data();
    double* ipre = ideal_prefix[tid].data();
    int64_t* fpos = find_pos[tid].data();
    int32_t* fti = find_ti[tid].data();
    Snap* bsnap = block_snaps[tid].data();
    double vbuf[kBlock];  // one column's values over a block
    UserRec* brec = block_users[tid].data();
    double* bidcg = block_idcg[tid].data();
    double* bwalk = block_walk[tid].data();
    ExactSum* my_sums = sums ? tsums[tid].data() : nullptr;
    int64_t* my_counts = tcounts[tid].data();
    Status& st = tstatus[tid];
    int64_t skipped = 0;

#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
    for (int64_t blk = 0; blk < n_blocks; ++blk) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const int64_t u0 = blk * kBlock;
      const int64_t u1 = std::min(n_users, u0 + kBlock);
      bool bad = false;

      // Phase 1: read every user of the block once.
      for (int64_t u = u0; u < u1 && !bad; ++u) {
        const int64_t j = u - u0;
        if (depth < kAll && u + kAhead < n_users) {
          // Only a prefix of each row is read, so rows are visited with a stride
          // the hardware prefetcher does not follow: request a user's prefix ahead.
          const int64_t ua = u + kAhead;
          const int64_t ra = d.r_rowmap ? d.r_rowmap[ua] : ua;
          if (ra >= 0) {
            const int64_t pb = padded ? ra * d.r_stride : d.r_indptr[ra];
            const int64_t pn = padded ? d.r_stride : d.r_indptr[ra + 1] - pb;
            prefetch_span(r_items + pb, std::min(pn, std::min(depth, int64_t{32})));
          }
        }
        Snap* snap = bsnap + j * (nc + 1);
        const int64_t t0 = d.t_indptr[u], t1 = d.t_indptr[u + 1];
        const int64_t m = t1 - t0;
        int64_t b = 0, e = 0;
        const int64_t row = d.r_rowmap ? d.r_rowmap[u] : u;
        if (row >= 0) {
          if (padded) {
            b = row * d.r_stride;
            e = b + d.r_stride;
          } else {
            b = d.r_indptr[row];
            e = d.r_indptr[row + 1];
          }
        }
        e = b + std::min(e - b, trunc);  // max_items truncates the list as given
        look.begin(m, m + (e - b));

        // Truth into the set, with each grade's level when all are integers 0..15.
        int64_t nrel = 0;
        int32_t count[16] = {0};
        uint32_t present = 0;  // bit lv: some truth item has level lv
        for (int64_t i = 0; i < m; ++i) {
          const int64_t key = d.t_items[t0 + i];
          if (!look.add_truth(key, static_cast<int32_t>(i))) {
            st.record(Code::duplicate_truth, u, key);
            bad = true;
            break;
          }
        }
        if (bad) break;
        // A loop of its own, per grade dtype, on local copies: inside the loop
        // above (and through the captured references) the compiler kept
        // reloading the pointers and spilling the flags.
        bool small = true;
        {
          uint32_t pres = 0;
          int64_t nr = 0;
          uint64_t off = 0;  // nonzero once a grade is not a level
          const bool* lrel = P.level_rel;
          // The level of a grade from the top 16 bits of its double (sign,
          // exponent, 4 mantissa bits) in a table, when its other 48 bits are
          // zero: exactly the integers 0..15 and -0.0 (level 0). Anything else
          // sets bit 4 of the table value or a bit of `off` above bit 15.
          const uint8_t* lt = grade_level_table();
          auto levels = [&](auto grade) {
            for (int64_t i = 0; i < m; ++i) {
              const double g = grade(i);
              uint64_t bits;
              std::memcpy(&bits, &g, sizeof(bits));
              const uint32_t tv = lt[bits >> 48];
              off |= (bits << 16) | tv;
              const uint32_t lv = tv & 15u;
              lvl[i] = static_cast<uint8_t>(lv);
              count[lv] += 1;
              pres |= 1u << lv;
              nr += lrel[lv];
            }
          };
          if (grades) {
            const double* gp = grades + t0;
            levels([gp](int64_t i) { return gp[i]; });
          } else if (grades32) {
            const float* gp = grades32 + t0;
            levels([gp](int64_t i) { return static_cast<double>(gp[i]); });
          } else {
            levels([](int64_t) { return 1.0; });
          }
          present = pres;
          nrel = nr;
          small = (off >> 4) == 0;
        }
        if (!small) {  // the levels are not the grades: relevance from the grades themselves
          nrel = 0;
          for (int64_t i = 0; i < m; ++i) {
            const double g = grade_at(t0 + i);
            // Every grade is checked here (a level is finite), so the caller needs no
            // separate pass over the grades: a NaN or an infinity is an error.
            if (!std::isfinite(g)) {
              st.record(Code::bad_grade, u, i);
              bad = true;
              break;
            }
            nrel += relevant(g);
          }
          if (bad) break;
        }
        if (nrel == 0 && opt.empty == EmptyPolicy::error) {
          st.record(Code::empty_truth, u, 0);
          bad = true;
          break;
        }

        // The part of the list that is read: its finds (scan.hpp).
        int64_t nf = 0, pos = 0;
        if (!scan_list<kPadded>(look, r_items, b, e, depth, pad, use_simd, opt.dups, d.t_items + t0, m, fpos, fti, nf,
                                pos, st, u)) {
          bad = true;
          break;
        }

        // Snapshots at every cutoff, walk columns, ideal DCG (walk.hpp).
        const Finds finds{fpos, fti, nf, m, nrel, pos, d.r_costs ? d.r_costs + b : nullptr};
        auto grade_of = [&grade_at, t0](int64_t ti) { return grade_at(t0 + ti); };
        const int64_t hits_at_R = walk_snapshots(P, finds, small, lvl, grade_of, snap);
        const bool last_rel = any_short && nf > 0 && fpos[nf - 1] == pos && relevant(grade_at(t0 + fti[nf - 1]));
        brec[j] = UserRec{nrel, pos, hits_at_R, last_rel};
        for (int i = 0; i < (n_walk > 0 ? n_cols : 0); ++i) {
          const int q = P.walk_slot[i];
          if (q >= 0) bwalk[q * kBlock + j] = walk_value(cols[i], finds, relevant, grade_of);
        }
        if (need_ideal) ideal_dcg<kBlock>(P, cols, m, pos, small, count, present, grade_of, gbuf, ipre, bidcg, j);
      }
      if (bad) {
        failed.store(true, std::memory_order_relaxed);
        continue;
      }

      // Phase 2: every column over the block (columns.hpp); the values are then
      // written out and summed as one span.
      const int64_t nb = u1 - u0;
      int64_t n_empty = 0;
      for (int64_t j = 0; j < nb; ++j) n_empty += brec[j].nrel == 0;
      if (opt.empty == EmptyPolicy::skip) skipped += n_empty;
      const int64_t stride = nc + 1;
      for (int i = 0; i < n_cols; ++i) {
        const Column& c = cols[i];
        const double* aux = P.ndcg_slot[i] >= 0   ? bidcg + P.ndcg_slot[i] * kBlock
                            : P.walk_slot[i] >= 0 ? bwalk + P.walk_slot[i] * kBlock
                                                  : nullptr;
        fill_column(c, arg_of[i], bsnap + P.snap_of[i], stride, brec, aux, nb, vbuf);
        const double* vb = vbuf;
        double* out = values ? values + static_cast<int64_t>(i) * n_users + u0 : nullptr;
        if (n_empty == 0) {  // the usual block
          if (out) std::copy(vb, vb + nb, out);
          if (my_sums) my_sums[i].add_span(vb, nb);
          my_counts[i] += nb;
          continue;
        }
        // Users without a relevant item: left out (NaN), 1, or the value as computed
        // (count-like metrics keep it: the registry's count_like).
        const bool keeps = count_like(c.kind);
        for (int64_t j = 0; j < nb; ++j) {
          double val = vb[j];
          if (brec[j].nrel == 0) {
            if (opt.empty == EmptyPolicy::skip) {
              if (out) out[j] = nan;
              continue;
            }
            if (opt.empty == EmptyPolicy::one && !keeps) val = 1.0;
          }
          if (out) out[j] = val;
          if (my_sums) my_sums[i].add(val);
          ++my_counts[i];
        }
      }
    }
    tskipped[tid] = skipped;
  };

#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    using Yes = std::true_type;
    using No = std::false_type;
    if (P.dense) {
      if (padded)
        body(dense_look[tid], tid, Yes{});
      else
        body(dense_look[tid], tid, No{});
    } else {
      if (padded)
        body(hash_look[tid], tid, Yes{});
      else
        body(hash_look[tid], tid, No{});
    }
  }

  // ---- Merge: the lowest user's problem; the exact sums and counts of every thread.
  for (int t = 0; t < T; ++t) status.merge(tstatus[t]);
  if (!status.ok()) return status;
  int64_t n_skipped = 0;
  for (int i = 0; i < n_cols; ++i) {
    if (sums) sums[i].clear();
    counts[i] = 0;
  }
  for (int t = 0; t < T; ++t) {
    n_skipped += tskipped[t];
    for (int i = 0; i < n_cols; ++i) {
      if (sums) sums[i].merge(tsums[t][i]);
      counts[i] += tcounts[t][i];
    }
  }
  *n_skipped_out = n_skipped;
  return status;
}

}  // namespace rankmeter::core
