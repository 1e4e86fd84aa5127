// rankmeter/auc.hpp — the AUC family (docs/metrics.md, section 3.19.10-3.19.12): per-user AUC, its partial
// (McClish-standardised) form, GAUC's weighted terms and the limited AUC of a top-k list.
//
// A user's candidates are ordered by score (or by list position), and the share of (positive, negative)
// pairs in the right order is counted, a tied pair worth 1/2 (ties="half"), 0 (ties="strict") or 1
// (ties="optimistic"): walking the tie groups from the top with TP and FP positives and negatives above,
//   2 P N AUC = Σ_groups dFP (2 TP + w dTP),   w = 1, 0 or 2 (docs/metrics.md 3.19.10),
// an integer, so the full AUC is one correctly rounded division. No pair is visited: O(k + m) per user for
// a top k and m truth items when the scores fall along the list (the usual case) or without scores, O(k log k)
// when the scores must be sorted. The lists are read in place (no copy); the positives and the listed items
// are stamped on one per-thread array over the item codes (no per-user sort, no allocation).
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
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "beyond.hpp"
#include "inputs.hpp"
#include "parallel.hpp"
#include "policy.hpp"
#include "status.hpp"

namespace rankmeter::core {

struct AucInput {
  int64_t n_users = 0;
  int64_t n_items = 0;  // truth, history and catalog-mask codes are 0..n_items-1; a list item outside is none of them
  // The lists, read in place (no copy): the kept part of each user's list as prepare_lists keeps it (rowmap,
  // duplicates policy, max_items, keep: beyond.hpp), then its top k. A list item may be any int64: an item
  // outside [0, n_items) is no positive, no seen item and outside the catalog.
  ListsIn lists;
  DupPolicy dups = DupPolicy::miss;
  int64_t max_items = 0;  // 0: none
  int64_t keep = 0;       // 0: whole lists
  TruthCodes truth;
  const uint8_t* catalog = nullptr;   // nullable: scored mode
  int64_t n_catalog = 0;              // number of items set in `catalog`
  const int64_t* h_indptr = nullptr;  // nullable: no history to leave out (catalog mode only)
  const int64_t* h_items = nullptr;
};

// What a tied (positive, negative) pair counts (docs/metrics.md 3.19.10): 1/2 (half), 0 (strict), 1 (optimistic).
enum class AucTies : int32_t { half = 0, strict = 1, optimistic = 2 };

namespace auc_detail {
// w of the numerator: a tied pair adds w to 2 P N AUC
inline int64_t tie_weight(AucTies t) { return t == AucTies::half ? 1 : t == AucTies::strict ? 0 : 2; }

// One tie group (dFP negatives, dTP positives) as ROC vertices: the diagonal segment (half), or the step that
// takes the negatives first (strict) or the positives first (optimistic), whose area is the AUC under that rule.
inline void push_group(std::vector<std::pair<int64_t, int64_t>>& groups, int64_t dfp, int64_t dtp, AucTies t) {
  if (t == AucTies::half || dfp == 0 || dtp == 0) {
    groups.emplace_back(dfp, dtp);
  } else if (t == AucTies::strict) {
    groups.emplace_back(dfp, 0);
    groups.emplace_back(0, dtp);
  } else {
    groups.emplace_back(0, dtp);
    groups.emplace_back(dfp, 0);
  }
}

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

// k: the cutoff (0: whole lists). max_fpr in (0, 1] (1: the full AUC). ties: what a tied pair counts. Returns the
// lowest user whose kept list repeats an item under DupPolicy::error (Code::duplicate_recs; that user's outputs are
// left NaN / 0).
inline Status auc_values(const AucInput& in, int64_t k, double max_fpr, AucTies ties, int threads, int64_t* rel,
                         int64_t* pos, int64_t* neg, double* num2, double* value) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, in.n_users);
  const bool partial = max_fpr < 1.0;
  const int64_t w = auc_detail::tie_weight(ties);
  const int64_t limit = list_limit(in.max_items, in.keep);
  const int64_t cap = longest_kept(in.lists, limit);
  const uint64_t n_codes = static_cast<uint64_t>(in.n_items);
  std::vector<Status> tstatus(static_cast<size_t>(T));
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const bool all_in_catalog = in.catalog == nullptr || in.n_catalog == in.n_items;
    std::vector<uint32_t> st(static_cast<size_t>(in.n_items), 0);  // per item code: see the stamps below
    uint32_t E = 0;
    const int tid = thread_id();
    KeptReader rd(cap);
    std::unique_ptr<Stamped> mark;  // only with a history: the user's top k and seen items
    if (in.h_indptr) mark = std::make_unique<Stamped>(in.n_items);
    std::vector<uint8_t> flag;  // per top-k position: a positive
    std::vector<double> sbuf;   // the top k's scores when the list was closed up (duplicates under "first")
    std::vector<std::pair<double, uint8_t>> scored;
    std::vector<std::pair<int64_t, int64_t>> groups;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int64_t u = 0; u < in.n_users; ++u) {
      prefetch_user(in.lists, u, limit);
      // the user's positives, stamped on a per-thread array over the item codes (repeats counted once):
      // st[i] == E + 1 a positive, E + 2 a listed item, E + 3 a listed positive (older values: none of these)
      if (E > std::numeric_limits<uint32_t>::max() - 8) {
        std::fill(st.begin(), st.end(), 0);
        E = 0;
      }
      E += 4;
      const TruthCodes& t = in.truth;
      int64_t R = 0, R_out = 0;  // distinct positives; those outside the catalog
      for (int64_t p = t.indptr[u]; p < t.indptr[u + 1]; ++p) {
        const int64_t it = t.items[p];
        if (!t.relevant(t.grade(p)) || st[it] == E + 1) continue;
        st[it] = E + 1;
        ++R;
        if (in.catalog && !in.catalog[it]) ++R_out;
      }
      const auto positive = [&](int64_t it) {
        if (static_cast<uint64_t>(it) >= n_codes) return false;
        const uint32_t v = st[static_cast<size_t>(it)];
        return v > E && (v & 1u);
      };
      // the kept list: in place when it repeats nothing (checked on the stamps), else as prepare_lists keeps it
      const int64_t* L = nullptr;
      int64_t n = 0;
      const int64_t row = in.lists.rowmap ? in.lists.rowmap[u] : u;
      if (row >= 0) {
        const int64_t b = in.lists.begin(row), full_e = in.lists.end(row);
        const int64_t e = in.max_items > 0 ? std::min(full_e, b + in.max_items) : full_e;
        const int64_t room = std::min(e - b, limit);
        L = in.lists.items + b;
        n = room;
        if (in.dups == DupPolicy::first || in.dups == DupPolicy::error) {
          bool clean = true;
          for (int64_t q = 0; q < room; ++q) {
            const int64_t it = L[q];
            if (static_cast<uint64_t>(it) >= n_codes || st[static_cast<size_t>(it)] >= E + 2) {
              clean = false;  // an item outside the codes, or a repeat: the general reader decides
              break;
            }
            st[static_cast<size_t>(it)] = st[static_cast<size_t>(it)] == E + 1 ? E + 3 : E + 2;
          }
          if (!clean) {
            int64_t dup = 0;
            n = rd.read(in.lists, u, in.dups, limit, in.max_items, &L, &dup);
            if (n < 0) {
              tstatus[static_cast<size_t>(tid)].record(Code::duplicate_recs, u, dup);
              rel[u] = pos[u] = neg[u] = 0;
              num2[u] = value[u] = kNaN;
              continue;
            }
          }
        }
      }
      const int64_t kk = k > 0 && k < n ? k : n;
      flag.resize(static_cast<size_t>(kk));
      int64_t pos_top = 0;
      for (int64_t q = 0; q < kk; ++q) {
        const bool f = positive(L[q]);
        flag[q] = f;
        pos_top += f;
      }
      int64_t P = pos_top, N = kk - pos_top, Pb = 0, Nb = 0;
      if (in.catalog) {
        // the candidates: catalog ∪ top k ∪ positives, less the seen items neither positive nor in the top k
        int64_t outside = 0;  // top-k items and positives outside the catalog
        if (!all_in_catalog) {
          int64_t pos_top_out = 0;  // positives in the top k outside the catalog (counted once, with the top k)
          for (int64_t q = 0; q < kk; ++q) {
            const bool out = static_cast<uint64_t>(L[q]) >= n_codes || in.catalog[L[q]] == 0;
            outside += out;
            pos_top_out += out && flag[q];
          }
          outside += R_out - pos_top_out;
        } else {
          for (int64_t q = 0; q < kk; ++q) outside += static_cast<uint64_t>(L[q]) >= n_codes;
        }
        int64_t seen = 0;
        if (in.h_indptr && in.h_indptr[u + 1] > in.h_indptr[u]) {
          mark->next();
          for (int64_t q = 0; q < kk; ++q)
            if (static_cast<uint64_t>(L[q]) < n_codes) mark->set(L[q], 1);
          for (int64_t p = in.h_indptr[u]; p < in.h_indptr[u + 1]; ++p) {
            const int64_t it = in.h_items[p];
            if (mark->has(it) || !in.catalog[it]) continue;
            mark->set(it, 1);  // counted once
            if (!positive(it)) ++seen;
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
      // walk the tie groups from the top: acc = Σ dFP (2 TP + w dTP); the groups are kept only for a partial
      // AUC. Within the top k the sum is below 2 kk^2 (int64); the group below it is added in 128 bits.
      int64_t acc_top = 0, tp_above = 0;
      groups.clear();
      const auto group = [&](int64_t dfp, int64_t dtp) {
        acc_top += dfp * (2 * tp_above + w * dtp);
        tp_above += dtp;
        if (partial) auc_detail::push_group(groups, dfp, dtp, ties);
      };
      const double* S = nullptr;  // the top k's scores (in list order)
      if (in.lists.scores && in.lists.indptr && kk > 0) {
        const int64_t row = in.lists.rowmap ? in.lists.rowmap[u] : u;
        const int64_t b = in.lists.begin(row);
        if (L == in.lists.items + b) {  // read in place: the scores are the list's first kk
          S = in.lists.scores + b;
        } else {  // closed up: the score of each kept item's first occurrence
          sbuf.resize(static_cast<size_t>(kk));
          for (int64_t p = b, w = 0; w < kk; ++p)
            if (in.lists.items[p] == L[w]) sbuf[w++] = in.lists.scores[p];
          S = sbuf.data();
        }
      }
      if (S) {
        bool sorted = true;  // best first already (the usual case): walk the list as it is
        for (int64_t q = 1; q < kk; ++q) sorted &= !(S[q] > S[q - 1]);
        if (sorted && !partial) {  // a one-item group adds 2 TP for a negative; a tie group dFP (2 TP + w dTP)
          for (int64_t q = 0; q < kk;) {
            if (q + 1 == kk || S[q + 1] != S[q]) {
              acc_top += flag[q] ? 0 : 2 * tp_above;
              tp_above += flag[q++];
              continue;
            }
            int64_t e = q, tp = 0;
            while (e < kk && S[e] == S[q]) tp += flag[e++];
            group((e - q) - tp, tp);
            q = e;
          }
        } else if (sorted) {
          for (int64_t q = 0; q < kk;) {
            int64_t e = q, tp = 0;
            while (e < kk && S[e] == S[q]) tp += flag[e++];
            group((e - q) - tp, tp);
            q = e;
          }
        } else {
          scored.resize(static_cast<size_t>(kk));
          for (int64_t q = 0; q < kk; ++q) scored[q] = {S[q], flag[q]};
          std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& c) { return a.first > c.first; });
          for (int64_t q = 0; q < kk;) {
            int64_t e = q, tp = 0;
            while (e < kk && scored[e].first == scored[q].first) tp += scored[e++].second;
            group((e - q) - tp, tp);
            q = e;
          }
        }
      } else if (!partial) {
        for (int64_t q = 0; q < kk; ++q) {  // one item per group: a negative adds 2 TP, a positive nothing
          acc_top += flag[q] ? 0 : 2 * tp_above;
          tp_above += flag[q];
        }
      } else {
        for (int64_t q = 0; q < kk; ++q) group(1 - flag[q], flag[q]);
      }
      __int128 acc = acc_top;
      if (Pb + Nb > 0) {
        acc += static_cast<__int128>(Nb) * (2 * static_cast<__int128>(tp_above) + w * Pb);
        if (partial) auc_detail::push_group(groups, Nb, Pb, ties);
      }
      num2[u] = static_cast<double>(acc);
      value[u] = partial ? auc_detail::partial_auc(groups, P, N, max_fpr)
                         : static_cast<double>(acc) / (2.0 * static_cast<double>(P) * static_cast<double>(N));
    }
  }
  Status status;
  for (const auto& x : tstatus) status.merge(x);
  return status;
}

