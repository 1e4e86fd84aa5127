// rankmeter/ranking/columns.hpp — what a column of the fused accuracy pass is, and the
// formula of each metric (docs/architecture.md, "The fused pass").
//
// `Kind` is generated from the metric registry (metrics.def): one enumerator per accuracy
// metric, in the order of its rows. A column is one metric at one cutoff with its options,
// named as in the registry (`Column` fields carry the registry's option names). Every formula
// here is a small inline function of the running sums at the column's cutoff (`Snap`), the
// user's record (`UserRec`) and the column; the walk metrics (bpref, RBP, ERR, judged) are
// functions of the user's finds (`Finds`). The definitions, conventions and origins of the
// formulas are in docs/metrics.md, section 3.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "../policy.hpp"

namespace rankmeter::core {

// X-macro filters: expand `x` only for the accuracy family / for one stage.
#define RANKMETER_IF_ACCURACY_accuracy(...) __VA_ARGS__
#define RANKMETER_IF_ACCURACY_user(...)
#define RANKMETER_IF_ACCURACY_catalog(...)

// One enumerator per accuracy metric of the registry, numbered in row order from 0.
enum class Kind : int32_t {
#define RANKMETER_METRIC(name, family, ...) RANKMETER_IF_ACCURACY_##family(name, )
#include "../metrics.def"
};
// The number of accuracy metrics (one past the last Kind).
constexpr int kNumKinds = 0
#define RANKMETER_METRIC(name, family, ...) RANKMETER_IF_ACCURACY_##family(+1)
#include "../metrics.def"
    ;

// count_like: a user without a relevant item keeps its computed value under empty="one"
// (docs/metrics.md, section 4), per Kind.
constexpr bool kCountLike[kNumKinds] = {
#define RANKMETER_METRIC(name, family, stage, cutoff, count_like, ...) RANKMETER_IF_ACCURACY_##family(count_like != 0, )
#include "../metrics.def"
};
inline bool count_like(Kind kind) { return kCountLike[static_cast<int>(kind)]; }

// The registry's stage of each accuracy metric (metrics.def): where its value comes from.
#define RANKMETER_STAGE_IS_WALK_snapshot false
#define RANKMETER_STAGE_IS_WALK_ideal false
#define RANKMETER_STAGE_IS_WALK_walk true
#define RANKMETER_STAGE_IS_WALK_user false
constexpr bool kWalk[kNumKinds] = {
#define RANKMETER_METRIC(name, family, stage, ...) RANKMETER_IF_ACCURACY_##family(RANKMETER_STAGE_IS_WALK_##stage, )
#include "../metrics.def"
};
// A "walk" column: its own walk over the user's finds (ranking/walk.hpp).
inline bool is_walk(Kind kind) { return kWalk[static_cast<int>(kind)]; }

// Option enums: the enumerator names are the option values of the registry.
// min_listed (ap): min(|R|, items read within k), LensKit's AveragePrecision (docs/metrics.md 3.5).
enum class Denominator : int32_t { relevant = 0, min_relevant_k = 1, hits = 2, k = 3, min_listed = 4 };
enum class Gain : int32_t { linear = 0, exponential = 1, binary = 2 };
enum class Ideal : int32_t { cut = 0, all = 1, k_slots = 2 };
// Items that are not relevant (below min_relevance): their grade still gains, or they gain 0.
enum class BelowMin : int32_t { gain = 0, zero = 1 };
// How a gain meets its discount: times the table of 1 / log_b(j+1) (reciprocal), or divided by
// log_b(j+1) (divide: the arithmetic of ranx and of most numpy code; equal up to one rounding), or
// times 1 / log_b(max(j, 2)) (clip: Jarvelin & Kekalainen's original discount, positions 1 and 2 both
// undiscounted; LensKit's LogRankWeight, docs/metrics.md 3.8).
enum class Discount : int32_t { reciprocal = 0, divide = 1, clip = 2 };
// ncrr's ideal: the reciprocal ranks 1..min(|R|, k) (k), or 1..min(|R|, items read within k) (list: Cornac's).
enum class CrrIdeal : int32_t { k = 0, list = 1 };
// A list shorter than the cutoff: missing positions are not relevant ("pad"), or Evidently's
// way: ranks n+1..k repeat rank n (docs/metrics.md 3.2, 3.5, 3.6).
enum class ShortLists : int32_t { pad = 0, evidently = 1 };
// bpref: a truth row with a negative grade that is not relevant is judged non-relevant, or
// unjudged like an item without a truth row (trec_eval: a negative qrels grade is "in the pool
// but not judged"), docs/metrics.md 3.15.
enum class Negative : int32_t { nonrelevant = 0, unjudged = 1 };
// rbp: gains as they are, or divided by the user's largest truth grade when it exceeds 1
// (trec_eval 10.0 brings gains into [0, 1] that way, docs/metrics.md 3.16).
enum class Scale : int32_t { none = 0, max_grade = 1 };
// iprec: the recall level `at` in relevant items found, round(at |R|) (trec_eval 10.0) or
// floor(at |R| + 0.9) (trec_eval 9.0.x, the version inside pytrec_eval), docs/metrics.md 3.18.4.
enum class Cut : int32_t { round = 0, trec9 = 1 };
// compat: the rank-biased overlap divided by the ideal ranking's overlap with itself, or as it is
// (docs/metrics.md 3.18.20).
enum class Normalize : int32_t { ideal = 0, none = 1 };

// C/W/L metrics (ranking/cwl.hpp): which of cwl-eval's quantities a column reports; res_*: the
// residual (unjudged items at max_gain minus unjudged items at 0), docs/metrics.md 3.21.
enum class Quantity : int32_t { eu = 0, etu, ec, etc, ed, res_eu, res_etu, res_ec, res_etc, res_ed };

constexpr int kMaxVariants = 16;  // distinct (gain, log_base, below_min, discount) in one call

// One column: a metric at a cutoff with its options (fields named as the registry's options).
struct Column {
  Kind kind = Kind::hits;
  int64_t cutoff = 0;  // 0: the whole list
  Denominator denominator = Denominator::relevant;
  Gain gain = Gain::linear;
  Ideal ideal = Ideal::cut;
  double log_base = 2.0;
  double beta = 1.0;       // fbeta
  double p = 0.8;          // rbp: the persistence
  double max_grade = 4.0;  // err
  double mult = 1.0;       // rprec_mult: the multiple of |R|
  double at = 0.0;         // iprec: the recall level in [0, 1]
  // utility: the weights of relevant retrieved, non-relevant retrieved, relevant not retrieved and
  // non-relevant not retrieved items, and the collection size N
  double rel_ret = 1.0, nonrel_ret = -1.0, rel_nonret = 0.0, nonrel_nonret = 0.0, num_docs = 0.0;
  BelowMin below_min = BelowMin::gain;
  Discount discount = Discount::reciprocal;  // dcg, ndcg
  CrrIdeal crr_ideal = CrrIdeal::k;          // ncrr
  ShortLists short_lists = ShortLists::pad;
  Negative negative = Negative::nonrelevant;  // bpref
  Scale scale = Scale::none;                  // rbp
  Cut cut = Cut::round;                       // iprec
  // C/W/L metrics (ranking/cwl.hpp)
  double t = 1.0;                          // inst, insq, bpm, nerr11: the gain wanted
  double hb = 1.0;                         // bpm_dynamic: how T moves with each gain
  double gain_med = 0.5;                   // bpm_dynamic: the gain that leaves T alone
  double l = 1000.0;                       // umeasure: the cost at which the weight reaches 0
  double halflife = 224.0;                 // tbg
  double max_gain = 1.0;                   // residuals: the gain of an unjudged item
  double max_cost = 1.0;                   // the cost of an item without one (the best case: min_cost)
  double min_cost = 1.0;                   // the cost of an item without one in the residuals' best case
  double depth = 1000.0;                   // the positions a C/W/L metric looks at (cwl-eval's max_n)
  Quantity quantity = Quantity::eu;        // which quantity of cwl-eval's output
  Normalize normalize = Normalize::ideal;  // compat

