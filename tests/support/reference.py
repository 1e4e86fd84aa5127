"""Naive pure-Python reference for rankmeter's accuracy metrics.

Written directly from the definitions of docs/metrics.md (§3, and §4-§6 for the
input handling), never from the implementation.  Everything here is deliberately
slow and obvious: plain loops, ``sum``, ``sorted``, ``math.log``.

Per-user functions share one signature::

    f(ranked, truth, k, min_relevance, **options) -> float

* ``ranked``  -- list of item ids, best first (already ordered, truncated to
  ``max_items``, de-duplicated and possibly cut to the read depth, see
  :func:`prepare_list`);
* ``truth``   -- dict ``{item: grade}`` for this user;
* ``k``       -- the cutoff, or ``None`` for "the whole list" (k = len(ranked));
* ``min_relevance`` -- ``None`` (relevant <=> grade > 0) or a threshold
  (relevant <=> grade >= min_relevance).

The per-user functions compute the metric "normally" with the x/0 = 0
convention.  The ``empty=`` policy (what to do with users that have no
relevant item) is applied by :func:`reference_evaluate`.

:func:`reference_evaluate` mirrors ``rankmeter.evaluate`` and returns
``(means, per_user, meta)``.
"""

import math
import struct
from typing import Any

from tests.support import reference_irm as _reference_irm

NAN = float("nan")


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


def safe_div(num, den):
    """x / 0 = 0 (trec_eval's convention)."""
    if den == 0:
        return 0.0
    return num / den


def is_relevant_grade(grade, min_relevance):
    if min_relevance is None:
        return grade > 0
    return grade >= min_relevance


def relevant_set(truth, min_relevance):
    """R: the truth items that are relevant."""
    return {item for item, grade in truth.items() if is_relevant_grade(grade, min_relevance)}


def cutoff(ranked, k):
    """Resolve the cutoff: None -> the whole list."""
    if k is None:
        return len(ranked)
    return k


def hit_flags(ranked, truth, k, min_relevance):
    """h_1 .. h_min(k, n): 1 when l_j is relevant."""
    R = relevant_set(truth, min_relevance)
    kk = cutoff(ranked, k)
    return [1 if item in R else 0 for item in ranked[:kk]]


def gain_of_grade(grade, gain, relevant):
    """Gain of one item.  Gains use the grade itself (negative -> 0),
    whatever min_relevance; binary gain is 1 for relevant items."""
    if gain == "binary":
        return 1.0 if relevant else 0.0
    g = max(float(grade), 0.0)
    if gain == "linear":
        return g
    if gain == "exponential":
        return 2.0**g - 1.0
    raise ValueError(f"unknown gain {gain!r}")


def item_gain(item, truth, gain, min_relevance, below_min="gain"):
    if item not in truth:
        return 0.0  # rel(i) = 0 when not in truth; not relevant either
    grade = truth[item]
    relevant = is_relevant_grade(grade, min_relevance)
    if below_min == "zero" and not relevant:
        return 0.0  # ranx: grades below rel_lvl are dropped from the qrels
    return gain_of_grade(grade, gain, relevant)


# ---------------------------------------------------------------------------
# per-user metrics
# ---------------------------------------------------------------------------


def hits(ranked, truth, k, min_relevance):
    return float(sum(hit_flags(ranked, truth, k, min_relevance)))


def precision(ranked, truth, k, min_relevance, short_lists="pad"):
    # hits@k / k, with k the nominal cutoff even when the list is shorter;
    # no cutoff: hits / n, 0 for an empty list. short_lists="evidently":
    # Evidently's tp_k / min(size, k).
    kk = cutoff(ranked, k)
    if short_lists == "evidently":
        kk = min(kk, len(ranked))
    return safe_div(hits(ranked, truth, k, min_relevance), kk)


def evidently_ranks(ranked, truth, k, min_relevance):
    """Evidently's per-rank table (legacy/metrics/recsys/precision_recall_k.py) for j = 1..k: (tp_j,
    min(size, j), rel_j), where the rows at or above rank j are the first min(n, j) items and rel_j is the
    relevance of the last of them (0 when there is none)."""
    rel = relevant_set(truth, min_relevance)
    n = len(ranked)
    out = []
    for j in range(1, cutoff(ranked, k) + 1):
        rows = ranked[: min(n, j)]
        tp = sum(1 for i in rows if i in rel)
        out.append((tp, min(n, j), 1 if rows and rows[-1] in rel else 0))
    return out


def recall(ranked, truth, k, min_relevance, denominator="relevant"):
    n_rel = len(relevant_set(truth, min_relevance))
    h = hits(ranked, truth, k, min_relevance)
    if denominator == "relevant":
        return safe_div(h, n_rel)
    if denominator == "min_relevant_k":
        return safe_div(h, min(n_rel, cutoff(ranked, k)))
    raise ValueError(f"unknown recall denominator {denominator!r}")


def fbeta(ranked, truth, k, min_relevance, beta=1.0):
    p = precision(ranked, truth, k, min_relevance)
    r = recall(ranked, truth, k, min_relevance)
    if p == 0 and r == 0:
        return 0.0
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r)


def ap(ranked, truth, k, min_relevance, denominator="relevant", short_lists="pad"):
    flags = hit_flags(ranked, truth, k, min_relevance)
    total = 0.0
    hits_so_far = 0
    for j, h in enumerate(flags, start=1):
        if h:
            hits_so_far += 1
            total += hits_so_far / j  # P@j * h_j
    if short_lists == "evidently":  # sum over j <= k of precision_j * rel_j, Evidently's table
        total = sum(safe_div(tp, size) * r for tp, size, r in evidently_ranks(ranked, truth, k, min_relevance))
    n_rel = len(relevant_set(truth, min_relevance))
    kk = cutoff(ranked, k)
    if denominator == "relevant":
        den = n_rel
    elif denominator == "min_relevant_k":
        den = min(n_rel, kk)
    elif denominator == "hits":
        den = hits_so_far
    elif denominator == "k":
        den = kk
    elif denominator == "min_listed":  # min(|R|, the items listed within k): LensKit's AveragePrecision
        den = min(n_rel, kk, len(ranked))
    else:
        raise ValueError(f"unknown ap denominator {denominator!r}")
    return safe_div(total, den)