// ---------------------------------------------------------------------------
// auc_matrix: the AUC of every row of a dense users x items score matrix (docs/metrics.md, 3.19.10), every column a
// scored candidate, without ranking the row: the m positives' scores are sorted into L distinct levels v_1 < ..
// < v_L (multiplicities c_l), and one streaming pass over the row counts lt_l = #{j : s_j < v_l} and
// le_l = #{j : s_j <= v_l}. The negatives below level l are nb_l = lt_l - Σ_{l'<l} c_l', those tied with it
// ne_l = le_l - lt_l - c_l, and
//   2 P N AUC = Σ_l c_l (2 nb_l + w ne_l)   (w: 1 for ties="half", 0 "strict", 2 "optimistic"),
// the same integer as the tie-group walk of the ranked row (so the same AUC bits). On a float32 row with 1-31
// levels where the CPU has AVX-512: one binary search per score (weighted_row_avx512); else O(n L) compares per
// row, in L1-sized chunks the compiler vectorises (AVX2 where the CPU has it). The ROC vertices for a partial AUC are
// the levels and the negatives between them. A non-finite score is an error (Code::bad_score, the lowest row and
// then column). Truth codes: a column index, or any code outside [0, n_cols) for a relevant item that is not a
// column (counted in rel, no candidate).
namespace auc_detail {
constexpr int64_t kChunk = 2048;

// counts over x[0..len): lt[l] += #{x < v_l}, le[l] += #{x <= v_l}; returns the number of non-finite x. One
// body, inlined into each caller so that it is compiled for that caller's instruction set.
template <class T>
__attribute__((always_inline)) inline int64_t count_chunk_body(const T* x, int64_t len, const T* lv, int64_t L,
                                                               int64_t* lt, int64_t* le) {
  int32_t bad = 0;
  const T big = std::numeric_limits<T>::max();
  for (int64_t j = 0; j < len; ++j) bad += !(std::abs(x[j]) <= big);
  for (int64_t l = 0; l < L; ++l) {
    const T v = lv[l];
    int32_t a = 0, b = 0;
    for (int64_t j = 0; j < len; ++j) {
      a += x[j] < v;
      b += x[j] <= v;
    }
    lt[l] += a;
    le[l] += b;
  }
  return bad;
}

template <class T>
inline int64_t count_chunk_generic(const T* x, int64_t len, const T* lv, int64_t L, int64_t* lt, int64_t* le) {
  return count_chunk_body(x, len, lv, L, lt, le);
}

// The whole-AUC numerator of a float row with 1 <= L <= 31 levels, in one search per score instead of 2L
// compares (AVX-512): with a(x) = #{l : v_l <= x} found by a branch-free binary search over the levels held in
// one register (NL = 16 slots, L <= 15) or two (NL = 32, L <= 31), padded with +inf, x adds S2[a] = 2 sum_{l >= a}
// c_l (the levels above it, both compares true) plus C[a-1] when x equals v_{a-1} (its tie: only the <= compare
// true), with C = w c (w: what a tied pair adds, 1 for ties="half", 0 "strict", 2 "optimistic"). The sum over the
// row is W = sum_l c_l (2 lt_l + w (le_l - lt_l)), the same integer as the counts give (so the same AUC bits).
// Each search step compares x with a level picked by a table lookup from a table shifted by the step (no index
// arithmetic), the first two steps with a broadcast and a blend. Where every level holds one positive (`unit`,
// the usual case) S2[a] = 2 (L - a) and C[a-1] = w: the loop sums a and counts the ties, and W = 2 L m - 2 sum a
// + w ties over its m scores, with no lookup of S2 or C. Lanes add in int32 within a chunk of kChunk scores
// (each score adds at most 2P, each lane at most kChunk / 16 * 2P < 2^31 for P <= kFastMaxPos), then in int64.
// Sets *bad when a score is not finite.
constexpr int64_t kFastMaxLevels = 31;
constexpr int64_t kFastMaxPos = int64_t{1} << 22;
constexpr int64_t kPrefetchAhead = 1024;  // scores (4 KiB) read ahead of the search
#ifdef RANKMETER_TOPK_AVX2
inline bool fast_avx512_enabled() {
  const char* env = std::getenv("RANKMETER_SIMD");
  const auto is = [env](const char* v) { return env && std::strcmp(env, v) == 0; };
  return !is("0") && !is("avx2") && __builtin_cpu_supports("avx512f");
}

// A table of NL (16 or 32) entries looked up by the index lanes: one register (16) or two (32).
template <int NL>
struct Lookup16or32 {
  __m512 lo, hi;
  __m512i ilo, ihi;
  __attribute__((target("avx512f"))) static Lookup16or32 load(const float* f, const int32_t* k) {
    Lookup16or32 t;
    t.lo = _mm512_loadu_ps(f);
    t.hi = NL == 32 ? _mm512_loadu_ps(f + 16) : t.lo;
    t.ilo = k ? _mm512_loadu_si512(k) : _mm512_setzero_si512();
    t.ihi = k && NL == 32 ? _mm512_loadu_si512(k + 16) : t.ilo;
    return t;
  }
  __attribute__((target("avx512f"))) __m512 ps(__m512i idx) const {
    if constexpr (NL == 16) return _mm512_permutexvar_ps(idx, lo);
    return _mm512_permutex2var_ps(lo, idx, hi);
  }
  __attribute__((target("avx512f"))) __m512i epi32(__m512i idx) const {
    if constexpr (NL == 16) return _mm512_permutexvar_epi32(idx, ilo);
    return _mm512_permutex2var_epi32(ilo, idx, ihi);
  }
};

// lv: NL ascending levels (padded with +inf), s2/cw: NL entries (S2 and C above); L the real levels.
template <int NL, bool Unit>
__attribute__((target("avx512f"))) inline int64_t weighted_row_avx512(const float* x, int64_t n, const float* lv,
                                                                      const int32_t* s2, const int32_t* cw, int64_t L,
                                                                      int64_t w_tie, bool* bad) {
  constexpr int H = NL / 2;  // the first step's size
  // shifted tables: step k compares x with lv[a + k - 1]; the tie check with lv[a - 1] (NaN at a = 0: never equal)
  alignas(64) float t4[NL], t2[NL], t1[NL], t0[NL];
  alignas(64) int32_t c0[NL];
  for (int i = 0; i < NL; ++i) {
    t4[i] = lv[std::min(i + 3, NL - 1)];
    t2[i] = lv[std::min(i + 1, NL - 1)];
    t1[i] = lv[i];
    t0[i] = i > 0 ? lv[i - 1] : std::numeric_limits<float>::quiet_NaN();
    c0[i] = i > 0 ? cw[i - 1] : 0;
  }
  using Tab = Lookup16or32<NL>;
  const Tab T4 = Tab::load(t4, nullptr), T2 = Tab::load(t2, nullptr), T1 = Tab::load(t1, nullptr),
            T0 = Tab::load(t0, c0), TS = Tab::load(t1, s2);
  // steps of size H and H / 2: a broadcast and a blend of two broadcasts; then 4 (NL = 32), 2 and 1 by lookups
  const __m512 Lh = _mm512_set1_ps(lv[H - 1]), Lq0 = _mm512_set1_ps(lv[H / 2 - 1]),
               Lq1 = _mm512_set1_ps(lv[H + H / 2 - 1]);
  const __m512i iH = _mm512_set1_epi32(H), iQ = _mm512_set1_epi32(H / 2), i4 = _mm512_set1_epi32(4),
                i2 = _mm512_set1_epi32(2), i1 = _mm512_set1_epi32(1);
  const __m512i absmask = _mm512_set1_epi32(0x7fffffff);
  __m512i acc64 = _mm512_setzero_si512(), tie64 = _mm512_setzero_si512(), maxbits = _mm512_setzero_si512();
  int64_t j = 0;
  while (j + 16 <= n) {
    const int64_t end = std::min(n, j + kChunk) & ~int64_t{15};
    __m512i acc = _mm512_setzero_si512(), ties = _mm512_setzero_si512();
    for (; j < end; j += 16) {
      // the line 4 KiB ahead fetched now: the hardware prefetcher alone keeps too few lines in flight for this
      // loop, which then waits on memory (a prefetch past the row's end or the matrix's never faults)
      _mm_prefetch(reinterpret_cast<const char*>(x + j + kPrefetchAhead), _MM_HINT_T0);
      const __m512 v = _mm512_loadu_ps(x + j);
      maxbits = _mm512_max_epu32(maxbits, _mm512_and_si512(_mm512_castps_si512(v), absmask));  // |x| as bits
      const __mmask16 m1 = _mm512_cmp_ps_mask(Lh, v, _CMP_LE_OQ);
      __m512i a = _mm512_maskz_mov_epi32(m1, iH);
      const __m512 q = _mm512_mask_blend_ps(m1, Lq0, Lq1);
      a = _mm512_mask_add_epi32(a, _mm512_cmp_ps_mask(q, v, _CMP_LE_OQ), a, iQ);
      if constexpr (NL == 32) a = _mm512_mask_add_epi32(a, _mm512_cmp_ps_mask(T4.ps(a), v, _CMP_LE_OQ), a, i4);
      a = _mm512_mask_add_epi32(a, _mm512_cmp_ps_mask(T2.ps(a), v, _CMP_LE_OQ), a, i2);
      a = _mm512_mask_add_epi32(a, _mm512_cmp_ps_mask(T1.ps(a), v, _CMP_LE_OQ), a, i1);
      const __mmask16 eq = _mm512_cmp_ps_mask(T0.ps(a), v, _CMP_EQ_OQ);
      if constexpr (Unit) {
        acc = _mm512_add_epi32(acc, a);
        ties = _mm512_mask_add_epi32(ties, eq, ties, i1);
      } else {
        acc = _mm512_add_epi32(acc, TS.epi32(a));
        acc = _mm512_mask_add_epi32(acc, eq, acc, T0.epi32(a));
      }
    }
    acc64 = _mm512_add_epi64(acc64, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc)));
    acc64 = _mm512_add_epi64(acc64, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc, 1)));
    if constexpr (Unit) {
      tie64 = _mm512_add_epi64(tie64, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(ties)));
      tie64 = _mm512_add_epi64(tie64, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(ties, 1)));
    }
  }
  int64_t w = _mm512_reduce_add_epi64(acc64);
  if constexpr (Unit) w = 2 * L * j - 2 * w + w_tie * _mm512_reduce_add_epi64(tie64);  // the j scores read so far
  bool notok = false;
  for (; j < n; ++j) {  // the last < 16 scores
    const float v = x[j];
    if (!(std::abs(v) <= std::numeric_limits<float>::max())) notok = true;
    int a = 0;
    while (a < NL - 1 && lv[a] <= v) ++a;
    w += s2[a];
    if (a > 0 && lv[a - 1] == v) w += cw[a - 1];
  }
  // a finite float's |x| bits are at most those of FLT_MAX (0x7f7fffff); inf and NaN are above
  *bad = notok || _mm512_reduce_max_epu32(maxbits) > 0x7f7fffffu;
  return w;
}
#endif

