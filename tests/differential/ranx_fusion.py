"""Peer module: ``rankmeter.fuse`` and ``rankmeter.compat.ranx.fuse`` against the live ``ranx.fuse``
(worker_ranx_fusion.py).

A case is 2-4 runs of the same queries, drawn here (``draw``): documents in one run only, empty lists,
queries a run lacks (an empty list for ranx, absent from the dict given to ``rm.fuse``), single-document
queries, tied and negative scores, string or int document ids (ranx's ``Run`` turns int ids into strings;
all of one length: ranx stores each run's ids in a numpy unicode array as wide as the run's longest id, and
numba's dict then fails to find an id of one run in another run of a different width, adding garbage keys,
which is not reproduced),
and about 30 (method, normalisation, parameters) triples drawn from every ranx method and normalisation.
Each triple gives two labels: ``compat|...`` (``compat.ranx.fuse`` on this module's ``Run`` objects) and
``rm|...`` (``rm.fuse`` on the plain dicts, ``ties="ranx"``); per-user values are the fused scores keyed by
``(query, document)``; ``mean`` is 0 when the call returned and None when it raised.

ranx orders equal scores with numba's unstable quicksort, which both labels reproduce. It iterates a Python
set of the candidates (hash-randomised order) in two places, so there equality is defined on the queries
whose ranx result does not depend on that order (``known``): Condorcet's sort (a query whose pairwise
majority is not a strict total order), and the Borda normalisation before a rank-based method (its runs are
read in set order).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

VENV = "ranx"
ISOLATED = True
WORKER = Path(__file__).with_name("worker_ranx_fusion.py")
ALLOW: tuple = ()
REL = 1e-9

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", None)
METHODS = (
    "sum",
    "mnz",
    "max",
    "min",
    "med",
    "anz",
    "gmnz",
    "wsum",
    "wmnz",
    "mixed",
    "rrf",
    "isr",
    "log_isr",
    "logn_isr",
    "rbc",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
    "bayesfuse",
    "posfuse",
    "probfuse",
    "segfuse",
    "slidefuse",
    "mapfuse",
)
RANK_BASED = {
    "rrf",
    "isr",
    "log_isr",
    "logn_isr",
    "rbc",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
    "bayesfuse",
    "posfuse",
    "probfuse",
    "segfuse",
    "slidefuse",
    "mapfuse",
}


def _params(rng: np.random.Generator, method: str, n_runs: int) -> dict:
    r = lambda: round(float(rng.random()), 3)  # noqa: E731
    if method in ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"):
        return {"weights": [round(float(x), 1) for x in rng.integers(0, 11, n_runs) / 10]}
    if method == "gmnz":
        return {"gamma": r() * 2}
    if method == "rrf":
        return {} if rng.random() < 0.5 else {"k": int(rng.integers(0, 100))}
    if method == "logn_isr":
        return {} if rng.random() < 0.5 else {"sigma": r()}
    if method == "rbc":
        return {"phi": r()}
    if method == "bayesfuse":
        return {"log_odds": [[round(float(x), 3) for x in rng.normal(size=1000)] for _ in range(n_runs)]}
    if method in ("posfuse", "slidefuse"):
        p: dict = {"probs": [[r() for _ in range(int(rng.integers(1, 30)))] for _ in range(n_runs)]}
        if method == "slidefuse":
            p["w"] = int(rng.integers(0, 4))
        return p
    if method == "probfuse":
        n_seg = int(rng.integers(1, 6))
        return {"probs": [[r() for _ in range(n_seg)] for _ in range(n_runs)]}
    if method == "segfuse":
        return {"probs": [[r() for _ in range(10)] for _ in range(n_runs)]}
    if method == "mapfuse":
        return {"map_scores": [r() for _ in range(n_runs)]}
    return {}


def draw(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    int_ids = bool(rng.random() < 0.4)
    n_runs = int(rng.integers(2, 5))
    n_q = int(rng.integers(1, 9))
    n_docs = int(rng.choice([1, 2, 5, 12, 25]))
    ties = bool(rng.random() < 0.5)
    negative = bool(rng.random() < 0.3)
    runs, missing = [], []
    for _ in range(n_runs):
        run, miss = {}, []
        for q in range(n_q):
            n = min(int(rng.choice([0, 1, 1, 2, 3, 5, 8, 12, 20])), n_docs)
            docs = rng.choice(n_docs, n, replace=False)
            if ties:
                vals = rng.integers(0, 3, n).astype(float)
            else:
                vals = np.round(rng.normal(size=n) * 3, 6)
            if negative:
                vals = vals - 2.0
            run[f"q{q}"] = [[int(d) + 10 if int_ids else f"d{d:02d}", float(v)] for d, v in zip(docs, vals)]
            if n == 0 and rng.random() < 0.5:
                miss.append(f"q{q}")
        if not any(run.values()):  # ranx cannot build a Run without a (query, document) pair
            run["q0"] = [[10 if int_ids else "d00", 1.0]]
            miss = [q for q in miss if q != "q0"]
        runs.append(run)
        missing.append(miss)
    specs = []
    for _ in range(30):
        m = str(rng.choice(METHODS))
        norm = NORMS[int(rng.integers(0, len(NORMS)))]
        specs.append([m, norm, _params(rng, m, n_runs)])
    return {"runs": runs, "missing": missing, "specs": specs, "int_ids": int_ids}


def label(path: str, i: int, spec: list) -> str:
    return f"{path}|{i}|{spec[0]}|{spec[1]}"


def _dicts(case: dict, for_rm: bool) -> list:
    out = []
    for run, miss in zip(case["runs"], case["missing"]):
        d = {}
        for q, rows in run.items():
            if for_rm and q in miss:
                continue
            d[q] = {(doc if for_rm else str(doc)): v for doc, v in rows}
        out.append(d)
    return out


def _per_user(recs: Any) -> dict:
    out = {}
    ip, items, scores = recs.indptr.tolist(), recs.items_native.tolist(), recs.scores.tolist()
    for i, q in enumerate(recs.users.tolist()):
        for j in range(ip[i], ip[i + 1]):
            out[(q, str(items[j]))] = scores[j]
    return out


def ours(case: dict) -> dict:
    import rankmeter as rm
    from rankmeter.compat import ranx as cr

    cr._NUMBA_THREADS[0] = None  # numba's default thread count, as in the worker (it never calls ranx.evaluate)
    res: dict = {}
    for i, spec in enumerate(case["specs"]):
        m, norm, params = spec
        try:
            fused = cr.fuse([cr.Run(d) for d in _dicts(case, False)], norm=norm, method=m, params=params)
            pu = {(q, d): v for q, docs in fused.to_dict().items() for d, v in docs.items()}
            res[label("compat", i, spec)] = {"per_user": pu, "mean": 0.0}
        except Exception:
            res[label("compat", i, spec)] = {"per_user": None, "mean": None}
        p = dict(params)
        w = p.pop("weights", None)
        try:
            fused_rm = rm.fuse(_dicts(case, True), method=m, weights=w, norm=norm, ties="ranx", **p)
            res[label("rm", i, spec)] = {"per_user": _per_user(fused_rm), "mean": 0.0}
        except Exception:
            res[label("rm", i, spec)] = {"per_user": None, "mean": None}
    return res


def _condorcet_strict(case: dict, spec: list, as_compat: bool) -> bool:
    """Whether, in every query, the (weighted) pairwise majority over the lists as ranx reads them is a strict
    total order: then any sort of the candidates gives ranx's result."""
    from rankmeter.compat import ranx as cr
    from rankmeter.evaluation._fusion import normalised, prepare_runs

    _, norm, params = spec
    runs = [cr.Run(d) for d in _dicts(case, False)]
    if as_compat and norm == "zmuv":  # the lists compat.ranx.fuse reads (ranx's zmuv over an empty list)
        cr._NUMBA_THREADS[0] = None  # as in ours()
        runs = cr._zmuv_as_ranx(runs)
    prep = prepare_runs(runs)
    codes, _ = normalised(prep, norm, 1)
    R = prep.n_runs
    nq = (prep.indptr.size - 1) // R
    w = params.get("weights", [1.0] * R)
    for q in range(nq):
        pos: list = []
        cand: dict = {}
        for r in range(R):
            lo, hi = prep.indptr[r * nq + q], prep.indptr[r * nq + q + 1]
            p = {int(c): i for i, c in enumerate(codes[lo:hi])}
            pos.append(p)
            for c in p:
                cand.setdefault(c, len(cand))
        cs = list(cand)
        wins = dict.fromkeys(cs, 0)
        for a in range(len(cs)):
            for b in range(a + 1, len(cs)):
                x, y = cs[a], cs[b]
                xv = sum(w[r] for r in range(R) if pos[r].get(x, 10**6) < pos[r].get(y, 10**6))
                yv = sum(w[r] for r in range(R) if pos[r].get(y, 10**6) < pos[r].get(x, 10**6))
                rest = sum(w) - xv - yv  # runs placing both at 1,000,000: a vote for the second one
                if (xv >= yv + rest) == (yv >= xv + rest):
                    return False
                wins[x if xv >= yv + rest else y] += 1
        if len(set(wins.values())) != len(cs):
            return False
    return True