  bool below_zero() const { return below_min == BelowMin::zero; }
  // precision/ap/ar on a list of n < k items, as Evidently's code does: ranks n+1..k repeat
  // rank n (P@j = P@n, R@j = R@n, rel_j = rel_n), so precision@k = hits / n and AP/AR keep
  // adding P@n (R@n) when the last item read is relevant.
  bool short_repeat() const { return short_lists == ShortLists::evidently; }
};

// ---- gains and discounts

// 2^g as Python's 2.0 ** g and numpy's np.power(2.0, g) give it (C's pow, correctly rounded here): exp2 can
// differ from it in the last bit for a fractional g (glibc's exp2(1.523) is 1 ulp above the nearest double).
// An integral g in range is exact either way, and quicker by ldexp.
inline double pow2(double g) {
  if (g == std::floor(g) && std::fabs(g) < 1000.0) return std::ldexp(1.0, static_cast<int>(g));
  return std::pow(2.0, g);
}

inline double gain_of(Gain g, double grade, bool relevant) {
  switch (g) {
    case Gain::linear:
      return grade > 0.0 ? grade : 0.0;
    case Gain::exponential:
      return grade > 0.0 ? pow2(grade) - 1.0 : 0.0;
    case Gain::binary:
      return relevant ? 1.0 : 0.0;
  }
  return 0.0;
}

// The gain of a column: with below_zero, an item that is not relevant gains 0
// (ranx drops grades below rel_lvl from the qrels before computing gains).
inline double gain_of(Gain g, bool below_zero, double grade, bool relevant) {
  return below_zero && !relevant ? 0.0 : gain_of(g, grade, relevant);
}

// log_b(p + 1), and its reciprocal 1 / log_b(p + 1) as trec_eval and the references write it for base 2.
inline double discount_log(double base, int64_t p) {
  if (base == 2.0) return std::log2(static_cast<double>(p) + 1.0);
  return std::log(static_cast<double>(p) + 1.0) / std::log(base);
}
inline double discount(double base, int64_t p) { return 1.0 / discount_log(base, p); }
// The clipped discount ln(b) / ln(max(p, 2)), in LensKit's arithmetic (LogRankWeight).
inline double discount_clip(double base, int64_t p) {
  return std::log(base) / std::log(static_cast<double>(std::max<int64_t>(p, 2)));
}

namespace detail {

// Running sums over the list prefix scanned so far (docs/architecture.md, "snapshots").
struct Snap {
  int64_t hits = 0;                               // relevant items found
  int64_t first = 0;                              // position of the first hit (0: none)
  double ap = 0.0;                                // sum of P@j over hit positions j
  double ar = 0.0;                                // sum of hits@j over hit positions j (integer valued)
  double arhr = 0.0;                              // sum of 1/j over hit positions j
  double cg[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};  // gain kind + 3 * below_zero
  double dcg[kMaxVariants] = {};
};

// What a user contributes besides the snapshots.
struct UserRec {
  int64_t nrel;       // |R|: truth items that are relevant
  int64_t n_eff;      // list items read (after truncation and duplicate removal)
  int64_t hits_at_R;  // hits in the first |R| items read
  bool last_rel;      // the last item read (position n_eff) is relevant (short_lists="evidently")
};

// The finds of one user (docs/architecture.md, "finds"): the list position (1-based) and the
// truth index of every truth item the list holds, in list order, and what the walk metrics read.
struct Finds {
  const int64_t* pos;  // list positions
  const int32_t* ti;   // truth indices
  int64_t n;           // number of finds
  int64_t m;           // truth rows of the user (any grade)
  int64_t nrel;        // |R|
  int64_t n_read;      // list items read
  // C/W/L metrics: the cost of each position read (costs[i]: position i + 1; NaN: no cost given),
  // null when the call has no costs (docs/metrics.md 3.21)
  const double* costs = nullptr;
};

}  // namespace detail

// ---- formulas: the value of one user for one column (docs/metrics.md, section 3)
namespace formula {
using detail::Snap;
using detail::UserRec;

// The cutoff of a column for this user: k, or the list length without a cutoff.
inline int64_t k_of(const Column& c, const UserRec& r) { return c.cutoff > 0 ? c.cutoff : r.n_eff; }

// short_lists="evidently": ranks n+1..k of a list of n < k items each add P@n = H / n
// (AP) or the integer-valued hits@n = H (AR) when the item at rank n is relevant.
inline double short_extra(const Column& c, const UserRec& r, double H, bool per_rank) {
  if (!(c.short_repeat() && r.last_rel && c.cutoff > r.n_eff)) return 0.0;
  const double n = static_cast<double>(r.n_eff);  // >= 1: the last item read is relevant
  return static_cast<double>(c.cutoff - r.n_eff) * (per_rank ? H / n : H);
}

// Snapshot formulas: f(snapshot at the cutoff, user record, column, variant).
// `v` is the gain variant of a dcg/ndcg column, or the cg index (gain + 3 * below_zero).
inline double hits(const Snap& s, const UserRec&, const Column&, int) { return static_cast<double>(s.hits); }

inline double precision(const Snap& s, const UserRec& r, const Column& c, int) {
  const int64_t kk = k_of(c, r);
  const int64_t den = c.short_repeat() ? std::min(kk, r.n_eff) : kk;
  return den > 0 ? static_cast<double>(s.hits) / static_cast<double>(den) : 0.0;
}

inline double recall(const Snap& s, const UserRec& r, const Column& c, int) {
  const double den = c.denominator == Denominator::min_relevant_k ? static_cast<double>(std::min(r.nrel, k_of(c, r)))
                                                                  : static_cast<double>(r.nrel);
  return den > 0 ? static_cast<double>(s.hits) / den : 0.0;
}

inline double fbeta(const Snap& s, const UserRec& r, const Column& c, int) {
  const int64_t kk = k_of(c, r);
  const double H = static_cast<double>(s.hits);
  const double P = kk > 0 ? H / static_cast<double>(kk) : 0.0;
  const double R = r.nrel > 0 ? H / static_cast<double>(r.nrel) : 0.0;
  const double b2 = c.beta * c.beta;
  const double den = b2 * P + R;
  return den > 0 ? (1.0 + b2) * P * R / den : 0.0;
}

inline double ap(const Snap& s, const UserRec& r, const Column& c, int) {
  const int64_t kk = k_of(c, r);
  const double H = static_cast<double>(s.hits);
  double den = static_cast<double>(r.nrel);
  if (c.denominator == Denominator::min_relevant_k) den = static_cast<double>(std::min(r.nrel, kk));
  if (c.denominator == Denominator::hits) den = H;
  if (c.denominator == Denominator::k) den = static_cast<double>(kk);
  if (c.denominator == Denominator::min_listed) den = static_cast<double>(std::min(r.nrel, std::min(kk, r.n_eff)));
  return den > 0 ? (s.ap + short_extra(c, r, H, true)) / den : 0.0;
}

inline double ar(const Snap& s, const UserRec& r, const Column& c, int) {
  const double H = static_cast<double>(s.hits);
  const double dn_rel = static_cast<double>(r.nrel);
  const double den = c.denominator == Denominator::hits ? dn_rel * H : dn_rel * dn_rel;
  return den > 0 ? (s.ar + short_extra(c, r, H, false)) / den : 0.0;
}

inline double cg(const Snap& s, const UserRec&, const Column&, int g) { return s.cg[g]; }

inline double dcg(const Snap& s, const UserRec&, const Column&, int v) { return s.dcg[v]; }

inline double hit_rate(const Snap& s, const UserRec&, const Column&, int) { return s.hits > 0 ? 1.0 : 0.0; }

inline double rr(const Snap& s, const UserRec&, const Column&, int) {
  return s.first > 0 ? 1.0 / static_cast<double>(s.first) : 0.0;
}

inline double arhr(const Snap& s, const UserRec&, const Column&, int) { return s.arhr; }

// n: the items read within the cutoff
inline double read_within(const UserRec& r, const Column& c) {
  return static_cast<double>(std::min(k_of(c, r), r.n_eff));
}

inline double ncrr(const Snap& s, const UserRec& r, const Column& c, int) {
  // normalised cumulative reciprocal rank: arhr over its ideal, the reciprocal ranks 1..m of m hits at the top,
  // m = min(|R|, k) (crr_ideal=list: min(|R|, items read within k)); 0 without a hit
  const int64_t len = c.crr_ideal == CrrIdeal::list ? std::min(k_of(c, r), r.n_eff) : k_of(c, r);
  const int64_t m = std::min(r.nrel, len);
  if (m <= 0 || s.hits == 0) return 0.0;
  double ideal = 0.0;
  for (int64_t j = 1; j <= m; ++j) ideal += 1.0 / static_cast<double>(j);
  return s.arhr / ideal;
}

inline double set_map(const Snap& s, const UserRec& r, const Column& c, int) {
  // trec_eval set_map: set_P x set_recall = hits^2 / (n |R|), 0 when n or |R| is 0
  const double H = static_cast<double>(s.hits), den = read_within(r, c) * static_cast<double>(r.nrel);
  return den > 0 ? H * H / den : 0.0;
}

inline double utility(const Snap& s, const UserRec& r, const Column& c, int) {
  // trec_eval utility: a hits + b (n - hits) + c (|R| - hits) + d (N + hits - n - |R|); a user
  // without an item read scores 0 (trec_eval does not score such a query)
  const double H = static_cast<double>(s.hits), n = read_within(r, c), R = static_cast<double>(r.nrel);
  if (n == 0) return 0.0;
  return c.rel_ret * H + c.nonrel_ret * (n - H) + c.rel_nonret * (R - H) + c.nonrel_nonret * (c.num_docs + H - n - R);
}

// Ideal formula: f(snapshot, the user's ideal DCG for this column, variant).
inline double ndcg(const Snap& s, double idcg, int v) { return idcg > 0 ? s.dcg[v] / idcg : 0.0; }

// User formulas: f(user record).
inline double r_precision(const UserRec& r) {
  return r.nrel > 0 ? static_cast<double>(r.hits_at_R) / static_cast<double>(r.nrel) : 0.0;
}
inline double num_rel(const UserRec& r) { return static_cast<double>(r.nrel); }
inline double num_ret(const UserRec& r) { return static_cast<double>(r.n_eff); }
inline double num_q(const UserRec&) { return 1.0; }

// Walk formulas: f(finds, column, relevant(grade), grade of truth index), over the finds
// at positions <= the cutoff, in list order.
template <class Rel, class Grade>
inline double bpref(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // trec_eval m_bpref.c: every judged (truth) item that is not relevant counts as
  // judged non-relevant; each relevant item found adds 1 - min(nonrel above, R) / min(N, R).
  // negative="unjudged": a non-relevant truth row with a negative grade counts as unjudged.
  const int64_t lim = c.cutoff > 0 ? c.cutoff : std::numeric_limits<int64_t>::max();
  const bool neg_unjudged = c.negative == Negative::unjudged;
  auto unjudged = [&](double g) { return neg_unjudged && g < 0.0 && !relevant(g); };
  int64_t n_unjudged = 0;
  if (neg_unjudged)
    for (int64_t i = 0; i < f.m; ++i) n_unjudged += unjudged(grade(i)) ? 1 : 0;
  const int64_t n_non = f.m - f.nrel - n_unjudged;
  const double den = static_cast<double>(std::min(n_non, f.nrel));
  int64_t nonrel = 0;
  double acc = 0.0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= lim; ++q) {
    const double g = grade(f.ti[q]);
    if (relevant(g))
      acc += nonrel > 0 ? 1.0 - static_cast<double>(std::min(nonrel, f.nrel)) / den : 1.0;
    else if (!unjudged(g))
      ++nonrel;
  }
  return f.nrel > 0 ? acc / static_cast<double>(f.nrel) : 0.0;
}

template <class Rel, class Grade>
inline double rbp(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // (1 - p) sum_j g_j p^(j-1)
  // scale=max_grade: each gain divided by the user's largest truth grade when that exceeds 1.
  const int64_t lim = c.cutoff > 0 ? c.cutoff : std::numeric_limits<int64_t>::max();
  double top = 1.0;
  if (c.scale == Scale::max_grade)
    for (int64_t i = 0; i < f.m; ++i) top = std::max(top, grade(i));
  double acc = 0.0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= lim; ++q) {
    const double g = grade(f.ti[q]);
    double gain = gain_of(c.gain, c.below_zero(), g, relevant(g));
    if (top != 1.0) gain /= top;
    if (gain != 0.0) acc += gain * std::pow(c.p, static_cast<double>(f.pos[q] - 1));
  }
  return (1.0 - c.p) * acc;
}

