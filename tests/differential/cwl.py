"""Peer module: ``preset="cwl"`` against the live cwl-eval (worker_cwl.py, in the ir_measures venv).

Every C/W/L metric rankmeter computes, with a few parameters each and at two depths, every quantity cwl-eval
reports (EU, ETU, EC, ETC, ED and the residuals), per query and as the mean over the queries cwl-eval scores,
all in one ``evaluate`` call together with other metrics. cwl-eval takes gains in [0, 1] and refuses a gain
file with others (ValueError): the cases' grades 0..4 are divided by 4 (negative ones become 0) in nine cases
of ten, and the tenth keeps them as drawn (out-of-range grades then show as the peer's ValueError).
Half of the cases carry costs, as cwl-eval's cost file gives them: an element type per (query, document) (one
of them without a cost) with a cost file of costs 0, fractional and large, and a max_cost and min_cost (the
cost of a document without one, in the worse and the best case); rankmeter reads them as ``costs=`` and the
metrics' ``max_cost`` and ``min_cost``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

from .cases import RANKING_FEATURES, as_dicts, draw_case

VENV = "ir_measures"
ISOLATED = True  # python -P: this module (cwl.py) must not shadow the package `cwl`
WORKER = Path(__file__).with_name("worker_cwl.py")
ALLOW = RANKING_FEATURES
REL = 1e-9
QUANTITIES = ("eu", "etu", "ec", "etc", "ed", "res_eu", "res_etu", "res_ec", "res_etc", "res_ed")
ELEMENT_TYPES = ("web", "snip", "img", "video")  # the cost file names the first three


def draw(seed: int) -> dict:
    """A case of cases.draw_case whose grades are in [0, 1] in nine cases of ten (grade / 4, negative: 0);
    half of them with costs (``case["costs"]``: the cost file, each (query, document)'s element type, max_cost
    and min_cost)."""
    case = draw_case(seed, ALLOW, lengths=(1, 2, 3, 5, 8, 12, 25, 40))
    if np.random.default_rng(seed).random() < 0.9:
        case["truth"] = [[u, i, g / 4 if g >= 0 else 0.0] for u, i, g in case["truth"]]
    rng = np.random.default_rng([seed, 7])  # a generator of its own: the draws above stay as they were
    if rng.random() < 0.5:
        pairs = list({(u, i): None for u, i, *_ in case["recs"]})
        kinds = rng.integers(0, len(ELEMENT_TYPES), len(pairs))
        values = [0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 4.0, 10.0]
        case["costs"] = {
            "file": {t: float(rng.choice(values)) for t in ELEMENT_TYPES[:3]},
            "types": [[u, i, ELEMENT_TYPES[int(t)]] for (u, i), t in zip(pairs, kinds)],
            "max_cost": float(rng.choice([1.0, 1.0, 2.0, 0.5])),
            "min_cost": float(rng.choice([1.0, 1.0, 0.25, 3.0])),
        }
    return case


def metrics_of(case: dict) -> dict:
    """{cwl-eval label: rankmeter metric without its quantity}, as worker_cwl.specs lists them."""
    ks = case["ks"]
    k0 = ks[0]
    k1 = ks[1] if len(ks) > 1 else k0 + 3
    out = {}
    for k in ks:
        out[f"P@{k}"] = ("cwl_p", "", k)
        out[f"NDCG-k@{k}"] = ("sdcg", "", k)
    out.update(
        {
            "RBP@0.9": ("cwl_rbp", "p=0.9", None),
            "RBP@0.5": ("cwl_rbp", "p=0.5", None),
            "RR": ("cwl_rr", "", None),
            "AP": ("cwl_ap", "", None),
            "INST-T=1.0": ("inst", "t=1", None),
            "INST-T=2.5": ("inst", "t=2.5", None),
            "INSQ-T=1.0": ("insq", "t=1", None),
            "INSQ-T=3.0": ("insq", "t=3", None),
            f"BPM-Static-T=1.0-K={k0}": ("bpm", "t=1", k0),
            f"BPM-Static-T=2.5-K={k1}": ("bpm", "t=2.5", k1),
            f"BPM-Dynamic-T=1.0-K={k0}-hb=1.0-hc=1.0": ("bpm_dynamic", "t=1,hb=1,gain_med=0.5", k0),
            f"BPM-Dynamic-T=2.0-K={k1}-hb=0.5-hc=2.0": ("bpm_dynamic", "t=2,hb=0.5,gain_med=0.25", k1),
            f"NERR-EQ8@k={k0}": ("nerr8", "", k0),
            f"NERR-EQ9@k={k0}": ("nerr9", "", k0),
            f"NERR-EQ8@k={k1}": ("nerr8", "", k1),
            f"NERR-EQ9@k={k1}": ("nerr9", "", k1),
            "NERR-EQ10@phi=0.9": ("nerr10", "p=0.9", None),
            "NERR-EQ10@phi=0.5": ("nerr10", "p=0.5", None),
            "NERR-EQ11@T=1.0": ("nerr11", "t=1", None),
            "NERR-EQ11@T=2.0": ("nerr11", "t=2", None),
            "U-L@1000": ("umeasure", "l=1000", None),
            "U-L@5": ("umeasure", "l=5", None),
            "TBG-H@224": ("tbg", "halflife=224", None),
            "TBG-H@3": ("tbg", "halflife=3", None),
            "INST-T=1.0|d7": ("inst", "t=1,depth=7", None),
            "AP|d7": ("cwl_ap", "depth=7", None),
            "P@5|d7": ("cwl_p", "depth=7", 5),
            "NERR-EQ10@phi=0.9|d7": ("nerr10", "p=0.9,depth=7", None),
            "U-L@5|d7": ("umeasure", "l=5,depth=7", None),
            "TBG-H@3|d7": ("tbg", "halflife=3,depth=7", None),
        }
    )
    return out


def labels_of(case: dict) -> dict:
    """{worker label: rankmeter metric string}: every metric at every quantity (with the case's max_cost and
    min_cost)."""
    out = {}
    c = case.get("costs")
    extra = f",max_cost={c['max_cost']!r},min_cost={c['min_cost']!r}" if c else ""
    for label, (name, opts, k) in metrics_of(case).items():
        for q in QUANTITIES:
            o = f"{opts},quantity={q}{extra}" if opts else f"quantity={q}{extra}"
            out[f"{label}|{q}"] = f"{name}({o})" + (f"@{k}" if k else "")
    return out


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = as_dicts(case)
    labels = labels_of(case)
    k = case["k"]
    others = [f"ndcg@{k}", "rbp", "ap", f"precision@{k}"]
    costs = None
    if case.get("costs"):
        c = case["costs"]
        rows = [(u, i, c["file"][t]) for u, i, t in c["types"] if t in c["file"]]
        costs = tuple(list(x) for x in zip(*rows)) if rows else ([], [], [])
    asked = list(dict.fromkeys([*labels.values(), *others]))
    res = rm.evaluate(truth, recs, asked, preset="cwl", costs=costs)
    users = [str(u) for u in res.users.tolist()]
    return {
        label: {"per_user": dict(zip(users, res.per_user[metric].tolist())), "mean": res[metric]}
        for label, metric in labels.items()
    }


def known(case: dict, peer: dict) -> Optional[str]:
    truth_users = {u for u, _i, _g in case["truth"]}
    run_users = {u for u, *_ in case["recs"]} | set(case.get("empty_lists", []))
    if truth_users and not truth_users & run_users:
        return "no query in both the qrels and the run (cwl-eval: every query unjudged; rm.evaluate: ValueError)"
    return None
