// rankmeter/ranking/cwl.hpp — the C/W/L framework metrics (Moffat et al.) as cwl-eval computes
// them: walk formulas of the fused pass (docs/metrics.md, section 3.21).
//
// A C/W/L metric is a continuation vector C over the positions 1..n of a list padded or cut to
// n = `depth` items (cwl-eval's max_n). From it come the weights W_i = prod_{j<i} C_j / S
// (S the sum of those products), the stopping probabilities L_i = prod_{j<i} C_j (1 - C_i), and
// the quantities EU = sum W_i g_i, ETU = sum L_i G_i (G the running gain), EC = sum W_i c_i,
// ETC = sum L_i K_i (K the running cost), ED = 1 / W_1. A position without a truth row (unjudged,
// or past the list) gains 0, a grade outside [0, 1] is clipped to it (preset="cwl" refuses such
// grades, as cwl-eval does). An item costs what the call's costs give it (Finds::costs, cwl-eval's
// cost file by element type); a position without a cost (none given, or past the list) costs
// `max_cost` (default 1: every item costs 1 without costs). The residual quantities are the same
// quantities with unjudged positions gaining `max_gain` and positions without a cost costing
// `min_cost`, minus the values above. U-measure and TBG define W directly from the running costs,
// and C as the ratio of successive weights; BPM's cutoff K limits the running cost.
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
// `g` holds the n gains, `cs` the n costs (null: every item costs 1), `cv`, `w`, `pr` are scratch
// of n doubles.
inline Out bound(Measure m, const Column& col, const std::vector<double>& g, const double* cs, std::vector<double>& cv,
                 std::vector<double>& w, std::vector<double>& pr) {
  const int64_t n = static_cast<int64_t>(g.size());
  // the cutoff k of P, SDCG, NERR8 and NERR9 (none: n); C_i = 0 from position k on
  const int64_t k = col.cutoff > 0 ? col.cutoff : n;
  const bool own_w = m == Measure::umeasure || m == Measure::tbg;
  std::fill(cv.begin(), cv.end(), 0.0);
  // running costs are plain running sums (cwl-eval's np.cumsum of the costs)
  if (own_w) {
    // U-measure (Sakai & Dou): weight max(0, 1 - start_i / L) of the item starting at cost
    // start_i = i - 1, the last position weighted 0. TBG (Smucker & Clarke): weight
    // h 2^(-start_i / h) / ln 2. Both normalised to sum to 1 (a plain running sum).
    // With costs, start_i is the running cost before item i.
    double norm = 0.0, start = 0.0;
    if (m == Measure::umeasure) {
      for (int64_t i = 0; i + 1 < n; ++i) {
        w[i] = std::max(0.0, 1.0 - (cs ? start : static_cast<double>(i)) / col.l);
        norm += w[i];
        if (cs) start += cs[i];
      }
      w[n - 1] = 0.0;
    } else {
      const double h = col.halflife, ln2 = std::log(2.0);
      for (int64_t i = 0; i < n; ++i) {
        w[i] = (h * std::pow(2.0, -(cs ? start : static_cast<double>(i)) / h)) / ln2;
        norm += w[i];
        if (cs) start += cs[i];
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
          cv[i] = x * x;  // x ** 2.0 in cwl-eval: both correctly rounded
        }
        break;
      }
      case Measure::insq:
      case Measure::nerr11:
        for (int64_t i = 0; i < n; ++i) {
          const double r = static_cast<double>(i + 1);
          const double y = (r + 2.0 * col.t - 1.0) / (r + 2.0 * col.t);
          const double x = y * y;
          cv[i] = m == Measure::insq ? x : x * (1.0 - g[i]);
        }
        break;
      case Measure::bpm:
      case Measure::bpm_dynamic: {
        // continue while the gain so far is below T (dynamic: T moves by hb (g_i - gain_med)
        // after each item) and the cost so far (i items without costs) is below K (the cutoff;
        // none: no limit)
        const double K = col.cutoff > 0 ? static_cast<double>(col.cutoff) : std::numeric_limits<double>::infinity();
        double cg = 0.0, T = col.t, cc = 0.0;
        for (int64_t i = 0; i < n; ++i) {
          cg += g[i];
          cc = cs ? cc + cs[i] : static_cast<double>(i + 1);
          if (!(cg < T) || !(cc < K)) break;
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
  // pr_i = prod_{j<i} C_j; from the first pr_i = 0 on every weight and stopping probability is 0
  // (P@k, SDCG@k, RR, BPM, NERR8/9): the sums stop there, which changes no bit of them
  pr[0] = 1.0;
  int64_t live = n;
  for (int64_t i = 1; i < n; ++i) {
    pr[i] = pr[i - 1] * cv[i - 1];
    if (pr[i] == 0.0 && !own_w) {
      live = i;
      break;
    }
  }
  if (!own_w) {
    double s = 0.0;
    for (int64_t i = 0; i < live; ++i) s += pr[i];
    const double w1 = 1.0 / s;
    w[0] = w1;
    for (int64_t i = 1; i < live; ++i) w[i] = pr[i] * w1;
  }
  Out o{0.0, 0.0, 0.0, 0.0, 0.0};
  double cg = 0.0, cc = 0.0;
  for (int64_t i = 0; i < live; ++i) {
    cg += g[i];
    const double li = pr[i] * (1.0 - cv[i]);
    o.eu += w[i] * g[i];
    o.etu += li * cg;
    if (cs) {
      cc += cs[i];
      o.ec += w[i] * cs[i];
      o.etc += li * cc;
    } else {
      o.ec += w[i];
      o.etc += li * static_cast<double>(i + 1);
    }
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

// Metrics whose C (or W) does not depend on the gains: P, RBP, SDCG, INSQ, U-measure, TBG. Their
// weights W_i, the sums S_i = sum_{j>=i} L_j, EC, ETC and ED are the same for every user, made once
// per thread and column (a small per-thread cache), and a user costs one step per truth item found:
// EU = sum over found items of W_j g_j, ETU = sum of g_j S_j; with unjudged positions at max_gain,
// EU = max_gain EC + sum (g_j - max_gain) W_j and ETU = max_gain ETC + sum (g_j - max_gain) S_j.
inline bool gain_free(Measure m) {
  return m == Measure::precision || m == Measure::rbp || m == Measure::sdcg || m == Measure::insq ||
         m == Measure::umeasure || m == Measure::tbg;
}

struct Fixed {
  Measure m;
  int64_t n, cutoff;
  double p, t, l, halflife;
  std::vector<double> w, after;  // W_i and S_i
  double ec, etc, ed;
};

inline const Fixed& fixed_of(Measure m, const Column& c, int64_t n) {
  thread_local std::vector<Fixed> cache;
  for (const Fixed& x : cache)
    if (x.m == m && x.n == n && x.cutoff == c.cutoff && x.p == c.p && x.t == c.t && x.l == c.l &&
        x.halflife == c.halflife)
      return x;
  if (cache.size() >= 64) cache.clear();
  Fixed x{m, n, c.cutoff, c.p, c.t, c.l, c.halflife, {}, {}, 0.0, 0.0, 0.0};
  std::vector<double> g(static_cast<size_t>(n), 0.0), cv(g.size()), pr(g.size());
  x.w.assign(g.size(), 0.0);
  const Out o = bound(m, c, g, nullptr, cv, x.w, pr);
  x.after.assign(g.size() + 1, 0.0);
  for (int64_t i = n - 1; i >= 0; --i) x.after[i] = x.after[i + 1] + pr[i] * (1.0 - cv[i]);
  x.ec = o.ec;
  x.etc = o.etc;
  x.ed = o.ed;
  cache.push_back(std::move(x));
  return cache.back();
}

template <class Grade>
inline double value(Measure m, const detail::Finds& f, const Column& c, Grade grade) {
  thread_local std::vector<double> g, cv, w, pr, cs;
  const int64_t n = std::max<int64_t>(1, static_cast<int64_t>(c.depth));
  const int q = static_cast<int>(c.quantity);
  const bool resid = q >= 5;
  // every item costing 1: no cost given and the cost of an item without one 1 in both bounds
  const bool unit = !f.costs && c.max_cost == 1.0 && (!resid || c.min_cost == 1.0);
  if (unit && gain_free(m)) {
    const Fixed& x = fixed_of(m, c, n);
    const int qq = q % 5;
    if (qq >= 2) return resid ? 0.0 : (qq == 2 ? x.ec : qq == 3 ? x.etc : x.ed);
    const double* v = qq == 0 ? x.w.data() : x.after.data();
    double lo = 0.0, shift = 0.0;
    int64_t judged = 0;
    for (int64_t j = 0; j < f.n && f.pos[j] <= n; ++j, ++judged) {
      const double gj = std::min(std::max(grade(f.ti[j]), 0.0), 1.0);
      lo += gj * v[f.pos[j] - 1];
      shift += v[f.pos[j] - 1];
    }
    if (!resid) return lo;
    if (judged == n) return 0.0;  // no unjudged position: both bounds are the same sums
    // (max_gain E + sum (g_j - max_gain) v_j) - sum g_j v_j = max_gain (E - sum v_j)
    return c.max_gain * ((qq == 0 ? x.ec : x.etc) - shift);
  }
  g.resize(static_cast<size_t>(n));
  cv.resize(g.size());
  w.resize(g.size());
  pr.resize(g.size());
  auto fill = [&](double unjudged) {
    std::fill(g.begin(), g.end(), unjudged);
    // a grade outside [0, 1] is clipped (ir_measures' cwl_eval provider clips; preset="cwl" refuses it first)
    for (int64_t j = 0; j < f.n && f.pos[j] <= n; ++j)
      g[static_cast<size_t>(f.pos[j] - 1)] = std::min(std::max(grade(f.ti[j]), 0.0), 1.0);
  };
  // the costs of the n positions; a position without one (NaN, or past the list read) costs `none`
  auto fill_costs = [&](double none) {
    cs.resize(g.size());
    const int64_t given = f.costs ? std::min(f.n_read, n) : 0;
    for (int64_t i = 0; i < given; ++i) cs[i] = std::isnan(f.costs[i]) ? none : f.costs[i];
    std::fill(cs.begin() + given, cs.end(), none);
  };
  if (!unit) fill_costs(c.max_cost);
  fill(0.0);
  const double lo = pick(bound(m, c, g, unit ? nullptr : cs.data(), cv, w, pr), q % 5);
  if (!resid) return lo;
  if (!unit) fill_costs(c.min_cost);
  fill(c.max_gain);
  return pick(bound(m, c, g, unit ? nullptr : cs.data(), cv, w, pr), q % 5) - lo;
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