template <class Rel, class Grade>
inline double err(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // Chapelle et al.: R_j = (2^g_j - 1) / 2^gmax, ERR = sum_j R_j / j prod_{i<j} (1 - R_i).
  const int64_t lim = c.cutoff > 0 ? c.cutoff : std::numeric_limits<int64_t>::max();
  const double scale = pow2(-c.max_grade);
  double acc = 0.0, decay = 1.0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= lim; ++q) {
    const double g = grade(f.ti[q]);
    const double r = gain_of(Gain::exponential, c.below_zero(), g, relevant(g)) * scale;
    acc += r * decay / static_cast<double>(f.pos[q]);
    decay *= 1.0 - r;
  }
  return acc;
}

template <class Rel, class Grade>
inline double judged(const detail::Finds& f, const Column& c, Rel, Grade) {
  // truth rows (any grade) among the first min(k, n) items read
  const int64_t lim = c.cutoff > 0 ? c.cutoff : std::numeric_limits<int64_t>::max();
  int64_t n_judged = 0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= lim; ++q) ++n_judged;
  const int64_t den = std::min(lim, f.n_read);
  return den > 0 ? static_cast<double>(n_judged) / static_cast<double>(den) : 0.0;
}

template <class Rel, class Grade>
inline double num_nonrel_judged(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // trec_eval num_nonrel_judged_ret: truth rows with a grade >= 0 that are not relevant
  // (a negative grade is "in the pool but unjudged"), among the items read up to the cutoff.
  const int64_t lim = c.cutoff > 0 ? c.cutoff : std::numeric_limits<int64_t>::max();
  int64_t n = 0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= lim; ++q) {
    const double g = grade(f.ti[q]);
    n += (g >= 0.0 && !relevant(g)) ? 1 : 0;
  }
  return static_cast<double>(n);
}

