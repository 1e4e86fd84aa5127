"""Peer module: the intent-aware diversity measures (``alpha_ndcg``, ``err_ia``, ``nrbp``, ...) against the live
ndeval, through pyndeval (worker_ndeval.py, in the ``ir_measures`` venv).

A case is drawn here (``draw``): subtopic qrels ``[query, subtopic, doc, grade]`` (grades -1..3, a
``relevance_level`` of 1 or 2, so some queries have no relevant subtopic and some only one subtopic, some docs
judged non-relevant everywhere), a run ``{query: {doc: score}}`` (equal scores, docs judged for no subtopic,
queries missing on either side, empty rankings, doc ids whose string order differs from their numeric order
and a non-ASCII one), ``alpha`` and ``beta`` in [0, 1] and ndeval's cutoffs 5, 10, 20 plus two of 1..20.
One case in five is real-shaped (TREC Web track diversity: a few topics of 2-7 subtopics, dozens of judged
documents, rankings of up to 120 documents).

The worker also asks ir_measures (its pyndeval provider, qrels as a DataFrame whose ``iteration`` is the
subtopic) for its spellings of the measures (labels ``irm|...``), which ``compat.ir_measures`` must match,
including ir_measures' own conventions (every qrels query scored, 0 where pyndeval gives nothing; a second
pyndeval invocation, for measures of another alpha, scoring nothing; whether the call raises).

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
ISOLATED = True  # tests/differential/ir_measures.py would shadow the package
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
    cutoffs = sorted({5, 10, 20, *rng.sample(range(1, 21), 2)})
    case: dict = {
        "qrels": qrels,
        "run": run,
        "alpha": rng.choice([0.5, 0.5, 0.0, 0.1, 0.3, 0.7, 0.9, 1.0]),
        "beta": rng.choice([0.5, 0.5, 0.0, 0.2, 0.9, 1.0]),
        "rel_level": rng.choice([1, 1, 2]),
        "cutoffs": cutoffs,
    }
    case["irm"] = _irm_names(case, rng.choice(cutoffs), rng.random())
    return case


def _irm_names(case: dict, k: int, u: float) -> list:
    """ir_measures' spellings of the measures, each with ``rel=``: the default alpha and beta (sometimes with
    ``judged_only=True``, where ir_measures raises), a given alpha, a given alpha and beta, or several pyndeval
    invocations in one call (``known``: ir_measures scores one of them, chosen by hash order)."""
    a, b, r = case["alpha"], case["beta"], case["rel_level"]
    if u < 0.35:
        j = ",judged_only=True" if u < 0.05 else ""
        return [
            f"alpha_nDCG(rel={r}{j})@{k}",
            f"alpha_DCG(rel={r}{j})@20",
            f"ERR_IA(rel={r}{j})@{k}",
            f"nERR_IA(rel={r}{j})@10",
            f"P_IA(rel={r}{j})@5",
            f"AP_IA(rel={r}{j})",
            *([] if j else [f"NRBP(rel={r})", f"nNRBP(rel={r})", f"StRecall(rel={r})@{k}"]),
        ]
    if u < 0.65:
        return [f"alpha_nDCG(alpha={a!r},rel={r})@{k}", f"alpha_DCG(alpha={a!r},rel={r})@{k}",
                f"NRBP(alpha={a!r},rel={r})", f"nNRBP(alpha={a!r},rel={r})"]  # fmt: skip
    if u < 0.85:
        return [f"NRBP(alpha={a!r},beta={b!r},rel={r})", f"nNRBP(alpha={a!r},beta={b!r},rel={r})"]
    return [
        f"alpha_nDCG(alpha={a!r},rel={r})@{k}",
        f"NRBP(alpha={a!r},beta={b!r},rel={r})",
        f"ERR_IA(rel={r})@{k}",
        f"StRecall(rel={r})@{k}",
        f"AP_IA(rel={r})",
    ]


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
        return {**empty, **_irm(case)}  # no query scored (rankmeter refuses sides without a common user)
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
    out = _irm(case)
    for label, name in names.items():
        vals = res.per_user[name]
        out[label] = {"per_user": dict(zip(users, vals.tolist())), "mean": res[name]}
    return out


def _irm(case: dict) -> dict:
    import pandas as pd

    from rankmeter.compat import ir_measures

    qrels = pd.DataFrame(case["qrels"], columns=["query_id", "iteration", "doc_id", "relevance"])
    names = case["irm"]
    try:
        perq = list(ir_measures.iter_calc(names, qrels, case["run"]))
        agg = ir_measures.calc_aggregate(names, qrels, case["run"])
    except Exception:
        return {"irm|raises": {"per_user": None, "mean": 1.0}}
    out: dict = {"irm|raises": {"per_user": None, "mean": 0.0}}
    for n in names:
        m = ir_measures.parse_measure(n)
        out[f"irm|{n}"] = {"per_user": {x.query_id: x.value for x in perq if x.measure == m}, "mean": agg[m]}
    return out


HASH_ORDER = (
    "ir_measures gives the run to one of several pyndeval invocations of a call, chosen by hash order (the "
    "others score 0)"
)


def _invocations(case: dict) -> int:
    from rankmeter.compat.ir_measures import parse_measure, pyndeval

    return len({pyndeval._key(parse_measure(n)) for n in case["irm"]})


def known(case: dict, peer: dict) -> Any:
    out = {}
    m = peer.get("nNRBP amean", {}).get("mean")
    if m is None or (isinstance(m, float) and math.isnan(m)):
        out["nNRBP amean"] = "ndeval's amean of nNRBP is NaN when a query has no relevant subtopic"
    if _invocations(case) > 1:
        out.update({label: HASH_ORDER for label in peer if label.startswith("irm|")})
    return out or None
