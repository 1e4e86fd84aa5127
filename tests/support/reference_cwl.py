"""Pure-Python references of the C/W/L framework metrics as cwl-eval computes them (docs/metrics.md 3.21).

Plain loops over the positions, written from the definitions: a metric is a continuation vector C over the
positions 1..n of the list cut or padded to n = depth items; W_i = prod_{j<i} C_j / sum_i prod_{j<i} C_j,
L_i = prod_{j<i} C_j (1 - C_i); EU = sum W_i g_i, ETU = sum L_i (g_1 + ... + g_i), EC = sum W_i c_i,
ETC = sum L_i (c_1 + ... + c_i), ED = 1 / W_1. U-measure and TBG define W from the running costs and C as
W_{i+1} / W_i; BPM's K limits the running cost. An item costs its cost in `costs` (item -> cost), an item
without one (and the padding) max_cost (every item costs 1 by default).
A grade outside [0, 1] is clipped to it. An item without a truth row gains 0 (a repeated item gains at each occurrence); the residual res_X is X with
those items (and the padding) gaining max_gain and the items without a cost costing min_cost, minus X.
"""

from __future__ import annotations

import math
from typing import Any, Optional

QUANTITIES = ("eu", "etu", "ec", "etc", "ed", "res_eu", "res_etu", "res_ec", "res_etc", "res_ed")


def _continuation(measure: str, g: list, cost: list, k, opts: dict) -> list:
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
            if not (seen < T and sum(cost[: i + 1]) < K):
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


def _weights_of_costs(measure: str, cost: list, opts: dict) -> list:
    n = len(cost)
    start = [sum(cost[:i]) for i in range(n)]  # the cost read before item i
    if measure == "umeasure":
        w = [max(0.0, 1.0 - start[i] / opts["l"]) for i in range(n - 1)] + [0.0]
    else:
        h = opts["halflife"]
        w = [h * 2.0 ** (-start[i] / h) / math.log(2.0) for i in range(n)]
    total = sum(w)
    return [x / total for x in w]


def quantities(measure: str, g: list, cost: list, k, opts: dict) -> dict:
    """{eu, etu, ec, etc, ed} of one bound, from the gains g and the costs of the n positions."""
    n = len(g)
    if measure in ("umeasure", "tbg"):
        w = _weights_of_costs(measure, cost, opts)
        c = [w[i + 1] / w[i] if w[i] > 0 else 0.0 for i in range(n - 1)] + [0.0]
        prods = [1.0]
        for i in range(1, n):
            prods.append(prods[-1] * c[i - 1])
    else:
        c = _continuation(measure, g, cost, k, opts)
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
        "ec": sum(w[i] * cost[i] for i in range(n)),
        "etc": sum(stop[i] * sum(cost[: i + 1]) for i in range(n)),
        "ed": 1.0 / w[0],
    }


def cwl_value(measure: str, ranked: list, truth: dict, k, costs: Optional[dict] = None, **opts: Any) -> float:
    """The value of one quantity; a grade outside [0, 1] is clipped to it (preset="cwl" refuses it). ``costs``:
    item -> cost (None: no item has one)."""
    n = max(1, int(opts["depth"]))
    top = list(ranked[:n])
    q = opts["quantity"]

    def gains(unjudged: float) -> list:
        out = [min(max(truth[item], 0.0), 1.0) if item in truth else unjudged for item in top]
        return out + [unjudged] * (n - len(out))

    def cost(none: float) -> list:
        out = [costs[item] if costs is not None and item in costs else none for item in top]
        return out + [none] * (n - len(out))

    lo = quantities(measure, gains(0.0), cost(opts["max_cost"]), k, opts)
    if not q.startswith("res_"):
        return lo[q]
    hi = quantities(measure, gains(opts["max_gain"]), cost(opts["min_cost"]), k, opts)
    return hi[q[4:]] - lo[q[4:]]


def _float(v):
    return float(v)


def _quantity(v):
    if v not in QUANTITIES:
        raise ValueError(f"quantity {v!r} not in {QUANTITIES!r}")
    return v


_COMMON = {
    "quantity": ("eu", _quantity),
    "max_gain": (1.0, _float),
    "max_cost": (1.0, _float),
    "min_cost": (1.0, _float),
    "depth": (1000.0, _float),
}
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
