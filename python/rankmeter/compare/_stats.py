"""Paired tests over users: the resampling tests (C++ kernels) and the classical ones.

Every function here works on whole arrays (numpy, or the C++ kernels of
``rankmeter._core``); none loops over users in Python.

* :func:`randomization_pvalues` — Fisher's randomization (sign-flip) test.
* :func:`bootstrap_means` / :func:`bootstrap_pvalues` — the paired bootstrap
  (shift method) and its percentile intervals.
* :func:`ttest_rel_p` — the paired Student t-test, equal to
  ``scipy.stats.ttest_rel`` (two-sided).
* :func:`wilcoxon_p` — the Wilcoxon signed-rank test, equal to
  ``scipy.stats.wilcoxon`` with scipy's defaults (``zero_method="wilcox"``,
  ``correction=False``, ``method="auto"``).
* :func:`adjust` — Holm and Bonferroni corrections.

scipy is used when installed; otherwise the same quantities are computed here
(Student's t through the regularized incomplete beta function, the exact
signed-rank distribution by dynamic programming, the normal tail by ``erfc``).
"""

from __future__ import annotations

import math
import warnings
from typing import Optional

import numpy as np

from .. import _core

__all__ = [
    "randomization_pvalues",
    "bootstrap_means",
    "bootstrap_pvalues",
    "ttest_rel_p",
    "wilcoxon_p",
    "adjust",
    "t_interval",
    "sign_flip_gamma",
]

_EPS = 2.0**-52


# --------------------------------------------------------------------------- randomization
def sign_flip_gamma(n: int, abs_sum: np.ndarray) -> np.ndarray:
    """Tolerance under which two sign-flip statistics count as equal.

    Each statistic is a difference of two sums of ``n`` terms accumulated in
    double; ``n * 2**-52 * (sum of |terms|)`` bounds their rounding error, so a
    resample whose exact statistic equals the observed one is counted as "at
    least as extreme" however the rounding fell (discrete metrics such as
    precision@10 produce exact ties often).
    """
    return n * _EPS * np.asarray(abs_sum, dtype=np.float64)


def randomization_pvalues(
    X: np.ndarray, pairs: list[tuple[int, Optional[int]]], gamma: np.ndarray, n_resamples: int, seed: int, threads: int
) -> np.ndarray:
    """Two-sided sign-flip p-values ``(c + 1) / (R + 1)``.

    ``X`` is users x columns (float64, C order), users left out of a comparison
    holding 0. A comparison ``(a, b)`` uses the statistic ``S[:, a] - S[:, b]``
    (``b`` None: ``S[:, a]``), ``S`` the per-resample signed sums of the kernel;
    ``c`` counts resamples with ``|stat_r| >= |stat_obs| - gamma``.
    """
    sums, observed = _core.sign_flip_sums(X, n_resamples, seed, threads)
    out = np.empty(len(pairs))
    for i, (a, b) in enumerate(pairs):
        stat = sums[:, a] - sums[:, b] if b is not None else sums[:, a]
        obs = observed[a] - observed[b] if b is not None else observed[a]
        c = int(np.count_nonzero(np.abs(stat) >= abs(obs) - gamma[i]))
        out[i] = (c + 1) / (n_resamples + 1)
    return out


# --------------------------------------------------------------------------- bootstrap
def bootstrap_means(X: np.ndarray, n_resamples: int, seed: int, threads: int) -> np.ndarray:
    """Per resample (rows) and column, the mean over ``n`` users drawn with replacement."""
    n = X.shape[0]
    return _core.bootstrap_sums(X, n_resamples, seed, threads) / n


def bootstrap_pvalues(means_a: np.ndarray, means_b: np.ndarray, obs_diff: float, gamma: float) -> float:
    """Shift method: the bootstrap distribution of the mean difference, centred on 0
    (the null), against the observed difference; ``(c + 1) / (R + 1)``."""
    null = (means_a - means_b) - obs_diff
    c = int(np.count_nonzero(np.abs(null) >= abs(obs_diff) - gamma))
    return (c + 1) / (null.size + 1)


def percentile_interval(values: np.ndarray, alpha: float) -> tuple[float, float]:
    lo, hi = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


# --------------------------------------------------------------------------- special functions
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_sf2(t: float, df: float) -> float:
    """Two-sided tail 2 * P(T_df > |t|)."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_ppf(q: float, df: float) -> float:
    """Quantile of Student's t (q > 0.5) by bisection on the two-sided tail."""
    target = 2 * (1 - q)
    lo, hi = 0.0, 1.0
    while t_sf2(hi, df) > target:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_sf2(mid, df) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return (lo + hi) / 2


