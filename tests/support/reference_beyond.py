"""Naive pure-Python references of the beyond-accuracy and pairwise metrics.

Written from the definitions of docs/metrics.md §3.19 with the plain quadratic loops (every pair of
items, every pair of users), never from the implementation or its sum
identities. Inputs:

* ``truth``  -- ``{user: {item: grade}}`` (evaluated users, in order);
* ``lists``  -- ``{user: [items best first]}`` (already de-duplicated);
* ``scores`` -- ``{user: [score per list position]}`` (score_entropy only);
* ``train``  -- ``{user: [items]}`` (duplicates allowed: interactions);
* ``features`` -- ``{item: list of floats}``; ``sim`` -- ``{(a, b): value}``;
* ``catalog`` -- a set of items or None (default: the train items).

Per-user functions return a float (NaN: the user is skipped); catalog-level
functions return one float.
"""

import math

NAN = float("nan")

# popularity and long tail (docs/metrics.md 3.19.13-3.19.19; helper pop): their references live in a sibling module
from .reference_popularity import (  # noqa: E402, F401
    aclt,
    aplt,
    efd,
    epc,
    shannon_entropy,
    surprisal,
    tail_percentage,
    user_coverage,
)


def top(lst, k):
    return lst if k is None else lst[:k]


def cos(a, b):
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0:
        return 0.0
    return sum(x * y for x, y in zip(a, b)) / (na * nb)


def train_users_of(train):
    """item -> set of train users having it."""
    out: dict = {}
    for u, items in train.items():
        for i in items:
            out.setdefault(i, set()).add(u)
    return out


def n_train_users(train):
    return sum(1 for items in train.values() if len(items) > 0)


def relevant(grade, min_relevance=None):
    return grade > 0 if min_relevance is None else grade >= min_relevance


# --------------------------------------------------------------------------- per user
def fcp_counts(truth_u, lst, k):
    """(concordant, discordant) pairs of one user (docs/metrics.md, fcp), O(m^2)."""
    t = top(lst, k)
    rank = {item: j for j, item in enumerate(t)}
    inf = float("inf")
    items = list(truth_u.items())
    conc = disc = 0
    for a, ga in items:
        for b, gb in items:
            if ga > gb:
                ra, rb = rank.get(a, inf), rank.get(b, inf)
                if ra == inf and rb == inf:
                    continue
                if ra < rb:
                    conc += 1
                elif ra > rb:
                    disc += 1
    return conc, disc


def _few(t, one_item):
    """The value of a top k without a pair: NaN, or 0 for one item with one_item="zero" (RecTools)."""
    return 0.0 if len(t) == 1 and one_item == "zero" else NAN


def diversity_features(lst, k, features, one_item="skip"):
    t = top(lst, k)
    if len(t) < 2:
        return _few(t, one_item)
    vals = [1.0 - cos(features[t[a]], features[t[b]]) for a in range(len(t)) for b in range(a + 1, len(t))]
    return sum(vals) / len(vals)


def diversity_matrix(lst, k, sim, one_item="skip"):
    t = top(lst, k)
    if len(t) < 2:
        return _few(t, one_item)
    vals = [sim.get((t[a], t[b]), 0.0) for a in range(len(t)) for b in range(a + 1, len(t))]
    return 1.0 - sum(vals) / len(vals)


def diversity_cooccurrence(lst, k, train, one_item="skip"):
    t = top(lst, k)
    if len(t) < 2:
        return _few(t, one_item)
    users = train_users_of(train)
    vals = []
    for a in range(len(t)):
        for b in range(a + 1, len(t)):
            ua, ub = users.get(t[a], set()), users.get(t[b], set())
            vals.append(len(ua & ub) / math.sqrt(len(ua) * len(ub)) if ua and ub else 0.0)
    return 1.0 - sum(vals) / len(vals)


def novelty_values(t, train, unseen="skip", popularity="users"):
    """The novelty of each item of ``t`` that counts (unseen items: 0, one user, or left out)."""
    # the share of an item: of the train users, or (interaction_share) of all train rows
    if popularity == "interaction_share":
        n = sum(len(items) for items in train.values())
    else:
        n = n_train_users(train)
    users = train_users_of(train)
    vals = []
    for i in t:
        if popularity == "users":
            pop = len(users.get(i, ()))
        else:
            pop = sum(1 for items in train.values() for x in items if x == i)
        if pop > 0:
            vals.append(-math.log2(pop / n))
        elif unseen == "zero":
            vals.append(0.0)
        elif unseen == "one_user" and n > 0:  # without train users, 1/n is undefined: skipped
            vals.append(-math.log2(1 / n))
    return vals


def novelty(lst, k, train, unseen="skip", divide_by="items", popularity="users"):
    t = top(lst, k)
    if not t:
        # divide_by="k" is the sum over the top k / k (CAPRI): an empty list sums to 0
        return 0.0 if divide_by == "k" else NAN
    vals = novelty_values(t, train, unseen, popularity)
    if divide_by == "k":
        return sum(vals) / (k if k is not None else len(t))
    return sum(vals) / len(vals) if vals else NAN


def novelty_pooled(lists, k, train, unseen="skip", popularity="users"):
    """average="items": the mean over every counted top-k item of every list (Microsoft Recommenders)."""
    vals = [v for lst in lists for v in novelty_values(top(lst, k), train, unseen, popularity)]
    return sum(vals) / len(vals) if vals else NAN


