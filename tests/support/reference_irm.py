"""Pure-Python references of the metrics of ir_measures' compat and accuracy providers
(docs/metrics.md 3.18.20 `compat`, 3.18.21 `pairwise_accuracy`), written the plain way: prefix sets
for the rank-biased overlap, every (relevant, other) pair for the accuracy.

Each function takes what tests/support/reference.py's metrics take: ``ranked`` (the list read, in
order; a repeat under duplicates="miss" is a placeholder that no truth holds), ``truth`` (``{item:
grade}`` in truth order), the cutoff ``k`` (None: the whole list) and ``min_relevance`` (None: grade > 0);
reference.py registers them in its ``METRICS`` table.
"""

from __future__ import annotations


def _relevant(grade, min_relevance):
    return grade > 0 if min_relevance is None else grade >= min_relevance


def _ideal(truth, min_relevance):
    """The relevant truth items by grade, highest first; equal grades in truth order."""
    rel = [item for item, g in truth.items() if _relevant(g, min_relevance)]
    return sorted(rel, key=lambda item: -truth[item])  # sorted() is stable


def rbo(ranking, ideal, p, depth):
    """Rank-biased overlap (Webber, Moffat & Zobel 2010) to a finite depth: the p^d-weighted mean over
    d = 0..depth-1 of |ranking[:d+1] & ideal[:d+1]| / (d + 1)."""
    score = 0.0
    normalizer = 0.0
    weight = 1.0
    for d in range(depth):
        common = set(ranking[: d + 1]) & set(ideal[: d + 1])
        score += weight * len(common) / (d + 1)
        normalizer += weight
        weight *= p
    return score / normalizer


def compat(ranked, truth, k, min_relevance, p=0.95, normalize="ideal"):
    """Compatibility (Clarke, Vtyurina & Smucker 2021): RBO of the list with the ideal ranking to the
    depth max(n, |ideal|), divided by RBO(ideal, ideal) when that is positive (normalize="ideal");
    0 for an empty list and no relevant item."""
    ideal = _ideal(truth, min_relevance)
    ranking = list(ranked)
    depth = max(len(ranking), len(ideal))
    if depth == 0:
        return 0.0
    score = rbo(ranking, ideal, p, depth)
    if normalize == "ideal":
        best = rbo(ideal, ideal, p, depth)
        if best > 0.0:
            score = score / best
    return score


def pairwise_accuracy(ranked, truth, k, min_relevance):
    """Over the top min(k, n) items: the share of (relevant, other) pairs in which the relevant item is
    ranked first; 0 without a relevant item, 1 without another item."""
    top = list(ranked if k is None else ranked[:k])
    flags = [item in truth and _relevant(truth[item], min_relevance) for item in top]
    pairs = won = 0
    for i, a in enumerate(flags):
        for j, b in enumerate(flags):
            if a and not b:
                pairs += 1
                won += i < j
    if not any(flags):
        return 0.0
    if pairs == 0:
        return 1.0
    return won / pairs


def _float(v):
    return float(v)


def _choice(*allowed):
    def parse(v):
        if v not in allowed:
            raise ValueError(f"option value {v!r} not in {allowed!r}")
        return v

    return parse


# name -> (per-user function, {option: (default, parser of its text)}), as reference.METRICS
METRICS = {
    "compat": (compat, {"p": (0.95, _float), "normalize": ("ideal", _choice("ideal", "none"))}),
    "pairwise_accuracy": (pairwise_accuracy, {}),
}
