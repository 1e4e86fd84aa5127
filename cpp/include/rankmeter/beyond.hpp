// rankmeter/beyond.hpp — beyond-accuracy and pairwise kernels.
//
// Every kernel reads the evaluated users' lists as one clean CSR (built by
// prepare_lists: aligned to the truth users, duplicates handled, max_items
// applied), with item ids already coded densely as 0..n_items-1. The top-k of
// user u is L[indptr[u] .. indptr[u] + min(k, len)) (k = 0: the whole list).
//
// Per-user kernels write one double per user (NaN = the user is skipped) and
// never depend on the thread count: each user's value is computed by one
// thread from its own data. Catalog-level kernels reduce integer item counts
// (exact) or ExactSum accumulators (exact), so they do not depend on it either.
//
// Sum identities (docs/metrics.md, section 3.19) keep the pairwise metrics linear:
//   personalization   Σ_{u<v} |L_u ∩ L_v| = Σ_i c_i (c_i - 1) / 2, c_i = #users listing i;
//                     cosine: Σ_{u<v} |L_u ∩ L_v| / sqrt(|L_u||L_v|) = Σ_i (W_i^2 - Q_i) / 2
//                     with W_i = Σ_{u∋i} |L_u|^-1/2 and Q_i = Σ_{u∋i} |L_u|^-1;
//   diversity         with unit vectors x_a, Σ_{a<b} x_a·x_b = (|Σ x_a|^2 - Σ |x_a|^2) / 2;
//   serendipity       mean_h cos(f_i, f_h) = x_i · (Σ_h x_h) / |H| (with features; co-occurrence: pairwise).
// FCP counts concordant/discordant pairs with a Fenwick tree over top-k positions:
// O(m log m + n) per user, no pair visited.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "exact_sum.hpp"
#include "parallel.hpp"
#include "policy.hpp"
#include "status.hpp"

namespace rankmeter::core {

namespace beyond_detail {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline int64_t top_len(const int64_t* indptr, int64_t u, int64_t k) {
  const int64_t n = indptr[u + 1] - indptr[u];
  return k > 0 && k < n ? k : n;
}

// A per-thread item -> value map over dense codes, reset per user by stamping.
struct Stamped {
  std::vector<uint32_t> stamp;
  std::vector<int64_t> value;
  uint32_t now = 0;
  explicit Stamped(int64_t n) : stamp(static_cast<size_t>(n), 0), value(static_cast<size_t>(n), 0) {}
  void next() {
    if (++now == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      now = 1;
    }
  }
  bool has(int64_t i) const { return stamp[i] == now; }
  void set(int64_t i, int64_t v) {
    stamp[i] = now;
    value[i] = v;
  }
};
}  // namespace beyond_detail

// ---------------------------------------------------------------------------
// prepare_lists: the evaluated users' lists, in truth-user order, on raw int64 ids.
//   rowmap[u] (nullable: identity): the recs row of truth user u, -1 = none (empty list).
//   Duplicates (DupPolicy): "first" keeps the first occurrence, "error" makes the first
//   duplicate met an error (Code::duplicate_recs, lowest user), "miss" and "count" read the
//   list as given (a repeat at each of its positions). Only the part of a list that is
//   kept is read (docs/metrics.md, section 6): max_items (0: none) first truncates the list as given,
//   then keep (0: all) keeps its first `keep` positions (the largest cutoff requested;
//   distinct items under "first"); duplicates are looked for only there, and with "first" the list
//   closes up (reading on until `keep` distinct items or the truncated list ends).
// Two calls: lengths (out_items == nullptr), then the copy into buffers sized from
// out_indptr[n_users]. Duplicates are found with a per-thread open-addressing set
// stamped per user (no clearing), sized from the longest list read.
// Two forms of the lists: CSR (indptr), or a padded 2-D array read in place (indptr null: row r is
// items[r * stride ..) of length lens[r], from padded_lengths).
struct ListsIn {
  int64_t n_users = 0;
  const int64_t* rowmap = nullptr;
  const int64_t* indptr = nullptr;
  const int64_t* items = nullptr;
  const double* scores = nullptr;
  const int64_t* lens = nullptr;
  int64_t stride = 0;
  int64_t begin(int64_t row) const { return indptr ? indptr[row] : row * stride; }
  int64_t end(int64_t row) const { return indptr ? indptr[row + 1] : row * stride + lens[row]; }
};

// Lengths of the rows of a padded 2-D array (n_rows x stride): the positions before the first `pad`.
// An item after a pad is an error: the lowest such row is returned (-1: none), its length left 0.
inline int64_t padded_lengths(const int64_t* items, int64_t n_rows, int64_t stride, int64_t pad, int threads,
                              int64_t* lens) {
  const int T = effective_threads(threads, n_rows);
  std::vector<int64_t> bad(static_cast<size_t>(T), -1);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t r = 0; r < n_rows; ++r) {
      const int64_t* row = items + r * stride;
      int64_t n = 0;
      while (n < stride && row[n] != pad) ++n;
      bool ok = true;
      for (int64_t j = n + 1; j < stride; ++j) ok &= row[j] == pad;
      lens[r] = ok ? n : 0;
      if (!ok && bad[static_cast<size_t>(tid)] < 0) bad[static_cast<size_t>(tid)] = r;  // static: rows ascend
    }
  }
  int64_t first = -1;
  for (int64_t b : bad)
    if (b >= 0 && (first < 0 || b < first)) first = b;
  return first;
}

namespace beyond_detail {
struct IdSet {
  std::vector<int64_t> key;
  std::vector<uint32_t> stamp;
  uint64_t mask = 0;
  uint32_t now = 0;
  explicit IdSet(int64_t cap) {
    uint64_t n = 16;
    while (n < static_cast<uint64_t>(2 * cap + 2)) n <<= 1;
    key.assign(n, 0);
    stamp.assign(n, 0);
    mask = n - 1;
  }
  void next() {
    if (++now == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      now = 1;
    }
  }
  // true when x was not there yet (and inserts it)
  bool insert(int64_t x) {
    uint64_t h = (static_cast<uint64_t>(x) * 0x9E3779B97F4A7C15ull) >> 32;
    for (;; h = (h + 1) & mask) {
      const uint64_t i = h & mask;
      if (stamp[i] != now) {
        stamp[i] = now;
        key[i] = x;
        return true;
      }
      if (key[i] == x) return false;
    }
  }
};
}  // namespace beyond_detail

// One pass: user u's kept items go to out_items[ub[u] ..) (ub: offsets of min(len, limit)
// per user, from prepare_bounds), n_out[u] is how many were kept; compact_lists then
// closes the gaps left by dropped duplicates (nothing to move in the usual case).
// `limit` bounds the distinct items kept (list_limit), `max_items` the raw positions read.
inline int64_t list_limit(int64_t max_items, int64_t keep) {
  int64_t limit = std::numeric_limits<int64_t>::max();
  if (max_items > 0) limit = std::min(limit, max_items);
  if (keep > 0) limit = std::min(limit, keep);
  return limit;
}

