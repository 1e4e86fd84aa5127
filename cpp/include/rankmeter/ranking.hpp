// rankmeter/ranking.hpp — the fused accuracy pass.
//
// One read of the data computes every requested accuracy column (hits,
// precision, recall, F-beta, AP, AR, CG, DCG, NDCG, hit rate, RR, ARHR,
// R-precision, |R|) at every requested cutoff.
//
// Inputs (all contiguous, owned by the caller, never written):
//   truth  CSR: t_indptr[n_users+1], t_items[nnz], t_grades[nnz] (nullable: grade 1)
//   recs   CSR: r_indptr[rows+1], r_items[nnz]           (r_padded == false)
//          or a row-major 2-D array rows x r_stride padded with r_pad at the end
//   r_rowmap[n_users] (nullable): the recs row of each truth user, -1 for none.
// Outputs: values[n_cols * n_users] (column-major), one ExactSum and one count
// per column (NaN values, i.e. skipped users, are not summed), n_skipped.
//
// Per user u: the truth items go into a small open-addressing hash table
// (per-thread scratch, stamped so it never needs clearing); the list is then
// scanned once, each item probed once: a truth item found for the first time
// is a "find" (its gain counts; it is a hit when relevant), an item seen before
// in the list is a duplicate (an error, or skipped with dup_first), any other
// item is inserted as a miss. Snapshots of the running sums are taken when the
// position reaches a cutoff; every column is then a closed form of its snapshot.
//
// Relevance: grade > 0, or grade >= min_relevance when given. Gains use the
// grade itself (negative grades give 0): linear g, exponential 2^g - 1, binary
// 1 for relevant items. Users with no relevant item follow EmptyPolicy.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "exact_sum.hpp"
#include "parallel.hpp"
#include "status.hpp"