def ar(ranked, truth, k, min_relevance, denominator="relevant", short_lists="pad"):
    n_rel = len(relevant_set(truth, min_relevance))
    flags = hit_flags(ranked, truth, k, min_relevance)
    total = 0.0
    hits_so_far = 0
    for h in flags:
        if h:
            hits_so_far += 1
            total += safe_div(hits_so_far, n_rel)  # R@j * h_j
    if short_lists == "evidently":  # sum over j <= k of recall_j * rel_j, Evidently's table
        total = sum(safe_div(tp, n_rel) * r for tp, _, r in evidently_ranks(ranked, truth, k, min_relevance))
    if denominator == "relevant":
        return safe_div(total, n_rel)
    if denominator == "hits":
        return safe_div(total, hits_so_far)
    raise ValueError(f"unknown ar denominator {denominator!r}")


def cg(ranked, truth, k, min_relevance, gain="linear", below_min="gain"):
    kk = cutoff(ranked, k)
    return sum(item_gain(item, truth, gain, min_relevance, below_min) for item in ranked[:kk])


def dcg(ranked, truth, k, min_relevance, gain="linear", log_base=2.0, below_min="gain", discount="reciprocal"):
    # discount= changes only the rounding (times 1 / log_b(j + 1) or divided by log_b(j + 1)): the reference
    # divides, and is compared within a relative tolerance; tests/evaluation/test_discount.py checks the bits
    # discount="clip": log_b(max(j, 2)), positions 1 and 2 undiscounted (Jarvelin & Kekalainen, LensKit)
    kk = cutoff(ranked, k)
    total = 0.0
    for j, item in enumerate(ranked[:kk], start=1):
        total += item_gain(item, truth, gain, min_relevance, below_min) / _log_discount(j, log_base, discount)
    return total


def _log_discount(j, log_base=2.0, discount="reciprocal"):
    """log_b(j + 1), or log_b(max(j, 2)) under discount="clip" (docs/metrics.md 3.8)."""
    return math.log(max(j, 2) if discount == "clip" else j + 1) / math.log(log_base)


def ideal_dcg(ranked, truth, k, min_relevance, gain="linear", ideal="cut", below_min="gain", discount="reciprocal"):
    gains = sorted(
        (item_gain(item, truth, gain, min_relevance, below_min) for item in truth),
        reverse=True,
    )
    if ideal == "k_slots":
        # k slots of the largest gain; k absent = the whole list, k = n (docs/metrics.md, ndcg)
        g_max = max(gains) if gains else 0.0
        return g_max * sum(1.0 / _log_discount(j, 2.0, discount) for j in range(1, cutoff(ranked, k) + 1))
    if ideal == "cut":
        # docs/metrics.md, ndcg: cut at k; without a cutoff nothing is cut (every
        # truth gain), so a short list never scores higher for being short.
        if k is not None:
            gains = gains[:k]
    elif ideal != "all":
        raise ValueError(f"unknown ideal {ideal!r}")
    return sum(g / _log_discount(j, 2.0, discount) for j, g in enumerate(gains, start=1))


def gdeval_printed(value):
    """gdeval prints a value with printf("%.5f"); ir_measures reads that number back."""
    return float(f"{value:.5f}")


def ndcg(
    ranked,
    truth,
    k,
    min_relevance,
    gain="linear",
    ideal="cut",
    below_min="gain",
    rounding="none",
    missing_recs="inherit",
    discount="reciprocal",
):
    if rounding == "gdeval":
        return gdeval_printed(ndcg(ranked, truth, k, min_relevance, gain, ideal, below_min))
    # NDCG always uses log2 (log_base never changes NDCG). missing_recs decides which users are evaluated
    # (reference_evaluate), not the value of one user.
    d = dcg(ranked, truth, k, min_relevance, gain=gain, log_base=2.0, below_min=below_min, discount=discount)
    i = ideal_dcg(ranked, truth, k, min_relevance, gain=gain, ideal=ideal, below_min=below_min, discount=discount)
    return safe_div(d, i)


def hit_rate(ranked, truth, k, min_relevance):
    return 1.0 if hits(ranked, truth, k, min_relevance) >= 1 else 0.0


def rr(ranked, truth, k, min_relevance):
    for j, h in enumerate(hit_flags(ranked, truth, k, min_relevance), start=1):
        if h:
            return 1.0 / j
    return 0.0


def arhr(ranked, truth, k, min_relevance):
    return sum(h / j for j, h in enumerate(hit_flags(ranked, truth, k, min_relevance), start=1))


def ncrr(ranked, truth, k, min_relevance, crr_ideal="k"):
    """arhr over the arhr of m hits at ranks 1..m, m = min(|R|, k) (crr_ideal="list": min(|R|, items read
    within k)); k None: the whole list."""
    flags = hit_flags(ranked, truth, k, min_relevance)
    if not any(flags):
        return 0.0
    kk = cutoff(ranked, k)
    length = min(kk, len(ranked)) if crr_ideal == "list" else kk
    m = min(len(relevant_set(truth, min_relevance)), length)
    if m <= 0:
        return 0.0
    ideal = 0.0
    for j in range(1, m + 1):
        ideal += 1.0 / j
    crr = 0.0
    for j, h in enumerate(flags, start=1):
        if h:
            crr += 1.0 / j
    return crr / ideal


def num_rel(ranked, truth, k, min_relevance):
    """|R|: the user's relevant truth items (no list item is read)."""
    return float(len(relevant_set(truth, min_relevance)))


def num_ret(ranked, truth, k, min_relevance):
    """trec_eval's num_ret: the list items read (after max_items and duplicate removal)."""
    return float(len(ranked))


def num_q(ranked, truth, k, min_relevance):
    """trec_eval's num_q: 1 for every evaluated user (its `all` line is the number of queries)."""
    return 1.0


def r_precision(ranked, truth, k, min_relevance):
    # hits@|R| / |R|; the metric takes no cutoff of its own.
    n_rel = len(relevant_set(truth, min_relevance))
    return safe_div(hits(ranked, truth, n_rel, min_relevance), n_rel)