// ub[0..n_users]: offsets of min(list length, limit) per evaluated user.
inline void prepare_bounds(const ListsIn& in, int64_t limit, int64_t* ub) {
  ub[0] = 0;
  for (int64_t u = 0; u < in.n_users; ++u) {
    const int64_t row = in.rowmap ? in.rowmap[u] : u;
    const int64_t len = row >= 0 ? in.end(row) - in.begin(row) : 0;
    ub[u + 1] = ub[u] + std::min(len, limit);
  }
}

namespace beyond_detail {
// The kept part of one user's list (docs/metrics.md, section 6), read in place when it holds no
// duplicate (the usual case: a pointer into the caller's buffer, nothing copied),
// else closed up in a per-thread buffer ("first"). max_items truncates the list as
// given; then the first `limit` distinct items are kept ("miss" and "count": the first `limit`
// positions, read in place). Short reads look for a duplicate by a linear scan of what is kept
// so far, long ones (> kLinear) hash.
struct KeptReader {
  static constexpr int64_t kLinear = 48;
  IdSet seen;
  std::vector<int64_t> buf;
  explicit KeptReader(int64_t cap) : seen(cap > kLinear ? cap : 0) {}
  // The number of kept items (their ids at *out), or -1 at a duplicate under "error" (its id in *dup).
  int64_t read(const ListsIn& in, int64_t u, DupPolicy dups, int64_t limit, int64_t max_items, const int64_t** out,
               int64_t* dup) {
    const int64_t row = in.rowmap ? in.rowmap[u] : u;
    *out = nullptr;
    if (row < 0) return 0;
    const int64_t b = in.begin(row), full_e = in.end(row);
    const int64_t e = max_items > 0 ? std::min(full_e, b + max_items) : full_e;
    const int64_t room = std::min(full_e - b, limit);
    if (dups == DupPolicy::miss || dups == DupPolicy::count) {  // as given: every occurrence at its position
      *out = in.items + b;
      return std::min(e - b, room);
    }
    const bool hashed = std::min(e - b, limit) > kLinear;
    if (hashed) seen.next();
    const int64_t* src = in.items + b;
    bool copied = false;
    int64_t w = 0;
    uint64_t bloom = 0;  // one bit per kept id (hashed): the linear scan runs only on a hit
    for (int64_t p = b; p < e && w < room; ++p) {
      const int64_t it = in.items[p];
      bool fresh;
      if (hashed) {
        fresh = seen.insert(it);
      } else {
        const uint64_t bit = uint64_t{1} << ((static_cast<uint64_t>(it) * 0x9E3779B97F4A7C15ull) >> 58);
        fresh = true;
        if (bloom & bit) {
          const int64_t* k0 = copied ? buf.data() : src;
          for (int64_t q = 0; q < w; ++q) fresh &= k0[q] != it;
        }
        bloom |= bit;
      }
      if (!fresh) {
        if (dups == DupPolicy::error) {
          *dup = it;
          return -1;
        }
        if (!copied) {
          buf.assign(src, src + w);
          copied = true;
        }
        continue;
      }
      if (copied) buf.push_back(it);
      ++w;
    }
    *out = copied ? buf.data() : src;
    return w;
  }
};

// The longest list part any user can keep (sizes the duplicate hash set).
inline int64_t longest_kept(const ListsIn& in, int64_t limit) {
  int64_t longest = 0;
  for (int64_t u = 0; u < in.n_users; ++u) {
    const int64_t row = in.rowmap ? in.rowmap[u] : u;
    if (row >= 0) longest = std::max(longest, in.end(row) - in.begin(row));
  }
  return std::min(longest, limit);
}

// Lists are read only up to the cutoff, so rows are visited with a stride that defeats
// the hardware prefetcher: fetch every cache line of the part user u + kAhead will read.
inline void prefetch_user(const ListsIn& in, int64_t u, int64_t limit) {
  constexpr int64_t kAhead = 16;
  if (u + kAhead >= in.n_users) return;
  const int64_t ra = in.rowmap ? in.rowmap[u + kAhead] : u + kAhead;
  if (ra < 0) return;
  const int64_t pb = in.begin(ra), pn = std::min(in.end(ra) - pb, std::min(limit, int64_t{32}));
  prefetch_span(in.items + pb, pn);
  if (in.scores) prefetch_span(in.scores + pb, pn);
}
}  // namespace beyond_detail

inline Status prepare_lists(const ListsIn& in, DupPolicy dups, int64_t limit, int64_t max_items, int threads,
                            const int64_t* ub, int64_t* n_out, int64_t* out_items, double* out_scores) {
  using namespace beyond_detail;
  Status status;
  const int64_t cap = longest_kept(in, limit);
  const int T = effective_threads(threads, in.n_users);
  std::vector<Status> tstatus(T);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    KeptReader rd(cap);
    std::vector<int64_t> pos;  // positions of the kept items in the list (for the scores)
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < in.n_users; ++u) {
      prefetch_user(in, u, limit);
      const int64_t* kept = nullptr;
      int64_t dup = 0;
      const int64_t n = rd.read(in, u, dups, limit, max_items, &kept, &dup);
      if (n < 0) {
        tstatus[tid].record(Code::duplicate_recs, u, dup);
        n_out[u] = 0;
        continue;
      }
      std::copy(kept, kept + n, out_items + ub[u]);
      if (out_scores && n > 0) {
        const int64_t row = in.rowmap ? in.rowmap[u] : u;
        const int64_t b = in.begin(row);
        if (kept == in.items + b) {  // read in place: the scores are the list's first n
          std::copy(in.scores + b, in.scores + b + n, out_scores + ub[u]);
        } else {  // closed up: the score of each kept item's first occurrence
          const int64_t e = max_items > 0 ? std::min(in.end(row), b + max_items) : in.end(row);
          int64_t w = 0;
          for (int64_t p = b; p < e && w < n; ++p)
            if (in.items[p] == kept[w]) out_scores[ub[u] + w++] = in.scores[p];
        }
      }
      n_out[u] = n;
    }
  }
  for (const auto& x : tstatus) status.merge(x);
  return status;
}

// Turn (ub, n_out) into a CSR indptr and move the kept items down over the gaps.
inline int64_t compact_lists(int64_t n_users, const int64_t* ub, const int64_t* n_out, int64_t* indptr, int64_t* items,
                             double* scores) {
  indptr[0] = 0;
  for (int64_t u = 0; u < n_users; ++u) {
    indptr[u + 1] = indptr[u] + n_out[u];
    if (indptr[u] != ub[u]) {
      std::copy(items + ub[u], items + ub[u] + n_out[u], items + indptr[u]);
      if (scores) std::copy(scores + ub[u], scores + ub[u] + n_out[u], scores + indptr[u]);
    }
  }
  return indptr[n_users];
}

// Lists after prepare_lists.
struct Lists {
  int64_t n_users = 0;
  const int64_t* indptr = nullptr;
  const int64_t* items = nullptr;
  const double* scores = nullptr;
  int64_t n_items = 0;
};

