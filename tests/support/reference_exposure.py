"""Plain-Python references of item-side exposure fairness (docs/metrics.md 3.23), written from the definitions:

* attention models: the logarithmic discount of nDCG (Järvelin & Kekäläinen 2002), RBP's geometric user model
  (Moffat & Zobel 2008), a geometric browsing model without RBP's (1 - γ), and the cascade model (each relevant
  item seen stops the user with probability `stop`);
* exposure Gini: the Gini index of the items' exposures (Gini 1912, as `gini` computes it over counts);
* exposure disparity: the total variation distance between the groups' exposure shares and a target;
* AWRF: attention-weighted rank fairness of the TREC Fair Ranking track 2021-22 (Sapiezynski et al. 2019), one minus
  the Jensen-Shannon divergence (base 2) between the attention-weighted group distribution of a list and the target;
  awrf_ndcg its product with nDCG.

Inputs are dicts: truth {user: {item: grade}}, recs {user: [items]} (every user of the truth is evaluated, a user
without recs has an empty list), groups {item: [groups]} (an item absent or with an empty list has no group).
"""

from __future__ import annotations

import math


def attention_weight(j, hits_above, attention="log", patience=0.5, stop=0.5):
    """The attention of position j (1-based) with `hits_above` relevant items above it."""
    if attention == "log":
        return 1.0 / math.log2(j + 1)
    if attention == "log_trec":
        return 1.0 / math.log2(max(j, 2))
    if attention == "rbp":
        return (1 - patience) * patience ** (j - 1)
    if attention == "geometric":
        return patience ** (j - 1)
    if attention == "cascade":
        return patience ** (j - 1) * (1 - stop) ** hits_above
    raise ValueError(attention)


def _relevant(grade, min_relevance=None):
    return grade >= min_relevance if min_relevance is not None else grade > 0


def _weights(truth_u, lst, k, attention, patience, stop):
    """[(item, attention)] of the top k of one list."""
    out = []
    hits = 0
    for j, item in enumerate(lst[:k] if k else lst, start=1):
        out.append((item, attention_weight(j, hits, attention, patience, stop)))
        if _relevant(truth_u.get(item, 0)):
            hits += 1
    return out


def item_exposure(truth, recs, k, attention="log", patience=0.5, stop=0.5):
    """{item: total attention over users}."""
    exp: dict = {}
    for u in truth:
        for item, a in _weights(truth[u], recs.get(u, []), k, attention, patience, stop):
            exp[item] = exp.get(item, 0.0) + a
    return exp


def _gini(values, divisor="n_minus_1"):
    x = sorted(values)
    n = len(x)
    total = sum(x)
    if n < (2 if divisor == "n_minus_1" else 1) or total <= 0:
        return math.nan
    num = sum((2 * (j + 1) - n - 1) * v for j, v in enumerate(x))
    return num / ((n - 1 if divisor == "n_minus_1" else n) * total)


def exposure_gini(truth, recs, k, catalog=None, attention="log", patience=0.5, stop=0.5, divisor="n_minus_1"):
    """Gini of the exposures of the catalog's items (catalog None: of the exposed items)."""
    exp = item_exposure(truth, recs, k, attention, patience, stop)
    if catalog is None:
        return _gini([v for v in exp.values() if v > 0], divisor)
    return _gini([exp.get(i, 0.0) for i in set(catalog)], divisor)


def _group_list(groups, item):
    return list(groups.get(item, []))


def _all_groups(groups):
    return sorted({g for gs in groups.values() for g in gs}, key=repr)


NO_GROUP = ("no group",)


def _add(dist, item, weight, groups, ungrouped, multi="split"):
    """An item's weight split over its groups (multi="split") or given to each of them ("each")."""
    gs = _group_list(groups, item)
    if not gs:
        if ungrouped == "own":
            dist[NO_GROUP] = dist.get(NO_GROUP, 0.0) + weight
        return
    for g in gs:
        dist[g] = dist.get(g, 0.0) + (weight / len(gs) if multi == "split" else weight)


def _target(kind, groups, ungrouped, relevant_items, multi="split"):
    """The target group weights (not normalised)."""
    names = _all_groups(groups) + ([NO_GROUP] if ungrouped == "own" else [])
    t = dict.fromkeys(names, 0.0)
    if kind == "uniform":
        return dict.fromkeys(names, 1.0)
    if kind == "catalog":
        for item, gs in groups.items():
            _add(t, item, 1.0, {item: gs}, ungrouped, multi)
        return t
    for item in relevant_items:
        _add(t, item, 1.0, groups, ungrouped, multi)
    return t


