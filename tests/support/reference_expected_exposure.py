"""Pure-Python reference for expected exposure (docs/metrics.md 3.23.10), written from the formulas of Diaz et al.,
"Evaluating Stochastic Rankings with Expected Exposure" (CIKM 2020): one user at a time, dicts and loops.

``truth``: {user: {item: grade}}; ``samples``: a list of {user: [item, ...]} (best first). Returns
{user: (ee_l, ee_d, ee_r)} for every user with a relevant item (grade > 0).
"""

from __future__ import annotations

from typing import Any, Optional


def attention(i: int, above: int, model: str, p: float, u: float) -> float:
    """Browsing model at 0-based position i with ``above`` relevant items before it."""
    return p**i * ((1.0 - u) ** above if model == "gerr" else 1.0)


def target(grades: dict, model: str, p: float, u: float) -> dict:
    """eps*: each relevant item gets the mean attention of the ideal positions of its grade."""
    rel = sorted((g for g in grades.values() if g > 0), reverse=True)
    out: dict = {}
    for item, g in grades.items():
        if g <= 0:
            continue
        first = rel.index(g)
        last = len(rel) - rel[::-1].index(g)  # one past the last position of grade g
        # in the ideal ranking every item above is relevant, so h = i for gerr
        att = [attention(i, i, model, p, u) for i in range(first, last)]
        out[item] = sum(att) / len(att)
    return out


def exposure(lists: list, relevant: set, model: str, p: float, u: float) -> dict:
    """eps: the mean over the samples of each item's attention."""
    eps: dict = {}
    for ranking in lists:
        above = 0
        for i, item in enumerate(ranking):
            eps[item] = eps.get(item, 0.0) + attention(i, above, model, p, u) / len(lists)
            if item in relevant:
                above += 1
    return eps


def expected_exposure(
    truth: dict,
    samples: list,
    model: str = "gerr",
    p: float = 0.5,
    u: float = 0.5,
    normalize: bool = True,
    binary: bool = False,
    k: Optional[int] = None,
) -> dict[Any, tuple[float, float, float]]:
    out = {}
    for user, grades in truth.items():
        grades = {i: (1.0 if (binary and g > 0) else float(g)) for i, g in grades.items()}
        relevant = {i for i, g in grades.items() if g > 0}
        if not relevant:
            continue
        tgt = target(grades, model, p, u)
        lists = [s[user][:k] if k else s[user] for s in samples if user in s and len(s[user]) > 0]
        tnorm = sum(v * v for v in tgt.values())
        if lists:
            eps = exposure(lists, relevant, model, p, u)
            d = sum(v * v for v in eps.values())
            r = sum(v * eps.get(i, 0.0) for i, v in tgt.items())
            keys = set(eps) | set(tgt)
            loss = sum((eps.get(i, 0.0) - tgt.get(i, 0.0)) ** 2 for i in keys)
        else:  # no sampled list: disparity at its bound 1 / (1 - p^2), relevance 0, loss ||eps*||^2
            d, r, loss = 1.0 / (1.0 - p * p), 0.0, tnorm
        if normalize:
            d = d * (1.0 - p * p)
            levels = len({grades[i] for i in relevant})
            r = r / tnorm if levels > 1 else 1.0
            pl = p * u if model == "gerr" else p
            loss = loss / (tnorm + 1.0 / (1.0 - pl))
        out[user] = (loss, d, r)
    return out


# evaluate(truth, recs, ["ee_l", ...]): the lists as one sample; per user the value (None: no relevant item)
def _one(which: int, truth: dict, recs: dict, **kw: Any) -> dict:
    values = expected_exposure(truth, [recs], **kw)
    return {u: values[u][which] if u in values else None for u in truth}


def ee_l(truth: dict, recs: dict, **kw: Any) -> dict:
    return _one(0, truth, recs, **kw)


def ee_d(truth: dict, recs: dict, **kw: Any) -> dict:
    return _one(1, truth, recs, **kw)


def ee_r(truth: dict, recs: dict, **kw: Any) -> dict:
    return _one(2, truth, recs, **kw)