// ---------------------------------------------------------------------------
// item_counts: c_i = number of users whose top-k holds item i (int64, exact).
inline void item_counts(const Lists& L, int64_t k, int threads, int64_t* counts) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, L.n_users);
  std::vector<std::vector<int64_t>> part(T > 1 ? T : 0, std::vector<int64_t>(static_cast<size_t>(L.n_items), 0));
  std::fill(counts, counts + L.n_items, 0);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    int64_t* c = T > 1 ? part[thread_id()].data() : counts;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < L.n_users; ++u) {
      const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
      for (int64_t p = b; p < b + n; ++p) ++c[L.items[p]];
    }
  }
  for (int t = 0; t < (T > 1 ? T : 0); ++t)
    for (int64_t i = 0; i < L.n_items; ++i) counts[i] += part[t][i];
}

// Train popularity in one pass over raw CSR rows (items are dense codes < n_items,
// rows may repeat an item): users[i] = distinct rows holding i, inter[i] = rows'
// entries equal to i; returns the number of non-empty rows. Integer counts, so the
// result does not depend on the thread count. Each item's (last row, users, entries)
// live side by side, so an entry costs one random access, not three.
inline int64_t train_popularity(int64_t n_rows, const int64_t* indptr, const int64_t* items, int64_t n_items,
                                int threads, int64_t* users, int64_t* inter) {
  using namespace beyond_detail;
  struct Rec {
    int64_t last, users, inter;
  };
  int T = effective_threads(threads, n_rows);
  // Per-thread scratch is 24 bytes per item; past 1 GiB in all, one thread counts.
  if (static_cast<double>(n_items) * 24.0 * T > static_cast<double>(int64_t(1) << 30)) T = 1;
  std::vector<std::vector<Rec>> part(T);
  std::vector<int64_t> nonempty(T, 0);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    part[tid].assign(static_cast<size_t>(n_items), Rec{-1, 0, 0});
    Rec* rec = part[tid].data();
    int64_t ne = 0;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t r = 0; r < n_rows; ++r) {
      const int64_t b = indptr[r], e = indptr[r + 1];
      ne += e > b;
      for (int64_t p = b; p < e; ++p) {
        Rec& x = rec[items[p]];
        ++x.inter;
        x.users += x.last != r;
        x.last = r;
      }
    }
    nonempty[tid] = ne;
  }
  int64_t total = 0;
  for (int64_t i = 0; i < n_items; ++i) {
    int64_t cu = 0, ci = 0;
    for (int t = 0; t < T; ++t) {
      cu += part[t][i].users;
      ci += part[t][i].inter;
    }
    users[i] = cu;
    inter[i] = ci;
  }
  for (int t = 0; t < T; ++t) total += nonempty[t];
  return total;
}

// The train side of the in-place path in one pass over the train rows, item ids taken as
// codes without knowing their range first: with want_pop, users[i] / inter[i] as in
// train_popularity (and the number of non-empty rows), else only present[i]; per-thread
// tables grow to the largest id met. Returns false when an id is < 0 or >= hard_limit
// (the caller codes the ids). *n_codes = largest id + 1 (0 without items).
inline bool train_codes(int64_t n_rows, const int64_t* indptr, const int64_t* items, int64_t hard_limit, bool want_pop,
                        int threads, std::vector<int64_t>* users, std::vector<int64_t>* inter,
                        std::vector<uint8_t>* present, int64_t* n_codes, int64_t* n_nonempty) {
  using namespace beyond_detail;
  struct Rec {
    int64_t last, users, inter;
  };
  const int T = effective_threads(threads, n_rows);
  // tables double as they grow, never past the largest possible code
  auto grow = [hard_limit](size_t have, size_t need) {
    return std::max(need, std::min(2 * have, static_cast<size_t>(hard_limit)));
  };
  std::vector<std::vector<Rec>> rec(want_pop ? T : 0);
  std::vector<std::vector<uint8_t>> mark(want_pop ? 0 : T);
  std::vector<int64_t> nonempty(T, 0), top(T, -1);
  std::vector<char> bad(T, 0);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    int64_t ne = 0, hi = -1;
    bool out = false;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t r = 0; r < n_rows; ++r) {
      const int64_t b = indptr[r], e = indptr[r + 1];
      ne += e > b;
      if (out) continue;
      int64_t lo_r = 0, hi_r = -1;
      for (int64_t p = b; p < e; ++p) {
        lo_r = std::min(lo_r, items[p]);
        hi_r = std::max(hi_r, items[p]);
      }
      if (lo_r < 0 || hi_r >= hard_limit) {
        out = true;
        continue;
      }
      if (hi_r > hi) {
        hi = hi_r;
        const size_t need = static_cast<size_t>(hi + 1);
        if (want_pop && rec[tid].size() < need) rec[tid].resize(grow(rec[tid].size(), need), Rec{-1, 0, 0});
        if (!want_pop && mark[tid].size() < need) mark[tid].resize(grow(mark[tid].size(), need), 0);
      }
      if (want_pop) {
        Rec* x0 = rec[tid].data();
        for (int64_t p = b; p < e; ++p) {
          Rec& x = x0[items[p]];
          ++x.inter;
          x.users += x.last != r;
          x.last = r;
        }
      } else {
        uint8_t* m = mark[tid].data();
        for (int64_t p = b; p < e; ++p) m[items[p]] = 1;
      }
    }
    nonempty[tid] = ne;
    top[tid] = hi;
    bad[tid] = out;
  }
  int64_t hi = -1, ne = 0;
  for (int t = 0; t < T; ++t) {
    if (bad[t]) return false;
    hi = std::max(hi, top[t]);
    ne += nonempty[t];
  }
  const int64_t n = hi + 1;
  *n_codes = n;
  *n_nonempty = ne;
  if (want_pop) {
    users->assign(static_cast<size_t>(n), 0);
    inter->assign(static_cast<size_t>(n), 0);
    for (int t = 0; t < T; ++t) {
      const int64_t m = std::min<int64_t>(n, static_cast<int64_t>(rec[t].size()));
      for (int64_t i = 0; i < m; ++i) {
        (*users)[i] += rec[t][i].users;
        (*inter)[i] += rec[t][i].inter;
      }
    }
  } else {
    present->assign(static_cast<size_t>(n), 0);
    for (int t = 0; t < T; ++t) {
      const int64_t m = std::min<int64_t>(n, static_cast<int64_t>(mark[t].size()));
      for (int64_t i = 0; i < m; ++i) (*present)[i] |= mark[t][i];
    }
  }
  return true;
}