def norm_sf2(z: float) -> float:
    """Two-sided normal tail 2 * P(Z > |z|)."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def _scipy_stats():
    try:
        from scipy import stats
    except ImportError:
        return None
    return stats


# --------------------------------------------------------------------------- t-test
def ttest_rel_p(d: np.ndarray, use_scipy: Optional[bool] = None) -> tuple[float, float]:
    """(t, two-sided p) of the paired t-test on differences ``d`` (= x - y), as
    ``scipy.stats.ttest_rel(x, y)``: t = mean(d) / (sd(d, ddof=1) / sqrt(n)), df = n - 1."""
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    stats = _scipy_stats() if use_scipy is not False else None
    if stats is not None:
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            r = stats.ttest_1samp(d, 0.0)
        return float(r.statistic), float(r.pvalue)
    if n < 2:
        return math.nan, math.nan
    mean = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = float(np.float64(mean) / np.float64(sd / math.sqrt(n)))
    return t, t_sf2(t, n - 1)


def t_interval(d: np.ndarray, alpha: float) -> tuple[float, float]:
    """Student-t confidence interval of the mean of ``d``."""
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    if n < 2:
        return math.nan, math.nan
    mean, se = float(np.mean(d)), float(np.std(d, ddof=1)) / math.sqrt(n)
    stats = _scipy_stats()
    q = float(stats.t.ppf(1 - alpha / 2, n - 1)) if stats is not None else t_ppf(1 - alpha / 2, n - 1)
    return mean - q * se, mean + q * se


# --------------------------------------------------------------------------- Wilcoxon
def _rank_average(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) of ``a`` and the size of every tie group."""
    order = np.argsort(a, kind="mergesort")
    s = a[order]
    n = s.size
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1]))) if n else np.zeros(0, dtype=np.int64)
    sizes = np.diff(np.append(starts, n))
    avg = starts + (sizes + 1) / 2.0
    ranks = np.empty(n)
    ranks[order] = np.repeat(avg, sizes)
    return ranks, sizes


def _signed_rank_pmf(n: int) -> np.ndarray:
    """P(R+ = r), r = 0..n(n+1)/2, without ties (the same recursion as scipy)."""
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        prev = c
        c = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        m = prev.size
        c[:m] = prev * 0.5
        c[-m:] += prev * 0.5
    return c


def _wilcoxon_own(d: np.ndarray) -> float:
    n_all = d.size
    if n_all == 0:
        return math.nan
    zeros = d == 0
    nz = d[~zeros]
    count = nz.size
    if count == 0:
        return math.nan
    ranks, sizes = _rank_average(np.abs(nz))
    r_plus = float(np.sum(ranks[nz > 0]))
    has_ties = bool(np.any(sizes > 1))
    n_zero = int(np.count_nonzero(zeros))
    if n_all > 50 or ((has_ties or n_zero) and n_all > 13):
        mn = count * (count + 1.0) * 0.25
        se = count * (count + 1.0) * (2.0 * count + 1.0)
        tie = float(np.sum(sizes.astype(np.float64) ** 3 - sizes))
        se = math.sqrt((se - tie / 2) / 24)
        z = (r_plus - mn) / se
        return min(1.0, norm_sf2(z))
    if not (has_ties or n_zero):
        pmf = _signed_rank_pmf(count)
        k_lo, k_hi = math.floor(r_plus), math.ceil(r_plus)
        mean = count * (count + 1) / 4
        sf = pmf[k_lo:].sum() if k_lo <= mean else 1 - pmf[:k_lo].sum()
        cdf = pmf[: k_hi + 1].sum() if k_hi <= mean else 1 - pmf[k_hi + 1 :].sum()
        return float(np.clip(2 * min(sf, cdf), 0, 1))
    # n <= 13 with ties or zeros: scipy's exact permutation test over all 2^n sign flips
    r_all = np.zeros(n_all)
    r_all[~zeros] = ranks
    pos = (d > 0).astype(np.float64)
    signs = ((np.arange(2**n_all)[:, None] >> np.arange(n_all)[None, :]) & 1).astype(np.float64)
    # a flipped sign makes a positive difference negative and vice versa; zeros stay out
    flip_pos = np.where(signs == 1, pos, (d < 0).astype(np.float64))
    null = flip_pos @ r_all
    gamma = abs(np.finfo(np.float64).eps * 100 * r_plus)
    total = null.size
    p_less = np.count_nonzero(null <= r_plus + gamma) / total
    p_greater = np.count_nonzero(null >= r_plus - gamma) / total
    return float(np.clip(2 * min(p_less, p_greater), 0, 1))


def wilcoxon_p(d: np.ndarray, use_scipy: Optional[bool] = None) -> float:
    """Two-sided p of the Wilcoxon signed-rank test on ``d`` with scipy's defaults:
    zeros dropped (``zero_method="wilcox"``), no continuity correction, exact
    null distribution for n <= 50 without ties or zeros, exact permutation
    distribution for n <= 13 otherwise, else the normal approximation with the
    tie correction (n counts the zeros when choosing the method, as scipy does)."""
    d = np.asarray(d, dtype=np.float64)
    stats = _scipy_stats() if use_scipy is not False else None
    if stats is not None:
        if d.size == 0 or not np.any(d != 0):
            return math.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return float(stats.wilcoxon(d).pvalue)
    return _wilcoxon_own(d)


# --------------------------------------------------------------------------- corrections
def adjust(p: np.ndarray, method: str) -> np.ndarray:
    """Holm (step-down) or Bonferroni adjusted p-values over every comparison of one
    call; NaN p-values (no usable users) stay NaN and do not count in m."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(np.count_nonzero(ok))
    if m == 0 or method == "none":
        out[ok] = p[ok]
        return out
    q = p[ok]
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, q * m)
        return out
    order = np.argsort(q, kind="mergesort")
    scaled = np.minimum(1.0, q[order] * (m - np.arange(m)))
    adj = np.empty(m)
    adj[order] = np.maximum.accumulate(scaled)
    out[ok] = adj
    return out
