"""Pure-Python references of the C/W/L framework metrics as cwl-eval computes them (docs/metrics.md 3.21).

Plain loops over the positions, written from the definitions: a metric is a continuation vector C over the
positions 1..n of the list cut or padded to n = depth items; W_i = prod_{j<i} C_j / sum_i prod_{j<i} C_j,
L_i = prod_{j<i} C_j (1 - C_i); EU = sum W_i g_i, ETU = sum L_i (g_1 + ... + g_i), EC = sum W_i (every item
costs 1), ETC = sum L_i i, ED = 1 / W_1. U-measure and TBG define W from the costs and C as W_{i+1} / W_i.
A grade outside [0, 1] is clipped to it. An item without a truth row gains 0 (a repeated item gains at each occurrence); the residual res_X is X with
those items (and the padding) gaining max_gain, minus X.
"""

from __future__ import annotations

import math
from typing import Any

QUANTITIES = ("eu", "etu", "ec", "etc", "ed", "res_eu", "res_etu", "res_ec", "res_etc", "res_ed")


def _continuation(measure: str, g: list, k, opts: dict) -> list:
    n = len(g)
    kk = n if k is None else k
    c = [0.0] * n
    if measure == "cwl_p":
        for i in range(n):
            c[i] = 1.0 if i + 1 < kk else 0.0
    elif measure == "cwl_rbp":
        c = [opts["p"]] * n
    elif measure == "sdcg":
        for i in range(n):
            r = i + 1
            c[i] = math.log(r + 1, 2) / math.log(r + 2, 2) if r < kk else 0.0
    elif measure == "cwl_rr":
        for i in range(n):
            if g[i] > 0:
                break
            c[i] = 1.0
    elif measure == "cwl_ap":
        terms = [g[i] / (i + 1) for i in range(n)]
        for i in range(n - 1):
            top = sum(terms[i + 1 :])
            c[i] = top / sum(terms[i:]) if top > 0 else 0.0
    elif measure == "inst":
        T, seen = opts["t"], 0.0
        for i in range(n):
            seen += g[i]
            Ti = T - seen
            c[i] = (((i + 1) + T + Ti - 1) / ((i + 1) + T + Ti)) ** 2
    elif measure in ("insq", "nerr11"):
        T = opts["t"]
        for i in range(n):
            x = (((i + 1) + 2 * T - 1) / ((i + 1) + 2 * T)) ** 2
            c[i] = x if measure == "insq" else x * (1 - g[i])
    elif measure in ("bpm", "bpm_dynamic"):
        T = opts["t"]
        K = math.inf if k is None else k
        seen = 0.0
        for i in range(n):
            seen += g[i]
            if not (seen < T and i + 1 < K):
                break
            c[i] = 1.0
            if measure == "bpm_dynamic":
                T += opts["hb"] * (g[i] - opts["gain_med"])
    elif measure == "nerr8":
        for i in range(n):
            c[i] = 1 - g[i] if i + 1 < kk else 0.0
    elif measure == "nerr9":
        for i in range(n):
            c[i] = (i + 1) / (i + 2) * (1 - g[i]) if i + 1 < kk else 0.0
    elif measure == "nerr10":
        c = [opts["p"] * (1 - x) for x in g]
    else:  # pragma: no cover
        raise ValueError(measure)
    return c


def _weights_of_costs(measure: str, n: int, opts: dict) -> list:
    if measure == "umeasure":
        w = [max(0.0, 1.0 - i / opts["l"]) for i in range(n - 1)] + [0.0]
    else:
        h = opts["halflife"]
        w = [h * 2.0 ** (-i / h) / math.log(2.0) for i in range(n)]
    total = sum(w)
    return [x / total for x in w]


def quantities(measure: str, g: list, k, opts: dict) -> dict:
    """{eu, etu, ec, etc, ed} of one bound, from the gains g of the n positions."""
    n = len(g)
    if measure in ("umeasure", "tbg"):
        w = _weights_of_costs(measure, n, opts)
        c = [w[i + 1] / w[i] if w[i] > 0 else 0.0 for i in range(n - 1)] + [0.0]
        prods = [1.0]
        for i in range(1, n):
            prods.append(prods[-1] * c[i - 1])
    else:
        c = _continuation(measure, g, k, opts)
        prods = [1.0]
        for i in range(1, n):
            prods.append(prods[-1] * c[i - 1])
        total = sum(prods)
        w = [p / total for p in prods]
    stop = [prods[i] * (1 - c[i]) for i in range(n)]
    running = [sum(g[: i + 1]) for i in range(n)]
    return {
        "eu": sum(w[i] * g[i] for i in range(n)),
        "etu": sum(stop[i] * running[i] for i in range(n)),
        "ec": sum(w),
        "etc": sum(stop[i] * (i + 1) for i in range(n)),
        "ed": 1.0 / w[0],
    }


def cwl_value(measure: str, ranked: list, truth: dict, k, **opts: Any) -> float:
    """The value of one quantity; a grade outside [0, 1] is clipped to it (preset="cwl" refuses it)."""
    n = max(1, int(opts["depth"]))
    top = list(ranked[:n])
    q = opts["quantity"]

    def gains(unjudged: float) -> list:
        out = [min(max(truth[item], 0.0), 1.0) if item in truth else unjudged for item in top]
        return out + [unjudged] * (n - len(out))

    lo = quantities(measure, gains(0.0), k, opts)
    if not q.startswith("res_"):
        return lo[q]
    hi = quantities(measure, gains(opts["max_gain"]), k, opts)
    return hi[q[4:]] - lo[q[4:]]


def _float(v):
    return float(v)


def _quantity(v):
    if v not in QUANTITIES:
        raise ValueError(f"quantity {v!r} not in {QUANTITIES!r}")
    return v


_COMMON = {"quantity": ("eu", _quantity), "max_gain": (1.0, _float), "depth": (1000.0, _float)}
_OPTIONS = {
    "cwl_p": {},
    "cwl_rbp": {"p": (0.9, _float)},
    "sdcg": {},
    "cwl_rr": {},
    "cwl_ap": {},
    "inst": {"t": (1.0, _float)},
    "insq": {"t": (1.0, _float)},
    "bpm": {"t": (1.0, _float)},
    "bpm_dynamic": {"t": (1.0, _float), "hb": (1.0, _float), "gain_med": (0.5, _float)},
    "nerr8": {},
    "nerr9": {},
    "nerr10": {"p": (0.9, _float)},
    "nerr11": {"t": (1.0, _float)},
    "umeasure": {"l": (1000.0, _float)},
    "tbg": {"halflife": (224.0, _float)},
}


def _ref(measure: str):
    def f(ranked, truth, k, min_relevance, **opts):
        return cwl_value(measure, ranked, truth, k, **opts)

    f.__name__ = measure
    return f


# reference.METRICS entries: name -> (function(ranked, truth, k, min_relevance, **options), options)
METRICS: dict = {name: (_ref(name), {**opts, **_COMMON}) for name, opts in _OPTIONS.items()}
# every C/W/L quantity is kept as computed for a user without a relevant item (docs/metrics.md 4)
COUNT_LIKE = set(_OPTIONS)