// Smallest and largest value of an int64 array (0, -1 when empty), in one parallel pass.
inline void int_range(const int64_t* x, int64_t n, int threads, int64_t* lo, int64_t* hi) {
  int64_t mn = std::numeric_limits<int64_t>::max(), mx = std::numeric_limits<int64_t>::min();
  const int T = effective_threads(threads, n / 64);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for simd num_threads(T) schedule(static) reduction(min : mn) reduction(max : mx)
#endif
  for (int64_t i = 0; i < n; ++i) {
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  *lo = n ? mn : 0;
  *hi = n ? mx : -1;
}

// ---------------------------------------------------------------------------
// topk_pass: the catalog counts and popularity means straight from the raw lists, when
// the list ids are their own dense codes: no list is copied (each user's kept part is read
// in place, see KeptReader), every output of one user comes from one read of its prefix.
//   counts[c][i]: users whose top cut[c] (0: the kept list) holds code i, for codes
//     0..n_final-1 (n_final = max(n_base, largest list code + 1), returned);
//   means[t][u]: mean_item_value's value for table t (size n_base + 1, the last entry is
//     the value of every code >= n_base) at cutoff tab_k[t], divide_by_k tab_div[t] (1; 2: the plain sum,
//     popularity.hpp's divide = none);
//   kept[u]: the length of user u's kept list.
// Returns false (outputs unusable) when a kept id is < 0 or >= hard_limit: the caller codes
// the ids and takes the general path. Duplicates follow prepare_lists (status).
struct TopkTables {
  std::vector<const double*> table;
  std::vector<int64_t> k;
  std::vector<char> divide_by_k;
};

inline bool topk_pass(const ListsIn& in, DupPolicy dups, int64_t limit, int64_t max_items, int64_t n_base,
                      int64_t hard_limit, const std::vector<int64_t>& cut, const TopkTables& tabs, int threads,
                      int64_t* kept_len, const std::vector<double*>& means, std::vector<std::vector<int64_t>>& counts,
                      int64_t* n_final, Status* status) {
  using namespace beyond_detail;
  const int64_t cap = longest_kept(in, limit);
  const int T = effective_threads(threads, in.n_users);
  const size_t nc = cut.size(), nt = tabs.table.size();
  std::vector<Status> tstatus(T);
  std::vector<std::vector<std::vector<int64_t>>> part(T, std::vector<std::vector<int64_t>>(nc));
  std::vector<char> out_of_range(T, 0);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    KeptReader rd(cap);
    auto& cnt = part[tid];
    for (auto& c : cnt) c.assign(static_cast<size_t>(n_base), 0);
    int64_t size = n_base;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < in.n_users; ++u) {
      prefetch_user(in, u, limit);
      const int64_t* it = nullptr;
      int64_t dup = 0;
      const int64_t n = rd.read(in, u, dups, limit, max_items, &it, &dup);
      if (n < 0) {
        tstatus[tid].record(Code::duplicate_recs, u, dup);
        kept_len[u] = 0;
        for (size_t t = 0; t < nt; ++t) means[t][u] = kNaN;
        continue;
      }
      kept_len[u] = n;
      int64_t top = -1, low = 0;
      for (int64_t q = 0; q < n; ++q) {
        top = std::max(top, it[q]);
        low = std::min(low, it[q]);
      }
      if (low < 0 || top >= hard_limit) {
        out_of_range[tid] = 1;
        for (size_t t = 0; t < nt; ++t) means[t][u] = kNaN;
        continue;
      }
      if (top >= size) {  // a code past the train/catalog codes: grow the counts
        size = std::min(std::max(top + 1, 2 * size), hard_limit);
        for (auto& c : cnt) c.resize(static_cast<size_t>(size), 0);
      }
      for (size_t c = 0; c < nc; ++c) {
        const int64_t m = cut[c] > 0 && cut[c] < n ? cut[c] : n;
        int64_t* row = cnt[c].data();
        for (int64_t q = 0; q < m; ++q) ++row[it[q]];
      }
      for (size_t t = 0; t < nt; ++t) {
        const int64_t k = tabs.k[t];
        const int64_t m = k > 0 && k < n ? k : n;
        const double* tb = tabs.table[t];
        double s = 0.0;
        int64_t c = 0;
        for (int64_t q = 0; q < m; ++q) {
          const double v = tb[it[q] < n_base ? it[q] : n_base];
          if (std::isnan(v)) continue;
          s += v;
          ++c;
        }
        if (tabs.divide_by_k[t] == 2) {  // the sum over the top k (aclt): 0 for an empty top k
          means[t][u] = s;
          continue;
        }
        const int64_t den = tabs.divide_by_k[t] ? (k > 0 ? k : m) : c;
        means[t][u] = (m == 0 || den == 0 || (c == 0 && !tabs.divide_by_k[t])) ? kNaN : s / static_cast<double>(den);
      }
    }
  }
  for (const auto& x : tstatus) status->merge(x);
  for (int t = 0; t < T; ++t)
    if (out_of_range[t]) return false;
  int64_t nf = n_base;
  for (int t = 0; t < T; ++t)
    for (size_t c = 0; c < nc; ++c) nf = std::max(nf, static_cast<int64_t>(part[t][c].size()));
  *n_final = nf;
  counts.assign(nc, std::vector<int64_t>(static_cast<size_t>(nf), 0));
  for (size_t c = 0; c < nc; ++c)
    for (int t = 0; t < T; ++t) {
      const auto& src = part[t][c];
      int64_t* dst = counts[c].data();
      for (size_t i = 0; i < src.size(); ++i) dst[i] += src[i];
    }
  return true;
}

// Σ_{u<v} |L_u ∩ L_v| / sqrt(|L_u| |L_v|) over users with a non-empty top-k (cosine personalization).
inline double cosine_overlap_sum(const Lists& L, int64_t k, int threads) {
  using namespace beyond_detail;
  // Users are weighted by 1/sqrt(len); W_i is built from integer counts per
  // distinct length, so it does not depend on the order of users.
  std::vector<int64_t> lens;
  int64_t max_len = 0;
  for (int64_t u = 0; u < L.n_users; ++u) max_len = std::max(max_len, top_len(L.indptr, u, k));
  std::vector<char> present(static_cast<size_t>(max_len + 1), 0);
  for (int64_t u = 0; u < L.n_users; ++u) present[top_len(L.indptr, u, k)] = 1;
  std::vector<int64_t> slot(static_cast<size_t>(max_len + 1), -1);
  for (int64_t len = 1; len <= max_len; ++len)
    if (present[len]) {
      slot[len] = static_cast<int64_t>(lens.size());
      lens.push_back(len);
    }
  const int64_t nl = static_cast<int64_t>(lens.size());
  std::vector<double> W(static_cast<size_t>(L.n_items), 0.0), Q(static_cast<size_t>(L.n_items), 0.0);
  if (nl == 0) return 0.0;
  // counts[l * n_items + i]: users of length lens[l] listing i, in blocks of lengths so that one
  // block holds at most 2^24 counts (128 MB) per thread, whatever the catalog size.
  const int64_t block =
      std::max<int64_t>(1, std::min<int64_t>(16, (int64_t(1) << 24) / std::max<int64_t>(L.n_items, 1)));
  std::vector<int64_t> cnt;
  for (int64_t l0 = 0; l0 < nl; l0 += block) {
    const int64_t l1 = std::min(nl, l0 + block);
    cnt.assign(static_cast<size_t>((l1 - l0) * L.n_items), 0);
    const int T = effective_threads(threads, L.n_users);
    std::vector<std::vector<int64_t>> part(T > 1 ? T : 0, std::vector<int64_t>(cnt.size(), 0));
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
    {
      int64_t* c = T > 1 ? part[thread_id()].data() : cnt.data();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
      for (int64_t u = 0; u < L.n_users; ++u) {
        const int64_t n = top_len(L.indptr, u, k);
        if (n == 0) continue;
        const int64_t s = slot[n];
        if (s < l0 || s >= l1) continue;
        int64_t* row = c + (s - l0) * L.n_items;
        for (int64_t p = L.indptr[u]; p < L.indptr[u] + n; ++p) ++row[L.items[p]];
      }
    }
    for (int t = 0; t < (T > 1 ? T : 0); ++t)
      for (size_t j = 0; j < cnt.size(); ++j) cnt[j] += part[t][j];
    for (int64_t l = l0; l < l1; ++l) {
      const double len = static_cast<double>(lens[l]);
      const double w = 1.0 / std::sqrt(len), q = 1.0 / len;
      const int64_t* row = cnt.data() + (l - l0) * L.n_items;
      for (int64_t i = 0; i < L.n_items; ++i)
        if (row[i]) {
          W[i] += static_cast<double>(row[i]) * w;
          Q[i] += static_cast<double>(row[i]) * q;
        }
    }
  }
  ExactSum acc;
  for (int64_t i = 0; i < L.n_items; ++i)
    if (W[i] != 0.0) acc.add(0.5 * (W[i] * W[i] - Q[i]));
  acc.normalize();
  return acc.to_double();
}