template <class Rel, class Grade>
inline double unjudged(const detail::Finds& f, const Column& c, Rel, Grade grade) {
  // trec_eval unj_k: items of the top min(k, n) without a truth row or with a negative grade,
  // divided by k (a short list still divides by k); without a cutoff k is the list length.
  const int64_t lim = c.cutoff > 0 ? c.cutoff : f.n_read;
  const int64_t top = std::min(lim, f.n_read);
  int64_t judged_top = 0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= top; ++q) judged_top += grade(f.ti[q]) >= 0.0 ? 1 : 0;
  return lim > 0 ? static_cast<double>(top - judged_top) / static_cast<double>(lim) : 0.0;
}

template <class Rel, class Grade>
inline double rprec_mult(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // trec_eval Rprec_mult: precision at c = floor(mult |R| + 0.9) items (a list shorter than c
  // counts its missing items as not relevant); 0 when c = 0.
  const auto cut = static_cast<int64_t>(c.mult * static_cast<double>(f.nrel) + 0.9);
  if (cut <= 0) return 0.0;
  int64_t h = 0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= cut; ++q) h += relevant(grade(f.ti[q])) ? 1 : 0;
  return static_cast<double>(h) / static_cast<double>(cut);
}

template <class Rel, class Grade>
inline double iprec(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // trec_eval iprec_at_recall: with the level in hits c = round(at |R|) (10.0, halves away
  // from 0) or floor(at |R| + 0.9) (9.0.x), the largest precision j / pos_j over the j-th
  // relevant items found with j >= c; 0 when fewer than c relevant items are found (or none).
  const double level = c.at * static_cast<double>(f.nrel);
  const int64_t cut = c.cut == Cut::trec9 ? static_cast<int64_t>(level + 0.9) : std::lround(level);
  double best = 0.0;
  int64_t j = 0;
  for (int64_t q = 0; q < f.n; ++q) {
    if (!relevant(grade(f.ti[q]))) continue;
    ++j;
    if (j >= cut) best = std::max(best, static_cast<double>(j) / static_cast<double>(f.pos[q]));
  }
  return j >= cut ? best : 0.0;
}

