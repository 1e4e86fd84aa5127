"""Plain-Python reference of the intent-aware (subtopic) diversity measures, with ndeval's conventions
(docs/metrics.md, "Subtopic (intent-aware) diversity"). Slow and simple, for the tests only.

A user's judgments are ``{item: set of subtopics the item is relevant to}`` (relevant judgments only; an item
judged non-relevant everywhere, or not judged, gains nothing); ``ranked`` is the user's list, best first.
Every function returns one user's value. ``k=None``: the whole list.
"""

from __future__ import annotations

import math
from typing import Optional

__all__ = [
    "alpha_dcg",
    "alpha_ndcg",
    "err_ia",
    "nerr_ia",
    "p_ia",
    "strec",
    "nrbp",
    "nnrbp",
    "map_ia",
    "ideal_ranking",
    "subtopic_value",
]


def _subtopics(judged: dict) -> list:
    """The user's subtopics with a relevant item, in ascending id order (the order gains are summed in)."""
    return sorted({s for subs in judged.values() for s in subs})


def _gains(ranked: list, judged: dict, alpha: float) -> list:
    """The intent-aware gain at each position: every subtopic the item is relevant to adds its current gain
    (1 at first), which is then multiplied by 1 - alpha."""
    gain: dict = {}
    out = []
    for item in ranked:
        g = 0.0
        for s in sorted(judged.get(item, ())):
            g += gain.get(s, 1.0)
            gain[s] = gain.get(s, 1.0) * (1.0 - alpha)
        out.append(g)
    return out


def _disc(i: int) -> float:
    return 1.0 if i == 0 else math.log(2.0) / math.log(i + 2.0)


def _normalised(gains: list, depth: int, n_sub: int, alpha: float, dcg: bool) -> float:
    """ndeval's alpha-DCG (dcg) or ERR-IA (not dcg) at ``depth``: the cumulated gain divided by that of a
    list covering every subtopic at every rank, except at depth 1 (left undivided)."""
    num = den = 0.0
    for i in range(depth):
        g = gains[i] if i < len(gains) else 0.0
        w = _disc(i) if dcg else 1.0 / (i + 1)
        num += g * w
        den += n_sub * (1.0 - alpha) ** i * w
    return num if depth == 1 else num / den


def ideal_ranking(judged: dict, alpha: float) -> list:
    """ndeval's greedy ideal: at each rank the item of the largest gain given the items above it; equal
    gains go to the largest item id compared as a string."""
    left = dict(judged)
    gain: dict = {}
    out = []
    while left:
        best: Optional[float] = None
        best_key, best_item = "", None
        for item, subs in left.items():
            g = sum(gain.get(s, 1.0) for s in sorted(subs))
            if best is None or g > best or (g == best and str(item) > best_key):
                best, best_key, best_item = g, str(item), item
        if best == 0.0:
            break
        out.append(best_item)
        for s in left.pop(best_item):
            gain[s] = gain.get(s, 1.0) * (1.0 - alpha)
    return out


def _depth(ranked: list, k: Optional[int]) -> int:
    return k if k is not None else max(len(ranked), 1)


def alpha_dcg(ranked: list, judged: dict, k: Optional[int], alpha: float = 0.5) -> float:
    n_sub = len(_subtopics(judged))
    if not n_sub:
        return 0.0
    return _normalised(_gains(ranked, judged, alpha), _depth(ranked, k), n_sub, alpha, True)


def err_ia(ranked: list, judged: dict, k: Optional[int], alpha: float = 0.5) -> float:
    n_sub = len(_subtopics(judged))
    if not n_sub:
        return 0.0
    return _normalised(_gains(ranked, judged, alpha), _depth(ranked, k), n_sub, alpha, False)


def alpha_ndcg(ranked: list, judged: dict, k: Optional[int], alpha: float = 0.5) -> float:
    got = alpha_dcg(ranked, judged, k, alpha)
    if got == 0.0:
        return 0.0
    return got / alpha_dcg(ideal_ranking(judged, alpha), judged, _depth(ranked, k), alpha)


def nerr_ia(ranked: list, judged: dict, k: Optional[int], alpha: float = 0.5) -> float:
    if alpha_dcg(ranked, judged, k, alpha) == 0.0:  # ndeval tests the alpha-DCG
        return 0.0
    got = err_ia(ranked, judged, k, alpha)
    return got / err_ia(ideal_ranking(judged, alpha), judged, _depth(ranked, k), alpha)


def p_ia(ranked: list, judged: dict, k: Optional[int]) -> float:
    n_sub = len(_subtopics(judged))
    if not n_sub:
        return 0.0
    depth = _depth(ranked, k)
    pairs = sum(len(judged.get(item, ())) for item in ranked[:depth])
    return pairs / (depth * n_sub)


def strec(ranked: list, judged: dict, k: Optional[int]) -> float:
    n_sub = len(_subtopics(judged))
    if not n_sub:
        return 0.0
    covered: set = set()
    for item in ranked[: _depth(ranked, k)]:
        covered |= set(judged.get(item, ()))
    return len(covered) / n_sub


def nrbp(ranked: list, judged: dict, alpha: float = 0.5, beta: float = 0.5) -> float:
    n_sub = len(_subtopics(judged))
    if not n_sub:
        return 0.0
    total = sum(g * beta**i for i, g in enumerate(_gains(ranked, judged, alpha)))
    return total * (1.0 - (1.0 - alpha) * beta) / n_sub


def nnrbp(ranked: list, judged: dict, alpha: float = 0.5, beta: float = 0.5) -> float:
    ideal = nrbp(ideal_ranking(judged, alpha), judged, alpha, beta)
    got = nrbp(ranked, judged, alpha, beta)
    return got / ideal if ideal != 0.0 else math.nan  # ndeval: 0 / 0 without a relevant subtopic


def map_ia(ranked: list, judged: dict) -> float:
    subs = _subtopics(judged)
    if not subs:
        return 0.0
    total = 0.0
    for s in subs:
        n_rel = sum(1 for v in judged.values() if s in v)
        found, ap = 0, 0.0
        for i, item in enumerate(ranked):
            if s in judged.get(item, ()):
                found += 1
                ap += found / (i + 1)
        total += ap / n_rel
    return total / len(subs)


def subtopic_value(name: str, ranked: list, judged: dict, k: Optional[int], options: dict) -> float:
    """One user's value of the measure ``name`` with its registry options."""
    alpha, beta = options.get("alpha", 0.5), options.get("beta", 0.5)
    if name in ("alpha_dcg", "alpha_ndcg", "err_ia", "nerr_ia"):
        return globals()[name](ranked, judged, k, alpha)
    if name in ("p_ia", "strec"):
        return globals()[name](ranked, judged, k)
    if name in ("nrbp", "nnrbp"):
        return globals()[name](ranked, judged, alpha, beta)
    if name == "map_ia":
        return map_ia(ranked, judged)
    raise KeyError(name)