// ---------------------------------------------------------------------------
// mean_item_value: per user, the mean of table[i] over the top-k items i.
//   NaN table entries are not counted (skip_nan) ; divide_by_k divides by k
//   (or the list length without cutoff) instead of the number of counted items.
//   A user with nothing counted (or an empty top-k) gets NaN.
inline void mean_item_value(const Lists& L, int64_t k, const double* table, bool divide_by_k, int threads,
                            double* out) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, L.n_users);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(static)
#endif
  for (int64_t u = 0; u < L.n_users; ++u) {
    const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
    double s = 0.0;
    int64_t c = 0;
    for (int64_t p = b; p < b + n; ++p) {
      const double v = table[L.items[p]];
      if (std::isnan(v)) continue;
      s += v;
      ++c;
    }
    const int64_t den = divide_by_k ? (k > 0 ? k : n) : c;
    out[u] = (n == 0 || den == 0 || (c == 0 && !divide_by_k)) ? kNaN : s / static_cast<double>(den);
  }
}

// ---------------------------------------------------------------------------
// Diversity with unit feature rows X (n_items x d, zero rows stay zero):
//   1 - (|Σ x|^2 - Σ |x|^2) / 2 / (n (n-1) / 2); lists of < 2 items: NaN.
//   has[i] == 0 marks an item without a feature row: Code::missing_feature.
inline Status diversity_features(const Lists& L, int64_t k, const double* X, int64_t d, const uint8_t* has, int threads,
                                 double* out) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, L.n_users);
  std::vector<Status> tstatus(T);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    std::vector<double> s(static_cast<size_t>(d));
    const int tid = thread_id();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < L.n_users; ++u) {
      const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
      std::fill(s.begin(), s.end(), 0.0);
      double sq = 0.0;
      bool bad = false;
      for (int64_t p = b; p < b + n; ++p) {
        const int64_t it = L.items[p];
        if (!has[it]) {
          tstatus[tid].record(Code::missing_feature, u, it);
          bad = true;
          break;
        }
        const double* x = X + it * d;
        double nn = 0.0;
        for (int64_t j = 0; j < d; ++j) {
          s[j] += x[j];
          nn += x[j] * x[j];
        }
        sq += nn;
      }
      if (bad || n < 2) {
        out[u] = kNaN;
        continue;
      }
      double ss = 0.0;
      for (int64_t j = 0; j < d; ++j) ss += s[j] * s[j];
      const double pairs = 0.5 * static_cast<double>(n) * static_cast<double>(n - 1);
      out[u] = 1.0 - 0.5 * (ss - sq) / pairs;
    }
  }
  Status st;
  for (const auto& t : tstatus) st.merge(t);
  return st;
}

// Diversity from a similarity matrix: 1 - mean over position pairs a < b of sim(a, b).
//   Dense: M[idx[a] * m + idx[b]]; sparse CSR (sorted columns): binary search. idx[i] < 0:
//   the item has no row (Code::missing_similarity).
struct SimMatrix {
  const int64_t* idx = nullptr;  // code -> matrix row/col, -1 none
  const double* dense = nullptr;
  int64_t m = 0;
  const int64_t* sp_indptr = nullptr;
  const int64_t* sp_indices = nullptr;
  const double* sp_data = nullptr;
  double at(int64_t a, int64_t b) const {
    const int64_t ra = idx[a], rb = idx[b];
    if (dense) return dense[ra * m + rb];
    const int64_t* lo = sp_indices + sp_indptr[ra];
    const int64_t* hi = sp_indices + sp_indptr[ra + 1];
    const int64_t* f = std::lower_bound(lo, hi, rb);
    return (f != hi && *f == rb) ? sp_data[f - sp_indices] : 0.0;
  }
};

inline Status diversity_matrix(const Lists& L, int64_t k, const SimMatrix& S, int threads, double* out) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, L.n_users);
  std::vector<Status> tstatus(T);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(dynamic, 256)
#endif
  for (int64_t u = 0; u < L.n_users; ++u) {
    const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
    bool bad = false;
    for (int64_t p = b; p < b + n; ++p)
      if (S.idx[L.items[p]] < 0) {
        tstatus[thread_id()].record(Code::missing_similarity, u, L.items[p]);
        bad = true;
        break;
      }
    if (bad || n < 2) {
      out[u] = kNaN;
      continue;
    }
    double s = 0.0;
    for (int64_t p = b; p < b + n; ++p)
      for (int64_t q = p + 1; q < b + n; ++q) s += S.at(L.items[p], L.items[q]);
    out[u] = 1.0 - s / (0.5 * static_cast<double>(n) * static_cast<double>(n - 1));
  }
  Status st;
  for (const auto& t : tstatus) st.merge(t);
  return st;
}