#ifdef RANKMETER_TOPK_AVX2
template <class T>
__attribute__((target("avx2"))) inline int64_t count_chunk_avx2(const T* x, int64_t len, const T* lv, int64_t L,
                                                                int64_t* lt, int64_t* le) {
  return count_chunk_body(x, len, lv, L, lt, le);
}
#endif
}  // namespace auc_detail

// rowmap[u]: the matrix row of truth user u (every user has one). Outputs as auc_values. The counts of the
// streaming pass do not depend on `ties`, only the accumulation after it: Σ_l c_l (2 nb_l + w ne_l). The AVX-512
// fast path sums W = Σ_x (S2[a(x)] + w c_{a-1} [x = v_{a-1}]) = Σ_l c_l (2 lt_l + w (le_l - lt_l)) per row (its
// tie term scaled by w) and takes out the positives' own Σ_l c_l (2 below_l + w c_l): the same integer.
template <class T>
inline Status auc_matrix(const T* S, int64_t n_cols, const int64_t* rowmap, int64_t n_users, const TruthCodes& truth,
                         double max_fpr, int threads, int64_t* rel, int64_t* pos, int64_t* neg, double* num2,
                         double* value, AucTies ties) {
  using namespace beyond_detail;
  const int T_ = effective_threads(threads, n_users);
  const bool partial = max_fpr < 1.0;
  const int64_t tw = auc_detail::tie_weight(ties);  // a tied (positive, negative) pair adds tw to 2 P N AUC
  [[maybe_unused]] const bool avx2 = topk_detail::topk_avx2_enabled();
#ifdef RANKMETER_TOPK_AVX2
  [[maybe_unused]] const bool fast = auc_detail::fast_avx512_enabled();
#endif
  std::vector<Status> tstatus(static_cast<size_t>(T_));
  // The positives' scores of every user are read first, in a pass of their own: read at the start of each row
  // while the other rows stream in, these scattered reads wait behind the stream (about a sixth of the pass on a
  // large float32 matrix), and a prefetch does not help; on their own they overlap one another.
  const int64_t t0 = truth.indptr[0];
  std::vector<T> pscore(static_cast<size_t>(truth.indptr[n_users] - t0));  // user u's at indptr[u] - t0 on
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T_)
#endif
  {
    const int tid = thread_id();
    std::vector<int64_t> pv;  // the user's positives (distinct codes)
    std::vector<T> lv;        // distinct positive scores, ascending
    std::vector<int64_t> c, lt, le;
    std::vector<std::pair<int64_t, int64_t>> groups;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < n_users; ++u) {
      const T* row = S + rowmap[u] * n_cols;
      pv.clear();
      for (int64_t p = truth.indptr[u]; p < truth.indptr[u + 1]; ++p)
        if (truth.relevant(truth.grade(p))) pv.push_back(truth.items[p]);
      std::sort(pv.begin(), pv.end());
      pv.erase(std::unique(pv.begin(), pv.end()), pv.end());
      T* out = pscore.data() + (truth.indptr[u] - t0);
      int64_t P = 0;
      for (int64_t it : pv)
        if (it >= 0 && it < n_cols) out[P++] = row[it];
      rel[u] = static_cast<int64_t>(pv.size());
      pos[u] = P;
      neg[u] = n_cols - P;
    }  // (the implicit barrier: every user's scores are read)
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 64)
#endif
    for (int64_t u = 0; u < n_users; ++u) {
      const T* row = S + rowmap[u] * n_cols;
      const int64_t P = pos[u], N = neg[u];
      const T* ps = pscore.data() + (truth.indptr[u] - t0);
      lv.assign(ps, ps + P);
      std::sort(lv.begin(), lv.end());  // a NaN among them: found by the pass below
      c.clear();
      int64_t L = 0;
      for (int64_t i = 0; i < P; ++i) {
        if (L > 0 && lv[i] == lv[L - 1]) {
          ++c[L - 1];
        } else {
          lv[L++] = lv[i];
          c.push_back(1);
        }
      }
      lt.assign(static_cast<size_t>(L), 0);
      le.assign(static_cast<size_t>(L), 0);
      int64_t bad = 0;
      [[maybe_unused]] bool fast_done = false;
      __int128 fast_acc = 0;
#ifdef RANKMETER_TOPK_AVX2
      if constexpr (std::is_same_v<T, float>) {
        if (fast && !partial && P > 0 && N > 0 && L <= auc_detail::kFastMaxLevels && P <= auc_detail::kFastMaxPos) {
          float lv32[32];
          int32_t s2[32], cw[32];
          int64_t above = 0;  // 2 x the positives at levels >= a
          bool unit = true;   // every level holds one positive
          for (int64_t a = 31; a >= 0; --a) {
            lv32[a] = a < L ? lv[a] : std::numeric_limits<float>::infinity();
            const int64_t ca = a < L ? c[a] : 0;
            unit = unit && (a >= L || ca == 1);
            cw[a] = static_cast<int32_t>(tw * ca);  // a tie adds w c: at most 2 P per score, as S2
            above += 2 * ca;
            s2[a] = static_cast<int32_t>(above);
          }
          bool b = false;
          using auc_detail::weighted_row_avx512;
          const int64_t w = L <= 15 ? (unit ? weighted_row_avx512<16, true>(row, n_cols, lv32, s2, cw, L, tw, &b)
                                            : weighted_row_avx512<16, false>(row, n_cols, lv32, s2, cw, L, tw, &b))
                                    : (unit ? weighted_row_avx512<32, true>(row, n_cols, lv32, s2, cw, L, tw, &b)
                                            : weighted_row_avx512<32, false>(row, n_cols, lv32, s2, cw, L, tw, &b));
          bad = b;
          // minus the positives' own terms: sum_l c_l (2 below_l + tw c_l)
          __int128 own = 0;
          int64_t below = 0;
          for (int64_t l = 0; l < L; ++l) {
            own += static_cast<__int128>(c[l]) * (2 * below + tw * c[l]);
            below += c[l];
          }
          fast_acc = static_cast<__int128>(w) - own;
          fast_done = true;
        }
      }
#endif
      if (fast_done) {
      } else if (P > 0 && N > 0) {
        for (int64_t j0 = 0; j0 < n_cols; j0 += auc_detail::kChunk) {
          const int64_t len = std::min(auc_detail::kChunk, n_cols - j0);
#ifdef RANKMETER_TOPK_AVX2
          if (avx2) {
            bad += auc_detail::count_chunk_avx2(row + j0, len, lv.data(), L, lt.data(), le.data());
            continue;
          }
#endif
          bad += auc_detail::count_chunk_generic(row + j0, len, lv.data(), L, lt.data(), le.data());
        }
      } else {
        const T big = std::numeric_limits<T>::max();
        for (int64_t j = 0; j < n_cols; ++j) bad += !(std::abs(row[j]) <= big);
      }
      if (bad) {
        int64_t j = 0;
        while (std::abs(row[j]) <= std::numeric_limits<T>::max()) ++j;
        tstatus[static_cast<size_t>(tid)].record(Code::bad_score, u, j);
        num2[u] = value[u] = kNaN;
        continue;
      }
      if (P == 0 || N == 0) {
        num2[u] = value[u] = kNaN;
        continue;
      }
      __int128 acc = fast_acc;
      int64_t below = 0;  // positives below the level
      for (int64_t l = 0; l < L && !fast_done; ++l) {
        const int64_t nb = lt[l] - below, ne = le[l] - lt[l] - c[l];
        acc += static_cast<__int128>(c[l]) * (2 * static_cast<__int128>(nb) + tw * static_cast<__int128>(ne));
        below += c[l];
      }
      num2[u] = static_cast<double>(acc);
      if (!partial) {
        value[u] = static_cast<double>(acc) / (2.0 * static_cast<double>(P) * static_cast<double>(N));
        continue;
      }
      // ROC vertices top first: the negatives above the top level, each level's tie group, the negatives between
      groups.clear();
      int64_t neg_at_or_above = 0, pos_at_or_above = 0;  // scored >= the level above
      for (int64_t l = L - 1; l >= 0; --l) {
        const int64_t pos_below = P - pos_at_or_above - c[l];
        pos_at_or_above += c[l];
        const int64_t nb = lt[l] - pos_below, ne = le[l] - lt[l] - c[l];
        const int64_t above = N - nb - ne - neg_at_or_above;
        if (above > 0) groups.emplace_back(above, 0);
        auc_detail::push_group(groups, ne, c[l], ties);
        neg_at_or_above = N - nb;
      }
      if (N - neg_at_or_above > 0) groups.emplace_back(N - neg_at_or_above, 0);
      value[u] = auc_detail::partial_auc(groups, P, N, max_fpr);
    }
  }
  Status status;
  for (const auto& x : tstatus) status.merge(x);
  return status;
}

}  // namespace rankmeter::core
