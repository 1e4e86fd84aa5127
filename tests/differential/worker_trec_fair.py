"""The TREC Fair Ranking 2022 Task 1 evaluation, restated in trec_fair.py, on the differential cases (in rankmeter's
own interpreter: the scripts are not on PyPI).

    python tests/differential/worker_trec_fair.py IN.json OUT.json

Each case gives the run (each user's list cut at k, as given: a repeated page counts twice, as in the scripts), the
qrels (the truth items with a grade above 0: the track's qrels are binary) and the page alignments (the case's
``item_groups``: a page absent from them is unknown, one with an empty list is known with no group). The target of
a query is the case's ``target`` (uniform over the groups, each group's share of the aligned pages, or the
groups of the query's relevant pages), written out as the scripts' input. A query is scored when it has a run row
and qrels (the scripts' ``groupby`` over the run rows and ``qrels.loc``). Imports only the standard library, numpy,
SciPy and the restatement (from its file), never rankmeter.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

_spec = importlib.util.spec_from_file_location("trec_fair", Path(__file__).resolve().with_name("trec_fair.py"))
assert _spec is not None and _spec.loader is not None
ref: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


def one(case: dict) -> dict:
    import numpy as np

    lists: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        lists.setdefault(u, []).append(i)
    rel: dict = {}
    for u, i, g in case["truth"]:
        if g > 0:
            rel.setdefault(u, []).append(i)
    align = dict(case["item_groups"])
    groups = sorted({g for gs in align.values() for g in gs})
    out: dict = {}
    for k in case["ks"]:
        awrf: list = []
        score: list = []
        for u, lst in lists.items():
            if u not in rel or not lst:
                continue
            run = lst[:k]
            if case["target"] == "uniform":
                t = np.ones(len(groups))
            else:
                pool = list(align) if case["target"] == "catalog" else [i for i in rel[u] if i in align]
                t = np.array([sum(g in align[i] for i in pool) for g in groups], dtype=np.float64)
            a = ref.trec_awrf(run, align, groups, t) if t.sum() > 0 else math.nan
            awrf.append([u, _num(a)])
            score.append([u, _num(a * ref.trec_ndcg(run, rel[u], k))])
        for label, pu in ((f"AWRF@{k}", awrf), (f"Score@{k}", score)):
            finite = [v for _u, v in pu if v is not None]
            out[label] = {"per_user": pu, "mean": sum(finite) / len(finite) if finite else None}
    return out


def _num(v: float):
    return None if math.isnan(v) else float(v)


if __name__ == "__main__":
    from worker_io import serve

    serve(one)