namespace beyond_detail {
// How the co-occurrence kernels find n_ab: -1 by cost (the default), 0 always by merging the two user lists,
// 1 from the dense counts wherever they fit (tests run both paths through _core.set_cooc_dense).
inline std::atomic<int>& cooc_dense_mode() {
  static std::atomic<int> mode{-1};
  return mode;
}

// n_ab = |U_a ∩ U_b| of every item pair in one dense matrix (int32, at most 4,096 items: 64 MiB), built where that
// costs less than the merges of user lists it replaces: Σ_v |I_v|² increments over the train users' item lists,
// plus the matrix itself, against `merge_cost` (the summed lengths of the lists the kernel would merge). The
// counts are exact, so a cosine from them is the same double as from a merge. Rows are filled in parallel, each
// by one thread.
struct CoocCounts {
  int64_t n = 0;
  std::vector<int32_t> c;  // empty: not built, merge per pair
  bool dense() const { return !c.empty(); }
  int64_t at(int64_t a, int64_t b) const { return c[static_cast<size_t>(a * n + b)]; }
};

inline CoocCounts cooc_counts(int64_t n_items, const int64_t* iu_indptr, const int64_t* iu_users, double merge_cost,
                              int threads) {
  CoocCounts C;
  const int mode = cooc_dense_mode().load();
  if (mode == 0 || n_items < 1 || n_items > 4096) return C;
  const int64_t nnz = iu_indptr[n_items];
  int64_t n_users = 0;
  for (int64_t p = 0; p < nnz; ++p) n_users = std::max(n_users, iu_users[p] + 1);
  if (n_users > std::numeric_limits<int32_t>::max()) return C;
  // the train users' item lists (user -> items, each ascending), transposed from item -> users
  std::vector<int64_t> vi_indptr(static_cast<size_t>(n_users) + 1, 0), vi_items(static_cast<size_t>(nnz));
  for (int64_t p = 0; p < nnz; ++p) ++vi_indptr[static_cast<size_t>(iu_users[p]) + 1];
  for (int64_t v = 0; v < n_users; ++v) vi_indptr[static_cast<size_t>(v) + 1] += vi_indptr[static_cast<size_t>(v)];
  double build = static_cast<double>(n_items) * static_cast<double>(n_items);
  for (int64_t v = 0; v < n_users; ++v) {
    const double len = static_cast<double>(vi_indptr[static_cast<size_t>(v) + 1] - vi_indptr[static_cast<size_t>(v)]);
    build += len * len;
  }
  if (mode < 0 && 2.0 * build >= merge_cost) return C;
  {
    std::vector<int64_t> fill(vi_indptr.begin(), vi_indptr.end() - 1);
    for (int64_t a = 0; a < n_items; ++a)
      for (int64_t p = iu_indptr[a]; p < iu_indptr[a + 1]; ++p)
        vi_items[static_cast<size_t>(fill[static_cast<size_t>(iu_users[p])]++)] = a;
  }
  C.n = n_items;
  C.c.assign(static_cast<size_t>(n_items * n_items), 0);
  const int T = effective_threads(threads, n_items);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(dynamic, 16)
#endif
  for (int64_t a = 0; a < n_items; ++a) {
    int32_t* row = C.c.data() + a * n_items;
    for (int64_t p = iu_indptr[a]; p < iu_indptr[a + 1]; ++p) {
      const size_t v = static_cast<size_t>(iu_users[p]);
      for (int64_t q = vi_indptr[v]; q < vi_indptr[v + 1]; ++q) ++row[vi_items[static_cast<size_t>(q)]];
    }
  }
  return C;
}

// |U_a ∩ U_b| / sqrt(|U_a| |U_b|) over the sorted train users of two items (0 when either has none).
inline double cooccurrence_cosine(const int64_t* iu_indptr, const int64_t* iu_users, const CoocCounts& C, int64_t a,
                                  int64_t b) {
  const int64_t *x = iu_users + iu_indptr[a], *x1 = iu_users + iu_indptr[a + 1];
  const int64_t *y = iu_users + iu_indptr[b], *y1 = iu_users + iu_indptr[b + 1];
  const int64_t na = x1 - x, nb = y1 - y;
  if (na == 0 || nb == 0) return 0.0;
  if (C.dense()) return static_cast<double>(C.at(a, b)) / std::sqrt(static_cast<double>(na) * static_cast<double>(nb));
  int64_t both = 0;
  while (x < x1 && y < y1) {
    if (*x < *y) {
      ++x;
    } else if (*y < *x) {
      ++y;
    } else {
      ++both;
      ++x;
      ++y;
    }
  }
  return static_cast<double>(both) / std::sqrt(static_cast<double>(na) * static_cast<double>(nb));
}
}  // namespace beyond_detail

// Diversity from train co-occurrence: sim(a, b) = n_ab / sqrt(n_a n_b), n_x = train users of x,
//   n_ab = train users of both; 0 when either is 0. item_users: CSR item -> sorted distinct users. n_ab from the
//   dense counts of cooc_counts where they pay, else by merging the two sorted user lists.
inline void diversity_cooccurrence(const Lists& L, int64_t k, const int64_t* iu_indptr, const int64_t* iu_users,
                                   int threads, double* out) {
  using namespace beyond_detail;
  double merge_cost = 0.0;  // Σ_u Σ_{p<q} (n_a + n_c) = Σ_u (n - 1) Σ_p n_{a_p}
  for (int64_t u = 0; u < L.n_users; ++u) {
    const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
    double deg = 0.0;
    for (int64_t p = b; p < b + n; ++p) deg += static_cast<double>(iu_indptr[L.items[p] + 1] - iu_indptr[L.items[p]]);
    if (n > 1) merge_cost += static_cast<double>(n - 1) * deg;
  }
  const CoocCounts C = cooc_counts(L.n_items, iu_indptr, iu_users, merge_cost, threads);
  const int T = effective_threads(threads, L.n_users);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(dynamic, 64)
#endif
  for (int64_t u = 0; u < L.n_users; ++u) {
    const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
    if (n < 2) {
      out[u] = kNaN;
      continue;
    }
    double s = 0.0;
    for (int64_t p = b; p < b + n; ++p)
      for (int64_t q = p + 1; q < b + n; ++q) s += cooccurrence_cosine(iu_indptr, iu_users, C, L.items[p], L.items[q]);
    out[u] = 1.0 - s / (0.5 * static_cast<double>(n) * static_cast<double>(n - 1));
  }
}

// ---------------------------------------------------------------------------
// Truth of the evaluated users (row u = user u), item codes, grades (nullable: 1).
struct TruthCodes {
  const int64_t* indptr = nullptr;
  const int64_t* items = nullptr;
  const double* grades = nullptr;
  bool has_min_relevance = false;
  double min_relevance = 0.0;
  bool relevant(double g) const { return has_min_relevance ? g >= min_relevance : g > 0.0; }
  double grade(int64_t p) const { return grades ? grades[p] : 1.0; }
};

// The value of a user without a relevant item; false under EmptyPolicy::error.
inline bool empty_value(EmptyPolicy empty, double* v) {
  if (empty == EmptyPolicy::zero) {
    *v = 0.0;
    return true;
  }
  if (empty == EmptyPolicy::one) {
    *v = 1.0;
    return true;
  }
  *v = beyond_detail::kNaN;
  return empty != EmptyPolicy::error;
}

// The items a Serendipity kernel counts: the relevant top-k items (mean over them), every top-k item weighed by
// its relevance 0/1 (Σ rel·unexp / top-k length), or every top-k item without reading the truth (mean over the top k).
enum class SerendipityRelevance : int32_t { relevant = 0, all = 1, none = 2 };