template <class Rel, class Grade>
inline double iprec_avg(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // trec_eval 11pt_avg: iprec at the levels i / 10, i = 0..10, summed in that order, / 11
  Column at = c;
  double sum = 0.0;
  for (int i = 0; i <= 10; ++i) {
    at.at = static_cast<double>(i) / 10.0;
    sum += iprec(f, at, relevant, grade);
  }
  return sum / 11.0;
}

template <class Rel, class Grade>
inline double rbp_resid(const detail::Finds& f, const Column& c, Rel, Grade grade) {
  // trec_eval rbp_resid: the RBP mass an unjudged item (no truth row, or a negative grade)
  // could still add, (1 - p) sum_j p^(j-1) over the unjudged positions j of the n items read
  // up to the cutoff, plus the mass p^n beyond them; 0 when every item read is judged.
  const int64_t lim = c.cutoff > 0 ? std::min(c.cutoff, f.n_read) : f.n_read;
  double sum = 0.0, cur = 1.0;
  int64_t q = 0, n_unj = 0;
  for (int64_t j = 1; j <= lim; ++j) {
    bool judged = false;
    if (q < f.n && f.pos[q] == j) {
      judged = grade(f.ti[q]) >= 0.0;
      ++q;
    }
    if (!judged) {
      ++n_unj;
      sum += cur;
    }
    cur *= c.p;
  }
  return n_unj > 0 ? cur + (1.0 - c.p) * sum : 0.0;
}

