// rankmeter/popularity.hpp — popularity and long-tail kernels (docs/metrics.md 3.19.13-3.19.19).
//
// One per-user kernel reads the evaluated users' top-k lists (the clean CSR of prepare_lists, item codes
// 0..n_items-1) with a per-item table built in Python from the train popularity (a long-tail indicator, a
// self-information, a popularity complement, ...) and writes, per user u with top k = i_0 .. i_{n-1}:
//
//   s_u = sum_{r<n} w_r rel_u(i_r) table[i_r]      (NaN table entries are not counted)
//
//   w_r       1, or the logarithmic rank discount 1 / log2(r + 2) (discount = log; r is 0-based)
//   rel_u(i)  1, or (relevance) 1 if i is a relevant truth item of u, else 0
//
// and the value by `divide`:
//   items     s_u / (number of counted positions)   (NaN: nothing counted)
//   k         s_u / k (without a cutoff: / n)       (NaN: empty top k; the caller sets 0 where wanted)
//   none      s_u                                   (0 for an empty top k)
//   discount  s_u / sum_{r<n} w_r                   (0 for an empty top k: Vargas & Castells' C)
//
// n_rel[u] (relevance only) is the number of relevant truth items of u, so the caller can apply `empty`.
// Each user's value is computed by one thread from its own data in a fixed order: results do not depend
// on the thread count, the batch split or the order of users.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "beyond.hpp"
#include "parallel.hpp"

namespace rankmeter::core {

enum class PopDivide : int { items = 0, k = 1, none = 2, discount = 3 };

struct PopSpec {
  int64_t k = 0;                  // cutoff (0: whole lists)
  const double* table = nullptr;  // one value per item code
  PopDivide divide = PopDivide::items;
  bool log_discount = false;
  bool relevance = false;  // weigh each position by the binary relevance of its item (needs the truth)
};

inline void popularity_values(const Lists& L, const TruthCodes* t, const PopSpec& s, int threads, double* out,
                              int64_t* n_rel) {
  using namespace beyond_detail;
  const int T = effective_threads(threads, L.n_users);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    std::vector<uint32_t> stamp;  // per thread: stamp[i] == now marks a relevant item of the current user
    uint32_t now = 0;
    if (s.relevance) stamp.assign(static_cast<size_t>(L.n_items), 0);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < L.n_users; ++u) {
      if (s.relevance) {
        if (++now == 0) {
          std::fill(stamp.begin(), stamp.end(), 0);
          now = 1;
        }
        int64_t nr = 0;
        for (int64_t p = t->indptr[u]; p < t->indptr[u + 1]; ++p)
          if (t->relevant(t->grade(p)) && stamp[t->items[p]] != now) {
            stamp[t->items[p]] = now;
            ++nr;
          }
        n_rel[u] = nr;
      }
      const int64_t b = L.indptr[u], n = top_len(L.indptr, u, s.k);
      double sum = 0.0, norm = 0.0;
      int64_t c = 0;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t item = L.items[b + r];
        const double w = s.log_discount ? 1.0 / std::log2(static_cast<double>(r + 2)) : 1.0;
        norm += w;
        const double v = s.table[item];
        if (std::isnan(v)) continue;
        ++c;
        if (s.relevance && stamp[item] != now) continue;
        sum += s.log_discount ? w * v : v;
      }
      double val = kNaN;
      switch (s.divide) {
        case PopDivide::items:
          val = c > 0 ? sum / static_cast<double>(c) : kNaN;
          break;
        case PopDivide::k: {
          const int64_t den = s.k > 0 ? s.k : n;
          val = n > 0 ? sum / static_cast<double>(den) : kNaN;
          break;
        }
        case PopDivide::none:
          val = sum;
          break;
        case PopDivide::discount:
          val = norm > 0.0 ? sum / norm : 0.0;
          break;
      }
      out[u] = val;
    }
  }
}

}  // namespace rankmeter::core