// Serendipity: per top-k item i, unexpectedness 1 - mean_{h∈H} sim(i, h) over the user's train history H.
//   Features (iu_indptr == nullptr): sim = cos(f_i, f_h) = x_i · (Σ_{h∈H} x_h) / |H|, H = the history items
//   with a feature row (others are left out of H). Co-occurrence (iu_indptr: CSR item -> sorted distinct
//   train rows): sim = n_ih / sqrt(n_i n_h), H = every distinct history item.
//   relevance: `relevant`: mean over the relevant top-k items (users with none are NaN); `all`:
//   Σ_j rel_j · unexp_j / (top-k length), rel_j in {0, 1}; both: users without a relevant truth item follow
//   `empty`. `none`: the mean over every top-k item, the truth unread (Microsoft Recommenders without a
//   relevance column). Users with an empty H or top k are NaN.
inline Status serendipity(const Lists& L, int64_t k, const TruthCodes& t, const int64_t* h_indptr,
                          const int64_t* h_items, const int64_t* h_rowmap, const double* X, int64_t d,
                          const uint8_t* has, SerendipityRelevance relevance, const int64_t* iu_indptr,
                          const int64_t* iu_users, EmptyPolicy empty, int threads, double* out) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, L.n_users);
  const bool cooc = iu_indptr != nullptr;
  CoocCounts C;
  if (cooc) {  // the merges a user costs, at most: Σ_{i in top k} Σ_{h in history} (n_i + n_h)
    double merge_cost = 0.0;
    for (int64_t u = 0; u < L.n_users; ++u) {
      const int64_t hr = h_rowmap ? h_rowmap[u] : u;
      if (hr < 0) continue;
      const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
      double top_deg = 0.0, hist_deg = 0.0;
      for (int64_t p = b; p < b + n; ++p)
        top_deg += static_cast<double>(iu_indptr[L.items[p] + 1] - iu_indptr[L.items[p]]);
      for (int64_t p = h_indptr[hr]; p < h_indptr[hr + 1]; ++p)
        hist_deg += static_cast<double>(iu_indptr[h_items[p] + 1] - iu_indptr[h_items[p]]);
      const double nh = static_cast<double>(h_indptr[hr + 1] - h_indptr[hr]);
      merge_cost += static_cast<double>(n) * hist_deg + nh * top_deg;
    }
    C = cooc_counts(L.n_items, iu_indptr, iu_users, merge_cost, threads);
  }
  std::vector<Status> tstatus(T);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    Stamped rel(L.n_items), hseen(L.n_items);
    std::vector<double> hs(static_cast<size_t>(d));
    std::vector<int64_t> hist;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int64_t u = 0; u < L.n_users; ++u) {
      rel.next();
      if (relevance != SerendipityRelevance::none) {
        bool any_rel = false;
        for (int64_t p = t.indptr[u]; p < t.indptr[u + 1]; ++p)
          if (t.relevant(t.grade(p))) {
            rel.set(t.items[p], 1);
            any_rel = true;
          }
        if (!any_rel) {
          if (!empty_value(empty, &out[u])) tstatus[tid].record(Code::empty_truth, u);
          continue;
        }
      }
      const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
      bool bad = false;
      for (int64_t p = b; p < b + n && !cooc; ++p)
        if (!has[L.items[p]]) {
          tstatus[tid].record(Code::missing_feature, u, L.items[p]);
          bad = true;
          break;
        }
      if (bad) {
        out[u] = kNaN;
        continue;
      }
      std::fill(hs.begin(), hs.end(), 0.0);
      hist.clear();
      const int64_t hr = h_rowmap ? h_rowmap[u] : u;
      if (hr >= 0) {
        hseen.next();
        for (int64_t p = h_indptr[hr]; p < h_indptr[hr + 1]; ++p) {
          const int64_t it = h_items[p];
          if ((!cooc && !has[it]) || hseen.has(it)) continue;
          hseen.set(it, 1);
          hist.push_back(it);
          if (cooc) continue;
          const double* x = X + it * d;
          for (int64_t j = 0; j < d; ++j) hs[j] += x[j];
        }
      }
      const int64_t nh = static_cast<int64_t>(hist.size());
      if (nh == 0 || n == 0) {
        out[u] = kNaN;
        continue;
      }
      double s = 0.0;
      int64_t c = 0;
      for (int64_t p = b; p < b + n; ++p) {
        const int64_t it = L.items[p];
        if (relevance != SerendipityRelevance::none && !rel.has(it)) continue;
        double sim = 0.0;
        if (cooc) {
          for (const int64_t h : hist) sim += cooccurrence_cosine(iu_indptr, iu_users, C, it, h);
        } else {
          const double* x = X + it * d;
          for (int64_t j = 0; j < d; ++j) sim += x[j] * hs[j];
        }
        s += 1.0 - sim / static_cast<double>(nh);
        ++c;
      }
      if (relevance == SerendipityRelevance::relevant)
        out[u] = c ? s / static_cast<double>(c) : kNaN;
      else
        out[u] = s / static_cast<double>(n);
    }
  }
  Status st;
  for (const auto& x : tstatus) st.merge(x);
  return st;
}

