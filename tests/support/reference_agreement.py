"""Pure-Python reference of the agreement metrics between two runs (docs/metrics.md, "Agreement between runs").

Plain loops over one user's two ranked lists, each formula as its source states it: Webber, Moffat & Zobel
(2010) for rank-biased overlap (the extrapolated value by their eq. 32; the lower bound by its definition, the
series (1 - p) sum_d p^(d-1) X_d / d summed until its terms vanish, with no agreement past the lists), Kendall's
tau by counting pairs, Spearman's rho from the rank differences, RecTools' ``Intersection`` and RePlay's
``Unexpectedness`` as their code computes them. Exact rationals (``Fraction``) wherever the value is a ratio of
counts, so those compare bit for bit.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

NAN = float("nan")


def _top(lst: list, k: Optional[int]) -> list:
    return list(lst) if k is None else list(lst[:k])


def overlap_at(a: list, b: list, d_a: int, d_b: int) -> int:
    """|A_:d_a ∩ B_:d_b|, the lists' prefixes."""
    sa = set(a[:d_a])
    return sum(1 for x in b[:d_b] if x in sa)


def value(name: str, a: list, b: list, k: Optional[int], **opt: Any) -> float:
    """One user's value of one metric; ``a`` and ``b`` ranked lists of distinct items, best first."""
    A = _top(a, k)
    B = _top(b, opt.get("ref_k") or k) if name == "intersection" else _top(b, k)
    n = overlap_at(A, B, len(A), len(B))
    if name == "overlap":
        return float(n)
    if name == "intersection":  # RecTools: recall of A's top k against B's top ref_k; no row without A
        return float(Fraction(n, len(A))) if A else NAN
    if name == "jaccard":
        union = len(set(A) | set(B))
        return float(Fraction(n, union)) if union else 1.0
    if name == "unexpectedness":  # RePlay: 0 when either list is empty; its float expression 1.0 - n / k
        if not a or not b:
            return 0.0
        assert k is not None
        return 1.0 - n / k
    if name == "rbo":
        return rbo(A, B, opt.get("p", 0.9), opt.get("variant", "ext"))
    if name in ("kendall_tau", "spearman"):
        shared = [x for x in A if x in set(B)]  # in A's order
        m = len(shared)
        if m < 2:
            return NAN
        pos_b = {x: i for i, x in enumerate(B)}
        if name == "kendall_tau":
            conc = disc = 0
            for i in range(m):
                for j in range(i + 1, m):
                    if pos_b[shared[i]] < pos_b[shared[j]]:
                        conc += 1
                    else:
                        disc += 1
            return float(Fraction(conc - disc, m * (m - 1) // 2))
        in_b = sorted(shared, key=lambda x: pos_b[x])
        rank_b = {x: r for r, x in enumerate(in_b)}
        d2 = sum((r - rank_b[x]) ** 2 for r, x in enumerate(shared))
        return float(1 - Fraction(6 * d2, m * (m * m - 1)))
    raise ValueError(name)


def rbo(A: list, B: list, p: float, variant: str) -> float:
    """Rank-biased overlap of two (prefix) lists (Webber, Moffat & Zobel 2010)."""
    S, L = (A, B) if len(A) <= len(B) else (B, A)
    sn, ln = len(S), len(L)
    if ln == 0:
        return 1.0 if variant == "ext" else 0.0

    def X(d: int) -> int:  # past the shorter list's end: that whole list against the longer one's top d
        return overlap_at(S, L, min(d, sn), min(d, ln))

    if variant == "ext":  # eq. 32
        first = 0.0
        for d in range(1, ln + 1):
            first += X(d) / d * p**d
        second = 0.0
        for d in range(sn + 1, ln + 1):
            second += X(sn) * (d - sn) / (sn * d) * p**d if sn else 0.0
        last = ((X(ln) - X(sn)) / ln + (X(sn) / sn if sn else 0.0)) * p**ln
        return (1 - p) / p * (first + second) + last
    # lower bound: the definition (1 - p) sum_{d >= 1} p^(d-1) X_d / d with X_d = X_l past depth l
    total, d = 0.0, 1
    while True:
        term = (1 - p) * p ** (d - 1) * X(min(d, ln)) / d
        total += term
        if d > ln and p ** (d - 1) < 1e-19:
            break
        d += 1
    return total


def users(a_users: list, b_users: list, missing: str) -> list:
    """The users an agreement call scores: run_a's in order, then (missing="empty") those only run_b has."""
    if missing == "skip":
        return [u for u in a_users if u in set(b_users)]
    if missing == "run_a":
        return list(a_users)
    return list(a_users) + [u for u in b_users if u not in set(a_users)]


def agreement(a: dict, b: dict, metric: tuple, missing: str = "empty") -> dict:
    """``{user: value}`` of ``metric`` = (name, k, options) for runs given as ``{user: ranked list}``."""
    name, k, opt = metric
    return {u: value(name, a.get(u, []), b.get(u, []), k, **opt) for u in users(list(a), list(b), missing)}


def mean(values: list) -> float:
    """The mean of the values that are not NaN (NaN when none): their exact sum rounded once, over the count."""
    kept = [Fraction(v) for v in values if v == v]
    return float(sum(kept, Fraction(0))) / len(kept) if kept else NAN
