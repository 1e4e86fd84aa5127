"""LensKit's ExposureGini on the differential cases, in LensKit's venv (tests/differential/lenskit_exposure.py).

    <venv>/bin/python -P tests/differential/worker_lenskit_exposure.py IN.json OUT.json

Imports only the standard library, numpy and LensKit. Each case's lists become an ``ItemListCollection`` keyed by
``user_id`` (items by rank, an empty list for the case's empty lists), the truth a second one; ``RunAnalysis``
measures ``ExposureGini`` at each cutoff of the case and without one, with ``items`` = the catalog's size and three
weightings: the default ``GeometricRankWeight()`` (patience 0.85), ``GeometricRankWeight(0.5)`` (label ``geometric-half``) and
``LogRankWeight()`` (ranks clipped at 2) / ``LogRankWeight(offset=1)``. A global metric: its value is the mean. A
metric that raises is recorded as ``raised`` (no value).
"""

from __future__ import annotations

import logging
import math
import warnings


def _metrics(case: dict) -> list:
    from lenskit.metrics import ExposureGini
    from lenskit.metrics.ranking._weighting import GeometricRankWeight, LogRankWeight

    n = len(case["catalog"])
    weights = {
        "geometric": GeometricRankWeight(),
        "geometric-half": GeometricRankWeight(0.5),
        "log": LogRankWeight(),
        "log(offset=1)": LogRankWeight(offset=1),
    }
    out = []
    for k in [*case["ks"], None]:
        for name, w in weights.items():
            out.append((f"ExposureGini[{name}]" + (f"@{k}" if k else ""), ExposureGini(k, items=n, weight=w)))
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
    kind = str if "string_ids" in case["on"] else np.int64
    outputs = ItemListCollection.empty(["user_id"])
    for u, items in lists.items():
        outputs.add(ItemList(item_ids=np.array(items, dtype=kind), ordered=True), user_id=u)
    truth = ItemListCollection.empty(["user_id"])
    test: dict = {}
    for u, i, _g in case["truth"]:
        test.setdefault(u, []).append(i)
    for u, items in test.items():
        truth.add(ItemList(item_ids=np.array(items, dtype=kind)), user_id=u)
    out: dict = {}
    for label, m in _metrics(case):
        ra = RunAnalysis()
        ra.add_metric(m, label)
        try:
            glob = ra.measure(outputs, truth).global_metrics()
        except Exception as e:
            out[label] = {"per_user": None, "mean": None, "raised": type(e).__name__}
            continue
        v = float(glob[label]) if label in glob.index else math.nan
        out[label] = {"per_user": None, "mean": None if math.isnan(v) else v}
    return out


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    from worker_io import serve

    serve(one)