def _normalise(d):
    s = sum(d.values())
    return {g: v / s for g, v in d.items()} if s > 0 else None


def exposure_disparity(
    truth, recs, k, groups, attention="log", patience=0.5, stop=0.5, target="uniform", ungrouped="skip", multi="split"
):
    """1/2 sum_g |exposure share_g - target_g|."""
    e, t = group_shares(truth, recs, k, groups, attention, patience, stop, target, ungrouped, multi)
    if t is None or e is None:
        return math.nan
    names = set(t) | set(e)
    return 0.5 * sum(abs(e.get(g, 0.0) - t.get(g, 0.0)) for g in names)


def group_shares(
    truth, recs, k, groups, attention="log", patience=0.5, stop=0.5, target="uniform", ungrouped="skip", multi="split"
):
    """({group: exposure share}, {group: target share}) of exposure_disparity (None: nothing to share)."""
    exp: dict = {}
    relevant = []
    for u in truth:
        for item, a in _weights(truth[u], recs.get(u, []), k, attention, patience, stop):
            _add(exp, item, a, groups, ungrouped, multi)
        relevant += [i for i, g in truth[u].items() if _relevant(g)]
    return _normalise(exp), _normalise(_target(target, groups, ungrouped, relevant, multi))


def _jsd(p, q, base=2):
    """Jensen-Shannon divergence of two distributions given as dicts: 1/2 KL(p || m) + 1/2 KL(q || m), m their
    mean, logarithms in base `base`."""
    out = 0.0
    for g in set(p) | set(q):
        a, b = p.get(g, 0.0), q.get(g, 0.0)
        m = (a + b) / 2
        if a > 0:
            out += 0.5 * a * math.log(a / m, base)
        if b > 0:
            out += 0.5 * b * math.log(b / m, base)
    return out


def awrf_per_user(
    truth,
    recs,
    k,
    groups,
    attention="log",
    patience=0.5,
    stop=0.5,
    target="uniform",
    ungrouped="skip",
    multi="split",
    log_base=2,
):
    """{user: AWRF} (NaN: no attention on a counted group, or no target)."""
    out = {}
    for u in truth:
        d: dict = {}
        for item, a in _weights(truth[u], recs.get(u, []), k, attention, patience, stop):
            _add(d, item, a, groups, ungrouped, multi)
        relevant = [i for i, g in truth[u].items() if _relevant(g)]
        t = _normalise(_target(target, groups, ungrouped, relevant, multi))
        dn = _normalise(d)
        out[u] = math.nan if (t is None or dn is None) else min(1.0, max(0.0, 1.0 - _jsd(dn, t, log_base)))
    return out


def ndcg_linear(truth_u, lst, k, discount="log"):
    """nDCG@k with linear gains (negative grades as 0) and 1/log2(j+1) (discount="trec": 1/log2(max(j, 2)), the
    TREC Fair Ranking 2021 discount); NaN without a positive grade."""

    def d(j):
        return math.log2(max(j, 2)) if discount == "trec" else math.log2(j + 1)

    dcg = sum(max(truth_u.get(i, 0), 0) / d(j) for j, i in enumerate(lst[:k] if k else lst, start=1))
    ideal_grades = sorted((max(g, 0) for g in truth_u.values()), reverse=True)
    ideal = sum(g / d(j) for j, g in enumerate(ideal_grades[:k] if k else ideal_grades, start=1))
    return dcg / ideal if ideal > 0 else math.nan


def awrf(truth, recs, k, groups, **options):
    """The mean AWRF over the users that have one."""
    vals = [v for v in awrf_per_user(truth, recs, k, groups, **options).values() if not math.isnan(v)]
    return sum(vals) / len(vals) if vals else math.nan


def awrf_ndcg_per_user(truth, recs, k, groups, discount="log", **options):
    aw = awrf_per_user(truth, recs, k, groups, **options)
    return {u: aw[u] * ndcg_linear(truth[u], recs.get(u, []), k, discount) for u in truth}


def awrf_ndcg(truth, recs, k, groups, **options):
    vals = [v for v in awrf_ndcg_per_user(truth, recs, k, groups, **options).values() if not math.isnan(v)]
    return sum(vals) / len(vals) if vals else math.nan