def arp(lst, k, train, popularity="users", unseen="skip", normalize="none"):
    t = top(lst, k)
    users = train_users_of(train)
    inter: dict = {}
    for items in train.values():
        for i in items:
            inter[i] = inter.get(i, 0) + 1
    pop = {i: (len(users[i]) if popularity == "users" else inter[i]) for i in users}
    if normalize == "max":
        mx = max(pop.values()) if pop else 0
        pop = {i: (v / mx if mx else 0.0) for i, v in pop.items()}
    elif normalize == "total":
        tot = sum(inter.values())
        pop = {i: (v / tot if tot else 0.0) for i, v in pop.items()}
    vals = []
    for i in t:
        if i in pop:
            vals.append(pop[i])
        elif unseen == "zero":
            vals.append(0.0)
    return sum(vals) / len(vals) if vals else NAN


def cooccurrence_cosine(a, b, train):
    """|users(a) & users(b)| / sqrt(|users(a)| |users(b)|) over the train users; 0 when either has none."""
    users = train_users_of(train)
    ua, ub = users.get(a, set()), users.get(b, set())
    return len(ua & ub) / math.sqrt(len(ua) * len(ub)) if ua and ub else 0.0


def serendipity(
    truth_u, lst, k, history, features, relevance="relevant", min_relevance=None, similarity="features", train=None
):
    """relevance "relevant": mean unexpectedness of the relevant top-k items; "all": their sum / top-k length;
    "none": the mean over every top-k item (the truth unread). similarity "cooccurrence": the train co-occurrence
    cosine (``train`` needed), H every distinct history item; "features": cosine of feature vectors, H the
    history items with a feature row."""
    t = top(lst, k)
    if similarity == "cooccurrence":
        hist = list(dict.fromkeys(history))

        def sim(i, h):
            return cooccurrence_cosine(i, h, train)

    else:
        hist = [h for h in dict.fromkeys(history) if h in features]

        def sim(i, h):
            return cos(features[i], features[h])

    if not hist or not t:
        return NAN
    unexp = {i: 1.0 - sum(sim(i, h) for h in hist) / len(hist) for i in t}
    if relevance == "none":
        return sum(unexp[i] for i in t) / len(t)
    rel = [i for i in t if relevant(truth_u.get(i, 0.0), min_relevance)]
    if relevance == "all":
        return sum(unexp[i] for i in rel) / len(t)
    return sum(unexp[i] for i in rel) / len(rel) if rel else NAN


# --------------------------------------------------------------------------- catalog level
def personalization(lists, k, similarity="overlap"):
    tops = [top(lst, k) for lst in lists if top(lst, k)]
    kk = k if k is not None else max((len(t) for t in tops), default=0)
    vals = []
    for a in range(len(tops)):
        for b in range(a + 1, len(tops)):
            inter = len(set(tops[a]) & set(tops[b]))
            if similarity == "overlap":
                vals.append(inter / kk)
            else:
                vals.append(inter / math.sqrt(len(tops[a]) * len(tops[b])))
    return 1.0 - sum(vals) / len(vals) if vals else NAN


def default_catalog(train, catalog):
    if catalog is not None:
        return set(catalog)
    return {i for items in train.values() for i in items}


def coverage(lists, k, catalog, outside="skip"):
    """Recommended catalog items / |catalog|; outside="count": every distinct recommended item / |catalog|."""
    rec = {i for lst in lists for i in top(lst, k)}
    if not catalog:
        return NAN
    return len(rec if outside == "count" else rec & catalog) / len(catalog)


def gini(lists, k, catalog, over="catalog", divisor="n_minus_1"):
    counts: dict = {}
    for lst in lists:
        for i in top(lst, k):
            counts[i] = counts.get(i, 0) + 1
    if over == "catalog":
        c = sorted(counts.get(i, 0) for i in catalog)
    else:
        c = sorted(counts.values())
    n, total = len(c), sum(c)
    d = n - 1 if divisor == "n_minus_1" else n
    if d < 1 or total == 0:
        return NAN
    return sum((2 * (j + 1) - n - 1) * c[j] for j in range(n)) / (d * total)


def score_entropy(score_lists, k):
    s = [x for sc in score_lists for x in top(sc, k)]
    if not s:
        return NAN
    m = max(s)
    e = [math.exp(x - m) for x in s]
    z = sum(e)
    return -sum((v / z) * math.log(v / z) for v in e if v > 0)


def mean(values):
    vals = [v for v in values if not math.isnan(v)]
    return math.fsum(vals) / len(vals) if vals else NAN


# the AUC family and the intent-aware (subtopic) diversity measures have their own reference modules
from tests.support.reference_auc import auc, gauc, gauc_terms, lauc  # noqa: E402,F401
from tests.support.reference_calibration import miscalibration  # noqa: E402,F401
from tests.support.reference_expected_exposure import ee_d, ee_l, ee_r  # noqa: E402,F401
from tests.support.reference_exposure import (  # noqa: E402,F401
    awrf,
    awrf_ndcg,
    exposure_disparity,
    exposure_gini,
    item_mad,
    pop_reo,
    pop_rsp,
    reo,
    rsp,
)
from tests.support.reference_propensity import (  # noqa: E402,F401
    ips_ap,
    ips_hit_rate,
    ips_ndcg,
    ips_precision,
    ips_recall,
    ips_rr,
)
from tests.support.reference_subtopic import (  # noqa: E402,F401
    alpha_dcg,
    alpha_ndcg,
    err_ia,
    map_ia,
    nerr_ia,
    nnrbp,
    nrbp,
    p_ia,
    strec,
)
