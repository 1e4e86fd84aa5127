"""Differential peer: recmetrics 0.1.5 and its GitHub source (venv `recm`, see worker_recmetrics.py) against
rankmeter.compat.recmetrics and preset="recmetrics".

recmetrics takes zipped lists of items without grades (cases.as_lists): the grade features of a case are
dropped on both sides; a user of either side is one position of the zipped lists. The compat functions are
called on those lists; the preset gets the same users as dicts (every user a truth user) in one evaluate call
with every metric it reproduces (mark, mapk, personalization, intra-list similarity, novelty, coverage) and
others mixed in.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .cases import FEATURES, as_lists

VENV = "recm"
WORKER = Path(__file__).with_name("worker_recmetrics.py")
ISOLATED = True  # python -P: this directory (with this module) is not on the worker's path
# grades: recmetrics takes none (truth rows are items)
ALLOW = FEATURES
REL = 1e-9
SEED = 12345  # random.seed before catalog_coverage, as the worker
MIXED = ["ndcg@3", "precision@5", "mrr", "hit_rate@2", "recall@10"]
NOT_MAPK = "mapk: a relevant item repeated above a later hit (GitHub's precision counts it, duplicates='miss' does not)"
NOT_ONE_USER = "personalization of a single user (recmetrics divides by 0 pairs: NaN, inf or -inf)"
NOT_COVERAGE = "prediction_coverage: a predicted item outside the catalog (counted by recmetrics)"


def _try(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn()
        except Exception:
            return None


def _val(users: list, per_user: Any, mean: Any) -> dict:
    pu = None if per_user is None else dict(zip(users, (float(v) for v in per_user)))
    return {"per_user": pu, "mean": None if mean is None else float(mean)}


def _train(case: dict):
    if not case.get("train"):
        return None, None, None
    train: dict = {}
    for u, i in case["train"]:
        train.setdefault(u, []).append(i)
    pop: dict = {}
    for _, i in case["train"]:
        pop[i] = pop.get(i, 0) + 1
    return train, pop, len(train)


def _compat(case: dict, users: list, actual: list, predicted: list) -> dict:
    import pandas as pd

    import rankmeter.compat.recmetrics as C

    out: dict = {}
    _, pop, u_train = _train(case)
    feats = None
    if case.get("features"):
        feats = pd.DataFrame([v for _, v in case["features"]], index=[i for i, _ in case["features"]])
    catalog = case["catalog"]

    def put(name: str, fn: Callable[[], Any]) -> None:
        got = _try(fn)
        out[f"compat:{name}"] = _val(users, *got) if got is not None else {"per_user": None, "mean": None}

    def at(k: int) -> None:  # one cutoff (its closures bind k and top)
        top = [p[:k] for p in predicted]
        put(
            f"mark@{k}",
            lambda: ([C.mark([a], [p], k) for a, p in zip(actual, predicted)], C.mark(actual, predicted, k)),
        )
        put(f"mapk@{k}", lambda: ([C._apk(a, p, k) for a, p in zip(actual, predicted)], C.mapk(actual, predicted, k)))
        put(f"personalization@{k}", lambda: (None, C.personalization(top)))
        if feats is not None:
            put(
                f"ils@{k}",
                lambda: ([C.intra_list_similarity([p], feats) for p in top], C.intra_list_similarity(top, feats)),
            )
        if pop is not None:
            put(f"novelty@{k}", lambda: tuple(reversed(C.novelty(top, pop, u_train, k))))
        put(f"prediction_coverage@{k}", lambda: (None, C.prediction_coverage(top, catalog)))
        put(f"prediction_coverage_gh_warn@{k}", lambda: (None, C.prediction_coverage(top, catalog, True)))
        put(
            f"prediction_coverage_gh_strict@{k}",
            lambda: (None, C.prediction_coverage(top, catalog, unseen_warning=False)),
        )

        def draw():
            random.seed(SEED)
            return None, C.catalog_coverage(top, catalog, k)

        put(f"catalog_coverage@{k}", draw)

    for k in case["ks"]:
        at(k)
    put(
        "recommender_precision",
        lambda: (
            [C.recommender_precision([p], [a]) for a, p in zip(actual, predicted)],
            C.recommender_precision(predicted, actual),
        ),
    )
    put(
        "recommender_recall",
        lambda: (
            [C.recommender_recall([p], [a]) for a, p in zip(actual, predicted)],
            C.recommender_recall(predicted, actual),
        ),
    )
    return out


def _preset(case: dict, users: list, actual: list, predicted: list) -> dict:
    import rankmeter as rm

    train, _, _ = _train(case)
    feats = dict(case["features"]) if case.get("features") else None
    names: dict = {}
    for k in case["ks"]:
        names[f"mark@{k}"] = f"ap(denominator=relevant)@{k}"
        names[f"mapk@{k}"] = f"map@{k}"
        names[f"personalization@{k}"] = f"personalization@{k}"
        names[f"prediction_coverage@{k}"] = f"coverage@{k}"
        if feats is not None:
            names[f"ils@{k}"] = f"diversity@{k}"
        if train is not None:
            names[f"novelty@{k}"] = f"novelty@{k}"
    truth, recs = dict(zip(users, actual)), dict(zip(users, predicted))
    kw = dict(preset="recmetrics", train=train, item_features=feats, catalog=case["catalog"])
    metrics = list(dict.fromkeys(names.values())) + MIXED
    alone: dict = {}
    try:
        res = rm.evaluate(truth, recs, metrics, **kw)
        refused: set = set()
    except ValueError as e:  # personalization refuses a repeated item (recmetrics' pivot raises on it too)
        if "more than once" not in str(e):
            raise
        # the refusal covers the whole call (lists are read up to its largest cutoff): each personalization@k
        # again on its own, refused only when its own top k holds the repeat
        refused = {m for m in metrics if m.startswith("personalization")}
        res = rm.evaluate(truth, recs, [m for m in metrics if m not in refused], **kw)
        alone = {}
        for m in sorted(refused):
            try:
                alone[m] = rm.evaluate(truth, recs, [m], **kw)[m]
            except ValueError as e2:
                if "more than once" not in str(e2):
                    raise
        refused -= set(alone)
    ids = res.users.tolist()
    out: dict = {}
    for label, m in names.items():
        if m in refused:
            continue
        if label.startswith(("personalization", "prediction_coverage")):
            v = alone[m] if m in alone else res[m]
            out[f"preset:{label}"] = {
                "per_user": None,
                "mean": round(100 * v, 2) if label.startswith("prediction") else v,
            }
            continue
        pu = np.asarray(res.per_user[m], dtype=np.float64)
        mean: Any = res[m]
        if label.startswith("ils"):
            pu, mean = 1.0 - pu, None
        out[f"preset:{label}"] = {"per_user": dict(zip(ids, pu.tolist())), "mean": mean}
    return out


def ours(case: dict) -> dict:
    users, actual, predicted = as_lists(case)
    return {**_compat(case, users, actual, predicted), **_preset(case, users, actual, predicted)}


def known(case: dict, peer: dict) -> dict:
    """The labels of the case that preset="recmetrics" does not reproduce (describe("recmetrics"))."""
    users, actual, predicted = as_lists(case)
    skip = {}
    for k in case["ks"]:
        for a, p in zip(actual, predicted):
            top, seen, repeat_above = p[:k], set(), False
            for x in top:
                if x in seen and x in a:
                    repeat_above = True
                elif x not in seen and x in a and repeat_above:
                    skip[f"preset:mapk@{k}"] = NOT_MAPK
                seen.add(x)
        if len(users) == 1:
            skip[f"preset:personalization@{k}"] = NOT_ONE_USER
        cat = set(case["catalog"])
        if any(x not in cat for p in predicted for x in p[:k]):
            skip[f"preset:prediction_coverage@{k}"] = NOT_COVERAGE
    return skip