template <class Rel, class Grade>
inline double bin_g(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // trec_eval binG: the j-th relevant item found at position pos adds 1 / log2(2 + pos - j)
  // (pos - j items above it are not relevant); the sum is divided by |R|.
  const int64_t lim = c.cutoff > 0 ? c.cutoff : std::numeric_limits<int64_t>::max();
  double acc = 0.0;
  int64_t j = 0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= lim; ++q) {
    if (!relevant(grade(f.ti[q]))) continue;
    ++j;
    acc += 1.0 / std::log2(static_cast<double>(2 + f.pos[q] - j));
  }
  return f.nrel > 0 ? acc / static_cast<double>(f.nrel) : 0.0;
}

namespace graded {
// trec_eval's graded measures (G, ndcg_rel, Rndcg) with its default gains: a truth row's gain is
// its grade when > 0, else 0; the ideal list is the positive gains of the user's truth rows in
// decreasing order. `ideal_gains` fills a per-thread buffer with it.
template <class Grade>
inline const std::vector<double>& ideal_gains(const detail::Finds& f, Grade grade) {
  thread_local std::vector<double> buf;
  buf.clear();
  for (int64_t i = 0; i < f.m; ++i) {
    const double g = grade(i);
    if (g > 0.0) buf.push_back(g);
  }
  std::sort(buf.begin(), buf.end(), [](double a, double b) { return a > b; });
  return buf;
}
// The gain of the item at list position j (1-based) while walking the positions in order;
// `q` is the index of the next find.
template <class Grade>
inline double gain_at(const detail::Finds& f, Grade grade, int64_t j, int64_t& q) {
  if (q < f.n && f.pos[q] == j) {
    const double g = grade(f.ti[q++]);
    return g > 0.0 ? g : 0.0;
  }
  return 0.0;
}
}  // namespace graded

template <class Rel, class Grade>
inline double trec_g(const detail::Finds& f, const Column&, Rel, Grade grade) {
  // trec_eval G: the item at position j with gain g_j > 0 adds g_j / log2(2 + C_j - S_j), S_j the
  // gain of positions 1..j, C_j the sum over positions 1..j of max(ideal gain, 1) (1 past the
  // ideal list); the sum is divided by the total ideal gain.
  const std::vector<double>& ideal = graded::ideal_gains(f, grade);
  const auto n_ideal = static_cast<int64_t>(ideal.size());
  if (n_ideal == 0) return 0.0;
  double total = 0.0;
  for (const double g : ideal) total += g;
  double got = 0.0, cost = 0.0, acc = 0.0;
  int64_t q = 0;
  for (int64_t j = 1; j <= f.n_read; ++j) {
    const double g = graded::gain_at(f, grade, j, q);
    got += g;
    const double ig = j <= n_ideal ? ideal[j - 1] : 0.0;
    cost += ig >= 1.0 ? ig : 1.0;
    if (g != 0.0) acc += g / std::log2(2.0 + cost - got);
  }
  return acc / total;
}

template <class Rel, class Grade>
inline double ndcg_rel(const detail::Finds& f, const Column&, Rel, Grade grade) {
  // trec_eval ndcg_rel: dcg@j / idcg@j at the position j of each item with a positive gain, and
  // dcg@n / idcg (whole ideal) once for each of the n_ideal - found positive-gain truth rows not
  // found; the sum divided by n_ideal (the number of positive-gain truth rows).
  const std::vector<double>& ideal = graded::ideal_gains(f, grade);
  const auto n_ideal = static_cast<int64_t>(ideal.size());
  if (n_ideal == 0) return 0.0;
  double dcg = 0.0, idcg = 0.0, sum = 0.0;
  int64_t found = 0, q = 0;
  const int64_t last = std::max(f.n_read, n_ideal);
  for (int64_t j = 1; j <= last; ++j) {
    const double disc = std::log2(static_cast<double>(j) + 1.0);
    const double g = j <= f.n_read ? graded::gain_at(f, grade, j, q) : 0.0;
    if (g != 0.0) dcg += g / disc;
    if (j <= n_ideal) idcg += ideal[j - 1] / disc;
    if (g > 0.0) {
      sum += dcg / idcg;
      ++found;
    }
  }
  sum += static_cast<double>(n_ideal - found) * dcg / idcg;
  return sum > 0.0 ? sum / static_cast<double>(n_ideal) : 0.0;
}

