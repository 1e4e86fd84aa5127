"""Pure-Python reference of the training of ranx's trained fusion methods (docs/fusion.md, "Training"): plain
loops over queries and positions, one function per method.

``qrels`` is ``{query: {doc: grade}}`` (every query counted, in the dict's order); each run is ``{query: {doc:
score}}``, its lists ranked by score descending, equal scores in the dict's order; a query a run lacks is an
empty list. A document is relevant when its grade is >= ``level`` (None: grade > 0).
"""

from __future__ import annotations

import math
from typing import Optional

from .reference_fusion import _ranked, normalise


def _hits(qrels: dict, run: dict, level: Optional[float], norm: Optional[str]) -> list:
    out = []
    for q, judged in qrels.items():
        ranked = normalise(_ranked(run.get(q, {})), norm)
        rel = {d for d, g in judged.items() if (g > 0 if level is None else g >= level)}
        out.append([1.0 if d in rel else 0.0 for d, _ in ranked])
    return out


def posfuse(qrels: dict, run: dict, level: Optional[float] = None, norm: Optional[str] = "min-max") -> list:
    hits = _hits(qrels, run, level, norm)
    longest = max((len(h) for h in hits), default=0)
    probs = []
    for i in range(longest):
        num = den = 0.0
        for h in hits:
            if i < len(h):
                den += 1
                num += h[i]
        probs.append(num / den)
    return probs


def probfuse(qrels: dict, run: dict, n_segments: int, level: Optional[float] = None, norm: Optional[str] = "min-max"):
    hits = _hits(qrels, run, level, norm)
    probs = [0.0] * n_segments
    for h in hits:
        size = math.ceil(len(h) / n_segments)
        for k in range(n_segments):
            seg = h[k * size : (k + 1) * size]
            if seg:
                probs[k] += sum(seg) / len(seg)
    return [p / len(hits) for p in probs]


def segfuse(qrels: dict, run: dict, level: Optional[float] = None, norm: Optional[str] = "min-max") -> list:
    bounds = [0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)]
    hits = _hits(qrels, run, level, norm)
    probs = [0.0] * 10
    for h in hits:
        for k in range(10):
            probs[k] += sum(h[bounds[k] : bounds[k + 1]]) / (bounds[k + 1] - bounds[k])
    return [p / len(hits) for p in probs]


def bayesfuse(qrels: dict, run: dict, level: Optional[float] = None, norm: Optional[str] = "min-max") -> list:
    cuts = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
    hits = _hits(qrels, run, level, norm)
    odds = [0.0] * 1000
    for k in range(len(cuts) - 1):
        a, b = cuts[k], cuts[k + 1]
        avg = 0.0
        for h in hits:
            avg += (sum(h[a:b]) / (b - a)) / len(hits)
        if avg == 0:
            avg += 0.001
        neg = 1 - avg
        if neg == 0:
            neg += 0.001
        for i in range(a, b):
            odds[i] = math.log(avg / neg)
    return odds


def mapfuse(qrels: dict, run: dict, level: Optional[float] = None, norm: Optional[str] = "min-max") -> float:
    hits = _hits(qrels, run, level, norm)
    total = 0.0
    for h, judged in zip(hits, qrels.values()):
        n_rel = sum(1 for g in judged.values() if (g > 0 if level is None else g >= level))
        if n_rel == 0:
            continue
        found = 0
        s = 0.0
        for i, x in enumerate(h):
            if x:
                found += 1
                s += found / (i + 1)
        total += s / n_rel
    return total / len(hits)


def borda_runs(runs: list) -> list:
    """The runs under the Borda normalisation as training reads them: per query, the run's own documents
    valued 1 - i/N, then every other candidate valued 1/2 - (n - 1)/(2N), in order of first appearance over the
    runs' ranked lists (N candidates, n in the run's list)."""
    queries: list = []
    for run in runs:
        queries += [q for q in run if q not in queries]
    out: list = [dict() for _ in runs]
    for q in queries:
        cands: list = []
        for run in runs:
            cands += [d for d, _ in _ranked(run.get(q, {})) if d not in cands]
        n_c = len(cands)
        for r, run in enumerate(runs):
            own = [d for d, _ in _ranked(run.get(q, {}))]
            vals = {d: 1 - i / n_c for i, d in enumerate(own)}
            for d in cands:
                if d not in vals:
                    vals[d] = 0.5 - (len(own) - 1) / (2 * n_c)
            if vals:
                out[r][q] = vals
    return out


def train(qrels: dict, runs: list, method: str, n_segments: Optional[int] = None, **kw) -> list:
    """The table of every run, as ``rm.train_fusion`` returns it (probfuse: one list per run)."""
    if kw.get("norm") == "borda":
        runs, kw = borda_runs(runs), {**kw, "norm": None}
    if method in ("posfuse", "slidefuse"):
        return [posfuse(qrels, r, **kw) for r in runs]
    if method == "probfuse":
        return [probfuse(qrels, r, n_segments, **kw) for r in runs]  # type: ignore[arg-type]
    if method == "segfuse":
        return [segfuse(qrels, r, **kw) for r in runs]
    if method == "bayesfuse":
        return [bayesfuse(qrels, r, **kw) for r in runs]
    if method == "mapfuse":
        return [mapfuse(qrels, r, **kw) for r in runs]
    raise ValueError(method)