def known(case: dict, res: dict) -> dict:
    """The labels whose ranx result depends on the iteration order of a Python set, and rm.fuse's labels of
    ranx's zmuv over an empty list (docs/fusion.md)."""
    skip = {}
    n_cand = []
    for q in case["runs"][0]:
        n_cand.append(len({str(d) for run in case["runs"] for d, _ in run.get(q, [])}))
    for i, spec in enumerate(case["specs"]):
        m, norm, _ = spec
        why = None
        if norm == "borda" and m in RANK_BASED and max(n_cand, default=0) > 1:
            why = "Borda normalisation before a rank-based method: ranx reads its runs in a set's order"
        if why:
            skip[label("compat", i, spec)] = why
            skip[label("rm", i, spec)] = why
            continue
        if m in ("condorcet", "w_condorcet"):
            why = "Condorcet without a strict majority order: ranx's result depends on a set's order"
            for path in ("compat", "rm"):
                if not _condorcet_strict(case, spec, path == "compat"):
                    skip[label(path, i, spec)] = why
        if norm == "zmuv" and any(not rows for run in case["runs"] for rows in run.values()):
            skip[label("rm", i, spec)] = (
                "zmuv with an empty list: ranx empties the later queries of a numba thread's share "
                "(compat.ranx reproduces it, rm.fuse does not)"
            )
    return skip
