"""Differential worker for ranx's fusion (runs in the ranx venv: stdlib, numpy and ranx only).

For every case (tests/differential/ranx_fusion.py, ``draw``): the runs as ranx ``Run`` objects built from dicts
(document ids as strings, a query a run lacks as an empty dict), then ``ranx.fuse`` once per drawn (method,
normalisation, parameters); the fused scores keyed by (query, document) under the labels ``compat|...`` and
``rm|...`` (the same ranx result, compared with both rankmeter paths); ``mean`` 0 when ranx returned, None
when it raised.
"""

from __future__ import annotations

import json
import sys
import warnings

warnings.simplefilter("ignore")

from ranx import Run, fuse  # noqa: E402


def one(case):
    runs = [Run({q: {str(d): float(v) for d, v in rows} for q, rows in run.items()}) for run in case["runs"]]
    out = {}
    for i, (method, norm, params) in enumerate(case["specs"]):
        try:
            fused = fuse(runs, norm=norm, method=method, params=params)
            pu = [[[q, d], float(v)] for q, docs in fused.to_dict().items() for d, v in docs.items()]
            res = {"per_user": pu, "mean": 0.0}
        except Exception:
            res = {"per_user": None, "mean": None}
        for path in ("compat", "rm"):
            out[f"{path}|{i}|{method}|{norm}"] = res
    return {"ok": out}


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        try:
            results.append(one(case))
        except Exception as e:  # building the Runs failed
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
