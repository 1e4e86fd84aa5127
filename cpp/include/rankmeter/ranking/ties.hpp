// rankmeter/ranking/ties.hpp — ties="last" (docs/metrics.md 6.3): AP when every item of a tie group of equal
// scores sits at the group's last rank.
//
// Input: the lists ordered by score, as CSR (indptr over n_rows rows, scores[nnz] in list order, best first) with
// one relevance flag per entry (rel[p] = 1: the entry is a hit). A tie group is a maximal run of equal scores in a
// row; the group at positions a..b (1-based) sits at rank b, so each of its dTP hits reads the precision at b,
// H_b / b, with H_b the hits at positions <= b. With a cutoff k (0: the whole row) only the groups with b <= k are
// within it. Output per row: sum[r] = Σ_{groups, b <= k} dTP H_b / b (each term one division), hits[r] = H at the
// last such group. Without ties every group is one item and this is AP's sum Σ_{j<=k} P@j h_j. Rows are
// independent: the values do not depend on the thread count.
#pragma once
#include <cstdint>

#include "../parallel.hpp"

namespace rankmeter::core {

inline void ap_tie_last(const int64_t* indptr, int64_t n_rows, const double* scores, const uint8_t* rel, int64_t k,
                        int threads, double* sum, int64_t* hits) {
  [[maybe_unused]] const int T = effective_threads(threads, n_rows);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(dynamic, 256)
#endif
  for (int64_t r = 0; r < n_rows; ++r) {
    const int64_t b0 = indptr[r], e = indptr[r + 1];
    const int64_t lim = k > 0 && b0 + k < e ? b0 + k : e;  // entries within the cutoff: [b0, lim)
    double s = 0.0;
    int64_t h = 0;
    for (int64_t q = b0; q < e;) {
      int64_t g = q, dtp = 0;
      while (g < e && scores[g] == scores[q]) dtp += rel[g++];
      if (g > lim) break;  // the group ends past the cutoff: its rank b = g - b0 > k
      h += dtp;
      if (dtp > 0) s += static_cast<double>(dtp) * (static_cast<double>(h) / static_cast<double>(g - b0));
      q = g;
    }
    sum[r] = s;
    hits[r] = h;
  }
}

}  // namespace rankmeter::core