def bpref(ranked, truth, k, min_relevance, negative="nonrelevant"):
    # Buckley & Voorhees (SIGIR 2004) as trec_eval's m_bpref.c computes it: the
    # judged non-relevant items are the truth items that are not relevant (N of
    # them); a relevant item r in the top k adds 1 - min(n_r, R) / min(N, R), n_r
    # being the judged non-relevant items above r (1 when n_r = 0); / R.
    # negative="unjudged": a truth item that is not relevant and has a negative
    # grade is unjudged (trec_eval's form_res_rels.c: "in the pool but unjudged"),
    # like an item without a truth row: in neither N nor n_r.
    R = relevant_set(truth, min_relevance)
    judged = {item for item, grade in truth.items() if item in R or not (negative == "unjudged" and grade < 0)}
    n_rel = len(R)
    n_non = len(judged) - n_rel
    above = 0
    total = 0.0
    for item in ranked[: cutoff(ranked, k)]:
        if item not in judged:
            continue  # unjudged: ignored
        if item in R:
            if above == 0:
                total += 1.0
            else:
                total += 1.0 - min(above, n_rel) / min(n_non, n_rel)
        else:
            above += 1
    return safe_div(total, n_rel)


def rbp(ranked, truth, k, min_relevance, p=0.8, gain="binary", below_min="gain", scale="none"):
    # Moffat & Zobel (TOIS 2008): (1 - p) * sum_j g_j p^(j - 1) over the top k.
    # scale="max_grade": every gain / the user's largest truth grade when that is > 1 (trec_eval).
    top = max([1.0, *truth.values()]) if scale == "max_grade" else 1.0
    total = 0.0
    for j, item in enumerate(ranked[: cutoff(ranked, k)], start=1):
        total += item_gain(item, truth, gain, min_relevance, below_min) / top * p ** (j - 1)
    return (1 - p) * total


def err(ranked, truth, k, min_relevance, max_grade=4.0, rounding="none"):
    # Chapelle, Metzler, Zhang & Grinspan (CIKM 2009): the user stops at rank j
    # with probability R_j = (2^g - 1) / 2^max_grade (gdeval: max grade 4).
    if rounding == "gdeval":
        return gdeval_printed(err(ranked, truth, k, min_relevance, max_grade))
    total = 0.0
    still = 1.0
    for j, item in enumerate(ranked[: cutoff(ranked, k)], start=1):
        r = item_gain(item, truth, "exponential", min_relevance) / 2.0**max_grade
        total += still * r / j
        still *= 1 - r
    return total


def judged(ranked, truth, k, min_relevance):
    # ir_measures' Judged@k: truth rows (any grade) in the top k / min(k, n).
    top = ranked[: cutoff(ranked, k)]
    return safe_div(sum(1 for item in top if item in truth), len(top))


def num_nonrel_judged(ranked, truth, k, min_relevance):
    # trec_eval's num_nonrel_judged_ret: truth rows with a grade >= 0 (a negative grade is "in
    # the pool but unjudged") that are not relevant, among the top k.
    top = ranked[: cutoff(ranked, k)]
    return float(
        sum(
            1
            for item in top
            if item in truth and truth[item] >= 0 and not is_relevant_grade(truth[item], min_relevance)
        )
    )


def unjudged(ranked, truth, k, min_relevance):
    # trec_eval's unj_k: items of the top k without a truth row or with a negative grade, / k
    # (not / n: a short list still divides by k); without a cutoff, / n.
    kk = cutoff(ranked, k)
    top = ranked[:kk]
    return safe_div(sum(1 for item in top if item not in truth or truth[item] < 0), kk)


def rprec_mult(ranked, truth, k, min_relevance, mult=1.0):
    # trec_eval's Rprec_mult: precision at c = int(mult * |R| + 0.9) items, 0 when c = 0.
    n_rel = len(relevant_set(truth, min_relevance))
    c = int(mult * n_rel + 0.9)
    return safe_div(hits(ranked, truth, c, min_relevance), c) if c > 0 else 0.0


def iprec(ranked, truth, k, min_relevance, at=0.0, cut="round"):
    # trec_eval 10.0's iprec_at_recall: interpolated precision, the largest precision at or
    # after the point where round(at * |R|) relevant items (halves away from zero) are found;
    # cut="trec9": trec_eval 9.0.x's point, int(at * |R| + 0.9) relevant items.
    n_rel = len(relevant_set(truth, min_relevance))
    need = int(at * n_rel + 0.9) if cut == "trec9" else math.floor(at * n_rel + 0.5)
    flags = hit_flags(ranked, truth, None, min_relevance)
    precisions = []
    found = 0
    for j, h in enumerate(flags, start=1):
        found += h
        if h and found >= need:
            precisions.append(found / j)
    if found < need:
        return 0.0
    return max(precisions, default=0.0)


def iprec_avg(ranked, truth, k, min_relevance, cut="round"):
    # trec_eval's 11pt_avg: the mean of iprec at the recall levels 0.0, 0.1, ..., 1.0
    return sum(iprec(ranked, truth, None, min_relevance, at=i / 10, cut=cut) for i in range(11)) / 11


def set_map(ranked, truth, k, min_relevance):
    # trec_eval's set_map: set_P x set_recall over the items read within k, hits^2 / (n |R|)
    n = min(cutoff(ranked, k), len(ranked))
    n_rel = len(relevant_set(truth, min_relevance))
    h = hits(ranked, truth, k, min_relevance)
    return safe_div(h * h, n * n_rel)


def utility(
    ranked, truth, k, min_relevance, rel_ret=1.0, nonrel_ret=-1.0, rel_nonret=0.0, nonrel_nonret=0.0, num_docs=0.0
):
    # trec_eval's utility with its four coefficients and collection size (-N); 0 for an empty list
    n = min(cutoff(ranked, k), len(ranked))
    if n == 0:
        return 0.0
    n_rel = len(relevant_set(truth, min_relevance))
    h = hits(ranked, truth, k, min_relevance)
    return rel_ret * h + nonrel_ret * (n - h) + rel_nonret * (n_rel - h) + nonrel_nonret * (num_docs + h - n - n_rel)


