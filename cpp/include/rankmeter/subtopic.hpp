// rankmeter/subtopic.hpp — intent-aware (subtopic) diversity measures with ndeval's conventions:
// alpha-DCG, alpha-nDCG, ERR-IA, nERR-IA, P-IA, subtopic recall, NRBP, nNRBP, MAP-IA
// (docs/metrics.md, "Subtopic (intent-aware) diversity").
//
// Inputs per user, all CSR owned by the caller:
//   the ranked list (item codes, best first; duplicates already handled by the caller);
//   the user's relevant judged documents, sorted by item code, each with a tie key (larger key:
//   larger id string; the greedy ideal takes the largest among equal gains) and the ascending list of
//   the user's subtopics it is relevant to (local indices 0..n_sub-1, every one relevant to at least one
//   document). Documents judged for no subtopic, or judged non-relevant everywhere, are not listed: their
//   gain is 0 wherever they appear, as is that of an unjudged document.
// Output: values[c * n_users + u] for every column c (kind, cutoff). Kernels never throw.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "parallel.hpp"

namespace rankmeter::core {

enum class SubKind : int {
  alpha_dcg = 0,
  alpha_ndcg = 1,
  err_ia = 2,
  nerr_ia = 3,
  p_ia = 4,
  strec = 5,
  nrbp = 6,
  nnrbp = 7,
  map_ia = 8,
};

struct SubtopicInput {
  int64_t n_users;
  const int64_t* l_indptr;  // [n_users + 1]
  const int64_t* l_items;   // ranked list items (codes)
  const int64_t* j_indptr;  // [n_users + 1]: the user's relevant judged documents
  const int64_t* j_items;   // their codes, ascending within a user
  const int64_t* j_key;     // their tie keys (the order of their id strings)
  const int64_t* s_indptr;  // [n_docs + 1]: each document's subtopics
  const int64_t* s_sub;     // local subtopic index, ascending within a document
  const int64_t* n_sub;     // [n_users]: the user's number of subtopics with a relevant document
};

namespace subtopic_detail {

// ndeval's rank discount: 1 at the first rank, log(2) / log(i + 2) at the 0-based rank i > 0
inline double discount(int64_t i) { return i > 0 ? std::log(2.0) / std::log(static_cast<double>(i) + 2.0) : 1.0; }

struct Scratch {
  std::vector<double> gain, total, dcg, err, ideal_dcg, ideal_err, ii_dcg, ii_err, ideal_score;
  std::vector<int64_t> count, nrel, covered_at, pairs_at;
  std::vector<char> picked, seen;
};

// the gains of a ranking read position by position (ndeval: the intent-aware gain at each rank, each
// subtopic's gain multiplied by 1 - alpha every time a document relevant to it is read)
inline double take(const int64_t* subs, int64_t n, std::vector<double>& gain, double keep) {
  double score = 0.0;
  for (int64_t s = 0; s < n; ++s) {
    score += gain[subs[s]];
    gain[subs[s]] *= keep;
  }
  return score;
}

// Cumulated gains at depth 0..K-1 divided by the "ideal ideal" (every subtopic covered at every rank),
// except the first, which ndeval leaves undivided; `score[i]` is the gain at the 0-based rank i.
inline void normalised_cumulative(const std::vector<double>& score, int64_t K, double n_sub, double keep, bool dcg,
                                  std::vector<double>& out, std::vector<double>& ii) {
  double g = n_sub;
  for (int64_t i = 0; i < K; ++i) {
    out[i] = dcg ? score[i] * discount(i) : score[i] / static_cast<double>(i + 1);
    ii[i] = dcg ? g * discount(i) : g / static_cast<double>(i + 1);
    g *= keep;
  }
  for (int64_t i = 1; i < K; ++i) {
    out[i] += out[i - 1];
    ii[i] += ii[i - 1];
  }
  for (int64_t i = 1; i < K; ++i) out[i] /= ii[i];
}

}  // namespace subtopic_detail

// Every column for every user. `kinds`/`ks`: n_cols entries (ks: the cutoff, ignored by nrbp, nnrbp and map_ia).
inline void subtopic_values(const SubtopicInput& in, const int* kinds, const int64_t* ks, int64_t n_cols, double alpha,
                            double beta, double* values, int threads) {
  using namespace subtopic_detail;
  const double keep = 1.0 - alpha;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  int64_t K0 = 1;  // the deepest cutoff read
  bool need_full_ideal = false, need_ideal = false, whole = false;
  for (int64_t c = 0; c < n_cols; ++c) {
    const auto kind = static_cast<SubKind>(kinds[c]);
    if (kind == SubKind::nnrbp) need_full_ideal = true;
    if (kind == SubKind::alpha_ndcg || kind == SubKind::nerr_ia) need_ideal = true;
    if (kind != SubKind::nrbp && kind != SubKind::nnrbp && kind != SubKind::map_ia) {
      K0 = std::max(K0, ks[c]);
      if (ks[c] == 0) whole = true;  // no cutoff: the whole list
    }
  }
  const int64_t n_users = in.n_users;
  // a user costs far more here than in the fused pass (a greedy ideal ranking): threads from 32 users each
  const int T = effective_threads(threads, n_users * (kUsersPerThread / 32));
#pragma omp parallel num_threads(T)
  {
    Scratch w;
#pragma omp for schedule(dynamic, 16)
    for (int64_t u = 0; u < n_users; ++u) {
      const int64_t S = in.n_sub[u];
      const int64_t d0 = in.j_indptr[u], d1 = in.j_indptr[u + 1], D = d1 - d0;
      const int64_t l0 = in.l_indptr[u], n = in.l_indptr[u + 1] - l0;
      const int64_t K = whole ? std::max(K0, n) : K0;  // the depth read for this user
      if (S == 0) {                                    // no relevant subtopic: ndeval scores 0, and nNRBP 0 / 0
        for (int64_t c = 0; c < n_cols; ++c)
          values[c * n_users + u] = static_cast<SubKind>(kinds[c]) == SubKind::nnrbp ? nan : 0.0;
        continue;
      }
      for (auto* v : {&w.dcg, &w.err, &w.ideal_dcg, &w.ideal_err, &w.ii_dcg, &w.ii_err})
        if (static_cast<int64_t>(v->size()) < K) v->resize(K);
      if (static_cast<int64_t>(w.covered_at.size()) < K) {
        w.covered_at.resize(K);
        w.pairs_at.resize(K);
      }
      w.gain.assign(S, 1.0);
      w.count.assign(S, 0);
      w.total.assign(S, 0.0);
      w.nrel.assign(S, 0);
      w.seen.assign(S, 0);
      for (int64_t d = d0; d < d1; ++d)
        for (int64_t s = in.s_indptr[d]; s < in.s_indptr[d + 1]; ++s) ++w.nrel[in.s_sub[s]];
      // the run, position by position
      std::vector<double>& score = w.ideal_score;  // reused below for the ideal
      score.assign(K, 0.0);
      double nrbp = 0.0, decay = 1.0;
      int64_t covered = 0, pairs = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t item = in.l_items[l0 + i];
        const int64_t* lo = in.j_items + d0;
        const int64_t* hi = in.j_items + d1;
        const int64_t* f = std::lower_bound(lo, hi, item);
        double sc = 0.0;
        if (f != hi && *f == item) {
          const int64_t d = f - in.j_items;
          const int64_t* subs = in.s_sub + in.s_indptr[d];
          const int64_t ns = in.s_indptr[d + 1] - in.s_indptr[d];
          sc = take(subs, ns, w.gain, keep);
          for (int64_t s = 0; s < ns; ++s) {
            const int64_t j = subs[s];
            ++w.count[j];
            w.total[j] += static_cast<double>(w.count[j]) / static_cast<double>(i + 1);
            if (!w.seen[j]) {
              w.seen[j] = 1;
              ++covered;
            }
          }
          pairs += ns;
        }
        if (i < K) {
          score[i] = sc;
          w.covered_at[i] = covered;
          w.pairs_at[i] = pairs;
        }
        nrbp += sc * decay;
        decay *= beta;
      }
      for (int64_t i = n; i < K; ++i) {
        w.covered_at[i] = covered;
        w.pairs_at[i] = pairs;
      }
      const double Sd = static_cast<double>(S);
      nrbp *= (1 - keep * beta) / Sd;
      normalised_cumulative(score, K, Sd, keep, true, w.dcg, w.ii_dcg);
      normalised_cumulative(score, K, Sd, keep, false, w.err, w.ii_err);
      double map_ia = 0.0;
      for (int64_t j = 0; j < S; ++j)
        if (w.nrel[j]) map_ia += w.total[j] / static_cast<double>(w.nrel[j]);
      map_ia /= Sd;
      // the ideal: ndeval's greedy ranking of the judged documents (largest gain first, equal gains: the
      // largest id string), read as far as a column needs
      double ideal_nrbp = 0.0;
      if (need_ideal || need_full_ideal) {
        const int64_t steps = need_full_ideal ? D : std::min(D, K);
        std::vector<double>& isc = w.ideal_score;
        isc.assign(std::max(K, int64_t{1}), 0.0);
        w.gain.assign(S, 1.0);
        w.picked.assign(D, 0);
        double idecay = 1.0;
        for (int64_t r = 0; r < steps; ++r) {
          int64_t where = -1;
          double best = 0.0;
          for (int64_t d = 0; d < D; ++d) {
            if (w.picked[d]) continue;
            const int64_t g = d0 + d;
            double sc = 0.0;
            for (int64_t s = in.s_indptr[g]; s < in.s_indptr[g + 1]; ++s) sc += w.gain[in.s_sub[s]];
            if (where < 0 || sc > best || (sc == best && in.j_key[g] > in.j_key[d0 + where])) {
              best = sc;
              where = d;
            }
          }
          if (best == 0.0) break;  // every other document gains 0 from here on
          w.picked[where] = 1;
          const int64_t g = d0 + where;
          const double sc = take(in.s_sub + in.s_indptr[g], in.s_indptr[g + 1] - in.s_indptr[g], w.gain, keep);
          if (r < K) isc[r] = sc;
          ideal_nrbp += sc * idecay;
          idecay *= beta;
        }
        ideal_nrbp *= (1 - keep * beta) / Sd;
        normalised_cumulative(isc, K, Sd, keep, true, w.ideal_dcg, w.ii_dcg);
        normalised_cumulative(isc, K, Sd, keep, false, w.ideal_err, w.ii_err);
      }
      for (int64_t c = 0; c < n_cols; ++c) {
        const int64_t i = (ks[c] > 0 ? ks[c] : std::max(n, int64_t{1})) - 1;
        double v = 0.0;
        switch (static_cast<SubKind>(kinds[c])) {
          case SubKind::alpha_dcg:
            v = w.dcg[i];
            break;
          case SubKind::alpha_ndcg:
            v = w.dcg[i] != 0.0 ? w.dcg[i] / w.ideal_dcg[i] : 0.0;
            break;
          case SubKind::err_ia:
            v = w.err[i];
            break;
          case SubKind::nerr_ia:
            v = w.dcg[i] != 0.0 ? w.err[i] / w.ideal_err[i] : 0.0;
            break;
          case SubKind::p_ia:
            v = static_cast<double>(w.pairs_at[i]) / static_cast<double>((i + 1) * S);
            break;
          case SubKind::strec:
            v = static_cast<double>(w.covered_at[i]) / Sd;
            break;
          case SubKind::nrbp:
            v = nrbp;
            break;
          case SubKind::nnrbp:
            v = nrbp / ideal_nrbp;
            break;
          case SubKind::map_ia:
            v = map_ia;
            break;
        }
        values[c * n_users + u] = v;
      }
    }
  }
}

}  // namespace rankmeter::core
