// rankmeter/calibration.hpp — miscalibration after Steck, "Calibrated Recommendations" (RecSys 2018):
// C_KL(p, q) = sum_g p(g|u) log(p(g|u) / q~(g|u)), q~ = (1 - alpha) q + alpha p
// (docs/metrics.md, "miscalibration").
//
// Inputs, all CSR owned by the caller, over one dense item code:
//   the ranked lists (item codes, best first, as prepared: duplicates and max_items applied);
//   every evaluated user's train history (item codes, any order; a repeated item is read once);
//   item -> categories (category codes 0..n_cats-1, ascending and distinct within an item; an item
//   without a row has no category).
// p(g|u): the mean of p(g|i) = 1/|G(i)| (g in G(i)) over the distinct history items with a category.
// q(g|u): the mean of p(g|i) over the top-k items with a category, item i at rank r weighted by w_r
// (1; 1/r; 1/log2(r + 1)); every occurrence of a repeated item counts.
// Output per user: the divergence; NaN when the user has no history item with a category or an empty
// top k. A top k without a categorized item has q = 0, so C = -log(alpha).
// Sums run in an order that depends on neither the history's order nor the codes' order (p: integer
// numerators over lcm(|G(i)|), or per category the counts of each |G(i)| ascending; the divergence:
// categories ascending), so the values are the same for any thread count and any row order. Kernels never
// throw.
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

