// rankmeter/ranking/cwl.hpp — the C/W/L framework metrics (Moffat et al.) as cwl-eval computes
// them: walk formulas of the fused pass (docs/metrics.md, section 3.20).
//
// A C/W/L metric is a continuation vector C over the positions 1..n of a list padded or cut to
// n = `depth` items (cwl-eval's max_n). From it come the weights W_i = prod_{j<i} C_j / S
// (S the sum of those products), the stopping probabilities L_i = prod_{j<i} C_j (1 - C_i), and
// the quantities EU = sum W_i g_i, ETU = sum L_i G_i (G the running gain), EC = sum W_i c_i,
// ETC = sum L_i K_i (K the running cost; every item costs 1), ED = 1 / W_1. A position without a
// truth row (unjudged, or past the list) gains 0, a grade outside [0, 1] is clipped to it (preset="cwl"
// refuses such grades, as cwl-eval does); the residual quantities are the same
// quantities with such positions gaining `max_gain`, minus the values above. U-measure and TBG
// define W directly from the costs, and C as the ratio of successive weights.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rankmeter::core {
namespace cwl {

enum class Measure : int32_t {
  precision,
  rbp,
  sdcg,
  rr,
  ap,
  inst,
  insq,
  bpm,
  bpm_dynamic,
  nerr8,
  nerr9,
  nerr10,
  nerr11,
  umeasure,
  tbg
};

struct Out {
  double eu, etu, ec, etc, ed;
};

// One bound (worse case: unjudged gains 0; best case: unjudged gains max_gain) of one user.
// `g` holds the n gains, `cv`, `w`, `pr` are scratch of n doubles.
inline Out bound(Measure m, const Column& col, const std::vector<double>& g, std::vector<double>& cv,
                 std::vector<double>& w, std::vector<double>& pr) {
  const int64_t n = static_cast<int64_t>(g.size());
  // the cutoff k of P, SDCG, NERR8 and NERR9 (none: n); C_i = 0 from position k on
  const int64_t k = col.cutoff > 0 ? col.cutoff : n;
  const bool own_w = m == Measure::umeasure || m == Measure::tbg;
  std::fill(cv.begin(), cv.end(), 0.0);
  if (own_w) {
    // U-measure (Sakai & Dou): weight max(0, 1 - start_i / L) of the item starting at cost
    // start_i = i - 1, the last position weighted 0. TBG (Smucker & Clarke): weight
    // h 2^(-start_i / h) / ln 2. Both normalised to sum to 1 (a plain running sum).
    double norm = 0.0;
    if (m == Measure::umeasure) {
      for (int64_t i = 0; i + 1 < n; ++i) {
        w[i] = std::max(0.0, 1.0 - static_cast<double>(i) / col.l);
        norm += w[i];
      }
      w[n - 1] = 0.0;
    } else {
      const double h = col.halflife, ln2 = std::log(2.0);
      for (int64_t i = 0; i < n; ++i) {
        w[i] = (h * std::pow(2.0, -static_cast<double>(i) / h)) / ln2;
        norm += w[i];
      }
    }
    for (int64_t i = 0; i < n; ++i) w[i] /= norm;
    for (int64_t i = 0; i + 1 < n; ++i) cv[i] = w[i] > 0.0 ? w[i + 1] / w[i] : 0.0;
  } else {
    switch (m) {
      case Measure::precision:
        for (int64_t i = 0; i < n && i + 1 < k; ++i) cv[i] = 1.0;
        break;
      case Measure::rbp:
        for (int64_t i = 0; i < n; ++i) cv[i] = col.p;
        break;
      case Measure::sdcg: {
        const double l2 = std::log(2.0);
        for (int64_t i = 0; i < n && i + 1 < k; ++i) {
          const double r = static_cast<double>(i + 1);
          cv[i] = (std::log(r + 1.0) / l2) / (std::log(r + 2.0) / l2);
        }
        break;
      }
      case Measure::rr:
        for (int64_t i = 0; i < n && !(g[i] > 0.0); ++i) cv[i] = 1.0;
        break;
      case Measure::ap: {
        // C_i = sum_{j>i} g_j / j / sum_{j>=i} g_j / j (0 when the numerator is not positive)
        double after = 0.0;
        for (int64_t i = n - 1; i >= 0; --i) {
          const double bot = g[i] / static_cast<double>(i + 1) + after;
          cv[i] = (i + 1 < n && after > 0.0) ? after / bot : 0.0;
          after = bot;
        }
        break;
      }
      case Measure::inst: {
        double cg = 0.0;
        for (int64_t i = 0; i < n; ++i) {
          cg += g[i];
          const double r = static_cast<double>(i + 1), ti = col.t - cg;
          const double x = (r + col.t + ti - 1.0) / (r + col.t + ti);
          cv[i] = std::pow(x, 2.0);
        }
        break;
      }
      case Measure::insq:
      case Measure::nerr11:
        for (int64_t i = 0; i < n; ++i) {
          const double r = static_cast<double>(i + 1);
          const double x = std::pow((r + 2.0 * col.t - 1.0) / (r + 2.0 * col.t), 2.0);
          cv[i] = m == Measure::insq ? x : x * (1.0 - g[i]);
        }
        break;
      case Measure::bpm:
      case Measure::bpm_dynamic: {
        // continue while the gain so far is below T (dynamic: T moves by hb (g_i - gain_med)
        // after each item) and the cost so far (i items) is below K (the cutoff; none: no limit)
        const double K = col.cutoff > 0 ? static_cast<double>(col.cutoff) : std::numeric_limits<double>::infinity();
        double cg = 0.0, T = col.t;
        for (int64_t i = 0; i < n; ++i) {
          cg += g[i];
          if (!(cg < T) || !(static_cast<double>(i + 1) < K)) break;
          cv[i] = 1.0;
          if (m == Measure::bpm_dynamic) T = T + col.hb * (g[i] - col.gain_med);
        }
        break;
      }
      case Measure::nerr8:
        for (int64_t i = 0; i < n && i + 1 < k; ++i) cv[i] = 1.0 - g[i];
        break;
      case Measure::nerr9:
        for (int64_t i = 0; i < n && i + 1 < k; ++i) {
          const double r = static_cast<double>(i + 1);
          cv[i] = (r / (r + 1.0)) * (1.0 - g[i]);
        }
        break;
      case Measure::nerr10:
        for (int64_t i = 0; i < n; ++i) cv[i] = col.p * (1.0 - g[i]);
        break;
      default:
        break;
    }
  }
  // pr_i = prod_{j<i} C_j
  pr[0] = 1.0;
  for (int64_t i = 1; i < n; ++i) pr[i] = pr[i - 1] * cv[i - 1];
  if (!own_w) {
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) s += pr[i];
    const double w1 = 1.0 / s;
    w[0] = w1;
    for (int64_t i = 1; i < n; ++i) w[i] = pr[i] * w1;
  }
  Out o{0.0, 0.0, 0.0, 0.0, 0.0};
  double cg = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    cg += g[i];
    const double li = pr[i] * (1.0 - cv[i]);
    o.eu += w[i] * g[i];
    o.etu += li * cg;
    o.ec += w[i];
    o.etc += li * static_cast<double>(i + 1);
  }
  o.ed = 1.0 / w[0];
  return o;
}