def rbp_resid(ranked, truth, k, min_relevance, p=0.9):
    # trec_eval's rbp_resid: what RBP could still gain were every unjudged item of the top k
    # (no truth row, or a negative grade) relevant, plus the mass p^n past the list; 0 when
    # every item is judged.
    top = ranked[: cutoff(ranked, k)]
    unj = [j for j, item in enumerate(top) if item not in truth or truth[item] < 0]
    if not unj:
        return 0.0
    return p ** len(top) + (1 - p) * sum(p**j for j in unj)


def bin_g(ranked, truth, k, min_relevance):
    # trec_eval's binG: each relevant item found adds 1 / log2(2 + the items above it that are
    # not relevant); / |R|.
    R = relevant_set(truth, min_relevance)
    total, found = 0.0, 0
    for j, item in enumerate(ranked[: cutoff(ranked, k)], start=1):
        if item in R:
            found += 1
            total += 1.0 / math.log2(2 + j - found)
    return safe_div(total, len(R))


def _trec_gains(ranked, truth):
    """trec_eval's default gains: a truth row's grade when > 0, else 0 (also for items without a
    row); -> (gain of each list item, the positive gains of the truth rows in decreasing order)."""
    got = [max(truth.get(item, 0), 0) for item in ranked]
    ideal = sorted((g for g in truth.values() if g > 0), reverse=True)
    return got, ideal


def trec_g(ranked, truth, k, min_relevance):
    # trec_eval's G: the item at position j with gain g_j adds g_j / log2(2 + C_j - S_j), S_j the
    # gain of positions 1..j, C_j the sum of max(ideal gain, 1) over positions 1..j; / the ideal total.
    got, ideal = _trec_gains(ranked, truth)
    if not ideal:
        return 0.0
    total = 0.0
    for j, g in enumerate(got, start=1):
        if g:
            costs = [max(ideal[i] if i < len(ideal) else 0.0, 1.0) for i in range(j)]
            total += g / math.log2(2 + sum(costs) - sum(got[:j]))
    return total / sum(ideal)


def _dcg_of(gains):
    return sum(g / math.log2(j + 1) for j, g in enumerate(gains, start=1))


def ndcg_rel(ranked, truth, k, min_relevance):
    # trec_eval's ndcg_rel: ndcg@j at the position j of each item with a positive gain, and the
    # whole list's dcg / the whole ideal dcg for each positive-gain truth row not found; mean over
    # the positive-gain truth rows.
    got, ideal = _trec_gains(ranked, truth)
    if not ideal:
        return 0.0
    values = [_dcg_of(got[:j]) / _dcg_of(ideal[:j]) for j, g in enumerate(got, start=1) if g > 0]
    values += [_dcg_of(got) / _dcg_of(ideal)] * (len(ideal) - len(values))
    total = sum(values)
    return total / len(ideal) if total > 0 else 0.0


def rndcg(ranked, truth, k, min_relevance):
    # trec_eval's Rndcg: ndcg over the first c positions (dcg and ideal dcg of the same prefix),
    # at every c where the ideal gain of position c + 1 differs from that of position c (the end of
    # a gain level, the end of the positive gains) and at c = n when the list runs past the end of
    # the positive gains plus one; the mean of those, 0 without a relevant item.
    if not relevant_set(truth, min_relevance):
        return 0.0
    got, ideal = _trec_gains(ranked, truth)
    n, m = len(got), len(ideal)

    def ideal_at(c):  # 1-based, 0 past the positive gains
        return ideal[c - 1] if c <= m else 0.0

    cuts = [c for c in range(1, m + 1) if ideal_at(c + 1) != ideal_at(c)]
    if n > m + 1:
        cuts.append(n)
    values = [_dcg_of(got[:c]) / _dcg_of(ideal[:c]) for c in sorted(cuts) if _dcg_of(ideal[:c]) > 0]
    return sum(values) / len(values) if values else 0.0


def infap(ranked, truth, k, min_relevance):
    # trec_eval's infAP (Yilmaz & Aslam, CIKM 2006): items without a truth row are skipped and
    # negative grades are in the pool but unjudged; a relevant item at position i > 1 (r relevant,
    # n judged non-relevant, u unjudged pool items above it) adds
    # 1/i + ((i-1)/i) * ((r + n + u) / (i-1)) * ((r + eps) / (r + n + 2 eps)), at i = 1 it adds 1.
    eps = 0.00001
    r = n = u = 0
    total = 0.0
    for i, item in enumerate(ranked, start=1):
        if item not in truth:
            continue
        g = truth[item]
        if g < 0:
            u += 1
        elif not is_relevant_grade(g, min_relevance):
            n += 1
        else:
            if i == 1:
                total += 1.0
            else:
                total += 1 / i + ((i - 1) / i) * ((r + n + u) / (i - 1)) * ((r + eps) / (r + n + 2 * eps))
            r += 1
    return safe_div(total, len(relevant_set(truth, min_relevance)))


# trec_eval measures `rankmeter eval` computes from other values (docs/metrics.md 8.2)


def trec_set_map(ranked, truth, min_relevance):
    # hits^2 / (n |R|)
    h = hits(ranked, truth, None, min_relevance)
    return safe_div(h * h, len(ranked) * len(relevant_set(truth, min_relevance)))


def trec_utility(ranked, truth, min_relevance, coeffs=(1.0, -1.0, 0.0, 0.0), num_docs=0):
    # a (relevant retrieved) + b (non-relevant retrieved) + c (relevant missed) + d (the rest of a
    # collection of num_docs documents); a query without retrieved documents is not scored (0)
    if not ranked:
        return 0.0
    h, n, r = hits(ranked, truth, None, min_relevance), len(ranked), len(relevant_set(truth, min_relevance))
    a, b, c, d = coeffs
    return a * h + b * (n - h) + c * (r - h) + d * (num_docs + h - n - r)


TREC_11PT_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def trec_11pt_avg(ranked, truth, min_relevance, levels=TREC_11PT_LEVELS):
    # the mean of the interpolated precisions at the levels
    return sum(iprec(ranked, truth, None, min_relevance, at=x) for x in levels) / len(levels)


def trec_geometric_mean(values):
    # exp of the mean log, each value floored at 0.00001
    return math.exp(sum(math.log(max(v, 0.00001)) for v in values) / len(values))


