"""Differential peer: ``preset="trec_eval"`` through ``rm.evaluate`` against trec_eval as pytrec_eval runs it.

pytrec_eval (trec_eval 9.0.8 inside) gets the qrels and run dicts a user builds from a case (ids as strings,
int grades, trec_requests.py) and every measure rankmeter reproduces, the cutoff measures at the case's
cutoffs; rankmeter gets the same dicts with the case's own ids (ints stay ints: ties="trec" orders them as the
strings they print as) and all of those metrics in one evaluate call, mixed with metrics trec_eval does not
have. Every per-query value and the mean over queries is compared at relative 1e-9.

Fractional grades are not drawn: pytrec_eval raises TypeError on them. A case on which pytrec_eval crashes
(a query whose grades are all negative) is the peer's error. ``known`` recognises the cases that
``rankmeter.presets.describe("trec_eval")`` lists as not reproduced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

from . import trec_requests as tr
from .cases import FEATURES

VENV = "ir_measures"  # holds pytrec_eval-terrier
WORKER = Path(__file__).with_name("worker_trec_eval.py")
ALLOW = tuple(f for f in FEATURES if f != "fractional")
REL = 1e-9

_PLAIN = {
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "hits",
    "map": "ap",
    "Rprec": "r_precision",
    "bpref": "bpref",
    "recip_rank": "rr",
    "ndcg": "ndcg",
}
_CUT = {"P": "precision", "recall": "recall", "ndcg_cut": "ndcg", "map_cut": "ap", "success": "hit_rate"}
_CUT["relative_P"] = "recall(denominator=min_relevant_k)"
# trec_eval's other measures of the fused pass (docs/metrics.md 8.2)
_PLAIN.update(
    {
        "infAP": "infap",
        "binG": "bin_g",
        "G": "trec_g",
        "ndcg_rel": "ndcg_rel",
        "Rndcg": "rndcg",
        "set_P": "precision",
        "set_recall": "recall",
        "set_relative_P": "recall(denominator=min_relevant_k)",
        "set_F": "fbeta",
        "num_nonrel_judged_ret": "num_nonrel_judged",
    }
)
_PLAIN.update({f"Rprec_mult_{x / 5:.2f}": f"rprec_mult(mult={x / 5!r})" for x in range(1, 11)})


def metrics_of(case: dict) -> dict:
    """{pytrec_eval label: rankmeter metric} of the case's requests."""
    out = dict(_PLAIN)
    for m, ks in tr.cutoffs(case, "params").items():
        out.update({f"{m}_{k}": f"{_CUT[m]}@{k}" for k in ks})
    return out


def ours(case: dict) -> dict:
    import rankmeter as rm

    qrels, run = tr.qrels_run(case, key=lambda x: x)
    labels = metrics_of(case)
    k = case["k"]
    others = ["rbp", f"judged@{k}", f"err@{k}", f"dcg@{k}", f"f1@{k}", f"ndcg(gain=exponential)@{k}", "arhr"]
    res = rm.evaluate(
        qrels,
        run,
        list(dict.fromkeys([*labels.values(), *others])),
        preset="trec_eval",
        min_relevance=tr.relevance_level(case),
    )
    users = [str(u) for u in res.users.tolist()]
    return {
        label: {"per_user": dict(zip(users, res.per_user[metric].tolist())), "mean": res[metric]}
        for label, metric in labels.items()
    }


def known(case: dict, peer: dict) -> Optional[str]:
    qrels, run = tr.qrels_run(case)
    if not set(qrels) & set(run):
        return "no query in both the qrels and the run (pytrec_eval: {}; rm.evaluate: ValueError)"
    for docs in run.values():
        scores = list(docs.values())
        if len(set(np.asarray(scores, dtype=np.float32).tolist())) < len(set(scores)):
            return "scores equal in float32 only (pytrec_eval keeps float32 scores, trec_eval 10 doubles)"
    return None