template <class Rel, class Grade>
inline double rndcg(const detail::Finds& f, const Column&, Rel relevant, Grade grade) {
  // trec_eval Rndcg: ndcg (dcg / idcg over the same prefix) taken just before each position where
  // the ideal gain changes (a new gain level, or the end of the positive gains) and once more at
  // the end of the list when the list is longer than that; the mean of those values.
  // 0 for a user without a relevant item (and when no such point exists).
  if (f.nrel == 0) return 0.0;
  (void)relevant;
  const std::vector<double>& ideal = graded::ideal_gains(f, grade);
  const auto n_ideal = static_cast<int64_t>(ideal.size());
  auto ideal_at = [&](int64_t i) { return i < n_ideal ? ideal[i] : 0.0; };  // 0-based
  double dcg = 0.0, idcg = 0.0, sum = 0.0;
  int64_t points = 0, q = 0, i = 0;
  double cur = ideal_at(0), old = cur;
  auto point = [&] {
    if (idcg > 0.0) {
      sum += dcg / idcg;
      ++points;
    }
  };
  // positions while the ideal gain before them is positive
  for (; i < f.n_read && cur > 0.0; ++i) {
    const double g = graded::gain_at(f, grade, i + 1, q);
    cur = ideal_at(i);
    if (cur != old) {
      point();
      old = cur;
    }
    const double disc = std::log2(static_cast<double>(i) + 2.0);
    if (g != 0.0) dcg += g / disc;
    if (cur > 0.0) idcg += cur / disc;
  }
  if (i < f.n_read) {  // the rest of the list, past the ideal gains
    for (; i < f.n_read; ++i) {
      const double g = graded::gain_at(f, grade, i + 1, q);
      if (g != 0.0) dcg += g / std::log2(static_cast<double>(i) + 2.0);
    }
    point();
  }
  for (; cur > 0.0; ++i) {  // the rest of the ideal list, past the list
    cur = ideal_at(i);
    if (cur != old) {
      point();
      old = cur;
    }
    if (cur > 0.0) idcg += cur / std::log2(static_cast<double>(i) + 2.0);
  }
  return points > 0 ? sum / static_cast<double>(points) : 0.0;
}

template <class Rel, class Grade>
inline double infap(const detail::Finds& f, const Column&, Rel relevant, Grade grade) {
  // trec_eval infAP (Yilmaz & Aslam, CIKM 2006): items without a truth row are skipped, truth rows
  // with a negative grade are "in the pool but unjudged"; a relevant item at 0-based position
  // j > 0, with r relevant, n judged non-relevant and u unjudged pool items above it, adds
  // 1/(j+1) + j/(j+1) * ((r + n + u) / j) * ((r + eps) / (r + n + 2 eps)), eps = 1e-5; at j = 0
  // it adds 1. The sum is divided by |R|.
  constexpr double eps = 0.00001;
  int64_t rel = 0, non = 0, unj = 0;
  double acc = 0.0;
  for (int64_t q = 0; q < f.n; ++q) {
    const double g = grade(f.ti[q]);
    if (g < 0.0) {
      ++unj;
    } else if (!relevant(g)) {
      ++non;
    } else {
      const auto j = static_cast<double>(f.pos[q] - 1);
      const auto r = static_cast<double>(rel), n = static_cast<double>(non), u = static_cast<double>(unj);
      acc += f.pos[q] == 1 ? 1.0
                           : 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r + n + u) / j) * ((r + eps) / (r + n + 2.0 * eps));
      ++rel;
    }
  }
  return f.nrel > 0 ? acc / static_cast<double>(f.nrel) : 0.0;
}

template <class Rel, class Grade>
inline double compat(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // Compatibility (Clarke, Vtyurina & Smucker 2021), as ir_measures computes it: the ideal ranking I
  // is the relevant truth rows by grade descending, equal grades in truth order; to the depth
  // D = max(n, |I|), RBO = sum_{d<D} p^d |L_{d+1} & I_{d+1}| / (d + 1) / sum_{d<D} p^d, where L_j, I_j
  // are the first j items of the list and of I. normalize=ideal divides by RBO(I, I) when positive.
  // A relevant item at list position l and ideal position i is in every overlap from max(l, i) on.
  thread_local std::vector<int32_t> ideal;
  thread_local std::vector<int64_t> ipos, enter;
  ideal.clear();
  for (int64_t i = 0; i < f.m; ++i)
    if (relevant(grade(i))) ideal.push_back(static_cast<int32_t>(i));
  std::stable_sort(ideal.begin(), ideal.end(), [&](int32_t x, int32_t y) { return grade(x) > grade(y); });
  const auto n_ideal = static_cast<int64_t>(ideal.size());
  const int64_t depth = std::max(f.n_read, n_ideal);
  if (depth == 0) return 0.0;
  ipos.assign(static_cast<size_t>(f.m), 0);
  for (int64_t r = 0; r < n_ideal; ++r) ipos[static_cast<size_t>(ideal[static_cast<size_t>(r)])] = r + 1;
  enter.assign(static_cast<size_t>(depth) + 1, 0);
  for (int64_t q = 0; q < f.n; ++q) {
    int64_t& at = ipos[static_cast<size_t>(f.ti[q])];
    if (at <= 0 || f.pos[q] > f.n_read) continue;
    ++enter[static_cast<size_t>(std::max(f.pos[q], at))];
    at = 0;  // a repeated item overlaps once
  }
  double score = 0.0, best = 0.0, norm = 0.0, w = 1.0;
  int64_t overlap = 0;
  for (int64_t d = 0; d < depth; ++d) {
    overlap += enter[static_cast<size_t>(d) + 1];
    const auto j = static_cast<double>(d + 1);
    score += w * static_cast<double>(overlap) / j;
    best += w * static_cast<double>(std::min(d + 1, n_ideal)) / j;
    norm += w;
    w *= c.p;
  }
  score /= norm;
  if (c.normalize == Normalize::ideal) {
    best /= norm;
    if (best > 0.0) score /= best;
  }
  return score;
}