def trec_relstring(ranked, truth, depth=10):
    # the grades of the first `depth` items: 0-9, '>' above 9, '.' negative, '-' without a truth row
    out = ""
    for item in ranked[:depth]:
        if item not in truth:
            out += "-"
        elif truth[item] < 0:
            out += "."
        elif truth[item] > 9:
            out += ">"
        else:
            out += str(int(truth[item]))
    return out


# ---------------------------------------------------------------------------
# metric strings
# ---------------------------------------------------------------------------


# name -> (function, {option: (default, parser)})
def _float(v):
    return float(v)


def _choice(*allowed):
    def parse(v):
        if v not in allowed:
            raise ValueError(f"option value {v!r} not in {allowed!r}")
        return v

    return parse


# name -> (per-user function, {option: (default, parser of its text)})
METRICS: dict[str, tuple[Any, dict[str, Any]]] = {
    "hits": (hits, {}),
    "precision": (precision, {"short_lists": ("pad", _choice("pad", "evidently"))}),
    "recall": (recall, {"denominator": ("relevant", _choice("relevant", "min_relevant_k"))}),
    "fbeta": (fbeta, {"beta": (1.0, _float)}),
    "ap": (
        ap,
        {
            "denominator": ("relevant", _choice("relevant", "min_relevant_k", "hits", "k", "min_listed")),
            "short_lists": ("pad", _choice("pad", "evidently")),
        },
    ),
    "ar": (
        ar,
        {"denominator": ("relevant", _choice("relevant", "hits")), "short_lists": ("pad", _choice("pad", "evidently"))},
    ),
    "cg": (
        cg,
        {
            "gain": ("linear", _choice("linear", "exponential", "binary")),
            "below_min": ("gain", _choice("gain", "zero")),
        },
    ),
    "dcg": (
        dcg,
        {
            "gain": ("linear", _choice("linear", "exponential", "binary")),
            "log_base": (2.0, _float),
            "below_min": ("gain", _choice("gain", "zero")),
            "discount": ("reciprocal", _choice("reciprocal", "divide", "clip")),
        },
    ),
    "ndcg": (
        ndcg,
        {
            "gain": ("linear", _choice("linear", "exponential", "binary")),
            "ideal": ("cut", _choice("cut", "all", "k_slots")),
            "below_min": ("gain", _choice("gain", "zero")),
            "discount": ("reciprocal", _choice("reciprocal", "divide", "clip")),
            "rounding": ("none", _choice("none", "gdeval")),
            "missing_recs": ("inherit", _choice("inherit", "zero")),
        },
    ),
    "bpref": (bpref, {"negative": ("nonrelevant", _choice("nonrelevant", "unjudged"))}),
    "rbp": (
        rbp,
        {
            "p": (0.8, _float),
            "gain": ("binary", _choice("linear", "exponential", "binary")),
            "below_min": ("gain", _choice("gain", "zero")),
            "scale": ("none", _choice("none", "max_grade")),
        },
    ),
    "err": (err, {"max_grade": (4.0, _float), "rounding": ("none", _choice("none", "gdeval"))}),
    "judged": (judged, {}),
    "num_nonrel_judged": (num_nonrel_judged, {}),
    "unjudged": (unjudged, {}),
    "rprec_mult": (rprec_mult, {"mult": (1.0, _float)}),
    "iprec": (iprec, {"at": (0.0, _float), "cut": ("round", _choice("round", "trec9"))}),
    "rbp_resid": (rbp_resid, {"p": (0.9, _float)}),
    "bin_g": (bin_g, {}),
    "trec_g": (trec_g, {}),
    "ndcg_rel": (ndcg_rel, {}),
    "rndcg": (rndcg, {}),
    "infap": (infap, {}),
    "iprec_avg": (iprec_avg, {"cut": ("round", _choice("round", "trec9"))}),
    "set_map": (set_map, {}),
    "utility": (
        utility,
        {
            "rel_ret": (1.0, _float),
            "nonrel_ret": (-1.0, _float),
            "rel_nonret": (0.0, _float),
            "nonrel_nonret": (0.0, _float),
            "num_docs": (0.0, _float),
        },
    ),
    "hit_rate": (hit_rate, {}),
    "rr": (rr, {}),
    "arhr": (arhr, {}),
    "ncrr": (ncrr, {"crr_ideal": ("k", _choice("k", "list"))}),
    "r_precision": (r_precision, {}),
    "num_rel": (num_rel, {}),
    "num_ret": (num_ret, {}),
    "num_q": (num_q, {}),
}
# ir_measures' compat and accuracy providers: their own file
METRICS.update(_reference_irm.METRICS)

ALIASES = {
    "map": ("ap", {}),
    "mar": ("ar", {}),
    "mrr": ("rr", {}),
    "f1": ("fbeta", {"beta": 1.0}),
    "success": ("hit_rate", {}),
}

# Metrics computed normally under empty="one" (count-like ones).
# judged@k is defined by the truth rows whatever their relevance: empty="zero"/"one" keep its value.
COUNT_LIKE = {
    "hits",
    "cg",
    "dcg",
    "judged",
    "num_rel",
    "num_ret",
    "num_q",
    "num_nonrel_judged",
    "unjudged",
    "rbp_resid",
    "utility",
}


# The C/W/L framework metrics (cwl-eval's), in a module of their own.
from tests.support import reference_cwl as _reference_cwl  # noqa: E402

METRICS.update(_reference_cwl.METRICS)
COUNT_LIKE |= _reference_cwl.COUNT_LIKE


def parse_metric(text):
    """'ap(denominator=hits)@10' -> ('ap', {'denominator': 'hits'}, 10).

    Returns (canonical name, full options dict with defaults, k or None)."""
    s = text.strip()
    k = None
    if "@" in s:
        s, k_text = s.rsplit("@", 1)
        k = int(k_text)
        if k < 1:
            raise ValueError(f"k must be >= 1: {text!r}")
    opts_text = None
    if "(" in s:
        if not s.endswith(")"):
            raise ValueError(f"bad metric string {text!r}")
        s, opts_text = s[:-1].split("(", 1)
    name = s.strip()
    fixed: dict = {}
    if name in ALIASES:
        name, fixed = ALIASES[name]
    if name not in METRICS:
        raise ValueError(f"unknown metric {text!r}")
    _func, spec = METRICS[name]
    options = {opt: default for opt, (default, _) in spec.items()}
    options.update(fixed)
    if opts_text is not None and opts_text.strip():
        for part in opts_text.split(","):
            key, value = part.split("=", 1)
            key, value = key.strip(), value.strip()
            if key not in spec:
                raise ValueError(f"unknown option {key!r} for {text!r}")
            options[key] = spec[key][1](value)
    return name, options, k


