"""LensKit's ranking metrics on the differential cases (tests/differential/cases.py), in LensKit's venv.

    <venv>/bin/python -P tests/differential/worker_lenskit.py IN.json OUT.json

Imports only the standard library, numpy, pandas and LensKit, never rankmeter. Each case becomes two
``ItemListCollection``s keyed by ``user_id``: the recommendations (one ordered ``ItemList`` per user, items by
rank, an empty list for the case's empty lists) and the test data (one ``ItemList`` per truth user, its grades as
the ``rating`` field). ``RunAnalysis.measure`` gets every metric at each cutoff of the case and without one in one
call (NDCG and DCG twice: binary, and graded with ``gain="rating"``; ListGini with ``items`` = the catalog's
size); the per-user values are ``list_metrics()`` (a NaN filled with the metric's default 0, as LensKit's own
summaries do) and the mean is ``list_summary()``'s. ListGini is a global metric: its value is the mean.

Some metrics raise on some cases, which makes ``RunAnalysis.measure`` raise (AveragePrecision: ZeroDivisionError
on a list whose user has no test items, 0.0 / min(0, n); NDCG and DCG with gain="rating": KeyError, the empty test
list of such a user has no rating field; ListGini: ValueError when more distinct items are recommended than the
catalog holds). The worker then measures each metric on its own and, for one that raises, records the error
(``raised``) with the per-user values list by list (None where it raises) and no mean.
"""

from __future__ import annotations

import logging
import math
import warnings


def _metrics(case: dict) -> list:
    from lenskit.metrics import DCG, NDCG, RBP, Hit, ListGini, Precision, Recall, RecipRank
    from lenskit.metrics.ranking import AveragePrecision

    out: list = []
    for k in [*case["ks"], None]:
        sfx = f"@{k}" if k else ""
        out += [
            (f"NDCG{sfx}", NDCG(k)),
            (f"NDCG(gain=rating){sfx}", NDCG(k, gain="rating")),
            (f"DCG{sfx}", DCG(k)),
            (f"DCG(gain=rating){sfx}", DCG(k, gain="rating")),
            (f"Precision{sfx}", Precision(k)),
            (f"Recall{sfx}", Recall(k)),
            (f"RecipRank{sfx}", RecipRank(k)),
            (f"Hit{sfx}", Hit(k)),
            (f"RBP{sfx}", RBP(k)),
            (f"AveragePrecision{sfx}", AveragePrecision(k)),
        ]
        if case["catalog"]:
            out.append((f"ListGini{sfx}", ListGini(k, items=len(case["catalog"]))))
    return out


def one(case: dict) -> dict:
    import numpy as np
    from lenskit.data import ItemList, ItemListCollection
    from lenskit.metrics import RunAnalysis

    lists: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        lists.setdefault(u, []).append(i)
    for u in case.get("empty_lists", []):
        lists[u] = []
    test: dict = {}
    for u, i, g in case["truth"]:
        test.setdefault(u, {})[i] = float(g)
    # an empty list holds ids of the case's kind (what a recommender that found nothing returns)
    kind = str if "string_ids" in case["on"] else np.int64

    def il(items: list, **fields) -> ItemList:
        return ItemList(
            item_ids=np.array(items, dtype=kind if items else (kind if kind is str else np.int64)), **fields
        )

    outputs = ItemListCollection.empty(["user_id"])
    for u, items in lists.items():
        outputs.add(il(items, ordered=True), user_id=u)
    truth = ItemListCollection.empty(["user_id"])
    for u, rows in test.items():
        truth.add(il(list(rows), rating=np.array(list(rows.values()), dtype=np.float64)), user_id=u)

    def analysis(ms: list):
        ra = RunAnalysis()
        for label, m in ms:
            ra.add_metric(m, label)
        return ra.measure(outputs, truth)

    metrics = _metrics(case)
    out: dict = {}
    try:
        results = [(metrics, analysis(metrics))]
    except Exception:  # one metric raised: each on its own, the one that raises measured list by list
        results = []
        for label, m in metrics:
            try:
                results.append(([(label, m)], analysis([(label, m)])))
            except Exception as e:
                out[label] = _one_by_one(m, outputs, truth, type(e).__name__)
    for ms, res in results:
        per_user = res.list_metrics()
        means = res.list_summary()["mean"] if len(per_user.columns) else {}
        glob = res.global_metrics()
        for label, _m in ms:
            if label.startswith("ListGini"):
                out[label] = {"per_user": None, "mean": _num(glob[label]) if label in glob.index else None}
            elif label not in per_user.columns:  # no list measured (a case without lists)
                out[label] = {"per_user": [], "mean": None}
            else:
                col = per_user[label]
                pu = [[_plain(u), _num(v)] for u, v in zip(col.index.tolist(), col.tolist())]
                out[label] = {"per_user": pu, "mean": _num(means[label])}
    return out


def _one_by_one(m, outputs, truth, error: str) -> dict:
    """A metric that raised in RunAnalysis: a ListMetric measured list by list as RunAnalysis does (a list
    without test data and without items is skipped; one without test data gets an empty test list; NaN is
    filled with 0), None where it raises; ``raised`` names the error (tests/differential/lenskit.py skips
    such a label)."""
    from lenskit.data import ItemList
    from lenskit.metrics import ListMetric

    if not isinstance(m, ListMetric):
        return {"per_user": None, "mean": None, "raised": error}
    per_user: list = []
    for key, out in outputs:
        test = truth.lookup_projected(key)
        if test is None and not out:
            continue
        try:
            v = float(m.measure_list(out, test if test is not None else ItemList([])))
        except Exception:
            per_user.append([_plain(key[0]), None])
            continue
        per_user.append([_plain(key[0]), 0.0 if math.isnan(v) else v])
    return {"per_user": per_user, "mean": None, "raised": error}


def _plain(u):
    return u.item() if hasattr(u, "item") else u


def _num(v):
    v = float(v)
    return None if math.isnan(v) else v


if __name__ == "__main__":
    warnings.simplefilter("ignore")  # LensKit's RuntimeWarnings on 0 / 0 (the NaN it then fills)
    logging.disable(logging.WARNING)  # "could not find test data for n lists": the users of the lists only
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(one)
