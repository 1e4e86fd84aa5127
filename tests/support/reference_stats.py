"""Plain-Python references of the resampling kernels (cpp/include/rankmeter/significance.hpp).

They replay the kernels operation for operation — the same counter-based
generator (splitmix64's output function on a counter keyed by (seed, domain,
resample)), the same order of every floating-point addition — so the tests can
demand bit-for-bit equality. Slow on purpose: users are looped in Python.
"""

from __future__ import annotations

import itertools
import math

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SIGN_FLIP, BOOTSTRAP = 1, 2


def mix64(z: int) -> int:
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def resample_key(seed: int, domain: int, r: int) -> int:
    return mix64((mix64((seed + GOLDEN * domain) & M64) + GOLDEN * (r + 1)) & M64)


def stream_word(key: int, w: int) -> int:
    return mix64((key + GOLDEN * (w + 1)) & M64)


def bounded(word: int, n: int) -> int:
    return (word * n) >> 64


def sign_flip_sums(X: list[list[float]], R: int, seed: int) -> tuple[list[list[float]], list[float]]:
    """sums[r][c], observed[c]: groups of 4 users, signed group sums in user order,
    groups added one after another; bit (u % 64) of word (u // 64) = 1 keeps the sign."""
    n, C = len(X), len(X[0]) if X else 0
    n_groups = (n + 3) // 4

    def group_sum(g: int, pattern: int, c: int) -> float:
        t = 0.0
        for j in range(4):
            u = 4 * g + j
            if u < n:
                t += X[u][c] if (pattern >> j) & 1 else -X[u][c]
            else:
                t += 0.0
        return t

    observed = []
    for c in range(C):
        s = 0.0
        for g in range(n_groups):
            s += group_sum(g, 15, c)
        observed.append(s)
    sums = []
    for r in range(R):
        key = resample_key(seed, SIGN_FLIP, r)
        words = [stream_word(key, w) for w in range((n + 63) // 64)]
        row = []
        for c in range(C):
            s = 0.0
            for g in range(n_groups):
                pattern = (words[g // 16] >> (4 * (g % 16))) & 15
                s += group_sum(g, pattern, c)
            row.append(s)
        sums.append(row)
    return sums, observed


def bootstrap_sums(X: list[list[float]], R: int, seed: int) -> list[list[float]]:
    n, C = len(X), len(X[0]) if X else 0
    out = []
    for r in range(R):
        key = resample_key(seed, BOOTSTRAP, r)
        counts = [0] * n
        for j in range(n):
            counts[bounded(stream_word(key, j), n)] += 1
        acc = [0.0] * C
        for u in range(n):
            if counts[u]:
                for c in range(C):
                    acc[c] += float(counts[u]) * X[u][c]
        out.append(acc)
    return out


def randomization_p(sums, observed, a: int, b: int, gamma: float) -> float:
    """(c + 1) / (R + 1) of the statistic S[:, a] - S[:, b]."""
    obs = abs(observed[a] - observed[b])
    c = sum(1 for row in sums if abs(row[a] - row[b]) >= obs - gamma)
    return (c + 1) / (len(sums) + 1)


def exact_randomization_p(d: list[float]) -> float:
    """The exact two-sided sign-flip p-value: the share of all 2^n sign patterns
    whose |sum| reaches the observed |sum| (with a relative tolerance for ties)."""
    obs = abs(math.fsum(d))
    tol = 1e-9 * (math.fsum(abs(x) for x in d) + 1.0)
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(d)):
        if abs(math.fsum(s * x for s, x in zip(signs, d))) >= obs - tol:
            hits += 1
    return hits / 2 ** len(d)


def holm(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out