# ---------------------------------------------------------------------------------------------------------------
# Ranking-based equal opportunity (REO) and statistical parity (RSP), Zhu, Wang & Caverlee (SIGIR 2020), as Elliot
# defines them over groups of items: P(g) summed over users, then the population standard deviation of the P(g)
# over their mean. PopREO / PopRSP take the groups {short head, long tail} of the train popularity.


def short_head_long_tail(train, share=0.8):
    """Elliot's split: train items by number of users descending (ties: smaller id first), the short head up to
    and including the item at which the cumulative popularity reaches share x the total; the tail the rest."""
    pop: dict = {}
    for items in train.values():
        for i in set(items):
            pop[i] = pop.get(i, 0) + 1
    total = sum(pop.values())
    head = []
    cum = 0
    for i in sorted(pop, key=lambda i: (-pop[i], i)):
        head.append(i)
        cum += pop[i]
        if cum >= share * total:
            break
    return set(head), set(pop) - set(head)


def _std_over_mean(num, den):
    if not num or any(d == 0 for d in den):
        return math.nan
    pr = [a / b for a, b in zip(num, den)]
    mean = sum(pr) / len(pr)
    if not mean > 0:
        return math.nan
    return math.sqrt(sum((p - mean) ** 2 for p in pr) / len(pr)) / mean


def _reo(truth, recs, k, train, group_sets):
    num = [0] * len(group_sets)
    den = [0] * len(group_sets)
    for u in truth:
        rel = {i for i, g in truth[u].items() if _relevant(g)}
        if not rel:
            continue
        top = set(recs.get(u, [])[:k] if k else recs.get(u, []))
        seen = set(train.get(u, []))
        for j, c in enumerate(group_sets):
            num[j] += len(top & rel & c)
            den[j] += len((c & rel) - seen)
    return _std_over_mean(num, den)


def _rsp(truth, recs, k, train, group_sets):
    num = [0] * len(group_sets)
    den = [0] * len(group_sets)
    for u in truth:
        top = set(recs.get(u, [])[:k] if k else recs.get(u, []))
        seen = set(train.get(u, []))
        for j, c in enumerate(group_sets):
            num[j] += len(top & c)
            den[j] += len(c - seen)
    return _std_over_mean(num, den)


def _group_sets(groups):
    labels = _all_groups(groups)
    return [{i for i, gs in groups.items() if g in gs} for g in labels]


def pop_reo(truth, recs, k, train, head_share=0.8):
    return _reo(truth, recs, k, train, list(short_head_long_tail(train, head_share)))


def pop_rsp(truth, recs, k, train, head_share=0.8):
    return _rsp(truth, recs, k, train, list(short_head_long_tail(train, head_share)))


def reo(truth, recs, k, train, groups):
    return _reo(truth, recs, k, train, _group_sets(groups))


def rsp(truth, recs, k, train, groups):
    return _rsp(truth, recs, k, train, _group_sets(groups))


# ---------------------------------------------------------------------------------------------------------------
# Item MAD (ranking), Deldjoo et al. (UMUAI 2021), as Elliot's ItemMADranking computes it: per recommended item the
# average of its users' gains 2^(g - t + 1) - 1 (relevant grade g >= t, else 0) over its top-k occurrences, per group
# the mean over its recommended items, then the mean absolute difference over pairs of groups.


def item_mad(truth, recs, k, groups, threshold=1.0):
    count: dict = {}
    gain: dict = {}
    for u in truth:
        for i in recs.get(u, [])[:k] if k else recs.get(u, []):
            g = truth[u].get(i, 0)
            count[i] = count.get(i, 0) + 1
            gain[i] = gain.get(i, 0.0) + (2 ** (g - threshold + 1) - 1 if g >= threshold and g > 0 else 0.0)
    labels = _all_groups(groups)
    if len(labels) < 2:
        return math.nan
    avg = []
    for lab in labels:
        vals = [gain[i] / count[i] for i, gs in groups.items() if lab in gs and i in count]
        if not vals:
            return math.nan
        avg.append(sum(vals) / len(vals))
    diffs = [abs(avg[a] - avg[b]) for a in range(len(avg)) for b in range(a + 1, len(avg))]
    return sum(diffs) / len(diffs)
