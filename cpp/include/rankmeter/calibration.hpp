// rankmeter/calibration.hpp — miscalibration after Steck, "Calibrated Recommendations" (RecSys 2018):
// C_KL(p, q) = sum_g p(g|u) log(p(g|u) / q~(g|u)), q~ = (1 - alpha) q + alpha p
// (docs/metrics.md, "miscalibration").
//
// Inputs, all CSR owned by the caller, over one dense item code:
//   the ranked lists (item codes, best first, as prepared: duplicates and max_items applied);
//   every evaluated user's train history (item codes, any order, repeats allowed: read as a set);
//   item -> categories (category codes 0..n_cats-1, ascending and distinct within an item; an item
//   without a row has no category).
// p(g|u): the mean of p(g|i) = 1/|G(i)| (g in G(i)) over the distinct history items with a category.
// q(g|u): the mean of p(g|i) over the top-k items with a category, item i at rank r weighted by w_r
// (1; 1/r; 1/log2(r + 1)); every occurrence of a repeated item counts.
// Output per user: the divergence; NaN when the user has no history item with a category or an empty
// top k. A top k without a categorized item has q = 0, so C = -log(alpha).
// Sums run in an order that depends on neither the history's order nor the codes' order (p: per
// category, the counts of each |G(i)| ascending; the divergence: categories ascending), so the values are
// the same for any thread count and any row order. Kernels never throw.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "parallel.hpp"

namespace rankmeter::core {

enum class RankWeight : int { none = 0, reciprocal = 1, log2 = 2 };

struct CalibrationInput {
  int64_t n_users;
  const int64_t* l_indptr;  // [n_users + 1]
  const int64_t* l_items;   // list item codes
  const int64_t* h_indptr;  // [n_users + 1]: each user's train history
  const int64_t* h_items;   // history item codes
  int64_t n_items;          // codes of the category table: 0..n_items-1 (a larger code has no category)
  const int64_t* c_indptr;  // [n_items + 1]
  const int64_t* c_cat;     // category codes, ascending within an item
  int64_t n_cats;
};

inline void calibration_values(const CalibrationInput& in, int64_t k, double alpha, RankWeight weight, double* values,
                               int threads) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t n_users = in.n_users;
  const int T = effective_threads(threads, n_users);
  int64_t max_per_item = 1;
  for (int64_t i = 0; i < in.n_items; ++i) max_per_item = std::max(max_per_item, in.c_indptr[i + 1] - in.c_indptr[i]);
  const int64_t width = max_per_item + 1;  // key = category * width + |G(i)|
#pragma omp parallel num_threads(T)
  {
    std::vector<int64_t> hist, keys, touched;
    std::vector<double> p(static_cast<size_t>(in.n_cats), 0.0), q(static_cast<size_t>(in.n_cats), 0.0);
#pragma omp for schedule(dynamic, 256)
    for (int64_t u = 0; u < n_users; ++u) {
      const int64_t l0 = in.l_indptr[u];
      int64_t n = in.l_indptr[u + 1] - l0;
      if (k > 0 && n > k) n = k;
      if (n == 0) {
        values[u] = nan;
        continue;
      }
      // p: the distinct history items with a category
      hist.assign(in.h_items + in.h_indptr[u], in.h_items + in.h_indptr[u + 1]);
      std::sort(hist.begin(), hist.end());
      hist.erase(std::unique(hist.begin(), hist.end()), hist.end());
      keys.clear();
      int64_t n_hist = 0;
      for (const int64_t it : hist) {
        if (it < 0 || it >= in.n_items) continue;
        const int64_t c0 = in.c_indptr[it], c1 = in.c_indptr[it + 1];
        if (c1 == c0) continue;
        ++n_hist;
        for (int64_t c = c0; c < c1; ++c) keys.push_back(in.c_cat[c] * width + (c1 - c0));
      }
      if (n_hist == 0) {
        values[u] = nan;
        continue;
      }
      std::sort(keys.begin(), keys.end());
      touched.clear();
      for (size_t a = 0; a < keys.size();) {
        size_t b = a;
        while (b < keys.size() && keys[b] == keys[a]) ++b;
        const int64_t g = keys[a] / width, m = keys[a] % width;
        if (touched.empty() || touched.back() != g) touched.push_back(g);
        p[g] += static_cast<double>(b - a) / static_cast<double>(m);
        a = b;
      }
      // q: the top k, rank-weighted
      double wsum = 0.0;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t it = in.l_items[l0 + r];
        if (it < 0 || it >= in.n_items) continue;
        const int64_t c0 = in.c_indptr[it], c1 = in.c_indptr[it + 1];
        if (c1 == c0) continue;
        double w = 1.0;
        if (weight == RankWeight::reciprocal)
          w = 1.0 / static_cast<double>(r + 1);
        else if (weight == RankWeight::log2)
          w = 1.0 / std::log2(static_cast<double>(r + 2));
        wsum += w;
        const double share = w / static_cast<double>(c1 - c0);
        for (int64_t c = c0; c < c1; ++c) q[in.c_cat[c]] += share;
      }
      // the divergence over the categories of p (p > 0 there), ascending
      const double nh = static_cast<double>(n_hist);
      double kl = 0.0;
      for (const int64_t g : touched) {
        const double pg = p[g] / nh;
        const double qg = wsum > 0.0 ? q[g] / wsum : 0.0;
        kl += pg * std::log(pg / ((1.0 - alpha) * qg + alpha * pg));
        p[g] = 0.0;
      }
      values[u] = kl > 0.0 ? kl : 0.0;  // rounding may leave -1e-17 where q~ = p
      // reset q where the list wrote
      for (int64_t r = 0; r < n; ++r) {
        const int64_t it = in.l_items[l0 + r];
        if (it < 0 || it >= in.n_items) continue;
        for (int64_t c = in.c_indptr[it]; c < in.c_indptr[it + 1]; ++c) q[in.c_cat[c]] = 0.0;
      }
    }
  }
}

}  // namespace rankmeter::core
