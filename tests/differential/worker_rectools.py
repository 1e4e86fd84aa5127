"""RecTools' metrics on the differential cases (tests/differential/cases.py), run in RecTools' own venv.

    <venv>/bin/python tests/differential/worker_rectools.py IN.json OUT.json

Imports only the standard library, numpy, pandas and RecTools, never rankmeter. For every cutoff of a case it
asks RecTools for every metric of ``rectools.metrics`` that ``preset="rectools"`` reproduces: the per-user values
and their mean (what each metric's ``calc`` returns: ``per_user.mean()``; CatalogCoverage has ``calc`` only).
The per-user values come from the paths ``calc_metrics`` takes (one merge of reco and interactions, one
confusion table per cutoff, one fit of MAP, MeanInvUserFreq and IntraListDiversity at the largest cutoff),
which give what each ``calc_per_user`` gives, in a fraction of the time. Labels are RecTools' own spellings;
tests/differential/rectools.py maps each to rankmeter.
"""

from __future__ import annotations

import json
import math
import sys

# this directory holds tests/differential/rectools.py (the peer module), which would shadow the package
# the worker runs as `python -P` (ISOLATED in the peer module): this directory is not on sys.path


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def _key(k):
    return k.item() if hasattr(k, "item") else k


def _per_user(s):
    return [[_key(u), _f(v)] for u, v in s.items()]


def reversed_reco(reco):
    """The reference recommendations of Intersection: every user's list in reverse order."""
    out = reco.copy()
    n = out.groupby("user_id")["rank"].transform("max")
    out["rank"] = n + 1 - out["rank"]
    return out


def metrics_of(case, distances):
    """label -> (RecTools metric, what its calc/calc_per_user take); `distances`: IntraListDiversity's item
    distances (None: no features)."""
    from rectools import metrics as M

    out = {}
    for k in case["ks"]:
        out.update(
            {
                f"Precision@{k}": (M.Precision(k=k), "inter"),
                f"Precision(r_precision)@{k}": (M.Precision(k=k, r_precision=True), "inter"),
                f"Recall@{k}": (M.Recall(k=k), "inter"),
                f"F1Beta@{k}": (M.F1Beta(k=k), "inter"),
                f"F1Beta(beta=2)@{k}": (M.F1Beta(k=k, beta=2.0), "inter"),
                f"MAP@{k}": (M.MAP(k=k), "inter"),
                f"MAP(divide_by_k)@{k}": (M.MAP(k=k, divide_by_k=True), "inter"),
                f"NDCG@{k}": (M.NDCG(k=k), "inter"),
                f"NDCG(divide_by_achievable)@{k}": (M.NDCG(k=k, divide_by_achievable=True), "inter"),
                f"NDCG(log_base=10)@{k}": (M.NDCG(k=k, log_base=10), "inter"),
                f"MRR@{k}": (M.MRR(k=k), "inter"),
                f"HitRate@{k}": (M.HitRate(k=k), "inter"),
                f"CatalogCoverage@{k}": (M.CatalogCoverage(k=k), "catalog"),
                f"CatalogCoverage(normalize)@{k}": (M.CatalogCoverage(k=k, normalize=True), "catalog"),
                f"Intersection@{k}": (M.Intersection(k=k), "ref"),
            }
        )
        if case.get("train"):
            out.update(
                {
                    f"MeanInvUserFreq@{k}": (M.MeanInvUserFreq(k=k), "prev"),
                    f"AvgRecPopularity@{k}": (M.AvgRecPopularity(k=k), "prev"),
                    f"AvgRecPopularity(normalize)@{k}": (M.AvgRecPopularity(k=k, normalize=True), "prev"),
                }
            )
        if distances is not None:
            out[f"IntraListDiversity@{k}"] = (M.IntraListDiversity(k=k, distance_calculator=distances), "reco")
    return out


def run(case):
    import pandas as pd
    from rectools import metrics as M

    inter = pd.DataFrame(case["truth"], columns=["user_id", "item_id", "weight"])
    reco = pd.DataFrame([r[:3] for r in case["recs"]], columns=["user_id", "item_id", "rank"])
    # an empty table still needs its columns' dtypes (RecTools reads ranks with np.log)
    if not case["recs"]:
        reco = reco.astype({"user_id": inter["user_id"].dtype, "item_id": inter["item_id"].dtype, "rank": "int64"})
    if not case["truth"]:
        inter = inter.astype({"user_id": reco["user_id"].dtype, "item_id": reco["item_id"].dtype, "weight": float})
    prev = pd.DataFrame(case["train"], columns=["user_id", "item_id"]) if case.get("train") else None
    catalog = list(case["catalog"])
    ref = reversed_reco(reco)
    distances = None
    if case.get("features"):
        feats = pd.DataFrame([v for _, v in case["features"]], index=[i for i, _ in case["features"]])
        distances = M.PairwiseHammingDistanceCalculator(feats)
    from rectools.metrics.base import merge_reco
    from rectools.metrics.classification import calc_confusions

    metrics = metrics_of(case, distances)
    k_max = max(case["ks"])
    merged = merge_reco(reco, inter)
    confusions = {k: calc_confusions(merged, k) for k in case["ks"]}
    fitted = {M.MAP: M.MAP.fit(merged, k_max)}
    if prev is not None:
        fitted[M.MeanInvUserFreq] = M.MeanInvUserFreq.fit(reco, prev, k_max)
    if distances is not None:
        fitted[M.IntraListDiversity] = M.IntraListDiversity.fit(reco, k_max)
    out = {}
    for label, (m, takes) in metrics.items():
        if isinstance(m, (M.Precision, M.Recall, M.F1Beta, M.HitRate)):
            pu = m.calc_per_user_from_confusion_df(confusions[m.k])
        elif isinstance(m, (M.NDCG, M.MRR)):
            pu = m.calc_per_user_from_merged(merged)
        elif type(m) in fitted:
            pu = m.calc_per_user_from_fitted(fitted[type(m)])
        elif takes == "prev":
            pu = m.calc_per_user(reco, prev)
        elif takes == "ref":
            pu = m.calc_per_user(reco, ref)
        else:  # catalog-level
            out[label] = {"per_user": None, "mean": _f(m.calc(reco, catalog))}
            continue
        out[label] = {"per_user": _per_user(pu), "mean": _f(pu.mean())}
    return out


def main() -> int:
    import warnings

    warnings.simplefilter("ignore")
    path_in, path_out = sys.argv[1:3]
    with open(path_in) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        try:
            results.append({"ok": run(case)})
        except Exception as e:  # RecTools' own exception, reported by type
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(path_out, "w") as f:
        json.dump({"results": results}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
