"""Random cases for the differential runs against the live peers (tests/differential).

A case is plain JSON, the form the peers' workers read in their own venvs:

- ``truth``: rows ``[user, item, grade]``;
- ``recs``: rows ``[user, item, rank, score]`` (rank 1 = best; a repeated item is a
  second row of the same user with its own rank);
- ``empty_lists``: users whose list is given but empty (``{user: []}`` in dict inputs;
  a table cannot hold them);
- ``train``: rows ``[user, item]`` (the interactions popularity is counted on);
- ``catalog``: the catalog's items; ``features``: rows ``[item, [float, ...]]``;
- ``k``: the cutoff; ``ks``: a few cutoffs (the first is ``k``).

:func:`draw_case` covers the whole data space users have: empty truth, users whose
rows all have grade 0, fractional and negative grades, truth users without
recommendations and recommendation users without truth, empty lists, lists
shorter and longer than every k, one-item lists, repeated items, tied scores, lists of one length,
items outside the catalog and the train data, zero feature vectors, and string,
small int and huge int ids (up to 2**63 - 1). Each case switches a random subset
of these on; a peer that cannot take one (it raises on it, or the preset
documents it as not reproduced) switches it off through ``allow``.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

import numpy as np

# every feature draw_case can switch on; a peer passes the ones it accepts as `allow`
FEATURES = (
    "empty_truth",  # no truth row at all (rare: 3% of the cases that allow it)
    "zero_grades",  # grade-0 rows, and users whose rows all have grade 0
    "fractional",  # grades like 0.5, 2.25
    "negative",  # negative grades
    "graded",  # grades above 1
    "truth_only_users",  # truth users without recommendations
    "recs_only_users",  # recommendation users without truth
    "empty_lists",  # users whose list is given and empty
    "duplicates",  # an item twice in one list
    "ties",  # equal scores
    "outside_catalog",  # recommended items outside the catalog / train
    "zero_features",  # all-zero feature vectors
    "string_ids",
    "huge_ids",
    "train",  # a train table (popularity, novelty)
    "features",  # item feature vectors
    "same_length",  # every given non-empty list has one length (a list-of-lists array, e.g. recmetrics' personalization)
)
# the features of a ranking case (truth, lists, scores, ids): what the IR peers read, without the recommender's
# train table and item features
RANKING_FEATURES = tuple(f for f in FEATURES if f not in ("zero_features", "train", "features", "same_length"))


def _ids(kind: str, prefix: str, offset: int):
    if kind == "string":
        return lambda n: f"{prefix}{int(n)}"
    if kind == "huge":
        return lambda n: 2**63 - 1 - offset - int(n) if prefix == "i" else 2**62 + int(n)
    return lambda n: int(n) + offset


def draw_case(
    seed: int,
    allow: Iterable[str] = FEATURES,
    *,
    max_users: int = 12,
    max_items: int = 25,
    lengths: Optional[Iterable[int]] = None,
    signed_scores: bool = False,
    near_ties: bool = False,
    query_docs: bool = False,
) -> dict:
    """One random case from ``seed``. ``allow`` names the features of :data:`FEATURES` the case may
    switch on (each allowed one is on with probability about one half).

    Optional, for peers that need them (the defaults draw the cases they always drew): ``lengths``, the
    list lengths drawn from (default 1, 1, 2, 3, 5, 8, 12, 25; a list is also cut to the items there are);
    ``signed_scores``: scores shifted down by 0.75, so some are <= 0 (exactly 0 among tied ones);
    ``near_ties``: in about a third of the cases with ties, some scores move by 1e-12 (distinct as
    float64, equal as float32); ``query_docs``: in about a third of the lists, one item is replaced by the
    document whose id is the user's own id (BEIR's ``ignore_identical_ids``), which the truth of about half of
    those users also holds."""
    g = np.random.default_rng(seed)
    allow = set(allow)
    unknown = allow - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown case features {sorted(unknown)}")
    on = {f for f in FEATURES if f in allow and g.random() < 0.5}  # FEATURES order: the same case in any process
    if "string_ids" in on and "huge_ids" in on:
        on.discard("huge_ids" if g.random() < 0.5 else "string_ids")
    kind = "string" if "string_ids" in on else "huge" if "huge_ids" in on else "int"
    uid, iid = _ids(kind, "u", 0), _ids(kind, "i", 0)
    n_users = int(g.integers(1, max_users + 1))
    n_items = int(g.integers(1, max_items + 1))
    k = int(g.choice([1, 2, 3, 5, 10]))
    ks = sorted({k, *(int(x) for x in g.choice([1, 2, 3, 5, 10, 20], 2))})
    ks.remove(k)
    ks.insert(0, k)

    def grade() -> Any:
        choices: list[float] = [1]
        if "zero_grades" in on:
            choices += [0, 0]
        if "graded" in on:
            choices += [2, 3, 4]
        if "fractional" in on:
            choices += [0.5, 1.5, 2.25]
        if "negative" in on:
            choices += [-1, -2]
        return choices[int(g.integers(len(choices)))]

    truth: list = []
    recs: list = []
    empty_lists: list = []
    users = list(range(n_users))
    empty_truth = "empty_truth" in on and g.random() < 0.06
    same_len = int(g.choice([1, 2, 3, 5, 8])) if "same_length" in on else None
    for u in users:
        role = g.random()
        has_truth = not empty_truth and not ("recs_only_users" in on and role < 0.2)
        has_recs = not ("truth_only_users" in on and 0.2 <= role < 0.4)
        if not has_truth and not has_recs:
            has_recs = True
        if has_truth:
            n_t = int(g.integers(1, min(n_items, 8) + 1))
            all_zero = "zero_grades" in on and g.random() < 0.2
            for i in g.choice(n_items, n_t, replace=False):
                truth.append([uid(u), iid(i), 0 if all_zero else grade()])
        if has_recs:
            if "empty_lists" in on and g.random() < 0.15:
                empty_lists.append(uid(u))
                continue
            length = (
                same_len
                if same_len is not None
                else int(g.choice([1, 1, 2, 3, 5, 8, 12, 25] if lengths is None else list(lengths)))
            )
            pool = n_items + (5 if "outside_catalog" in on else 0)
            lst = [int(x) for x in g.choice(pool, min(length, pool), replace=False)]
            if "duplicates" in on and len(lst) > 1 and g.random() < 0.4:
                for _ in range(int(g.integers(1, 3))):
                    if same_len is not None:  # the length stays: a later position takes an earlier item
                        j = int(g.integers(1, len(lst)))
                        lst[j] = lst[int(g.integers(j))]
                    else:
                        lst.insert(int(g.integers(1, len(lst) + 1)), lst[int(g.integers(len(lst)))])
            scores = np.sort(g.random(len(lst)))[::-1] + 0.25
            if "ties" in on and g.random() < 0.7:
                scores = np.round(scores * 2) / 2 + 0.25  # few distinct values
                if near_ties and g.random() < 0.35:
                    scores = scores + np.where(g.random(len(lst)) < 0.3, 1e-12, 0.0)
            if signed_scores:
                scores = scores - 0.75
            for r, (i, s) in enumerate(zip(lst, scores)):
                recs.append([uid(u), iid(i), r + 1, float(s)])
            if query_docs and g.random() < 0.35:  # the user's own id as a document of its list
                recs[len(recs) - len(lst) + int(g.integers(len(lst)))][1] = uid(u)
                if has_truth and g.random() < 0.5:
                    truth.append([uid(u), uid(u), grade()])
    # rows in a random order (the inputs' row order means nothing)
    order = g.permutation(len(truth))
    truth = [truth[j] for j in order]
    case: dict = {"truth": truth, "recs": recs, "empty_lists": empty_lists, "k": k, "ks": ks, "on": sorted(on)}
    catalog = [iid(i) for i in range(n_items)]
    case["catalog"] = catalog
    if "train" in on:
        train = []
        for t in range(int(g.integers(1, n_users + 6))):
            tu = uid(t) if g.random() < 0.5 else (f"t{t}" if kind == "string" else uid(10_000 + t))
            for i in g.choice(n_items, int(g.integers(1, min(n_items, 9) + 1)), replace=False):
                train.append([tu, iid(i)])
        case["train"] = train
    if "features" in on:
        width = int(g.integers(1, 5))
        feats = []
        for i in range(n_items + 5):
            v = g.integers(0, 3, width).astype(float) if g.random() < 0.5 else g.random(width).round(3)
            if "zero_features" in on and g.random() < 0.2:
                v = np.zeros(width)
            feats.append([iid(i), [float(x) for x in v]])
        case["features"] = feats
    return case


def as_dicts(case: dict, *, scored: bool = False) -> tuple[dict, dict]:
    """truth {user: {item: grade}} and recs {user: [items by rank]} (or {user: [(item, score)]}) of a case,
    with its empty lists. Repeated truth rows keep the last grade."""
    truth: dict = {}
    for u, i, gr in case["truth"]:
        truth.setdefault(u, {})[i] = gr
    recs: dict = {}
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        recs.setdefault(u, []).append((i, s) if scored else i)
    for u in case.get("empty_lists", []):
        recs[u] = []
    return truth, recs


def as_lists(case: dict) -> tuple[list, list, list]:
    """The case as the list-based libraries take it (ml_metrics, recmetrics, pyspark's RankingMetrics): every
    user of either side (sorted), its truth items in row order (any grade: these libraries take no grades; a
    user without truth rows has none) and its list by rank (repeats kept; a user without one has none)."""
    truth: dict = {}
    for u, i, _g in case["truth"]:
        truth.setdefault(u, []).append(i)
    _, recs = as_dicts(case)
    users = sorted(set(truth) | set(recs), key=lambda u: (str(type(u)), u))
    return users, [truth.get(u, []) for u in users], [recs.get(u, []) for u in users]


def rel_close(a: Optional[float], b: Optional[float], rel: float, abs_: float = 1e-12) -> bool:
    """a and b equal to relative `rel` (absolute `abs_` near zero); None and NaN only match each other."""
    na = a is None or a != a
    nb = b is None or b != b
    if na or nb:
        return na and nb
    assert a is not None and b is not None
    if a == b:  # equal infinities too
        return True
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_)