def metric_value(text, ranked, truth, min_relevance):
    name, options, k = parse_metric(text)
    func = METRICS[name][0]
    return func(ranked, truth, k, min_relevance, **options)


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------


def normalize_truth(truth, only=None):
    """-> list of (user, {item: grade}) in truth order; with ``only`` (a set of users), the
    other users are left out before their rows are read (missing="skip" never reads them)."""
    if isinstance(truth, dict):
        pairs = list(truth.items())
    elif isinstance(truth, (list, tuple)):
        pairs = list(enumerate(truth))  # positional users 0..n-1
    else:
        raise TypeError(f"reference: unsupported truth form {type(truth)!r}")
    out = []
    for user, items in pairs:
        if only is not None and user not in only:
            continue
        if isinstance(items, dict):
            grades = {item: float(g) for item, g in items.items()}
        else:
            grades = {}
            for item in items:
                if item in grades:
                    raise ValueError(f"duplicate truth item for user {user!r}")
                grades[item] = 1.0
        out.append((user, grades))
    return out


def str_desc_key(item):
    return str(item)


def _as_float32(x):
    """The C float nearest to x (round to nearest even), as a Python float; beyond float32's range, +-inf."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def order_scored(scores, ties):
    """{item: score} -> items by score descending, ties per `ties`."""
    items = list(scores.items())  # insertion order = input order
    if ties == "item":
        # the default: equal scores by item id ascending (ints numerically, strings by code point;
        # mixed kinds: ints first, then the others by their text)
        def natural(p):
            v = p[0]
            return (0, v, "") if isinstance(v, int) else (1, 0, str(v))

        return [it for it, _ in sorted(sorted(items, key=natural), key=lambda p: -p[1])]
    if ties == "file":
        # not ranked: the items in the order given, whatever their scores
        return [it for it, _ in items]
    if ties == "input":
        # stable sort: equal scores keep input order
        return [it for it, _ in sorted(items, key=lambda p: -p[1])]
    if ties == "trec":
        # equal scores: item id descending, compared as strings
        by_id = sorted(items, key=lambda p: str(p[0]), reverse=True)
        return [it for it, _ in sorted(by_id, key=lambda p: -p[1])]
    if ties == "trec9":
        # trec_eval 9.0.x: the scores stored as C floats (float32, beyond its range +-inf), then as "trec"
        by_id = sorted(items, key=lambda p: str(p[0]), reverse=True)
        return [it for it, _ in sorted(by_id, key=lambda p: -_as_float32(p[1]))]
    if ties == "item_desc":
        by_id = sorted(items, key=lambda p: p[0], reverse=True)
        return [it for it, _ in sorted(by_id, key=lambda p: -p[1])]
    if ties in ("ranx", "ranx_comparable"):
        # ranx Run: numba's quicksort argsort of the negated scores (again after make_comparable)
        for _ in range(2 if ties == "ranx_comparable" else 1):
            items = [items[i] for i in numba_quicksort_argsort([-sc for _, sc in items])]
        return [it for it, _ in items]
    if ties == "ranx_dict":
        # a plain dict given to ranx.evaluate: argsort of the scores, read backwards
        return [items[i][0] for i in reversed(numba_quicksort_argsort([sc for _, sc in items]))]
    raise ValueError(f"unknown ties {ties!r}")


def numba_quicksort_argsort(keys):
    """numba's np.argsort(kind="quicksort") (numba/misc/quicksort.py), restated: a stack of ranges; a range of
    16+ entries is split around a median-of-three pivot kept at its end, scanning from both sides and swapping
    entries that are not strictly on their side (so equal keys move); the larger part waits on the stack; ranges
    under 16 entries are finished by insertion sort. Returns the permutation."""

    def less(a, b):
        return a < b or (math.isnan(b) and not math.isnan(a))

    perm = list(range(len(keys)))
    if len(perm) < 2:
        return perm
    todo = [(0, len(perm) - 1)]
    while todo:
        lo, hi = todo.pop()
        while hi - lo >= 15:
            mid = (lo + hi) // 2
            if less(keys[perm[mid]], keys[perm[lo]]):
                perm[lo], perm[mid] = perm[mid], perm[lo]
            if less(keys[perm[hi]], keys[perm[mid]]):
                perm[hi], perm[mid] = perm[mid], perm[hi]
            if less(keys[perm[mid]], keys[perm[lo]]):
                perm[lo], perm[mid] = perm[mid], perm[lo]
            pivot = keys[perm[mid]]
            perm[hi], perm[mid] = perm[mid], perm[hi]
            i, j = lo, hi - 1
            while True:
                while i < hi and less(keys[perm[i]], pivot):
                    i += 1
                while j >= lo and less(pivot, keys[perm[j]]):
                    j -= 1
                if i >= j:
                    break
                perm[i], perm[j] = perm[j], perm[i]
                i += 1
                j -= 1
            perm[i], perm[hi] = perm[hi], perm[i]
            if hi - i > i - lo:
                if hi > i:
                    todo.append((i + 1, hi))
                hi = i - 1
            else:
                if i > lo:
                    todo.append((lo, i - 1))
                lo = i + 1
        for a in range(lo + 1, hi + 1):
            moved = perm[a]
            b = a
            while b > lo and less(keys[moved], keys[perm[b - 1]]):
                perm[b] = perm[b - 1]
                b -= 1
            perm[b] = moved
    return perm


def normalize_recs(recs, ties):
    """-> dict user -> ordered list (before truncation / de-duplication)."""
    if isinstance(recs, dict):
        pairs = list(recs.items())
    elif isinstance(recs, (list, tuple)):
        pairs = list(enumerate(recs))
    else:
        raise TypeError(f"reference: unsupported recs form {type(recs)!r}")
    out = {}
    for user, lst in pairs:
        if isinstance(lst, dict):
            out[user] = order_scored(lst, ties)
        else:
            out[user] = list(lst)
    return out


def read_depth(metrics, whole_lists=False):
    """How many distinct items of each list the metrics read (docs/metrics.md §6.1):
    the largest cutoff, or None (the whole list) when a metric has no cutoff
    (r_precision included) or whole lists are asked for (the trec_eval preset)."""
    # num_rel reads no list item
    ks = [parse_metric(m)[2] for m in metrics if parse_metric(m)[0] != "num_rel"]
    if whole_lists or any(k is None for k in ks):
        return None
    return max(ks, default=0)  # num_rel alone: no list item is read


class Repeat:
    """A repeated item under duplicates="miss": it keeps its position in the list but is no item of
    any truth (each placeholder equals only itself), so it is never a hit and gains nothing."""

    def __init__(self, item):
        self.item = item

    def __repr__(self):
        return f"Repeat({self.item!r})"


def prepare_list(user, ranked, duplicates, max_items, depth=None):
    """docs/metrics.md §6: max_items truncates the list as given (trec_eval -M);
    duplicates are then looked for only in the part that is read, the first
    `depth` positions (None: all).  duplicates="first" drops a repeat and
    the list closes up: reading goes on until `depth` distinct items or the end.
    "miss" keeps a repeat at its position as a placeholder no truth holds;
    "count" keeps the list as given (every function here reads each position,
    so each occurrence of a relevant item is a hit with its gain).
    The result is cut to `depth` items, which no metric reads past."""
    if duplicates not in ("error", "first", "miss", "count"):
        raise ValueError(f"unknown duplicates policy {duplicates!r}")
    if max_items is not None:
        ranked = ranked[:max_items]
    seen = set()
    out: list = []
    for item in ranked:
        if depth is not None and len(out) >= depth:
            break
        if item in seen:
            if duplicates == "error":
                raise ValueError(f"duplicate item {item!r} in the recommendations of user {user!r}")
            if duplicates == "first":
                continue
            out.append(Repeat(item) if duplicates == "miss" else item)
            continue
        seen.add(item)
        out.append(item)
    return out


# ---------------------------------------------------------------------------
# evaluate
# ---------------------------------------------------------------------------


def reference_evaluate(
    truth,
    recs,
    metrics,
    empty="skip",
    duplicates="error",
    ties="item",
    min_relevance=None,
    max_items=None,
    missing="zero",
    whole_lists=False,
    recs_only="skip",
):
    """Returns (means, per_user, meta).

    whole_lists=True looks for duplicates in whole lists (what the trec_eval
    preset does); otherwise only in the part the metrics read.

    Users (docs/metrics.md §5): the truth users, then with recs_only="empty" the
    recs users absent from the truth (in recs order) with an empty truth.
    missing="skip" leaves out the users without a list, "skip_empty" also those
    whose list is empty; a metric with missing_recs="zero" still scores them (as
    empty lists), and then they stay users of the result, NaN for the other metrics.

    means:    {metric string: float}  (math.fsum(non-NaN) / count, NaN if count 0)
    per_user: {metric string: list of floats aligned with the truth users}
    meta:     {"users": [...], "n_users", "n_skipped", "n_missing_recs", "n_ignored_recs"}
    """
    if empty not in ("skip", "zero", "one", "error"):
        raise ValueError(f"unknown empty policy {empty!r}")
    if duplicates not in ("error", "first", "miss", "count"):
        raise ValueError(f"unknown duplicates policy {duplicates!r}")
    if missing not in ("zero", "skip", "skip_empty"):
        raise ValueError(f"unknown missing policy {missing!r}")
    if recs_only not in ("skip", "empty"):
        raise ValueError(f"unknown recs_only policy {recs_only!r}")
    if max_items is not None and max_items < 1:
        raise ValueError("max_items must be >= 1")
    parsed = {m: parse_metric(m) for m in metrics}

    recs_lists = normalize_recs(recs, ties)
    all_rows = list(truth.items()) if isinstance(truth, dict) else list(enumerate(truth))
    all_truth_users = {u for u, _ in all_rows}
    n_without_recs = sum(1 for u, _ in all_rows if u not in recs_lists)
    # missing="skip": only the users on both sides (trec_eval without -c); "skip_empty": and a non-empty list.
    # The users left out are not read, unless a metric scores them (missing_recs="zero").
    with_recs = {u for u, lst in recs_lists.items() if missing != "skip_empty" or len(lst)}
    keep_all = missing == "zero" or any(parsed[m][1].get("missing_recs") == "zero" for m in metrics)
    truth_rows = normalize_truth(truth, only=None if keep_all else with_recs)
    if recs_only == "empty":
        truth_rows += [(u, {}) for u in recs_lists if u not in all_truth_users and (keep_all or u in with_recs)]
    left_out = {u for u, _ in truth_rows if u not in with_recs} if missing != "zero" else set()
    truth_users = [u for u, _ in truth_rows]

    depth = read_depth(metrics, whole_lists)
    lists = {}
    for user, ranked in recs_lists.items():
        lists[user] = prepare_list(user, ranked, duplicates, max_items, depth)

    per_user: dict = {m: [] for m in metrics}
    n_skipped = 0
    n_missing = 0
    for user, grades in truth_rows:
        if user in lists:
            ranked = lists[user]
        else:
            ranked = []
            n_missing += 1
        no_relevant = len(relevant_set(grades, min_relevance)) == 0
        if no_relevant and empty == "error":
            raise ValueError(f"user {user!r} has no relevant item")
        if no_relevant and empty == "skip":
            n_skipped += 1
            for m in metrics:
                per_user[m].append(NAN)
            continue
        for m in metrics:
            name, _, _ = parsed[m]
            if no_relevant and empty == "one" and name not in COUNT_LIKE:
                per_user[m].append(1.0)
            else:
                per_user[m].append(float(metric_value(m, ranked, grades, min_relevance)))

    means = {}
    for m in metrics:
        if left_out and parsed[m][1].get("missing_recs") != "zero":
            per_user[m] = [NAN if u in left_out else v for u, v in zip(truth_users, per_user[m])]
        values = [v for v in per_user[m] if not math.isnan(v)]
        means[m] = math.fsum(values) / len(values) if values else NAN

    meta = {
        "users": truth_users,
        "n_users": len(truth_users),
        "n_skipped": n_skipped,
        "n_missing_recs": n_without_recs if missing != "zero" else n_missing,
        "n_ignored_recs": sum(1 for u in recs_lists if u not in all_truth_users),
    }
    return means, per_user, meta


# Every metric string variant the contract names (without a cutoff).
ALL_METRIC_BASES = (
    [
        "hits",
        "precision",
        "recall",
        "recall(denominator=relevant)",
        "recall(denominator=min_relevant_k)",
        "fbeta",
        "f1",
        "fbeta(beta=0.5)",
        "fbeta(beta=2)",
        "fbeta(beta=1)",
        "ap",
        "map",
        "ar",
        "mar",
        "hit_rate",
        "success",
        "rr",
        "mrr",
        "arhr",
        "ncrr",
        "ncrr(crr_ideal=list)",
    ]
    + [f"ap(denominator={d})" for d in ("relevant", "min_relevant_k", "hits", "k", "min_listed")]
    + [f"map(denominator={d})" for d in ("min_relevant_k", "hits")]
    + [f"ar(denominator={d})" for d in ("relevant", "hits")]
    + ["mar(denominator=hits)"]
    + [
        "precision(short_lists=evidently)",
        "ap(short_lists=evidently)",
        "ar(short_lists=evidently)",
        "ap(denominator=min_relevant_k,short_lists=evidently)",
        "ar(denominator=hits,short_lists=evidently)",
    ]
    + ["cg", "dcg", "ndcg"]
    + [f"cg(gain={g})" for g in ("linear", "exponential", "binary")]
    + [f"dcg(gain={g}, log_base={b!r})" for g in ("linear", "exponential", "binary") for b in (2, math.e, 10)]
    + [f"dcg(log_base={b!r})" for b in (2.0, math.e, 10.0)]
    + [f"ndcg(gain={g},ideal={i})" for g in ("linear", "exponential", "binary") for i in ("cut", "all", "k_slots")]
    + [f"ndcg(ideal={i})" for i in ("cut", "all", "k_slots")]
    + [f"ndcg(gain={g})" for g in ("linear", "exponential", "binary")]
    + ["ndcg(discount=clip)", "ndcg(gain=binary,discount=clip)", "ndcg(gain=exponential,ideal=k_slots,discount=clip)"]
    + ["dcg(discount=clip)", "dcg(gain=binary,discount=clip)", "dcg(discount=clip,log_base=10)"]
    + [
        "cg(below_min=zero)",
        "dcg(gain=exponential,below_min=zero)",
        "ndcg(below_min=zero)",
        "ndcg(gain=exponential,ideal=k_slots,below_min=zero)",
    ]
    + [
        "bpref",
        "bpref(negative=unjudged)",
        "rbp",
        "rbp(p=0.5)",
        "rbp(p=0.95,gain=linear,below_min=zero)",
        "rbp(gain=exponential)",
        "rbp(p=0.9,gain=linear,scale=max_grade)",
        "rbp(gain=exponential,scale=max_grade)",
        "err",
        "err(max_grade=2)",
        "err(rounding=gdeval)",
        "ndcg(gain=exponential,rounding=gdeval)",
        "judged",
        "num_nonrel_judged",
        "unjudged",
        "rbp_resid",
        "rbp_resid(p=0.5)",
        "bin_g",
    ]
)


# ---------------------------------------------------------------------------
# ties="average": tie-averaged DCG (McSherry & Najork 2008; scikit-learn dcg_score)
# ---------------------------------------------------------------------------


def tie_averaged_dcg(scores, truth, k, min_relevance, gain="linear", log_base=2.0, below_min="gain"):
    """scores: {item: score}.  Items are grouped by equal score, groups taken by
    score descending; a group over positions a..b adds its mean gain times the
    sum of the discounts of its positions that are <= k (k None: the list)."""
    n = len(scores)
    kk = n if k is None else k
    by_score: dict = {}
    for item, s in scores.items():
        by_score.setdefault(s, []).append(item)
    total = 0.0
    first = 1
    for s in sorted(by_score, reverse=True):
        group = by_score[s]
        last = first + len(group) - 1
        mean_gain = sum(item_gain(i, truth, gain, min_relevance, below_min) for i in group) / len(group)
        disc = sum(math.log(log_base) / math.log(j + 1) for j in range(first, min(last, kk) + 1))
        total += mean_gain * disc
        first = last + 1
    return total


def tie_averaged_ndcg(scores, truth, k, min_relevance, gain="linear", ideal="cut", below_min="gain"):
    d = tie_averaged_dcg(scores, truth, k, min_relevance, gain=gain, below_min=below_min)
    i = ideal_dcg(list(scores), truth, k, min_relevance, gain=gain, ideal=ideal, below_min=below_min)
    return safe_div(d, i)


# ---------------------------------------------------------------------------
# ties="last": every item of a group of equal scores at the group's last rank (Cornac's MAP: scipy's
# rankdata(-scores, method="max"))
# ---------------------------------------------------------------------------


def ap_tie_last(scores, truth, k, min_relevance, denominator="relevant"):
    """scores: {item: score}.  An item's rank is the number of items scored at least as high; a relevant item
    ranked at r <= k (k None: the list) adds (relevant items ranked <= r) / r.  Divided as ap(denominator=...)
    divides, with hits = the relevant items ranked <= k and k = the list length without a cutoff."""
    rank = {i: sum(1 for t in scores.values() if t >= s) for i, s in scores.items()}
    rel = relevant_set(truth, min_relevance)
    n = len(scores)
    kk = n if k is None else k
    found = [i for i in scores if i in rel and rank[i] <= kk]
    total = 0.0
    for i in found:
        total += sum(1 for j in found if rank[j] <= rank[i]) / rank[i]
    n_rel = len(rel)
    den = {
        "relevant": n_rel,
        "min_relevant_k": min(n_rel, kk),
        "hits": len(found),
        "k": kk,
        "min_listed": min(n_rel, kk, n),
    }[denominator]
    return safe_div(total, den)
