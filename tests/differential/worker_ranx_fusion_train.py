"""Differential worker for ranx's fusion training (runs in the ranx venv: stdlib, numpy and ranx only; numba,
ranx's own dependency, only to reset its thread count between cases).

For every case (tests/differential/ranx_fusion_train.py, ``draw``), in this order (ranx's ``evaluate`` changes
numba's thread count, which its zmuv normalisation reads, so rankmeter makes the same calls in the same order):

- ``direct|m``: ``ranx.fusion.<m>_train(qrels, runs)`` on the runs as built (probfuse: ``n_segments``);
- per spec ``(m, norm, ...)``: ``table|i|m|norm``: ``<m>_train`` on the runs normalised as ``optimize_fusion``
  normalises them; ``opt|i|m|norm``: ``optimize_fusion(qrels, runs, norm, m, ...)`` (its tables, its best ``w``
  and its report for probfuse and slidefuse); ``fused|i|m|norm``: ``fuse(runs, norm, m, params=<opt's
  result>)``, the fused scores.

Tables are keyed ``[run, position]`` (probfuse ``[run, segment]``, mapfuse ``[run, 0]``); ``mean`` 0 when ranx
returned, None when it raised.
"""

from __future__ import annotations

import json
import sys
import warnings

warnings.simplefilter("ignore")

import numba  # noqa: E402
import numpy as np  # noqa: E402
from ranx import Qrels, Run, fuse, optimize_fusion  # noqa: E402
from ranx import fusion as rf  # noqa: E402
from ranx.normalization import norm_switch  # noqa: E402


def _table(t):
    if isinstance(t, np.ndarray) and t.ndim == 2:
        return [[[r, i], float(v)] for r in range(t.shape[0]) for i, v in enumerate(t[r])]
    out: list = []
    for r, a in enumerate(t):
        a = np.atleast_1d(np.asarray(a, dtype=np.float64))
        out.extend([[r, i], float(v)] for i, v in enumerate(a))
    return out


def _train(m, qrels, runs, k):
    f = getattr(rf, f"{m}_train")
    return f(qrels, runs, k) if m == "probfuse" else f(qrels, runs)


def _guard(fn):
    try:
        return {"per_user": fn(), "mean": 0.0}
    except Exception:
        return {"per_user": None, "mean": None}


def _spec(out, qrels, runs, i, spec):
    m, norm, kw = spec["method"], spec["norm"], spec["kw"]
    tag = f"{i}|{m}|{norm}"

    def normalised():
        rs = runs()
        if norm == "borda":  # ranx's Borda normalisation takes the runs together
            return norm_switch(norm)(rs)
        return rs if norm is None else [norm_switch(norm)(r) for r in rs]

    out[f"table|{tag}"] = _guard(lambda: _table(_train(m, qrels, normalised(), spec["n_segments"])))
    best = None

    def opt():
        nonlocal best
        if m in ("probfuse", "slidefuse"):
            b, rep = optimize_fusion(
                qrels,
                runs(),
                norm=norm,
                method=m,
                metric=spec["metric"],
                return_optimization_report=True,
                show_progress=False,
                **kw,
            )
            res = _table(b["probs"]) if b["probs"] is not None else []
            if m == "slidefuse":
                res.append([["w", 0], float(b["w"]) if b["w"] != [] else -1.0])
            res.extend([["report", c], float(v)] for c, v in zip(rep.configs, rep.results))
        else:
            b = optimize_fusion(qrels, runs(), norm=norm, method=m)
            res = _table(next(iter(b.values())))
        best = b
        return res

    out[f"opt|{tag}"] = _guard(opt)

    def fused():
        if best is None or any(v is None or (isinstance(v, list) and v == []) for v in best.values()):
            raise ValueError("no parameters")
        f = fuse(runs(), norm=norm, method=m, params=best)
        return [[[q, d], float(v)] for q, docs in f.to_dict().items() for d, v in docs.items()]

    out[f"fused|{tag}"] = _guard(fused)


def one(case):
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # each case from numba's default thread count
    qrels = Qrels(case["qrels"])

    def runs():
        return [Run({q: {d: float(v) for d, v in rows} for q, rows in run.items()}) for run in case["runs"]]

    out = {}
    for m in case["direct"]:
        out[f"direct|{m}"] = _guard(lambda m=m: _table(_train(m, qrels, runs(), case["n_segments"])))
    for i, spec in enumerate(case["specs"]):
        _spec(out, qrels, runs, i, spec)
    return {"ok": out}


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        try:
            results.append(one(case))
        except Exception as e:  # building the Qrels or Runs failed
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