template <class Rel, class Grade>
inline double pairwise_accuracy(const detail::Finds& f, const Column& c, Rel relevant, Grade grade) {
  // ir_measures' Accuracy: over the top t = min(k, n) items, with r relevant and t - r others, the share
  // of (relevant, other) pairs whose relevant item comes first: 1 - sum over relevant items of the others
  // above it / (r (t - r)). 0 without a relevant item, 1 without another item.
  const int64_t top = c.cutoff > 0 ? std::min(c.cutoff, f.n_read) : f.n_read;
  int64_t rel = 0, above = 0;
  for (int64_t q = 0; q < f.n && f.pos[q] <= top; ++q) {
    if (!relevant(grade(f.ti[q]))) continue;
    above += f.pos[q] - 1 - rel;
    ++rel;
  }
  if (rel == 0) return 0.0;
  const int64_t others = top - rel;
  if (others == 0) return 1.0;
  return 1.0 - static_cast<double>(above) / (static_cast<double>(others) * static_cast<double>(rel));
}

}  // namespace formula

// ---- dispatch, generated from the registry's stage of each metric

// The values of column `c` for the `nb` users of a block: vb[j] from the snapshot at the
// column's cutoff sc[j * stride], the user record brec[j], `arg` (the gain variant of a
// dcg/ndcg column, the cg index of a cg column) and aux[j] (the user's ideal DCG for an
// "ideal" column, its walk value for a "walk" column).
#define RANKMETER_FILL_snapshot(name)                                                        \
  case Kind::name:                                                                           \
    for (int64_t j = 0; j < nb; ++j) vb[j] = formula::name(sc[j * stride], brec[j], c, arg); \
    break;
#define RANKMETER_FILL_ideal(name)                                                       \
  case Kind::name:                                                                       \
    for (int64_t j = 0; j < nb; ++j) vb[j] = formula::name(sc[j * stride], aux[j], arg); \
    break;
#define RANKMETER_FILL_walk(name)                    \
  case Kind::name:                                   \
    for (int64_t j = 0; j < nb; ++j) vb[j] = aux[j]; \
    break;
#define RANKMETER_FILL_user(name)                                    \
  case Kind::name:                                                   \
    for (int64_t j = 0; j < nb; ++j) vb[j] = formula::name(brec[j]); \
    break;
inline void fill_column(const Column& c, int arg, const detail::Snap* sc, int64_t stride, const detail::UserRec* brec,
                        const double* aux, int64_t nb, double* vb) {
  switch (c.kind) {
#define RANKMETER_METRIC(name, family, stage, ...) RANKMETER_IF_ACCURACY_##family(RANKMETER_FILL_##stage(name))
#include "../metrics.def"
  }
}
#undef RANKMETER_FILL_snapshot
#undef RANKMETER_FILL_ideal
#undef RANKMETER_FILL_walk
#undef RANKMETER_FILL_user

}  // namespace rankmeter::core
#include "cwl.hpp"  // the C/W/L walk formulas
namespace rankmeter::core {

// The value of a "walk" column for one user, from its finds.
#define RANKMETER_WALK_snapshot(name)
#define RANKMETER_WALK_ideal(name)
#define RANKMETER_WALK_user(name)
#define RANKMETER_WALK_walk(name) \
  case Kind::name:                \
    return formula::name(f, c, relevant, grade);
template <class Rel, class Grade>
inline double walk_value(const Column& c, const detail::Finds& f, Rel relevant, Grade grade) {
  switch (c.kind) {
#define RANKMETER_METRIC(name, family, stage, ...) RANKMETER_IF_ACCURACY_##family(RANKMETER_WALK_##stage(name))
#include "../metrics.def"
    default:
      break;
  }
  return 0.0;
}
#undef RANKMETER_WALK_snapshot
#undef RANKMETER_WALK_ideal
#undef RANKMETER_WALK_user
#undef RANKMETER_WALK_walk

}  // namespace rankmeter::core