namespace rankmeter::core {

enum class Kind : int32_t {
  hits = 0,
  precision = 1,
  recall = 2,
  fbeta = 3,
  ap = 4,
  ar = 5,
  cg = 6,
  dcg = 7,
  ndcg = 8,
  hit_rate = 9,
  rr = 10,
  arhr = 11,
  r_precision = 12,
  num_rel = 13,
};
enum class Denominator : int32_t { relevant = 0, min_relevant_k = 1, hits = 2, k = 3 };
enum class GainKind : int32_t { linear = 0, exponential = 1, binary = 2 };
enum class Ideal : int32_t { cut = 0, all = 1, k_slots = 2 };
enum class EmptyPolicy : int32_t { skip = 0, zero = 1, one = 2, error = 3 };

constexpr int kMaxVariants = 16;  // distinct (gain, log_base) pairs in one call

struct Column {
  Kind kind = Kind::hits;
  int64_t cutoff = 0;  // 0: the whole list
  Denominator denom = Denominator::relevant;
  GainKind gain = GainKind::linear;
  Ideal ideal = Ideal::cut;
  double log_base = 2.0;
  double beta = 1.0;
};

struct RankingData {
  int64_t n_users = 0;
  const int64_t* t_indptr = nullptr;
  const int64_t* t_items = nullptr;
  const double* t_grades = nullptr;
  int64_t t_nnz = 0;
  const int64_t* r_indptr = nullptr;
  const int64_t* r_items = nullptr;
  int64_t r_nnz = 0;
  int64_t r_rows = 0;
  bool r_padded = false;
  int64_t r_stride = 0;
  int64_t r_pad = -1;
  const int64_t* r_rowmap = nullptr;
};

struct RankingOptions {
  bool has_min_relevance = false;
  double min_relevance = 0.0;
  EmptyPolicy empty = EmptyPolicy::skip;
  bool dup_first = false;
  int64_t max_items = 0;  // 0: no truncation
  int threads = 0;        // 0: all cores
};

namespace detail {

struct Slot {
  int64_t key;
  uint32_t stamp;
  int32_t tag;  // >= 0: truth index (kSeen set once found in the list); -1: list-only item
};
constexpr int32_t kSeen = int32_t(1) << 30;
constexpr int64_t kMaxPerUser = int64_t(1) << 29;

// Running sums over the list prefix scanned so far.
struct Snap {
  int64_t pos = 0;    // positions filled so far
  int64_t hits = 0;   // relevant items found
  int64_t first = 0;  // position of the first hit (0: none)
  double ap = 0.0;    // sum of P@j over hit positions j
  double ar = 0.0;    // sum of hits@j over hit positions j (integer valued)
  double arhr = 0.0;  // sum of 1/j over hit positions j
  double cg[3] = {0.0, 0.0, 0.0};
  double dcg[kMaxVariants] = {};
};

inline uint64_t hash_key(int64_t key) {
  return static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull;
}

inline double gain_of(GainKind g, double grade, bool relevant) {
  switch (g) {
    case GainKind::linear:
      return grade > 0.0 ? grade : 0.0;
    case GainKind::exponential:
      return grade > 0.0 ? std::exp2(grade) - 1.0 : 0.0;
    case GainKind::binary:
      return relevant ? 1.0 : 0.0;
  }
  return 0.0;
}

// 1 / log_b(p + 1), written as trec_eval and the references do for base 2.
inline double discount(double base, int64_t p) {
  if (base == 2.0) return 1.0 / std::log2(static_cast<double>(p) + 1.0);
  return 1.0 / (std::log(static_cast<double>(p) + 1.0) / std::log(base));
}

inline int64_t next_pow2(int64_t x) {
  int64_t c = 16;
  while (c < x) c <<= 1;
  return c;
}

}  // namespace detail

// Compute every column for every user. Returns the first problem (lowest user);
// on a problem the outputs are unspecified.
inline Status evaluate_ranking(const RankingData& d, const std::vector<Column>& cols,
                               const RankingOptions& opt, double* values, ExactSum* sums,
                               int64_t* counts, int64_t* n_skipped_out) {
  using namespace detail;
  Status status;
  const int64_t n_users = d.n_users;
  const int n_cols = static_cast<int>(cols.size());

  // ---- Pre-pass: bounds of every row (memory safety) and scratch sizes.
  int64_t max_m = 0, max_n = 0, max_sum = 0;
  for (int64_t u = 0; u < n_users; ++u) {
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

  // ---- Plan: cutoffs, gain variants, discount tables.
  std::vector<int64_t> cutoffs;
  for (const auto& c : cols)
    if (c.cutoff > 0) cutoffs.push_back(c.cutoff);
  std::sort(cutoffs.begin(), cutoffs.end());
  cutoffs.erase(std::unique(cutoffs.begin(), cutoffs.end()), cutoffs.end());
  const int nc = static_cast<int>(cutoffs.size());

  std::vector<int> snap_of(n_cols), variant_of(n_cols, -1);
  std::vector<GainKind> var_gain;
  std::vector<double> var_base;
  bool need_cg[3] = {false, false, false};
  bool need_ideal = false;
  for (int i = 0; i < n_cols; ++i) {
    const Column& c = cols[i];
    snap_of[i] = c.cutoff > 0 ? static_cast<int>(std::lower_bound(cutoffs.begin(), cutoffs.end(), c.cutoff) -
                                                 cutoffs.begin())
                              : nc;
    if (c.kind == Kind::cg) need_cg[static_cast<int>(c.gain)] = true;
    if (c.kind == Kind::dcg || c.kind == Kind::ndcg) {
      const double base = c.kind == Kind::ndcg ? 2.0 : c.log_base;  // log_base never changes NDCG
      int v = -1;
      for (size_t j = 0; j < var_gain.size(); ++j)
        if (var_gain[j] == c.gain && var_base[j] == base) v = static_cast<int>(j);
      if (v < 0) {
        if (var_gain.size() >= static_cast<size_t>(kMaxVariants)) {
          status.record(Code::too_many_variants, 0, kMaxVariants);
          return status;
        }
        v = static_cast<int>(var_gain.size());
        var_gain.push_back(c.gain);
        var_base.push_back(base);
      }
      variant_of[i] = v;
      if (c.kind == Kind::ndcg) need_ideal = true;
    }
  }
  const int nv = static_cast<int>(var_gain.size());
  const int64_t table_len = std::max(max_m, max_n) + 2;
  std::vector<std::vector<double>> disc(nv), disc_prefix(nv);
  for (int v = 0; v < nv; ++v) {
    disc[v].resize(table_len);
    disc_prefix[v].resize(table_len);
    disc[v][0] = 0.0;
    disc_prefix[v][0] = 0.0;
    for (int64_t p = 1; p < table_len; ++p) {
      disc[v][p] = discount(var_base[v], p);
      disc_prefix[v][p] = disc_prefix[v][p - 1] + disc[v][p];
    }
  }
  // k_slots ideal for a finite cutoff: sum of the first `cutoff` discounts (user independent).
  std::vector<double> slot_sum(n_cols, 0.0);
  for (int i = 0; i < n_cols; ++i) {
    const Column& c = cols[i];
    if (c.kind == Kind::ndcg && c.ideal == Ideal::k_slots && c.cutoff > 0) {
      const int v = variant_of[i];
      if (c.cutoff < table_len) {
        slot_sum[i] = disc_prefix[v][c.cutoff];
      } else {
        double s = disc_prefix[v][table_len - 1];
        for (int64_t p = table_len; p <= c.cutoff; ++p) s += discount(var_base[v], p);
        slot_sum[i] = s;
      }
    }
  }

  // ---- Parallel pass over users.
  const int T = effective_threads(opt.threads, n_users);
  const int64_t cap_max = next_pow2(2 * max_sum + 2);
  std::vector<std::vector<Slot>> tables(T, std::vector<Slot>(cap_max, Slot{0, 0, 0}));
  std::vector<std::vector<double>> grade_buf(T, std::vector<double>(max_m + 1));
  std::vector<std::vector<Snap>> snaps(T, std::vector<Snap>(nc + 1));
  std::vector<std::vector<ExactSum>> tsums(T, std::vector<ExactSum>(n_cols));
  std::vector<std::vector<int64_t>> tcounts(T, std::vector<int64_t>(n_cols, 0));
  std::vector<int64_t> tskipped(T, 0);
  std::vector<Status> tstatus(T);
  std::atomic<bool> failed{false};

  const bool has_min = opt.has_min_relevance;
  const double min_rel = opt.min_relevance;
  const int64_t limit = opt.max_items > 0 ? opt.max_items : std::numeric_limits<int64_t>::max();
  const double nan = std::numeric_limits<double>::quiet_NaN();

#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    Slot* tab = tables[tid].data();
    double* gbuf = grade_buf[tid].data();
    Snap* snap = snaps[tid].data();
    ExactSum* my_sums = tsums[tid].data();
    int64_t* my_counts = tcounts[tid].data();
    Status& st = tstatus[tid];
    int64_t skipped = 0;
    uint32_t stamp = 0;

#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 512)
#endif
    for (int64_t u = 0; u < n_users; ++u) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const int64_t t0 = d.t_indptr[u], t1 = d.t_indptr[u + 1];
      const int64_t m = t1 - t0;
      int64_t b = 0, e = 0;
      const int64_t row = d.r_rowmap ? d.r_rowmap[u] : u;
      if (row >= 0) {
        if (d.r_padded) {
          b = row * d.r_stride;
          e = b + d.r_stride;
        } else {
          b = d.r_indptr[row];
          e = d.r_indptr[row + 1];
        }
      }
      const uint64_t mask = static_cast<uint64_t>(next_pow2(2 * (m + (e - b)) + 2) - 1);
      if (++stamp == 0) {  // wrapped: clear once every 2^32 users
        for (int64_t i = 0; i < cap_max; ++i) tab[i].stamp = 0;
        stamp = 1;
      }

      // Truth into the table.
      int64_t nrel = 0;
      bool bad = false;
      for (int64_t i = 0; i < m; ++i) {
        const int64_t key = d.t_items[t0 + i];
        uint64_t h = hash_key(key) & mask;
        while (tab[h].stamp == stamp) {
          if (tab[h].key == key) {
            bad = true;
            break;
          }
          h = (h + 1) & mask;
        }
        if (bad) {
          st.record(Code::duplicate_truth, u, key);
          break;
        }
        tab[h] = Slot{key, stamp, static_cast<int32_t>(i)};
        const double g = d.t_grades ? d.t_grades[t0 + i] : 1.0;
        nrel += has_min ? (g >= min_rel) : (g > 0.0);
      }
      if (bad) {
        failed.store(true, std::memory_order_relaxed);
        continue;
      }
      if (nrel == 0 && opt.empty == EmptyPolicy::error) {
        st.record(Code::empty_truth, u, 0);
        failed.store(true, std::memory_order_relaxed);
        continue;
      }

      // One scan of the list.
      Snap cur;
      int ci = 0;
      int64_t hits_at_R = -1;
      for (int64_t idx = b; idx < e; ++idx) {
        const int64_t key = d.r_items[idx];
        if (d.r_padded && key == d.r_pad) {
          for (int64_t j = idx + 1; j < e; ++j)
            if (d.r_items[j] != d.r_pad) {
              st.record(Code::pad_inside, u, j - b);
              bad = true;
              break;
            }
          break;
        }
        uint64_t h = hash_key(key) & mask;
        bool dup = false;
        for (;;) {
          Slot& s = tab[h];
          if (s.stamp != stamp) {  // not in truth, not seen: a miss
            s = Slot{key, stamp, -1};
            ++cur.pos;
            break;
          }
          if (s.key == key) {
            if (s.tag >= 0 && !(s.tag & kSeen)) {  // a truth item, found for the first time
              const int32_t ti = s.tag;
              s.tag |= kSeen;
              const int64_t p = ++cur.pos;
              const double g = d.t_grades ? d.t_grades[t0 + ti] : 1.0;
              const bool rel = has_min ? (g >= min_rel) : (g > 0.0);
              if (rel || g > 0.0) {
                for (int v = 0; v < nv; ++v) {
                  const double gv = gain_of(var_gain[v], g, rel);
                  cur.dcg[v] += gv * disc[v][p];
                }
                for (int gk = 0; gk < 3; ++gk)
                  if (need_cg[gk]) cur.cg[gk] += gain_of(static_cast<GainKind>(gk), g, rel);
              }
              if (rel) {
                ++cur.hits;
                cur.ap += static_cast<double>(cur.hits) / static_cast<double>(p);
                cur.ar += static_cast<double>(cur.hits);
                cur.arhr += 1.0 / static_cast<double>(p);
                if (cur.first == 0) cur.first = p;
              }
            } else {
              dup = true;
            }
            break;
          }
          h = (h + 1) & mask;
        }
        if (dup) {
          if (opt.dup_first) continue;
          st.record(Code::duplicate_recs, u, key);
          bad = true;
          break;
        }
        if (cur.pos == nrel) hits_at_R = cur.hits;
        while (ci < nc && cutoffs[ci] == cur.pos) snap[ci++] = cur;
        if (cur.pos >= limit) break;
      }
      if (bad) {
        failed.store(true, std::memory_order_relaxed);
        continue;
      }
      while (ci < nc) snap[ci++] = cur;
      snap[nc] = cur;
      if (hits_at_R < 0) hits_at_R = cur.hits;
      const int64_t n_eff = cur.pos;

      // Ideal ordering of the truth grades (only when an NDCG column needs it).
      if (need_ideal) {
        for (int64_t i = 0; i < m; ++i) gbuf[i] = d.t_grades ? d.t_grades[t0 + i] : 1.0;
        std::sort(gbuf, gbuf + m, std::greater<double>());
      }

      const bool empty_user = nrel == 0;
      if (empty_user && opt.empty == EmptyPolicy::skip) ++skipped;
      const double dn_rel = static_cast<double>(nrel);
      for (int i = 0; i < n_cols; ++i) {
        const Column& c = cols[i];
        const Snap& s = snap[snap_of[i]];
        const int64_t kk = c.cutoff > 0 ? c.cutoff : n_eff;
        const double dk = static_cast<double>(kk);
        const double H = static_cast<double>(s.hits);
        double val = 0.0;
        const bool count_like = c.kind == Kind::hits || c.kind == Kind::cg || c.kind == Kind::dcg ||
                                c.kind == Kind::num_rel;
        if (empty_user && opt.empty == EmptyPolicy::skip) {
          val = nan;
        } else if (empty_user && opt.empty == EmptyPolicy::one && !count_like) {
          val = 1.0;
        } else {
          switch (c.kind) {
            case Kind::hits:
              val = H;
              break;
            case Kind::precision:
              val = kk > 0 ? H / dk : 0.0;
              break;
            case Kind::recall: {
              const double den =
                  c.denom == Denominator::min_relevant_k ? static_cast<double>(std::min(nrel, kk)) : dn_rel;
              val = den > 0 ? H / den : 0.0;
              break;
            }
            case Kind::fbeta: {
              const double P = kk > 0 ? H / dk : 0.0;
              const double R = nrel > 0 ? H / dn_rel : 0.0;
              const double b2 = c.beta * c.beta;
              const double den = b2 * P + R;
              val = den > 0 ? (1.0 + b2) * P * R / den : 0.0;
              break;
            }
            case Kind::ap: {
              double den = dn_rel;
              if (c.denom == Denominator::min_relevant_k) den = static_cast<double>(std::min(nrel, kk));
              if (c.denom == Denominator::hits) den = H;
              if (c.denom == Denominator::k) den = dk;
              val = den > 0 ? s.ap / den : 0.0;
              break;
            }
            case Kind::ar: {
              const double den = c.denom == Denominator::hits ? dn_rel * H : dn_rel * dn_rel;
              val = den > 0 ? s.ar / den : 0.0;
              break;
            }
            case Kind::cg:
              val = s.cg[static_cast<int>(c.gain)];
              break;
            case Kind::dcg:
              val = s.dcg[variant_of[i]];
              break;
            case Kind::ndcg: {
              const int v = variant_of[i];
              double idcg = 0.0;
              if (c.ideal == Ideal::k_slots) {
                const double gmax = m > 0 ? gain_of(c.gain, gbuf[0], has_min ? gbuf[0] >= min_rel : gbuf[0] > 0.0)
                                          : 0.0;
                idcg = gmax * (c.cutoff > 0 ? slot_sum[i] : disc_prefix[v][kk]);
              } else {
                const int64_t L = c.ideal == Ideal::all ? m : std::min(kk, m);
                for (int64_t j = 0; j < L; ++j) {
                  const double g = gbuf[j];
                  const bool rel = has_min ? (g >= min_rel) : (g > 0.0);
                  idcg += gain_of(c.gain, g, rel) * disc[v][j + 1];
                }
              }
              val = idcg > 0 ? s.dcg[v] / idcg : 0.0;
              break;
            }
            case Kind::hit_rate:
              val = s.hits > 0 ? 1.0 : 0.0;
              break;
            case Kind::rr:
              val = s.first > 0 ? 1.0 / static_cast<double>(s.first) : 0.0;
              break;
            case Kind::arhr:
              val = s.arhr;
              break;
            case Kind::r_precision:
              val = nrel > 0 ? static_cast<double>(hits_at_R) / dn_rel : 0.0;
              break;
            case Kind::num_rel:
              val = dn_rel;
              break;
          }
        }
        values[static_cast<int64_t>(i) * n_users + u] = val;
        if (!std::isnan(val)) {
          my_sums[i].add(val);
          ++my_counts[i];
        }
      }
    }
    tskipped[tid] = skipped;
  }

  for (int t = 0; t < T; ++t) status.merge(tstatus[t]);
  if (!status.ok()) return status;
  int64_t n_skipped = 0;
  for (int i = 0; i < n_cols; ++i) {
    sums[i].clear();
    counts[i] = 0;
  }
  for (int t = 0; t < T; ++t) {
    n_skipped += tskipped[t];
    for (int i = 0; i < n_cols; ++i) {
      sums[i].merge(tsums[t][i]);
      counts[i] += tcounts[t][i];
    }
  }
  *n_skipped_out = n_skipped;
  return status;
}

}  // namespace rankmeter::core
