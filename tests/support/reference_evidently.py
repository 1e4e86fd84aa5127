"""Pure-Python restatement of Evidently's recsys computations (docs/metrics.md 6.3 and 11.2), one user at a time.

Written from the definitions, with Evidently's own loop over the ranks j = 1..k, never from rankmeter's closed
forms (rankmeter/evaluation/_evidently.py sums each run of equal values at once).

A user's rows: one per listed item (its rank: its position, or under ``ties="evidently"`` the floored average
position of its tie group) and one per truth item that is not listed (no rank: past every cutoff); a row's target
is the item's grade, 0 for a listed item without a truth row.
"""

import math

NAN = float("nan")


def tie_groups(scores):
    """[(a, b)] per entry of a list ordered by score: the 1-based positions its run of equal scores spans."""
    out = []
    start = 0
    for j in range(len(scores) + 1):
        if j == len(scores) or (j > start and scores[j] != scores[start]):
            out.extend([(start + 1, j)] * (j - start))
            start = j
    return out


def ranks(ranked, scores=None, ties="input"):
    """The rank of every listed item: its position, or floor((a + b) / 2) of its tie group (ties='evidently')."""
    if scores is None or ties != "evidently":
        return list(range(1, len(ranked) + 1))
    return [(a + b) // 2 for a, b in tie_groups(scores)]


def top_evidently(ranked, scores, k):
    """The top k of the beyond-accuracy metrics under ties='evidently': the tie groups whose average position
    (a + b) / 2 is at most k (Evidently's rank(ascending=False) <= k)."""
    if k is None:
        return list(ranked)
    return [i for i, (a, b) in zip(ranked, tie_groups(scores)) if (a + b) / 2 <= k]


def _relevant(g, min_relevance):
    return g >= min_relevance if min_relevance is not None else g > 0


def user_value(name, opts, k, ranked, truth, min_relevance, rank):
    """One user's value of an accuracy metric computed Evidently's way (rows='evidently' in opts, or only its
    ranks). ``rank``: the rank of every listed item (:func:`ranks`). Returns (value, has_relevant)."""
    use_rows = opts.get("rows") == "evidently"
    rows = [(i, r, truth.get(i, 0.0), i in truth) for i, r in zip(ranked, rank)]
    rows += [(i, None, g, True) for i, g in truth.items() if i not in set(ranked)]

    def rel(row):
        _, _, g, in_truth = row
        return _relevant(g, min_relevance) and (use_rows or in_truth)

    nrel = sum(1 for row in rows if rel(row))
    n = len(ranked)
    kk = k if k is not None else n
    size = len(rows) if use_rows else n

    def upto(j):
        return [row for row in rows if row[1] is not None and row[1] <= j]

    def tp(j):
        return sum(1 for row in upto(j) if rel(row))

    def last_rel(j):
        got = upto(j)
        return 1 if got and rel(got[-1]) else 0

    def div(a, b):
        return a / b if b else 0.0

    if name == "hits":
        v = float(tp(kk))
    elif name == "hit_rate":
        v = 1.0 if tp(kk) else 0.0
    elif name == "rr":
        firsts = [row[1] for row in upto(kk) if rel(row)]
        v = 1.0 / min(firsts) if firsts else 0.0
    elif name == "precision":
        den = min(size, kk) if opts.get("short_lists") == "evidently" else kk
        v = div(tp(kk), den)
    elif name == "recall":
        v = div(tp(kk), nrel if opts.get("denominator", "relevant") == "relevant" else min(nrel, kk))
    elif name == "fbeta":
        p, r = div(tp(kk), kk), div(tp(kk), nrel)
        b2 = float(opts.get("beta", 1.0)) ** 2
        v = div((1 + b2) * p * r, b2 * p + r)
    elif name == "ap":
        v = div(sum(div(tp(j), min(size, j)) * last_rel(j) for j in range(1, kk + 1)), nrel)
    elif name == "ar":
        v = div(sum(div(tp(j), nrel) * last_rel(j) for j in range(1, kk + 1)), nrel)
    elif name == "ndcg":
        gain = opts.get("gain", "linear")
        if use_rows:

            def g_of(row):
                return float(row[2]) if gain == "linear" else (1.0 if rel(row) else 0.0)

            dcg = sum(g_of(row) / math.log2(row[1] + 1) for row in upto(kk))
            ideal = sorted((g_of(row) for row in rows), reverse=True)
            if k is not None:
                ideal = ideal[:kk]
            idcg = sum(g / math.log2(j + 2) for j, g in enumerate(ideal))
            v = dcg / idcg if idcg != 0 and math.isfinite(dcg / idcg) else 0.0
        else:

            def g_std(g, relevant):
                if gain == "binary":
                    return 1.0 if relevant else 0.0
                if gain == "exponential":
                    return 2.0**g - 1.0 if g > 0 else 0.0
                return g if g > 0 else 0.0

            dcg = sum(g_std(row[2], rel(row)) / math.log2(row[1] + 1) for row in upto(kk) if row[3])
            ideal = sorted((g_std(g, _relevant(g, min_relevance)) for g in truth.values()), reverse=True)
            if k is not None:
                ideal = ideal[:kk]
            idcg = sum(g / math.log2(j + 2) for j, g in enumerate(ideal))
            v = div(dcg, idcg)
    else:
        raise ValueError(name)
    return v, nrel > 0


def personalization(tops, k):
    """Evidently's code: 1 - (Σ_i c_i² - N k) / (k N (N - 1)), c_i = users whose top k holds item i, N = users
    with a non-empty top k; NaN for fewer than two users."""
    tops = [t for t in tops if t]
    n = len(tops)
    if n < 2:
        return NAN
    counts: dict = {}
    for t in tops:
        for i in t:
            counts[i] = counts.get(i, 0) + 1
    squares = sum(c * c for c in counts.values())
    return 1.0 - (squares - n * k) / k / (n * n - n)


def diversity_items(t, features, cos):
    """Evidently's Diversity of one top k: Σ over unordered pairs of 1 - cos, divided by the number of items."""
    if not t:
        return NAN
    total = sum(1.0 - cos(features[t[a]], features[t[b]]) for a in range(len(t)) for b in range(a + 1, len(t)))
    return total / len(t)


def serendipity_sum(truth_u, t, history, features, cos, min_relevance=None):
    """Evidently's Serendipity of one user: 1 - Σ over the relevant items j of the top k of the mean over the
    (distinct) history h of their similarity, 1 - the cosine distance of a matrix whose diagonal is 0 (an item is
    similar 1 to itself, even with an all-zero feature vector); NaN without a relevant top-k item or a history."""
    hist = [h for h in dict.fromkeys(history) if h in features]
    rel = [i for i in t if _relevant(truth_u.get(i, 0.0), min_relevance)]
    if not hist or not rel:
        return NAN
    return 1.0 - sum(1.0 if i == h else cos(features[i], features[h]) for i in rel for h in hist) / len(hist)
