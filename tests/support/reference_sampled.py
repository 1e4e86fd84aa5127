"""Plain-Python reference of rm.evaluate_sampled (docs/model.md, "Sampled evaluation"): loops, Python ints
for the generator, exact dot products of small integer factors, Gaussian elimination for the correction."""

from __future__ import annotations

import math

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def word(seed: int, domain: int, r: int, w: int) -> int:
    key = mix64((mix64((seed + GOLDEN * domain) & M64) + GOLDEN * (r + 1)) & M64)
    return mix64((key + GOLDEN * (w + 1)) & M64)


def item_metric(kind, k, r, m):
    if kind == "recall":
        return 1.0 if r <= k else 0.0
    if kind == "precision":
        return 1.0 / k if r <= k else 0.0
    if kind == "ndcg":
        return 1.0 / math.log2(r + 1) if r <= k else 0.0
    if kind == "ap":
        return 1.0 / r if r <= k else 0.0
    if kind == "rr":
        return 1.0 / r
    return (m - (r - 1)) / m if m > 0 else None  # auc


def solve(a, b):
    n = len(b)
    a = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(a[i][c]))
        a[c], a[p] = a[p], a[c]
        for i in range(n):
            if i != c:
                f = a[i][c] / a[c][c]
                for j in range(c, n + 1):
                    a[i][j] -= f * a[c][j]
    return [a[i][n] / a[i][i] for i in range(n)]


def correction(kind, k, n_full, m, gamma):
    A = []
    for r in range(1, n_full + 1):
        p = (r - 1) / (n_full - 1)
        A.append([math.comb(m, s) * p**s * (1 - p) ** (m - s) for s in range(m + 1)])
    M = [item_metric(kind, k, r, n_full - 1) for r in range(1, n_full + 1)]
    on = [i for i in range(m + 1) if sum(A[r][i] for r in range(n_full)) > 0]
    A = [[row[i] for i in on] for row in A]
    m_on = len(on) - 1
    lhs = [
        [
            (1 - gamma) * sum(A[r][i] * A[r][j] for r in range(n_full))
            + (gamma * sum(A[r][i] for r in range(n_full)) if i == j else 0.0)
            for j in range(m_on + 1)
        ]
        for i in range(m_on + 1)
    ]
    rhs = [sum(A[r][i] * M[r] for r in range(n_full)) for i in range(m_on + 1)]
    x = [0.0] * (m + 1)
    for i, v in zip(on, solve(lhs, rhs)):
        x[i] = v
    return x


def evaluate_sampled(truth, U, V, specs, n_neg, sampling="uniform", train=None, seed=0, gamma=0.01, correct=True):
    """truth: {row: {item: grade}}; U, V: lists of integer lists; train: {row: set(items)}; specs: [(kind, k)].
    Returns (per metric: (sampled mean, corrected mean, full mean)), per-entry sampled ranks {(row, item): s}."""
    n_items = len(V)
    train = train or {}
    counts = [0] * n_items
    for items in train.values():
        for i in items:
            counts[i] += 1
    weights = [1] * n_items if sampling == "uniform" else counts
    dot = [[sum(a * b for a, b in zip(u, v)) for v in V] for u in U]
    ranks, franks, m_of, elig_of = {}, {}, {}, {}
    for row, items in truth.items():
        forbidden = set(items) | set(train.get(row, ()))
        elig = [i for i in range(n_items) if i not in forbidden]
        elig_of[row] = len(elig)
        W = sum(weights[i] for i in elig)
        negs = []
        if W > 0:
            for j in range(n_neg):
                x = (word(seed, 4, row, j) * W) >> 64
                acc = 0
                for i in elig:
                    acc += weights[i]
                    if acc > x:
                        negs.append(i)
                        break
        m_of[row] = len(negs)
        for c, g in items.items():
            if g <= 0 or c in train.get(row, ()):
                continue
            sc = dot[row][c]
            ranks[(row, c)] = 1 + sum(1 for j in negs if dot[row][j] > sc or (dot[row][j] == sc and j < c))
            franks[(row, c)] = 1 + sum(1 for j in elig if dot[row][j] > sc or (dot[row][j] == sc and j < c))
    n_full = max(round(sum(elig_of.values()) / len(elig_of)) + 1, 2) if elig_of else 2
    out = []
    for kind, k in specs:
        xs = correction(kind, k, n_full, n_neg, gamma) if correct else None
        per: dict[str, list] = {"s": [], "c": [], "f": []}
        for row in truth:
            vals: dict[str, list] = {"s": [], "c": [], "f": []}
            for (r_, c), s in ranks.items():
                if r_ != row:
                    continue
                vs = item_metric(kind, k, s, m_of[row])
                if vs is None:
                    continue
                vals["s"].append(vs)
                vals["c"].append(xs[s - 1] if (xs is not None and m_of[row] > 0) else vs)
                vals["f"].append(item_metric(kind, k, franks[(row, c)], elig_of[row]))
            for key in per:
                vv = [v for v in vals[key] if v is not None]
                if vv:
                    per[key].append(sum(vv) / len(vv))
        out.append(tuple(sum(per[key]) / len(per[key]) if per[key] else math.nan for key in ("s", "c", "f")))
    return out, ranks
