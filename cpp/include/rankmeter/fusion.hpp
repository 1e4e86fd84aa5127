// rankmeter/fusion.hpp — rank fusion: several runs of one query set into one run.
//
// Contract:
//   * the runs come as one CSR of n_runs * n_queries lists: list r * n_queries + q is run r's list
//     for query q, best first (the caller has ranked it; an absent query is an empty list);
//     documents are int64 codes shared by every run, values are float64;
//   * per query, the candidates are the documents of any run, in order of first appearance (run 0's
//     list, then the new documents of run 1, ...); each run gives a candidate a value from its
//     position and value (the "transform"), then the values of the runs are combined into the
//     candidate's fused score (the "combine"), in run order, as docs/fusion.md writes each method;
//   * normalisation (fusion_normalise) is applied per list before the fusion; Borda normalisation
//     needs the candidates and is a flag of the fusion itself;
//   * one pass over the lists per query, parallel over queries (OpenMP); no exception inside the
//     parallel region: a document listed twice in one list is reported as a status (the query).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "rankmeter/parallel.hpp"

namespace rankmeter::core {

enum class FuseNorm : int { None = 0, MinMax = 1, Max = 2, Sum = 3, Zmuv = 4, Rank = 5, MinMaxInverted = 6 };

enum class FuseTransform : int {
  Score = 0,  // the (normalised) value
  Rrf = 1,    // 1 / (k + pos + 1)
  Isr = 2,    // 1 / (pos + 1)^2
  Rbc = 3,    // (1 - phi) * phi^pos
  Borda = 4,  // n_c - pos; a candidate the run lacks: (n_c - len + 1) / 2
  Pos = 5,    // table[pos], 0 past the table (PosFuse)
  Seg = 6,    // table[segment of pos] * (value + 1), segments [0,5), [5,15), [15,35), ... (SegFuse)
  Prob = 7,   // table[k] / (k + 1), k = pos / ceil(len / n_segments) (ProbFuse)
  Slide = 8,  // mean of table over the window [pos - w, pos + w] cut to the list (SlideFuse)
  Map = 9,    // map_r / (pos + 1) (MAPFuse)
};

enum class FuseCombine : int {
  Sum = 0,     // sum over runs, `missing` for a run without the candidate
  Mnz = 1,     // sum of present values * count
  Gmnz = 2,    // sum * count^gamma
  Log = 3,     // sum * log(count)
  LogN = 4,    // sum * log(count + sigma)
  Anz = 5,     // sum / count
  Max = 6,     // max over runs, -1e9 for a run without the candidate
  Min = 7,     // min over runs, 1e9 for a run without the candidate
  Med = 8,     // median of the present values
  Wsum = 9,    // sum of w_r * value (0 when absent)
  Wmnz = 10,   // sum of present values * sum of their runs' weights
  Mixed = 11,  // sum of present w_r * value * sqrt(count)
  Condorcet = 12,
};

struct FuseParams {
  FuseTransform transform = FuseTransform::Score;
  FuseCombine combine = FuseCombine::Sum;
  bool borda_norm = false;
  double k = 60.0, phi = 0.5, gamma = 1.0, sigma = 0.01, missing = 0.0;
  int64_t w = 1;
};

// ------------------------------------------------------------------ normalisation of every list
inline void fusion_normalise(const int64_t* indptr, int64_t n_lists, const double* v, FuseNorm norm, double* out,
                             int threads) {
  const int T = effective_threads(threads, n_lists);
  (void)T;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(dynamic, 256)
#endif
  for (int64_t q = 0; q < n_lists; ++q) {
    const int64_t b = indptr[q], n = indptr[q + 1] - b;
    const double* x = v + b;
    double* o = out + b;
    if (n == 0) continue;
    double lo = x[0], hi = x[0];
    for (int64_t i = 1; i < n; ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    switch (norm) {
      case FuseNorm::None:
        for (int64_t i = 0; i < n; ++i) o[i] = x[i];
        break;
      case FuseNorm::MinMax:
      case FuseNorm::MinMaxInverted: {
        const double den = std::max(hi - lo, 1e-9);
        for (int64_t i = 0; i < n; ++i) o[i] = norm == FuseNorm::MinMax ? (x[i] - lo) / den : (hi - x[i]) / den;
        break;
      }
      case FuseNorm::Max: {
        const double den = std::max(hi, 1e-9);
        for (int64_t i = 0; i < n; ++i) o[i] = x[i] / den;
        break;
      }
      case FuseNorm::Sum: {
        double s = 0.0;
        for (int64_t i = 0; i < n; ++i) s += x[i];
        const double den = std::max(s - lo * static_cast<double>(n), 1e-9);
        for (int64_t i = 0; i < n; ++i) o[i] = (x[i] - lo) / den;
        break;
      }
      case FuseNorm::Zmuv: {
        double s = 0.0;
        for (int64_t i = 0; i < n; ++i) s += x[i];
        const double mean = s / static_cast<double>(n);
        double ss = 0.0;
        for (int64_t i = 0; i < n; ++i) ss += (x[i] - mean) * (x[i] - mean);
        const double den = std::max(std::sqrt(ss / static_cast<double>(n)), 1e-9);
        for (int64_t i = 0; i < n; ++i) o[i] = (x[i] - mean) / den;
        break;
      }
      case FuseNorm::Rank:
        for (int64_t i = 0; i < n; ++i) o[i] = 1.0 - static_cast<double>(i) / static_cast<double>(n);
        break;
    }
  }
}

// ------------------------------------------------------------------ the fusion
namespace fusion_detail {

// Open addressing from document code to candidate index, reused query after query by one thread.
struct CodeMap {
  std::vector<int64_t> keys;
  std::vector<int64_t> vals;
  std::vector<int64_t> used;
  uint64_t mask = 0;
  void reset(int64_t n) {
    for (int64_t s : used) keys[s] = -1;
    used.clear();
    uint64_t cap = 16;
    while (cap < static_cast<uint64_t>(2 * n + 1)) cap <<= 1;
    if (cap > keys.size()) {
      keys.assign(cap, -1);
      vals.assign(cap, 0);
    }
    mask = keys.size() - 1;
  }
  // index of `code`, inserting `next` when absent (then `inserted` is true)
  int64_t find_or_insert(int64_t code, int64_t next, bool& inserted) {
    uint64_t h = static_cast<uint64_t>(code) * 0x9E3779B97F4A7C15ULL;
    uint64_t s = (h >> 17) & mask;
    while (keys[s] != -1) {
      if (keys[s] == code) {
        inserted = false;
        return vals[s];
      }
      s = (s + 1) & mask;
    }
    keys[s] = code;
    vals[s] = next;
    used.push_back(static_cast<int64_t>(s));
    inserted = true;
    return next;
  }
};

struct Scratch {
  CodeMap map;
  std::vector<int64_t> cand;  // candidate codes, first appearance order
  std::vector<double> val;    // n_c x R
  std::vector<int64_t> pos;   // n_c x R, -1: absent
  std::vector<int64_t> len;   // R
  std::vector<double> tmp;
  std::vector<int64_t> idx, idx2;
};

// Collect the candidates of query q; false when a list holds a document twice.
inline bool collect(const int64_t* indptr, const int64_t* codes, const double* values, int64_t n_queries, int64_t R,
                    int64_t q, Scratch& s) {
  int64_t total = 0;
  for (int64_t r = 0; r < R; ++r) total += indptr[r * n_queries + q + 1] - indptr[r * n_queries + q];
  s.map.reset(total);
  s.cand.clear();
  s.len.assign(R, 0);
  // first pass: candidates
  std::vector<int64_t>& slot = s.idx;
  slot.resize(total);
  int64_t e = 0;
  for (int64_t r = 0; r < R; ++r) {
    const int64_t b = indptr[r * n_queries + q], n = indptr[r * n_queries + q + 1] - b;
    s.len[r] = n;
    for (int64_t i = 0; i < n; ++i, ++e) {
      bool ins = false;
      const int64_t c = s.map.find_or_insert(codes[b + i], static_cast<int64_t>(s.cand.size()), ins);
      if (ins) s.cand.push_back(codes[b + i]);
      slot[e] = c;
    }
  }
  const int64_t nc = static_cast<int64_t>(s.cand.size());
  s.val.assign(nc * R, 0.0);
  s.pos.assign(nc * R, -1);
  e = 0;
  for (int64_t r = 0; r < R; ++r) {
    const int64_t b = indptr[r * n_queries + q];
    for (int64_t i = 0; i < s.len[r]; ++i, ++e) {
      const int64_t c = slot[e];
      if (s.pos[c * R + r] != -1) return false;
      s.pos[c * R + r] = i;
      s.val[c * R + r] = values[b + i];
    }
  }
  return true;
}

inline double transform(const FuseParams& p, const double* table, int64_t table_n, int64_t pos, int64_t len, double v,
                        double map_score) {
  const double i = static_cast<double>(pos);
  switch (p.transform) {
    case FuseTransform::Score:
      return v;
    case FuseTransform::Rrf:
      return 1.0 / (p.k + i + 1.0);
    case FuseTransform::Isr:
      return 1.0 / static_cast<double>((pos + 1) * (pos + 1));
    case FuseTransform::Rbc:
      return (1.0 - p.phi) * std::pow(p.phi, i);
    case FuseTransform::Borda:
      return v;  // filled by the caller
    case FuseTransform::Pos:
      return pos < table_n ? table[pos] : 0.0;
    case FuseTransform::Seg: {
      int64_t lo = 0;
      for (int64_t k = 0; k < table_n && k < 10; ++k) {
        const int64_t hi = 10 * (int64_t{1} << k) - 5;
        if (pos >= lo && pos < hi) return table[k] * (v + 1.0);
        lo = hi;
      }
      return 0.0 * (v + 1.0);
    }
    case FuseTransform::Prob: {
      const int64_t size = static_cast<int64_t>(std::ceil(static_cast<double>(len) / static_cast<double>(table_n)));
      const int64_t k = size > 0 ? pos / size : 0;
      return k < table_n ? table[k] / static_cast<double>(k + 1) : 0.0;
    }
    case FuseTransform::Slide: {
      const int64_t a = std::max<int64_t>(pos - p.w, 0);
      const int64_t b = std::min<int64_t>(pos + p.w, len - 1);
      double s = 0.0;
      for (int64_t j = a; j <= b && j < table_n; ++j) s += table[j];
      return s / static_cast<double>(b - a + 1);
    }
    case FuseTransform::Map:
      return map_score / (i + 1.0);
  }
  return v;
}

inline double median(double* x, int64_t n) {
  std::sort(x, x + n);
  if (n % 2 == 1) return x[n / 2];
  return (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

}  // namespace fusion_detail

// Number of candidates of every query (out_count[n_queries]).
inline void fusion_count(const int64_t* indptr, const int64_t* codes, int64_t n_queries, int64_t R, int64_t* out_count,
                         int threads) {
  const int T = effective_threads(threads, n_queries);
  (void)T;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    fusion_detail::CodeMap map;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 64)
#endif
    for (int64_t q = 0; q < n_queries; ++q) {
      int64_t total = 0;
      for (int64_t r = 0; r < R; ++r) total += indptr[r * n_queries + q + 1] - indptr[r * n_queries + q];
      map.reset(total);
      int64_t nc = 0;
      for (int64_t r = 0; r < R; ++r) {
        const int64_t b = indptr[r * n_queries + q], e = indptr[r * n_queries + q + 1];
        for (int64_t j = b; j < e; ++j) {
          bool ins = false;
          map.find_or_insert(codes[j], nc, ins);
          if (ins) ++nc;
        }
      }
      out_count[q] = nc;
    }
  }
}

// The fused lists: candidates of query q at out_indptr[q].. (first appearance order) with their fused
// scores. tables: per-run tables (CSR table_indptr[R + 1]); weights[R]; map_scores[R] (MAPFuse).
// Returns -1, or the first query with a document listed twice in one list.
inline int64_t fusion_fuse(const int64_t* indptr, const int64_t* codes, const double* values, int64_t n_queries,
                           int64_t R, const FuseParams& p, const double* weights, const double* tables,
                           const int64_t* table_indptr, const double* map_scores, const int64_t* out_indptr,
                           int64_t* out_codes, double* out_scores, int threads) {
  const int T = effective_threads(threads, n_queries);
  int64_t bad = -1;
  (void)T;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    fusion_detail::Scratch s;
    int64_t my_bad = -1;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 64)
#endif
    for (int64_t q = 0; q < n_queries; ++q) {
      if (!fusion_detail::collect(indptr, codes, values, n_queries, R, q, s)) {
        if (my_bad == -1 || q < my_bad) my_bad = q;
        continue;
      }
      const int64_t nc = static_cast<int64_t>(s.cand.size());
      const double ncd = static_cast<double>(nc);
      int64_t* oc = out_codes + out_indptr[q];
      double* os = out_scores + out_indptr[q];
      for (int64_t c = 0; c < nc; ++c) oc[c] = s.cand[c];
      if (p.borda_norm) {  // every run gives every candidate a value; its absent ones follow its list
        for (int64_t r = 0; r < R; ++r) {
          const double len = static_cast<double>(s.len[r]);
          const double absent = 0.5 - (len - 1.0) / (2.0 * ncd);
          int64_t next = s.len[r];
          for (int64_t c = 0; c < nc; ++c) {
            int64_t& ps = s.pos[c * R + r];
            if (ps >= 0) {
              s.val[c * R + r] = 1.0 - static_cast<double>(ps) / ncd;
            } else {
              s.val[c * R + r] = absent;
              ps = next++;
            }
          }
          s.len[r] = nc;
        }
      }
      // per run values
      for (int64_t r = 0; r < R; ++r) {
        const double* table = tables ? tables + table_indptr[r] : nullptr;
        const int64_t tn = tables ? table_indptr[r + 1] - table_indptr[r] : 0;
        const double ms = map_scores ? map_scores[r] : 0.0;
        const double absent_borda = (ncd - static_cast<double>(s.len[r]) + 1.0) / 2.0;
        for (int64_t c = 0; c < nc; ++c) {
          int64_t& ps = s.pos[c * R + r];
          double& v = s.val[c * R + r];
          if (p.transform == FuseTransform::Borda) {
            if (ps >= 0) {
              v = ncd - static_cast<double>(ps);
            } else {
              v = absent_borda;
              ps = s.len[r] + c;  // present from now on (the order among them is not read)
            }
          } else if (ps >= 0 && p.combine != FuseCombine::Condorcet) {
            v = fusion_detail::transform(p, table, tn, ps, s.len[r], v, ms);
          }
        }
      }
      if (p.combine == FuseCombine::Condorcet) {
        // pairwise majority: x before y when the runs (weighted) placing x above y weigh at least as much as
        // the others; an absent document is at position 1,000,000. A stable merge sort of the candidates.
        auto before = [&](int64_t x, int64_t y) {
          double xv = 0.0, yv = 0.0;
          for (int64_t r = 0; r < R; ++r) {
            const int64_t px = s.pos[x * R + r] >= 0 ? s.pos[x * R + r] : 1000000;
            const int64_t py = s.pos[y * R + r] >= 0 ? s.pos[y * R + r] : 1000000;
            if (px < py)
              xv += weights[r];
            else
              yv += weights[r];
          }
          return xv >= yv;
        };
        std::vector<int64_t>& a = s.idx;
        std::vector<int64_t>& buf = s.idx2;
        a.resize(nc);
        buf.resize(nc);
        for (int64_t c = 0; c < nc; ++c) a[c] = c;
        for (int64_t width = 1; width < nc; width *= 2) {
          for (int64_t lo = 0; lo < nc; lo += 2 * width) {
            const int64_t mid = std::min(lo + width, nc), hi = std::min(lo + 2 * width, nc);
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
              // the right one first when the comparison puts it before the left one (as a merge of Python's sort)
              if (before(a[j], a[i]))
                buf[o++] = a[j++];
              else
                buf[o++] = a[i++];
            }
            while (i < mid) buf[o++] = a[i++];
            while (j < hi) buf[o++] = a[j++];
          }
          std::swap(a, buf);
        }
        for (int64_t i = 0; i < nc; ++i) os[a[i]] = ncd - static_cast<double>(i);
        continue;
      }
      for (int64_t c = 0; c < nc; ++c) {
        const double* v = &s.val[c * R];
        const int64_t* ps = &s.pos[c * R];
        double sum = 0.0, wsum = 0.0, out = 0.0;
        int64_t n = 0;
        switch (p.combine) {
          case FuseCombine::Sum:
            for (int64_t r = 0; r < R; ++r) sum += ps[r] >= 0 ? v[r] : p.missing;
            out = sum;
            break;
          case FuseCombine::Wsum:
            for (int64_t r = 0; r < R; ++r) sum += weights[r] * (ps[r] >= 0 ? v[r] : 0.0);
            out = sum;
            break;
          case FuseCombine::Max:
            out = ps[0] >= 0 ? v[0] : -1e9;
            for (int64_t r = 1; r < R; ++r) out = std::max(out, ps[r] >= 0 ? v[r] : -1e9);
            break;
          case FuseCombine::Min:
            out = ps[0] >= 0 ? v[0] : 1e9;
            for (int64_t r = 1; r < R; ++r) out = std::min(out, ps[r] >= 0 ? v[r] : 1e9);
            break;
          case FuseCombine::Med:
            s.tmp.clear();
            for (int64_t r = 0; r < R; ++r)
              if (ps[r] >= 0) s.tmp.push_back(v[r]);
            out = fusion_detail::median(s.tmp.data(), static_cast<int64_t>(s.tmp.size()));
            break;
          case FuseCombine::Mixed:
            for (int64_t r = 0; r < R; ++r)
              if (ps[r] >= 0) {
                sum += v[r] * weights[r];
                ++n;
              }
            out = sum * std::sqrt(static_cast<double>(n));
            break;
          default:
            for (int64_t r = 0; r < R; ++r)
              if (ps[r] >= 0) {
                sum += v[r];
                wsum += weights[r];
                ++n;
              }
            {
              const double nd = static_cast<double>(n);
              switch (p.combine) {
                case FuseCombine::Mnz:
                  out = sum * nd;
                  break;
                case FuseCombine::Gmnz:
                  out = sum * std::pow(nd, p.gamma);
                  break;
                case FuseCombine::Log:
                  out = sum * std::log(nd);
                  break;
                case FuseCombine::LogN:
                  out = sum * std::log(nd + p.sigma);
                  break;
                case FuseCombine::Anz:
                  out = sum / nd;
                  break;
                case FuseCombine::Wmnz:
                  out = sum * wsum;
                  break;
                default:
                  out = sum;
              }
            }
        }
        os[c] = out;
      }
    }
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp critical
#endif
    {
      if (my_bad != -1 && (bad == -1 || my_bad < bad)) bad = my_bad;
    }
  }
  return bad;
}

}  // namespace rankmeter::core