inline double pick(const Out& o, int q) {
  switch (q) {
    case 0:
      return o.eu;
    case 1:
      return o.etu;
    case 2:
      return o.ec;
    case 3:
      return o.etc;
    default:
      return o.ed;
  }
}

template <class Grade>
inline double value(Measure m, const detail::Finds& f, const Column& c, Grade grade) {
  thread_local std::vector<double> g, cv, w, pr;
  const int64_t n = std::max<int64_t>(1, static_cast<int64_t>(c.depth));
  g.resize(static_cast<size_t>(n));
  cv.resize(g.size());
  w.resize(g.size());
  pr.resize(g.size());
  const int q = static_cast<int>(c.quantity);
  const bool resid = q >= 5;
  auto fill = [&](double unjudged) {
    std::fill(g.begin(), g.end(), unjudged);
    // a grade outside [0, 1] is clipped (ir_measures' cwl_eval provider clips; preset="cwl" refuses it first)
    for (int64_t j = 0; j < f.n && f.pos[j] <= n; ++j)
      g[static_cast<size_t>(f.pos[j] - 1)] = std::min(std::max(grade(f.ti[j]), 0.0), 1.0);
  };
  fill(0.0);
  const double lo = pick(bound(m, c, g, cv, w, pr), q % 5);
  if (!resid) return lo;
  fill(c.max_gain);
  return pick(bound(m, c, g, cv, w, pr), q % 5) - lo;
}

}  // namespace cwl

namespace formula {
#define RANKMETER_CWL_FORMULA(name, measure)                                      \
  template <class Rel, class Grade>                                               \
  inline double name(const detail::Finds& f, const Column& c, Rel, Grade grade) { \
    return cwl::value(cwl::Measure::measure, f, c, grade);                        \
  }
RANKMETER_CWL_FORMULA(cwl_p, precision)
RANKMETER_CWL_FORMULA(cwl_rbp, rbp)
RANKMETER_CWL_FORMULA(sdcg, sdcg)
RANKMETER_CWL_FORMULA(cwl_rr, rr)
RANKMETER_CWL_FORMULA(cwl_ap, ap)
RANKMETER_CWL_FORMULA(inst, inst)
RANKMETER_CWL_FORMULA(insq, insq)
RANKMETER_CWL_FORMULA(bpm, bpm)
RANKMETER_CWL_FORMULA(bpm_dynamic, bpm_dynamic)
RANKMETER_CWL_FORMULA(nerr8, nerr8)
RANKMETER_CWL_FORMULA(nerr9, nerr9)
RANKMETER_CWL_FORMULA(nerr10, nerr10)
RANKMETER_CWL_FORMULA(nerr11, nerr11)
RANKMETER_CWL_FORMULA(umeasure, umeasure)
RANKMETER_CWL_FORMULA(tbg, tbg)
#undef RANKMETER_CWL_FORMULA
}  // namespace formula

}  // namespace rankmeter::core
