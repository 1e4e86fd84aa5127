"""Pure-Python reference of rank fusion (docs/fusion.md): one loop per query, one formula per method.

Runs are dicts ``{query: {doc: score}}``; each list is ranked by score descending, equal scores in the dict's
order (``ties="input"``). Returns ``{query: {doc: fused score}}`` over every query of any run.
"""

from __future__ import annotations

import math
from typing import Any, Optional


def _ranked(docs: dict) -> list:
    return sorted(docs.items(), key=lambda kv: -kv[1])  # stable: equal scores keep the dict's order


def normalise(ranked: list, norm: Optional[str]) -> list:
    """One list (doc, value) best first, normalised; min-max-inverted re-ranks it (stable)."""
    if not ranked or norm in (None, "borda"):
        return list(ranked)
    xs = [v for _, v in ranked]
    lo, hi, n = min(xs), max(xs), len(xs)
    if norm == "min-max":
        f = [(x - lo) / max(hi - lo, 1e-9) for x in xs]
    elif norm == "min-max-inverted":
        f = [(hi - x) / max(hi - lo, 1e-9) for x in xs]
    elif norm == "max":
        f = [x / max(hi, 1e-9) for x in xs]
    elif norm == "sum":
        s = 0.0
        for x in xs:
            s += x
        f = [(x - lo) / max(s - lo * n, 1e-9) for x in xs]
    elif norm == "zmuv":
        s = 0.0
        for x in xs:
            s += x
        mean = s / n
        ss = 0.0
        for x in xs:
            ss += (x - mean) * (x - mean)
        sd = max(math.sqrt(ss / n), 1e-9)
        f = [(x - mean) / sd for x in xs]
    elif norm == "rank":
        f = [1 - i / n for i in range(n)]
    else:
        raise ValueError(norm)
    out = [(d, v) for (d, _), v in zip(ranked, f)]
    if norm == "min-max-inverted":
        out = sorted(out, key=lambda kv: -kv[1])
    return out


def _median(xs: list) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def fuse(runs: list, method: str, weights: Optional[list] = None, norm: Optional[str] = "min-max", **p: Any) -> dict:
    R = len(runs)
    w = list(weights) if weights is not None else [1.0] * R
    queries = list(dict.fromkeys(q for run in runs for q in run))
    out = {}
    for q in queries:
        lists = [normalise(_ranked(run.get(q, {})), norm) for run in runs]
        cands = list(dict.fromkeys(d for lst in lists for d, _ in lst))
        nc = len(cands)
        if norm == "borda" and nc:  # every run scores every candidate; the ones it lacks follow its list
            new = []
            for lst in lists:
                have = {d for d, _ in lst}
                ranked = [(d, 1 - i / nc) for i, (d, _) in enumerate(lst)]
                absent = 0.5 - (len(lst) - 1) / (2 * nc)
                new.append(ranked + [(d, absent) for d in cands if d not in have])
            lists = new
        # per run: doc -> (position, value) after the method's transform
        per = []
        for r, lst in enumerate(lists):
            n = len(lst)
            vals = {}
            for i, (d, v) in enumerate(lst):
                vals[d] = (i, _transform(method, i, n, v, r, p))
            if method in ("bordafuse", "w_bordafuse"):
                vals = {d: (i, nc - i) for i, (d, _) in enumerate(lst)}
                for d in cands:
                    vals.setdefault(d, (n + 1, (nc - n + 1) / 2))
            per.append(vals)
        if method in ("condorcet", "w_condorcet"):
            out[q] = _condorcet(cands, per, w)
            continue
        fused = {}
        for d in cands:
            present = [(r, per[r][d][1]) for r in range(R) if d in per[r]]
            xs = [v for _, v in present]
            cnt = len(xs)
            s = 0.0
            for x in xs:
                s += x
            if method in ("sum", "rrf", "rbc", "bordafuse", "posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse"):
                v = 0.0
                for r in range(R):
                    v += per[r][d][1] if d in per[r] else 0.0
            elif method == "bayesfuse":
                v = 0.0
                for r in range(R):
                    v += per[r][d][1] if d in per[r] else math.log(0.001 / 0.999)
            elif method in ("wsum", "w_bordafuse"):
                v = 0.0
                for r in range(R):
                    v += w[r] * (per[r][d][1] if d in per[r] else 0.0)
            elif method in ("mnz", "isr"):
                v = s * cnt
            elif method == "gmnz":
                v = s * cnt ** p["gamma"]
            elif method == "log_isr":
                v = s * math.log(cnt)
            elif method == "logn_isr":
                v = s * math.log(cnt + p.get("sigma", 0.01))
            elif method == "anz":
                v = s / cnt
            elif method == "max":
                v = max(per[r][d][1] if d in per[r] else -1e9 for r in range(R))
            elif method == "min":
                v = min(per[r][d][1] if d in per[r] else 1e9 for r in range(R))
            elif method == "med":
                v = _median(xs)
            elif method == "wmnz":
                ws = 0.0
                for r, _ in present:
                    ws += w[r]
                v = s * ws
            elif method == "mixed":
                v = 0.0
                for r, x in present:
                    v += x * w[r]
                v *= math.sqrt(cnt)
            else:
                raise ValueError(method)
            fused[d] = v
        out[q] = fused
    return out


def _transform(method: str, i: int, n: int, v: float, r: int, p: dict) -> float:
    if method == "rrf":
        return 1 / (p.get("k", 60) + i + 1)
    if method in ("isr", "log_isr", "logn_isr"):
        return 1 / (i + 1) ** 2
    if method == "rbc":
        return (1 - p["phi"]) * p["phi"] ** i
    if method in ("posfuse", "bayesfuse"):
        t = p["probs" if method == "posfuse" else "log_odds"][r]
        return t[i] if i < len(t) else 0.0
    if method == "segfuse":
        bounds = [0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)]
        for k in range(10):
            if bounds[k] <= i < bounds[k + 1]:
                return p["probs"][r][k] * (v + 1)
        return 0.0
    if method == "probfuse":
        t = p["probs"][r]
        size = math.ceil(n / len(t))
        k = i // size
        return t[k] / (k + 1) if k < len(t) else 0.0
    if method == "slidefuse":
        t = p["probs"][r]
        a, b = max(i - p["w"], 0), min(i + p["w"], n - 1)
        s = 0.0
        for x in t[a : b + 1]:
            s += x
        return s / (b - a + 1)
    if method == "mapfuse":
        return p["map_scores"][r] / (i + 1)
    return v


def _condorcet(cands: list, per: list, w: list) -> dict:
    def before(x: Any, y: Any) -> bool:
        xv = yv = 0.0
        for r, vals in enumerate(per):
            px = vals[x][0] if x in vals else 1_000_000
            py = vals[y][0] if y in vals else 1_000_000
            if px < py:
                xv += w[r]
            else:
                yv += w[r]
        return xv >= yv

    order = list(cands)
    # bottom-up merge sort, the right element first when it comes before the left one
    width = 1
    while width < len(order):
        merged = []
        for lo in range(0, len(order), 2 * width):
            a, b = order[lo : lo + width], order[lo + width : lo + 2 * width]
            i = j = 0
            while i < len(a) and j < len(b):
                if before(b[j], a[i]):
                    merged.append(b[j])
                    j += 1
                else:
                    merged.append(a[i])
                    i += 1
            merged += a[i:] + b[j:]
        order = merged
        width *= 2
    return {d: float(len(order) - i) for i, d in enumerate(order)}
