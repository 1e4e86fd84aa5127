"""``rounding="gdeval"`` (err, ndcg): each user's value as gdeval prints it, ``printf("%.5f")`` read back.

gdeval (the TREC Web track's ERR and nDCG script, which ir_measures runs for ``ERR@k`` and
``nDCG(dcg='exp-log2')@k``) prints every query's value with 5 decimals; ir_measures reads those
numbers and averages them. The printed number is the 5-decimal number nearest to the double (a
double exactly halfway between two of them goes to the even last digit, as C's printf does).
Vectorised: ``rint(x * 1e5) / 1e5`` is that number unless ``x * 1e5`` lands within rounding error of
a half; those few values are formatted one by one.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int

__all__ = ["apply_gdeval_rounding", "round_decimals"]


def round_decimals(x: np.ndarray, decimals: int = 5) -> np.ndarray:
    """The ``decimals``-digit number nearest to each value (``float(f"{v:.5f}")``), NaN kept."""
    x = np.asarray(x, dtype=np.float64)
    scale = 10.0**decimals
    with np.errstate(invalid="ignore", over="ignore"):
        y = x * scale
        out = np.rint(y) / scale
        frac = np.abs(y - np.floor(y))
        # y carries at most half an ulp of error: near a half, read the double exactly instead
        near = np.isfinite(y) & (np.abs(frac - 0.5) <= 4.0 * np.spacing(np.abs(y)) + 1e-300)
    for i in np.flatnonzero(near).tolist():
        out[i] = float(f"{x[i]:.{decimals}f}")
    return out


def apply_gdeval_rounding(cols: list, values: list, sums: list, counts: list, threads: int) -> None:
    """Round the ``rounding="gdeval"`` columns of ``values`` per user and redo their exact sums."""
    for j, m in enumerate(cols):
        if m.options.get("rounding") != "gdeval":
            continue
        new = round_decimals(values[j], 5)
        values[j] = new
        limbs, count = _core.exact_sum(np.ascontiguousarray(new, dtype=np.float64), threads)
        sums[j], counts[j] = limbs_to_int(limbs), int(count)