// FCP per user: pairs (a, b) of truth items with grade(a) > grade(b); rank = position in the
//   top-k (infinite beyond it or absent). Concordant: rank(a) < rank(b); discordant: rank(a) >
//   rank(b); both infinite: ignored. Writes conc[u], disc[u]; users without a relevant item get
//   -1 in both (the empty policy is applied by the caller). O(m log m + n) per user (m truth
//   items, n top-k items): truth items are sorted by grade and counted against a Fenwick tree
//   over the n positions; no pair is visited.
inline Status fcp_counts(const Lists& L, int64_t k, const TruthCodes& t, EmptyPolicy empty, int threads, int64_t* conc,
                         int64_t* disc) {
  using namespace beyond_detail;
  constexpr int64_t kScan = 32;  // top-k this short: positions by a scan, no item map
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  const int T = effective_threads(threads, L.n_users);
  std::vector<Status> tstatus(T);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    std::unique_ptr<Stamped> pos;  // item -> position, only for long top-k lists
    struct GP {
      double g;
      int64_t r;  // position in the top-k, n = beyond it
    };
    std::vector<GP> g;
    std::vector<int64_t> bit;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int64_t u = 0; u < L.n_users; ++u) {
      const int64_t t0 = t.indptr[u], t1 = t.indptr[u + 1], m = t1 - t0;
      bool any_rel = false;
      for (int64_t p = t0; p < t1; ++p) any_rel = any_rel || t.relevant(t.grade(p));
      if (!any_rel) {
        conc[u] = disc[u] = -1;
        if (empty == EmptyPolicy::error) tstatus[tid].record(Code::empty_truth, u);
        continue;
      }
      const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
      const int64_t* top = L.items + b;
      g.resize(static_cast<size_t>(m));
      if (n <= kScan) {
        uint64_t bloom = 0;  // one bit per top-k id (hashed): most truth items are not there
        for (int64_t q = 0; q < n; ++q) bloom |= uint64_t{1} << ((static_cast<uint64_t>(top[q]) * kMul) >> 58);
        for (int64_t p = t0; p < t1; ++p) {
          const int64_t it = t.items[p];
          int64_t r = n;
          if (bloom & (uint64_t{1} << ((static_cast<uint64_t>(it) * kMul) >> 58)))
            for (int64_t q = n - 1; q >= 0; --q) r = top[q] == it ? q : r;
          g[p - t0] = GP{t.grade(p), r};
        }
      } else {
        if (!pos) pos = std::make_unique<Stamped>(L.n_items);
        pos->next();
        for (int64_t q = 0; q < n; ++q) pos->set(top[q], q);
        for (int64_t p = t0; p < t1; ++p) {
          const int64_t it = t.items[p];
          g[p - t0] = GP{t.grade(p), pos->has(it) ? pos->value[it] : n};
        }
      }
      // Descending grade (the order within a grade does not matter: a group is queried before
      // it is inserted); insertion sort for the usual few items.
      if (m <= 32) {
        for (int64_t i = 1; i < m; ++i) {
          const GP x = g[i];
          int64_t j = i;
          for (; j > 0 && g[j - 1].g < x.g; --j) g[j] = g[j - 1];
          g[j] = x;
        }
      } else {
        std::sort(g.begin(), g.end(), [](const GP& x, const GP& y) { return x.g > y.g; });
      }
      // Fenwick tree over positions 0..n-1 (index r + 1) of the inserted higher-graded items.
      bit.assign(static_cast<size_t>(n + 1), 0);
      int64_t inserted = 0, inserted_inf = 0, c = 0, dd = 0;
      for (int64_t i = 0; i < m;) {
        int64_t j = i;
        while (j < m && g[j].g == g[i].g) ++j;
        const int64_t finite_ins = inserted - inserted_inf;
        for (int64_t q = i; q < j; ++q) {
          const int64_t r = g[q].r;
          if (r == n) {  // b at infinity: every finite a is concordant, infinite ones ignored
            c += finite_ins;
          } else {  // higher-graded a at a smaller position: concordant; at a larger one: discordant
            int64_t less = 0;
            for (int64_t x = r; x > 0; x -= x & -x) less += bit[x];
            c += less;
            dd += (finite_ins - less) + inserted_inf;
          }
        }
        for (int64_t q = i; q < j; ++q) {
          const int64_t r = g[q].r;
          ++inserted;
          if (r == n) {
            ++inserted_inf;
          } else {
            for (int64_t x = r + 1; x <= n; x += x & -x) ++bit[x];
          }
        }
        i = j;
      }
      conc[u] = c;
      disc[u] = dd;
    }
  }
  Status st;
  for (const auto& x : tstatus) st.merge(x);
  return st;
}

// Shannon entropy (natural log) of the softmax of every top-k score pooled:
//   H = log Z - Σ e_j (s_j - max) / Z, Z = Σ e_j, e_j = exp(s_j - max). Exact sums.
inline double score_entropy(const Lists& L, int64_t k, int threads) {
  using namespace beyond_detail;
  double mx = -std::numeric_limits<double>::infinity();
  int64_t total = 0;
  for (int64_t u = 0; u < L.n_users; ++u) {
    const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
    total += n;
    for (int64_t p = b; p < b + n; ++p) mx = std::max(mx, L.scores[p]);
  }
  if (total == 0) return kNaN;
  const int T = effective_threads(threads, L.n_users);
  std::vector<ExactSum> z(T), a(T);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < L.n_users; ++u) {
      const int64_t b = L.indptr[u], n = top_len(L.indptr, u, k);
      for (int64_t p = b; p < b + n; ++p) {
        const double x = L.scores[p] - mx;
        const double e = std::exp(x);
        z[tid].add(e);
        a[tid].add(e * x);
      }
    }
  }
  for (int t = 1; t < T; ++t) {
    z[0].merge(z[t]);
    a[0].merge(a[t]);
  }
  z[0].normalize();
  a[0].normalize();
  const double Z = z[0].to_double(), A = a[0].to_double();
  return std::log(Z) - A / Z;
}

// Users (rows) without a relevant item: grade >= min_relevance (has_min) or grade > 0;
// grades nullable (every item relevant). The row of the first such user is in *first (-1: none).
inline int64_t count_no_relevant(int64_t n_users, const int64_t* indptr, const double* grades, bool has_min,
                                 double min_relevance, int threads, int64_t* first) {
  const int T = effective_threads(threads, n_users);
  int64_t n = 0, lo = std::numeric_limits<int64_t>::max();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(static) reduction(+ : n) reduction(min : lo)
#endif
  for (int64_t u = 0; u < n_users; ++u) {
    bool any = false;
    if (grades) {
      for (int64_t p = indptr[u]; p < indptr[u + 1]; ++p) any |= has_min ? grades[p] >= min_relevance : grades[p] > 0.0;
    } else {
      any = indptr[u + 1] > indptr[u];
    }
    if (!any) {
      ++n;
      lo = std::min(lo, u);
    }
  }
  *first = n ? lo : -1;
  return n;
}

// Exact sum of the non-NaN values (into `acc`) and their count.
inline int64_t exact_sum_values(const double* v, int64_t n, int threads, ExactSum& acc) {
  const int T = effective_threads(threads, n);
  std::vector<ExactSum> part(T);
  std::vector<int64_t> cnt(T, 0);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t i = 0; i < n; ++i)
      if (!std::isnan(v[i])) {
        part[tid].add(v[i]);
        ++cnt[tid];
      }
  }
  acc.clear();
  int64_t c = 0;
  for (int t = 0; t < T; ++t) {
    acc.merge(part[t]);
    c += cnt[t];
  }
  acc.normalize();
  return c;
}

// Per group g < n_groups: the exact sum (acc[g]) and the count (count[g]) of the non-NaN v[i] with codes[i] == g
// (every code in [0, n_groups)). One pass over v; each thread adds into its own n_groups accumulators, merged
// exactly, so the sums do not depend on the thread count.
inline void exact_sum_groups(const double* v, const int64_t* codes, int64_t n, int64_t n_groups, int threads,
                             ExactSum* acc, int64_t* count) {
  const int T = effective_threads(threads, n);
  std::vector<std::vector<ExactSum>> part(static_cast<size_t>(T));
  std::vector<std::vector<int64_t>> cnt(static_cast<size_t>(T));
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    auto& mine = part[static_cast<size_t>(tid)];
    auto& c = cnt[static_cast<size_t>(tid)];
    mine.resize(static_cast<size_t>(n_groups));
    c.assign(static_cast<size_t>(n_groups), 0);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t i = 0; i < n; ++i)
      if (!std::isnan(v[i])) {
        mine[static_cast<size_t>(codes[i])].add(v[i]);
        ++c[static_cast<size_t>(codes[i])];
      }
  }
  for (int64_t g = 0; g < n_groups; ++g) {
    acc[g].clear();
    count[g] = 0;
    for (int t = 0; t < T; ++t) {
      acc[g].merge(part[static_cast<size_t>(t)][static_cast<size_t>(g)]);
      count[g] += cnt[static_cast<size_t>(t)][static_cast<size_t>(g)];
    }
    acc[g].normalize();
  }
}

}  // namespace rankmeter::core
