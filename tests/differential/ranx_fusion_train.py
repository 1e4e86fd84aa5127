"""Peer module: the training of ranx's trained fusion methods (``rm.train_fusion``,
``rankmeter.compat.ranx.fusion.*_train``, ``compat.ranx.optimize_fusion``) against the live ranx
(worker_ranx_fusion_train.py).

A case is qrels and 2-4 runs of the same 1-8 queries (ranx's optimize_fusion asserts it): string document ids of
one width, empty lists, queries without any relevant document (grades 0 or no judgment at all), relevant
documents no run retrieves, tied and negative scores, lists of up to 40 documents; then

- ``direct|m``: each of ranx's six ``*_train`` functions on the runs as built, against
  ``compat.ranx.fusion``'s;
- about 8 specs (method, normalisation, probfuse's segments or the optimiser's ranges and metric), each giving
  ``table|...`` (ranx's ``*_train`` on the runs normalised as its ``optimize_fusion`` normalises them, against
  ``rm.train_fusion(..., ties="ranx", min_relevance=1)``), ``opt|...`` (``optimize_fusion``'s tables, best ``w``
  and report, against ``compat.ranx.optimize_fusion``) and ``fused|...`` (``fuse`` with the optimised
  parameters, against ``compat.ranx.fuse``).

Under the Borda normalisation ranx lists the candidates a run lacks in a Python set's order (hash-randomised),
which training reads and ``fuse`` reads for every candidate: equality is defined where ranx's result does not
depend on that order (``known``): the tables and optimisations when no run lacks more than one candidate of a
query, the fused runs when no query has more than one candidate (docs/fusion.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

VENV = "ranx"
ISOLATED = True
WORKER = Path(__file__).with_name("worker_ranx_fusion_train.py")
ALLOW: tuple = ()
REL = 1e-9

TRAINED = ("bayesfuse", "mapfuse", "posfuse", "probfuse", "segfuse", "slidefuse")
NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", None)
METRICS = ("ndcg", "map", "map@5", "mrr", "recall@3", "precision@2", "hit_rate@3", "ndcg_burges@5")


def draw(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n_runs = int(rng.integers(2, 5))
    n_q = int(rng.integers(1, 9))
    n_docs = int(rng.choice([2, 5, 12, 25, 60]))
    ties = bool(rng.random() < 0.5)
    negative = bool(rng.random() < 0.3)
    qs = [f"q{q}" for q in range(n_q)]
    qrels: dict = {}
    for q in qs:
        n = min(int(rng.choice([0, 1, 2, 3, 5, 8])), n_docs)
        docs = rng.choice(n_docs, n, replace=False)
        qrels[q] = {f"d{int(d):02d}": int(rng.integers(0, 3)) for d in docs}
    if not any(qrels.values()):
        qrels[qs[0]] = {"d00": 1}
    # a quarter of the cases: every run ranks the same documents of a query (no run lacks a candidate, where
    # ranx's Borda normalisation does not depend on a set's order)
    same = {q: rng.choice(n_docs, min(int(rng.choice([0, 1, 3, 8, 20])), n_docs), replace=False) for q in qs}
    full = bool(rng.random() < 0.25)
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in qs:
            n = min(int(rng.choice([0, 1, 2, 3, 5, 8, 12, 20, 40])), n_docs)
            docs = rng.permutation(same[q]) if full else rng.choice(n_docs, n, replace=False)
            n = len(docs)
            vals = rng.integers(0, 3, n).astype(float) if ties else np.round(rng.normal(size=n) * 3, 6)
            if negative:
                vals = vals - 2.0
            run[q] = [[f"d{int(d):02d}", float(v)] for d, v in zip(docs, vals)]
        if not any(run.values()):  # ranx cannot build a Run without a (query, document) pair
            run[qs[0]] = [["d00", 1.0]]
        runs.append(run)
    specs = []
    for _ in range(8):
        m = str(rng.choice(TRAINED))
        norm = NORMS[int(rng.integers(0, len(NORMS)))]
        kw: dict = {}
        if m == "probfuse":
            lo = int(rng.integers(1, 3))
            kw = {"min_n_segments": lo, "max_n_segments": lo + int(rng.integers(0, 4))}
        elif m == "slidefuse":
            lo = int(rng.integers(0, 2))
            kw = {"min_w": lo, "max_w": lo + int(rng.integers(0, 4))}
        specs.append(
            {
                "method": m,
                "norm": norm,
                "kw": kw,
                "n_segments": int(rng.integers(1, 7)),
                "metric": str(rng.choice(METRICS)),
            }
        )
    return {
        "qrels": qrels,
        "runs": runs,
        "direct": list(TRAINED),
        "n_segments": int(rng.integers(1, 7)),
        "specs": specs,
    }


def _table(t: Any) -> dict:
    if isinstance(t, np.ndarray) and t.ndim == 2:
        return {(r, i): float(v) for r in range(t.shape[0]) for i, v in enumerate(t[r])}
    out = {}
    for r, a in enumerate(t):
        for i, v in enumerate(np.atleast_1d(np.asarray(a, dtype=np.float64))):
            out[(r, i)] = float(v)
    return out


def _guard(fn: Any) -> dict:
    try:
        return {"per_user": fn(), "mean": 0.0}
    except Exception:
        return {"per_user": None, "mean": None}


def ours(case: dict) -> dict:
    from rankmeter.compat import ranx as cr
    from rankmeter.compat.ranx import fusion as crf

    cr._NUMBA_THREADS[0] = None  # numba's default thread count, as the worker resets it per case
    qrels = cr.Qrels(case["qrels"])
    dicts = [{q: {d: float(v) for d, v in rows} for q, rows in run.items()} for run in case["runs"]]

    def runs() -> list:
        return [cr.Run(d) for d in dicts]

    def train(m: str, q: Any, rs: list, k: int) -> Any:
        f = getattr(crf, f"{m}_train")
        return f(q, rs, k) if m == "probfuse" else f(q, rs)

    out: dict = {}
    for m in case["direct"]:
        out[f"direct|{m}"] = _guard(lambda m=m: _table(train(m, qrels, runs(), case["n_segments"])))
    for i, spec in enumerate(case["specs"]):
        _spec(out, case, dicts, qrels, runs, i, spec)
    return out


def _spec(out: dict, case: dict, dicts: list, qrels: Any, runs: Any, i: int, spec: dict) -> None:
    import rankmeter as rm
    from rankmeter.compat import ranx as cr

    m, norm, kw = spec["method"], spec["norm"], spec["kw"]
    tag = f"{i}|{m}|{norm}"
    k = spec["n_segments"] if m == "probfuse" else None
    out[f"table|{tag}"] = _guard(
        lambda: _table(rm.train_fusion(case["qrels"], dicts, m, norm=norm, ties="ranx", min_relevance=1, n_segments=k))
    )
    if m == "mapfuse":  # ranx's mapfuse_train ran ranx.evaluate, which sets numba's thread count
        cr._set_numba_threads(len(case["qrels"]), 0)
    best: Any = None

    def opt() -> dict:
        nonlocal best
        if m in ("probfuse", "slidefuse"):
            b, rep = cr.optimize_fusion(
                qrels, runs(), norm=norm, method=m, metric=spec["metric"], return_optimization_report=True, **kw
            )
            res = _table(b["probs"]) if b["probs"] is not None else {}
            if m == "slidefuse":
                res[("w", 0)] = float(b["w"]) if b["w"] != [] else -1.0
            res.update({("report", c): float(v) for c, v in zip(rep.configs, rep.results)})
        else:
            b = cr.optimize_fusion(qrels, runs(), norm=norm, method=m)
            res = _table(next(iter(b.values())))
        best = b
        return res

    out[f"opt|{tag}"] = _guard(opt)

    def fused() -> dict:
        if best is None or any(v is None or (isinstance(v, list) and v == []) for v in best.values()):
            raise ValueError("no parameters")
        f = cr.fuse(runs(), norm=norm, method=m, params=best)
        return {(q, d): v for q, docs in f.to_dict().items() for d, v in docs.items()}

    out[f"fused|{tag}"] = _guard(fused)


def known(case: dict, res: dict) -> dict:
    """rm.train_fusion's labels under ranx's zmuv of an empty list (docs/fusion.md: ranx empties the later
    queries of a numba thread's share; compat.ranx reproduces it, rm does not), and the labels whose ranx result
    depends on a Python set's order under the Borda normalisation."""
    skip = {}
    empty = any(not rows for run in case["runs"] for rows in run.values())
    cands = {q: {d for run in case["runs"] for d, _ in run[q]} for q in case["qrels"]}
    longest_tail = max((len(cands[q] - {d for d, _ in run[q]}) for run in case["runs"] for q in cands), default=0)
    most = max((len(c) for c in cands.values()), default=0)
    for i, spec in enumerate(case["specs"]):
        tag = f"{i}|{spec['method']}|{spec['norm']}"
        if spec["norm"] == "borda":
            if longest_tail > 1:
                why = "Borda normalisation: ranx trains on the candidates a run lacks in a Python set's order"
                skip[f"table|{tag}"] = skip[f"opt|{tag}"] = why
            if most > 1:
                skip[f"fused|{tag}"] = (
                    "Borda normalisation before a rank-based method: ranx reads its runs in a set's order"
                )
        if spec["norm"] == "zmuv" and empty:
            skip[f"table|{i}|{spec['method']}|zmuv"] = (
                "zmuv with an empty list: ranx empties the later queries of a numba thread's share "
                "(compat.ranx reproduces it, rm.train_fusion does not)"
            )
    return skip