namespace rankmeter::core {

// Weighted sums of many weight vectors over fixed candidates (optimize_fusion's fast path): query q's
// candidates are rows cand_indptr[q]..cand_indptr[q + 1] of `values` (n_cand x R, row-major; 0 where a run
// lacks the candidate), its relevant candidates rel_idx[rel_indptr[q]..] (global rows). For every trial t
// (weights[t * R ..]) and relevant candidate i: ranks[t * n_rel + i], the 0-based position of i in the list
// ranked by fused score descending, equal scores in candidate order (a stable sort's order).
inline void fusion_wsum_ranks(const int64_t* cand_indptr, int64_t n_queries, const double* values, int64_t R,
                              const int64_t* rel_indptr, const int64_t* rel_idx, int64_t n_rel, const double* weights,
                              int64_t n_trials, int64_t* ranks, int threads) {
  const int T = effective_threads(threads, n_queries);
  (void)T;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    std::vector<double> s;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
    for (int64_t q = 0; q < n_queries; ++q) {
      const int64_t b = cand_indptr[q], nc = cand_indptr[q + 1] - b;
      const int64_t rb = rel_indptr[q], re = rel_indptr[q + 1];
      if (rb == re) continue;
      s.resize(nc);
      const double* v = values + b * R;
      for (int64_t t = 0; t < n_trials; ++t) {
        const double* w = weights + t * R;
        for (int64_t c = 0; c < nc; ++c) {
          double acc = 0.0;
          for (int64_t r = 0; r < R; ++r) acc += w[r] * v[c * R + r];
          s[c] = acc;
        }
        for (int64_t i = rb; i < re; ++i) {
          const int64_t me = rel_idx[i] - b;
          const double x = s[me];
          int64_t rank = 0;
          for (int64_t c = 0; c < me; ++c) rank += s[c] >= x;
          for (int64_t c = me + 1; c < nc; ++c) rank += s[c] > x;
          ranks[t * n_rel + i] = rank;
        }
      }
    }
  }
}

}  // namespace rankmeter::core
