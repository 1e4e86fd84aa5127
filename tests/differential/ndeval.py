"""Peer module: the intent-aware diversity measures (``alpha_ndcg``, ``err_ia``, ``nrbp``, ...) against the live
ndeval, through pyndeval (worker_ndeval.py, in the ``ir_measures`` venv).

A case is drawn here (``draw``): subtopic qrels ``[query, subtopic, doc, grade]`` (grades -1..3, a
``relevance_level`` of 1 or 2, so some queries have no relevant subtopic and some only one subtopic, some docs
judged non-relevant everywhere), a run ``{query: {doc: score}}`` (equal scores, docs judged for no subtopic,
queries missing on either side, empty rankings, doc ids whose string order differs from their numeric order
and a non-ASCII one), ``alpha`` and ``beta`` in [0, 1] and ndeval's cutoffs 5, 10, 20 plus two of 1..20.
One case in five is real-shaped (TREC Web track diversity: a few topics of 2-7 subtopics, dozens of judged
documents, rankings of up to 120 documents).

The worker asks pyndeval for all nine measures at every cutoff; ``ours`` asks ``rm.evaluate`` for the same
in one call (with ``ndcg@10``), under ndeval's conventions: equal scores by ascending docno (``ties="item"`` on
string ids), queries of both sides only and an empty ranking left out (``missing="skip_empty"``: pyndeval
never sees a query without a ranked document), relevance ``grade >= relevance_level`` (``min_relevance``).
Means are ndeval's ``amean`` (the mean over the scored queries); for nNRBP, whose value is 0 / 0 = NaN on a
query without a relevant subtopic, the label ``nNRBP`` compares the per-query values and the mean of the
defined ones, and ``nNRBP amean`` ndeval's own mean, which is NaN then (``known``: rankmeter's mean leaves the
NaN out).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

VENV = "ir_measures"
WORKER = Path(__file__).with_name("worker_ndeval.py")
ALLOW: tuple = ()
REL = 1e-9

CUTOFF = {
    "ERR-IA": "err_ia",
    "nERR-IA": "nerr_ia",
    "alpha-DCG": "alpha_dcg",
    "alpha-nDCG": "alpha_ndcg",
    "P-IA": "p_ia",
    "strec": "strec",
}
WHOLE = {"NRBP": "nrbp", "nNRBP": "nnrbp", "MAP-IA": "map_ia"}
DOCS = ["d1", "d2", "d10", "d9", "d100", "a", "B", "b", "é1", "z0", "d3", "d33"]


def draw(seed: int) -> dict:
    rng = random.Random(seed)
    real = rng.random() < 0.2
    qrels: list = []
    run: dict = {}
    if real:
        topics = [str(t) for t in rng.sample(range(1, 200), rng.randint(2, 8))]
        pool = [
            f"clueweb09-en{rng.randint(0, 9):04d}-{rng.randint(0, 99):02d}-{rng.randint(0, 99999):05d}"
            for _ in range(300)
        ]
        pool = list(dict.fromkeys(pool))
        for t in topics:
            judged = rng.sample(pool, rng.randint(5, 80))
            for sub in range(1, rng.randint(2, 7) + 1):
                for d in judged:
                    if rng.random() < 0.5:
                        qrels.append([t, str(sub), d, 1 if rng.random() < 0.25 else 0])
        run_topics = [t for t in topics if rng.random() < 0.9] + ["999"] * (rng.random() < 0.2)
        for t in run_topics:
            docs = rng.sample(pool, rng.randint(1, 120))
            if rng.random() < 0.5:
                run[t] = {d: float(1000 - i) for i, d in enumerate(docs)}
            else:
                run[t] = {d: float(rng.randint(0, 30)) for d in docs}
    else:
        topics = [f"q{t}" for t in rng.sample(range(6), rng.randint(0, 4))]
        docs = DOCS[: rng.randint(1, len(DOCS))]
        for t in topics:
            for s in rng.sample(["1", "2", "3", "4", "10"], rng.randint(1, 3)):
                for d in docs:
                    if rng.random() < 0.4:
                        qrels.append([t, s, d, rng.choice([0, 1, 1, 2, 3, -1])])
        for t in [f"q{t}" for t in rng.sample(range(6), rng.randint(0, 5))]:
            chosen = rng.sample([*docs, "u1", "u2"], rng.randint(0, min(len(docs) + 2, 9)))
            run[t] = {d: float(rng.randint(0, 3)) if rng.random() < 0.7 else rng.random() for d in chosen}
    return {
        "qrels": qrels,
        "run": run,
        "alpha": rng.choice([0.5, 0.5, 0.0, 0.1, 0.3, 0.7, 0.9, 1.0]),
        "beta": rng.choice([0.5, 0.5, 0.0, 0.2, 0.9, 1.0]),
        "rel_level": rng.choice([1, 1, 2]),
        "cutoffs": sorted({5, 10, 20, *rng.sample(range(1, 21), 2)}),
    }


def _names(case: dict) -> dict:
    """label -> rankmeter metric name."""
    a, b = case["alpha"], case["beta"]
    out = {}
    for label, name in CUTOFF.items():
        opt = f"(alpha={a})" if name not in ("p_ia", "strec") else ""
        for k in case["cutoffs"]:
            out[f"{label}@{k}"] = f"{name}{opt}@{k}"
    out["NRBP"] = f"nrbp(alpha={a},beta={b})"
    out["nNRBP"] = f"nnrbp(alpha={a},beta={b})"
    out["nNRBP amean"] = out["nNRBP"]
    out["MAP-IA"] = "map_ia"
    return out


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth: dict = {}
    for q, _s, d, g in case["qrels"]:
        truth.setdefault(q, {})
        truth[q][d] = max(truth[q].get(d, g), g)
    names = _names(case)
    empty = {label: {"per_user": {}, "mean": math.nan} for label in names}
    if not set(truth) & {q for q, docs in case["run"].items() if docs}:
        return empty  # no query scored (rankmeter refuses sides without a common user)
    res = rm.evaluate(
        truth,
        case["run"],
        [*dict.fromkeys(names.values()), "ndcg@10"],
        subtopics=[tuple(r) for r in case["qrels"]],
        ties="item",
        missing="skip_empty",
        min_relevance=case["rel_level"],
    )
    users = res.users.tolist()
    out = {}
    for label, name in names.items():
        vals = res.per_user[name]
        out[label] = {"per_user": dict(zip(users, vals.tolist())), "mean": res[name]}
    return out


def known(case: dict, peer: dict) -> Any:
    m = peer.get("nNRBP amean", {}).get("mean")
    if m is None or (isinstance(m, float) and math.isnan(m)):
        return {"nNRBP amean": "ndeval's amean of nNRBP is NaN when a query has no relevant subtopic"}
    return None
