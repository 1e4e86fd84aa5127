"""Differential worker for Evidently (runs in the `evidently` venv: stdlib, numpy, pandas and evidently only).

``python worker_evidently.py IN.json OUT.json``: for each case (tests/differential/cases.py) one Evidently report
in the case's variant (:func:`variant`, the same function as tests/differential/evidently.py): the new API
(``evidently.metrics``) or the legacy one (``evidently.legacy.metrics``), predictions as ranks or as scores,
``no_feedback_users``, ``min_rel_score``, the F-beta ``beta`` and ``normalize_arp``.

The table is what a user of Evidently builds: one row per listed item (its rank, or its score) and one row per
truth item that is not listed, with the item's grade as target (0 for a listed item without a truth row). A truth
item that is not listed gets a rank past every cutoff (ranks: 1000; Evidently counts a row as recommended at k
whenever its rank is <= k, and a missing rank makes its MRR and HitRate raise) or, with scores, a score below
every listed score of its user (every row of a score table is ranked). Train rows and item features are columns
as Evidently reads them (``additional_data={"current_train_data": ...}``).

Evidently reports means only. Its top-k metrics give a series over the ranks 1..min(max rows, max(k, 10)), the
value at j not depending on k: one metric per kind at the largest cutoff gives every cutoff of the case (a cutoff
missing from the series is one Evidently raises on). When that report raises (no user has as many rows), the
top-k metrics are asked again at k = 1 (every cutoff up to 10), and when that raises too, one metric at a time,
so only the metrics that raise are missing. Diversity, which raises when a user has no row within k, has a
report of its own. Every case costs about one report (0.2-1 s: Evidently recomputes its precision table for each
report): the long run of 20,000 cases takes hours. Values that are not finite (Personalization of fewer than two
users divides by zero) are written as null.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
import warnings
import zlib

BIG_RANK = 1000  # the rank of a truth item that is not listed: past every cutoff of the cases


def variant(case: dict) -> dict:
    """The Evidently options a case is run with, drawn from the case itself (a case may fix some of them in
    ``case["evidently"]``, as the regression tests do)."""
    h = zlib.crc32(json.dumps([case["truth"], case["recs"], case["k"], case["ks"]]).encode())
    return {**_drawn(h), **case.get("evidently", {})}


def _drawn(h: int) -> dict:
    return {
        "api": "legacy" if h & 1 else "new",
        "mode": "score" if h & 2 else "rank",
        "no_feedback": bool(h & 4),
        "min_rel": (None, None, 1, 2)[(h >> 3) & 3],
        "beta": (1.0, 0.5)[(h >> 5) & 1],
        "normalize_arp": bool((h >> 6) & 1),
    }


def table(case: dict, mode: str):
    """The Evidently table of a case: (rows [user, item, prediction, target], feature width)."""
    truth: dict = {}
    for u, i, g in case["truth"]:
        truth.setdefault(_key(u), {})[_key(i)] = g
    lists: dict = {}
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        lists.setdefault(_key(u), []).append((_key(i), s))
    users = list(dict.fromkeys([*truth, *lists]))
    rows = []
    for u in users:
        lst = lists.get(u, [])
        grades = truth.get(u, {})
        listed = set()
        for r, (i, s) in enumerate(lst):
            rows.append([u, i, r + 1 if mode == "rank" else s, grades.get(i, 0)])
            listed.add(i)
        low = min((s for _, s in lst), default=1.0) - 1.0
        for i, g in grades.items():
            if i not in listed:
                rows.append([u, i, BIG_RANK if mode == "rank" else low, g])
    return rows


def _key(x):
    return tuple(x) if isinstance(x, list) else x


def _f(v):
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


TOPK_NEW = ("PrecisionTopK", "RecallTopK", "FBetaTopK", "MAP", "NDCG", "MRR", "HitRate")
TOPK_LEGACY = (
    "PrecisionTopKMetric",
    "RecallTopKMetric",
    "FBetaTopKMetric",
    "MAPKMetric",
    "MARKMetric",
    "NDCGKMetric",
    "MRRKMetric",
    "HitRateKMetric",
)
# label of each top-k metric (the new API's and the legacy one's share labels)
LABEL = {
    "PrecisionTopK": "PrecisionTopK",
    "RecallTopK": "RecallTopK",
    "FBetaTopK": "FBetaTopK",
    "MAP": "MAP",
    "NDCG": "NDCG",
    "MRR": "MRR",
    "HitRate": "HitRate",
    "PrecisionTopKMetric": "PrecisionTopK",
    "RecallTopKMetric": "RecallTopK",
    "FBetaTopKMetric": "FBetaTopK",
    "MAPKMetric": "MAP",
    "MARKMetric": "MAR",
    "NDCGKMetric": "NDCG",
    "MRRKMetric": "MRR",
    "HitRateKMetric": "HitRate",
}


def run_case(case: dict) -> dict:
    import pandas as pd

    v = variant(case)
    ks = case["ks"]
    feats = {_key(i): x for i, x in case.get("features", [])}
    width = len(next(iter(feats.values()))) if feats else 0
    fcols = [f"f{j}" for j in range(width)]
    rows = table(case, v["mode"])
    df = pd.DataFrame(rows, columns=["user_id", "item_id", "prediction", "target"])
    if feats:
        for j, c in enumerate(fcols):
            df[c] = [feats[i][j] for i in df["item_id"].tolist()]
    train = None
    if "train" in case:
        train = pd.DataFrame([[_key(u), _key(i)] for u, i in case["train"]], columns=["user_id", "item_id"])
        for j, c in enumerate(fcols):
            train[c] = [feats[i][j] for i in train["item_id"].tolist()]
    runner = _run_new if v["api"] == "new" else _run_legacy
    names = TOPK_NEW if v["api"] == "new" else TOPK_LEGACY
    beyond = []
    for k in ks:
        beyond.append(("Personalization", "beyond", k))
        if train is not None:
            beyond.append(("Novelty", "beyond", k))
            beyond.append(("PopularityBias", "beyond", k))
            if feats:
                beyond.append(("Serendipity", "beyond", k))
        if v["mode"] == "score":
            beyond.append(("ScoreDistribution", "beyond", k))
    # Diversity raises (ZeroDivisionError) when a user has no row in the top k: a report of its own
    diversity = [("Diversity", "beyond", k) for k in ks] if feats else []
    got: dict = {}
    top = max(ks)
    attempts = [top, 1] if top > 10 else [1]
    for at in attempts:
        group = [(name, "topk", at) for name in names] + beyond
        try:
            got.update(runner(df, train, fcols, v, group, ks))
            break
        except Exception:
            continue
    else:  # one metric at a time: only those that raise are missing
        for spec in [(name, "topk", 1) for name in names] + beyond:
            with contextlib.suppress(Exception):
                got.update(runner(df, train, fcols, v, [spec], ks))
    if diversity:
        try:
            got.update(runner(df, train, fcols, v, diversity, ks))
        except Exception:
            for spec in diversity:
                with contextlib.suppress(Exception):
                    got.update(runner(df, train, fcols, v, [spec], ks))
    out: dict = {}
    for label, value in got.items():
        out[label] = {"per_user": None, "mean": _f(value)}
    return {"ok": out}


def _topk_values(label: str, series: dict, shift: int, ks: list, out: dict) -> None:
    """series: rank label -> value; the value at cutoff k has label k + shift."""
    for k in ks:
        if k + shift in series:
            out[f"{label}@{k}"] = series[k + shift]


def _run_new(df, train, fcols, v, specs, ks) -> dict:
    from evidently import DataDefinition, Dataset, Recsys, Report
    from evidently import metrics as M

    dd = DataDefinition(
        numerical_columns=list(fcols) or None,
        ranking=[
            Recsys(
                user_id="user_id",
                item_id="item_id",
                target="target",
                prediction="prediction",
                recommendations_type=v["mode"],
            )
        ],
    )
    ds = Dataset.from_pandas(df, data_definition=dd)
    extra = None
    if train is not None:
        tdd = DataDefinition(numerical_columns=list(fcols) or None, categorical_columns=["user_id", "item_id"])
        extra = {"current_train_data": Dataset.from_pandas(train, data_definition=tdd)}
    metrics, keys = [], []
    for name, kind, k in specs:
        if kind == "topk":
            kw = {"k": k, "no_feedback_users": v["no_feedback"], "min_rel_score": v["min_rel"]}
            if name == "FBetaTopK":
                kw["beta"] = v["beta"]
            metrics.append(getattr(M, name)(**kw))
            keys.append((name, kind, k))
        elif name == "PopularityBias":
            for what in ("arp", "coverage", "gini"):
                metrics.append(M.PopularityBiasMetric(k=k, normalize_arp=v["normalize_arp"], metric=what))
                keys.append((f"PopularityBias.{what}", kind, k))
        elif name in ("Diversity", "Serendipity"):
            metrics.append(getattr(M, name)(k=k, item_features=list(fcols)))
            keys.append((name, kind, k))
        else:
            metrics.append(getattr(M, name)(k=k))
            keys.append((name, kind, k))
    snap = Report(metrics).run(current_data=ds, additional_data=extra)
    out: dict = {}
    for (name, kind, k), m in zip(keys, snap.dict()["metrics"]):
        value = m["value"]
        if kind == "topk":
            series = {int(r): value["value"][j] for j, r in value["rank"].items()}
            shift = 1 if name in ("NDCG", "MRR") else 0  # the new API labels these index + 1 (docs/metrics.md 11.2)
            wanted = [kk for kk in ks if kk <= max(k, 10)]
            _topk_values(LABEL[name], series, shift, wanted, out)
        else:
            out[f"{name}@{k}"] = value
    return out


def _run_legacy(df, train, fcols, v, specs, ks) -> dict:
    from evidently.legacy import metrics as L
    from evidently.legacy.pipeline.column_mapping import ColumnMapping
    from evidently.legacy.report import Report

    cm = ColumnMapping(
        recommendations_type=v["mode"],
        target="target",
        prediction="prediction",
        item_id="item_id",
        user_id="user_id",
        numerical_features=list(fcols) or None,
    )
    metrics, keys = [], []
    for name, kind, k in specs:
        if kind == "topk":
            kw = {"k": k, "no_feedback_users": v["no_feedback"], "min_rel_score": v["min_rel"]}
            if name == "FBetaTopKMetric":
                kw["beta"] = v["beta"]
            metrics.append(getattr(L, name)(**kw))
        elif name == "PopularityBias":
            metrics.append(L.PopularityBias(k=k, normalize_arp=v["normalize_arp"]))
        elif name == "Diversity":
            metrics.append(L.DiversityMetric(k=k, item_features=list(fcols)))
        elif name == "Serendipity":
            metrics.append(L.SerendipityMetric(k=k, item_features=list(fcols), min_rel_score=v["min_rel"]))
        elif name == "Personalization":
            metrics.append(L.PersonalizationMetric(k=k))
        elif name == "Novelty":
            metrics.append(L.NoveltyMetric(k=k))
        else:
            metrics.append(L.ScoreDistribution(k=k))
        keys.append((name, kind, k))
    rep = Report(metrics=metrics)
    extra = {"current_train_data": train} if train is not None else None
    rep.run(reference_data=None, current_data=df, column_mapping=cm, additional_data=extra)
    out: dict = {}
    for (name, kind, k), m in zip(keys, rep.as_dict()["metrics"]):
        res = m["result"]
        if kind == "topk":
            cur = res["current"]
            series = {
                int(j): x for j, x in (cur.to_dict() if hasattr(cur, "to_dict") else dict(enumerate(cur))).items()
            }
            # the 0-based series (a list turned into a Series) hold the value of cutoff j + 1 at j
            shift = -1 if min(series, default=1) == 0 else 0
            wanted = [kk for kk in ks if kk <= max(k, 10)]
            _topk_values(LABEL[name], series, shift, wanted, out)
        elif name == "PopularityBias":
            out[f"PopularityBias.arp@{k}"] = res["current_apr"]
            out[f"PopularityBias.coverage@{k}"] = res["current_coverage"]
            out[f"PopularityBias.gini@{k}"] = res["current_gini"]
        elif name == "ScoreDistribution":
            out[f"ScoreDistribution@{k}"] = res["current_entropy"]
        else:
            out[f"{name}@{k}"] = res["current_value"]
    return out


def main() -> None:
    warnings.filterwarnings("ignore")
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        try:
            results.append(run_case(case))
        except Exception as e:  # the case as a whole: Evidently raised before any metric
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(dst, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