namespace calibration_detail {

inline int64_t gcd(int64_t a, int64_t b) {
  while (b) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// w_r of the item at 0-based rank r: 1, 1 / (r + 1) or 1 / log2(r + 2)
inline double rank_weight(RankWeight weight, int64_t r) {
  if (weight == RankWeight::reciprocal) return 1.0 / static_cast<double>(r + 1);
  if (weight == RankWeight::log2) return 1.0 / std::log2(static_cast<double>(r + 2));
  return 1.0;
}

}  // namespace calibration_detail

inline void calibration_values(const CalibrationInput& in, int64_t k, double alpha, RankWeight weight, double* values,
                               int threads) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t n_users = in.n_users;
  const int T = effective_threads(threads, n_users);
  // p's sums in integers where they fit: an item of m categories adds L / m to each of them, L = the lcm of
  // every m of the table, so p(g|u) = num_g / (L |H|) is one correctly rounded division, whatever the order
  // of the history (else: the (category, m) pairs sorted, counted, and summed m by m)
  int64_t max_per_item = 1, L = 1, max_hist = 0;
  bool exact = true;
  for (int64_t i = 0; i < in.n_items; ++i) {
    const int64_t m = in.c_indptr[i + 1] - in.c_indptr[i];
    if (m <= 0) continue;
    max_per_item = std::max(max_per_item, m);
    if (exact) {
      const int64_t g = calibration_detail::gcd(L, m);
      if (L / g > (int64_t{1} << 40) / m)
        exact = false;
      else
        L = L / g * m;
    }
  }
  for (int64_t u = 0; u < n_users; ++u) max_hist = std::max(max_hist, in.h_indptr[u + 1] - in.h_indptr[u]);
  if (exact && max_hist > 0 && L > ((int64_t{1} << 53) - 1) / max_hist) exact = false;
  const bool dense = in.n_cats <= 64;      // exact path: scan every category instead of sorting the touched ones
  const int64_t width = max_per_item + 1;  // sorted path: key = category * width + m
  // exact with at most 64 categories (the usual genres): each item's categories as one 64-bit mask, so an item
  // costs one load of an n_items-long table (no indptr and category reads), and the categories a user touches
  // are the OR of the masks, read in ascending order bit by bit
  const bool bits = exact && dense;
  std::vector<uint64_t> cmask(bits ? static_cast<size_t>(in.n_items) : 0);
  // each item's number of categories m (0-64), so that no popcount is computed per read (without -mpopcnt,
  // __builtin_popcountll is a call into libgcc)
  std::vector<uint8_t> mcount(bits ? static_cast<size_t>(in.n_items) : 0);
  std::vector<int64_t> add_of(65, 0);  // L / m for an item of m categories
  if (bits) {
    for (int64_t i = 0; i < in.n_items; ++i) {
      for (int64_t c = in.c_indptr[i]; c < in.c_indptr[i + 1]; ++c) cmask[i] |= uint64_t{1} << in.c_cat[c];
      mcount[static_cast<size_t>(i)] = static_cast<uint8_t>(__builtin_popcountll(cmask[i]));
    }
    for (int64_t m = 1; m <= 64; ++m) add_of[m] = L % m == 0 ? L / m : 0;
  }
  // w_r for the ranks below k, computed once (a log2 per rank for rank_weight=log2)
  std::vector<double> w_of(static_cast<size_t>(k > 0 && k <= 4096 ? k : 0));
  for (size_t r = 0; r < w_of.size(); ++r) w_of[r] = calibration_detail::rank_weight(weight, static_cast<int64_t>(r));
  const auto w_at = [&w_of, weight](int64_t r) {
    return static_cast<size_t>(r) < w_of.size() ? w_of[static_cast<size_t>(r)]
                                                : calibration_detail::rank_weight(weight, r);
  };
#pragma omp parallel num_threads(T)
  {
    std::vector<int64_t> hv;  // bits path: a user's history items with a category, repeats dropped
    std::vector<int64_t> keys, touched, num;
    std::vector<double> p, q(static_cast<size_t>(in.n_cats), 0.0);
    // the user (+ 1) that last read each item's history row: a repeat within a user's history is read once
    std::vector<int64_t> seen(bits ? 0 : static_cast<size_t>(in.n_items), 0);  // general path only
    if (exact)
      num.assign(static_cast<size_t>(in.n_cats), 0);
    else
      p.assign(static_cast<size_t>(in.n_cats), 0.0);
#pragma omp for schedule(dynamic, 1024)
    for (int64_t u = 0; u < n_users; ++u) {
      const int64_t l0 = in.l_indptr[u];
      int64_t n = in.l_indptr[u + 1] - l0;
      if (k > 0 && n > k) n = k;
      if (n == 0) {
        values[u] = nan;
        continue;
      }
      if (bits) {
        hv.clear();
        const int64_t h0 = in.h_indptr[u], h1 = in.h_indptr[u + 1];
        if (h1 - h0 <= 64) {
          // short histories: a repeat is looked for among the items kept so far only when the item's bit of a
          // 64-bit filter (code mod 64) is already set
          uint64_t filter = 0;
          for (int64_t h = h0; h < h1; ++h) {
            const int64_t it = in.h_items[h];
            if (it < 0 || it >= in.n_items || cmask[static_cast<size_t>(it)] == 0) continue;
            const uint64_t bit = uint64_t{1} << (static_cast<uint64_t>(it) & 63);
            if (filter & bit) {
              bool rep = false;
              for (const int64_t x : hv) rep |= x == it;
              if (rep) continue;
            }
            filter |= bit;
            hv.push_back(it);
          }
        } else {
          for (int64_t h = h0; h < h1; ++h) {
            const int64_t it = in.h_items[h];
            if (it >= 0 && it < in.n_items && cmask[static_cast<size_t>(it)] != 0) hv.push_back(it);
          }
          std::sort(hv.begin(), hv.end());
          hv.erase(std::unique(hv.begin(), hv.end()), hv.end());
        }
        if (hv.empty()) {
          values[u] = nan;
          continue;
        }
        uint64_t pmask = 0, qmask = 0;
        for (const int64_t it : hv) {
          const uint64_t cm = cmask[static_cast<size_t>(it)];
          const int64_t add = add_of[mcount[static_cast<size_t>(it)]];
          pmask |= cm;
          for (uint64_t b = cm; b; b &= b - 1) num[static_cast<size_t>(__builtin_ctzll(b))] += add;
        }
        double wsum = 0.0;
        for (int64_t r = 0; r < n; ++r) {
          const int64_t it = in.l_items[l0 + r];
          if (it < 0 || it >= in.n_items) continue;
          const uint64_t cm = cmask[static_cast<size_t>(it)];
          if (cm == 0) continue;
          const double w = w_at(r);
          wsum += w;
          qmask |= cm;
          const double share = w / static_cast<double>(mcount[static_cast<size_t>(it)]);
          for (uint64_t b = cm; b; b &= b - 1) q[static_cast<size_t>(__builtin_ctzll(b))] += share;
        }
        // as the general path below: C = (sum_g num_g log(num_g / (beta q[g] + alpha num_g))) / D, g ascending
        const double denom = static_cast<double>(L) * static_cast<double>(hv.size());
        const double beta = wsum > 0.0 ? (1.0 - alpha) * denom / wsum : 0.0;
        double kl = 0.0;
        for (uint64_t b = pmask; b; b &= b - 1) {
          const size_t g = static_cast<size_t>(__builtin_ctzll(b));
          const double ng = static_cast<double>(num[g]);
          num[g] = 0;
          kl += ng * std::log(ng / (beta * q[g] + alpha * ng));
        }
        for (uint64_t b = qmask; b; b &= b - 1) q[static_cast<size_t>(__builtin_ctzll(b))] = 0.0;
        kl /= denom;
        values[u] = kl > 0.0 ? kl : 0.0;
        continue;
      }
      // p: the history items with a category (distinct within a user: the caller's rule)
      touched.clear();
      keys.clear();
      int64_t n_hist = 0;
      for (int64_t h = in.h_indptr[u]; h < in.h_indptr[u + 1]; ++h) {
        const int64_t it = in.h_items[h];
        if (it < 0 || it >= in.n_items) continue;
        const int64_t c0 = in.c_indptr[it], c1 = in.c_indptr[it + 1];
        if (c1 == c0 || seen[static_cast<size_t>(it)] == u + 1) continue;
        seen[static_cast<size_t>(it)] = u + 1;
        ++n_hist;
        if (exact) {
          const int64_t add = L / (c1 - c0);
          for (int64_t c = c0; c < c1; ++c) {
            const int64_t g = in.c_cat[c];
            if (num[g] == 0) touched.push_back(g);
            num[g] += add;
          }
        } else {
          for (int64_t c = c0; c < c1; ++c) keys.push_back(in.c_cat[c] * width + (c1 - c0));
        }
      }
      if (n_hist == 0) {
        values[u] = nan;
        continue;
      }
      if (!exact) {
        std::sort(keys.begin(), keys.end());
        for (size_t a = 0; a < keys.size();) {
          size_t b = a;
          while (b < keys.size() && keys[b] == keys[a]) ++b;
          const int64_t g = keys[a] / width, m = keys[a] % width;
          if (touched.empty() || touched.back() != g) touched.push_back(g);
          p[g] += static_cast<double>(b - a) / static_cast<double>(m);
          a = b;
        }
      } else if (dense) {  // few categories: read them all in order, no sort
        touched.clear();
        for (int64_t g = 0; g < in.n_cats; ++g)
          if (num[g] != 0) touched.push_back(g);
      } else {
        std::sort(touched.begin(), touched.end());
      }
      // q: the top k, rank-weighted
      double wsum = 0.0;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t it = in.l_items[l0 + r];
        if (it < 0 || it >= in.n_items) continue;
        const int64_t c0 = in.c_indptr[it], c1 = in.c_indptr[it + 1];
        if (c1 == c0) continue;
        const double w = w_at(r);
        wsum += w;
        const double share = w / static_cast<double>(c1 - c0);
        for (int64_t c = c0; c < c1; ++c) q[in.c_cat[c]] += share;
      }
      // the divergence over the categories of p (p > 0 there), ascending
      const double nh = static_cast<double>(n_hist);
      double kl = 0.0;
      if (exact) {
        // p_g = num_g / D (D = L |H| < 2^53) and q_g = q[g] / wsum, so p_g / q~_g = num_g / (beta q[g] + alpha
        // num_g) with beta = (1 - alpha) D / wsum, and C = (sum_g num_g log(that)) / D: one division per category
        const double denom = static_cast<double>(L) * nh;
        const double beta = wsum > 0.0 ? (1.0 - alpha) * denom / wsum : 0.0;
        for (const int64_t g : touched) {
          const double ng = static_cast<double>(num[g]);
          num[g] = 0;
          kl += ng * std::log(ng / (beta * q[g] + alpha * ng));
        }
        kl /= denom;
      } else {
        for (const int64_t g : touched) {
          const double pg = p[g] / nh;
          p[g] = 0.0;
          const double qg = wsum > 0.0 ? q[g] / wsum : 0.0;
          kl += pg * std::log(pg / ((1.0 - alpha) * qg + alpha * pg));
        }
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
