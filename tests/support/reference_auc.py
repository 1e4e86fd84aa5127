"""Naive pure-Python references of the AUC family (docs/metrics.md 3.19.10-3.19.12).

Written from the definitions with the plain pairwise loop (every (positive, negative) pair of a user's
candidates), never from the kernel's tie-group walk. Inputs as in reference_beyond: ``truth_u`` is
``{item: grade}``, ``lst`` the list best first, ``scores`` one score per list position (None: the list
position is the score), ``catalog`` a set of items, ``seen`` the user's train items.

The candidates of a user: with negatives="scored" the top k of the list; with negatives="catalog" the
catalog, the top k of the list and the positives, less the seen items that are neither positive nor in the
top k; every candidate outside the top k scores below all of it (they tie among themselves).

``ties`` is what a tied (positive, negative) pair counts: "half" 1/2, "strict" 0 (Cornac's AUC), "optimistic" 1.
The partial AUC under "strict" ("optimistic") is the area under the ROC curve of the ordering that puts each
group of equal scores' negatives (positives) first, item by item.
"""

import math

NAN = float("nan")
TIE_CREDIT = {"half": 0.5, "strict": 0.0, "optimistic": 1.0}


def _relevant(grade, min_relevance=None):
    return grade > 0 if min_relevance is None else grade >= min_relevance


def candidates(truth_u, lst, scores, k, negatives="scored", catalog=None, seen=(), min_relevance=None):
    """[(score, is_positive)] of one user's candidates."""
    pos = {i for i, g in truth_u.items() if _relevant(g, min_relevance)}
    t = lst if k is None else lst[:k]
    sc = [-float(j) for j in range(len(t))] if scores is None else list(scores[: len(t)])
    out = [(s, i in pos) for s, i in zip(sc, t)]
    if negatives == "catalog":
        top = set(t)
        universe = (set(catalog) | top | pos) - ((set(seen) - pos) - top)
        out += [(-math.inf, i in pos) for i in universe - top]
    return out


def roc_area(cands, ties="half"):
    """Share of (positive, negative) pairs with the positive scored higher, a tie counting TIE_CREDIT[ties]; NaN
    without a pair."""
    ps = [s for s, p in cands if p]
    ns = [s for s, p in cands if not p]
    if not ps or not ns:
        return NAN
    tie = TIE_CREDIT[ties]
    won = 0.0
    for a in ps:
        for b in ns:
            won += 1.0 if a > b else tie if a == b else 0.0
    return won / (len(ps) * len(ns))


def partial_roc_area(cands, max_fpr, ties="half"):
    """McClish-standardised area under the ROC curve up to max_fpr (sklearn's roc_auc_score(max_fpr=)):
    the ROC points at every distinct score threshold, joined by straight lines, cut at max_fpr; under "strict"
    ("optimistic") the points after each candidate of the ordering with a group's negatives (positives) first."""
    P = sum(1 for _, p in cands if p)
    N = len(cands) - P
    if not P or not N:
        return NAN
    if max_fpr >= 1.0:
        return roc_area(cands, ties)
    xs, ys = [0.0], [0.0]
    if ties == "half":
        for th in sorted({s for s, _ in cands}, reverse=True):
            xs.append(sum(1 for s, p in cands if s >= th and not p) / N)
            ys.append(sum(1 for s, p in cands if s >= th and p) / P)
    else:
        first = ties == "optimistic"  # positives first within a group of equal scores
        fp = tp = 0
        for _, p in sorted(cands, key=lambda c: (-c[0], c[1] != first)):
            fp, tp = fp + (not p), tp + p
            xs.append(fp / N)
            ys.append(tp / P)
    area = 0.0
    for j in range(1, len(xs)):
        x0, x1, y0, y1 = xs[j - 1], xs[j], ys[j - 1], ys[j]
        if x1 <= max_fpr:
            area += (x1 - x0) * (y0 + y1) / 2
            continue
        y = y0 + (y1 - y0) * (max_fpr - x0) / (x1 - x0)
        area += (max_fpr - x0) * (y0 + y) / 2
        break
    lo = max_fpr * max_fpr / 2
    return 0.5 * (1 + (area - lo) / (max_fpr - lo))


def auc(
    truth_u,
    lst,
    scores,
    k,
    negatives="scored",
    catalog=None,
    seen=(),
    max_fpr=1.0,
    one_class="skip",
    empty="skip",
    min_relevance=None,
    ties="half",
):
    """Per-user AUC (docs/metrics.md 3.19.10): no relevant truth item -> `empty`; relevant items but no positive
    or no negative candidate -> `one_class`."""
    if not any(_relevant(g, min_relevance) for g in truth_u.values()):
        return {"skip": NAN, "zero": 0.0, "one": 1.0}[empty]
    c = candidates(truth_u, lst, scores, k, negatives, catalog, seen, min_relevance)
    P = sum(1 for _, p in c if p)
    if P == 0 or len(c) == P:
        return {"skip": NAN, "zero": 0.0, "one": 1.0}[one_class]
    return partial_roc_area(c, max_fpr, ties)


def gauc_terms(truth_u, lst, scores, k, negatives="scored", catalog=None, seen=(), min_relevance=None, ties="half"):
    """(the user's AUC or NaN, its weight: the positives among its candidates, 0 without a positive or a
    negative)."""
    c = candidates(truth_u, lst, scores, k, negatives, catalog, seen, min_relevance)
    P = sum(1 for _, p in c if p)
    if P == 0 or len(c) == P:
        return NAN, 0
    return roc_area(c, ties), P


def gauc(terms):
    """Σ P_u AUC_u / Σ P_u over the users with a weight (Zhou et al. 2018; RecBole's GAUC)."""
    w = sum(p for _, p in terms)
    return math.fsum(a * p for a, p in terms if p) / w if w else NAN


def lauc(truth_u, lst, k, catalog, seen=(), one_class="skip", empty="skip", min_relevance=None, ties="half"):
    """Limited AUC (docs/metrics.md 3.19.12): the top k in list order, every other candidate tied below."""
    return auc(truth_u, lst, None, k, "catalog", catalog, seen, 1.0, one_class, empty, min_relevance, ties)
