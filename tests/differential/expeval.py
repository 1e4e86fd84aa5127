"""Restatement of the authors' evaluator for expected exposure, diazf/expeval (``expeval.py`` with ``exposure.py``,
``metrics.py``, ``util.py``; Diaz et al., CIKM 2020), retrieval setting (no ``-C``), no groups (no ``-G``).

It is not installable (a script), so its logic is restated here, step for step, on dicts: qrels keep only grades
> 0 (``-B`` turns them to 1); the target gives each grade level of m items starting at ideal position b the mean
``(q^b - q^(b+m)) / (m (1 - q))`` (q = p for rbp, p (1 - u) for gerr); the run exposure adds ``attention / S`` per
entry (S the samples of the query); disparity ||eps||^2, relevance eps . eps*, difference ||eps - eps*||^2; the
normalised value is ``(v - lower) / (upper - lower)``, or the metric's default (disparity 0, relevance 1,
difference 0) when the bounds are equal. A query with relevant items and no sample gets disparity = its upper bound,
relevance = its lower bound and difference = *relevance's* upper bound (expeval's ``expeval.py``): with one grade
level that bound is 0, where rankmeter gives ||eps*||^2 (docs/metrics.md 3.23.10); ``MISSING_LOSS_AS_EXPEVAL``.
"""

from __future__ import annotations

import math
from typing import Any


def _geometric(q: float, n: float) -> float:
    return 1.0 / (1.0 - q) if n == math.inf else (1.0 - q**n) / (1.0 - q)


def _target(qrels: dict, model: str, p: float, u: float) -> tuple[dict, int]:
    counts: dict = {}
    for rel in qrels.values():
        counts[rel] = counts.get(rel, 0) + 1
    levels = sorted(counts.items(), reverse=True)
    per_level = {}
    b = 0
    for g, m in levels:
        if model == "rbp":
            per_level[g] = (p**b - p ** (b + m)) / (m * (1.0 - p))
        else:
            q = p * (1.0 - u)
            per_level[g] = (q**b - q ** (b + m)) / (m * (1.0 - q))  # g > 0 always here (no -C)
        b += m
    return {d: per_level[r] for d, r in qrels.items()}, len(levels)


def _expected(samples: list, qrels: dict, model: str, p: float, u: float) -> dict:
    n = len(samples)
    exp: dict = {}
    for ranking in samples:
        found = 0
        for i, d in enumerate(ranking):
            exp.setdefault(d, 0.0)
            e = p**i if model == "rbp" else p**i * (1.0 - u) ** found
            exp[d] += e / n
            if d in qrels and qrels[d] > 0:
                found += 1
    return exp


def _l2sq(x: dict) -> float:
    s = sum(v * v for v in x.values())
    return math.inf if (not x or s <= 0) else s


def _norm(value: float, lo: float, hi: float, default: float, normalize: bool) -> float:
    if not normalize:
        return value
    if lo == hi:
        return default
    return (value - lo) / (hi - lo)


def expeval(
    truth: dict,
    samples: list,
    model: str = "gerr",
    p: float = 0.5,
    u: float = 0.5,
    normalize: bool = True,
    binary: bool = False,
) -> dict[Any, tuple[float, float, float]]:
    """{query: (difference, disparity, relevance)} as expeval prints them (``-U`` is normalize=False).

    ``samples``: a list of {query: [doc, ...]}; a query's samples are those that list it."""
    out = {}
    for qid, judged in truth.items():
        qrels = {d: (1 if (binary and r > 0) else r) for d, r in judged.items() if r > 0}
        if not qrels:
            continue  # expeval reads only grades > 0: the query is not in its qrels
        tgt, n_levels = _target(qrels, model, p, u)
        rel_hi = _l2sq(tgt) if n_levels > 1 else 0.0
        rel_lo = 0.0
        disp_hi, disp_lo = _geometric(p * p, math.inf), 0.0
        q = p if model == "rbp" else p * u
        diff_hi = sum(e * e for e in tgt.values()) + _geometric(q, math.inf)
        lists = [s[qid] for s in samples if qid in s and len(s[qid]) > 0]
        if not lists:
            disp, rel, diff = disp_hi, rel_lo, rel_hi
        else:
            run = _expected(lists, qrels, model, p, u)
            disp = _l2sq(run)
            rel = sum(tgt[d] * run[d] for d in set(tgt) & set(run))
            diff = sum((tgt.get(d, 0.0) - run.get(d, 0.0)) ** 2 for d in set(tgt) | set(run))
        out[qid] = (
            _norm(diff, 0.0, diff_hi, 0.0, normalize),
            _norm(disp, disp_lo, disp_hi, 0.0, normalize),
            _norm(rel, rel_lo, rel_hi, 1.0, normalize),
        )
    return out
