"""Every function of Microsoft Recommenders' python_evaluation on the differential cases (tests/differential/cases.py),
run in its own venv (``msr``); the same calls on rankmeter.compat.recommenders give ``ours`` in
tests/differential/recommenders_compat.py (:func:`run_all` takes the module to call).

    <venv>/bin/python -P tests/differential/worker_recommenders_compat.py IN.json OUT.json

Imports only the standard library, numpy, pandas and Recommenders, never rankmeter. The tables are the case's
rows as they are (repeated (user, item) rows, users on one side only, tied predictions, string or int ids):
``rating_true`` the truth rows (``rating``), ``rating_pred`` the recommendation rows in a CRC order that is not
the rank order, with their scores as ``prediction``; ``train_df`` the train rows without the pairs of
``rating_pred`` (Recommenders raises on such a pair: asked once with them, under its own label); item features as
``features`` arrays. Labels are ``function(options)``; a DataFrame output is compared row by row (the row number is
part of the key) and by its column names; a function that raises is recorded under the label ``raised`` (both
sides must raise on the same calls).
"""

from __future__ import annotations

import json
import math
import sys
import warnings
import zlib

# the worker runs as `python -P` (ISOLATED in the peer module): this directory is not on sys.path


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def pred_rows(case):
    """The recommendation rows in a fixed order that is not the rank order (a CRC of user, item and rank)."""
    return sorted(case["recs"], key=lambda r: zlib.crc32(repr((r[0], r[1], r[2])).encode()))


def frames(case):
    """rating_true, rating_pred, train_df (pairs of rating_pred removed), the raw train_df and item_feature_df
    (None when the case has none)."""
    import numpy as np
    import pandas as pd

    rt = pd.DataFrame(case["truth"], columns=["userID", "itemID", "rating"]).astype({"rating": float})
    rows = pred_rows(case)
    rp = pd.DataFrame(
        [[u, i, s, (r % 3) / 2] for u, i, r, s in rows], columns=["userID", "itemID", "prediction", "relevance"]
    )
    if rt.empty:
        rt = rt.astype({"userID": rp["userID"].dtype, "itemID": rp["itemID"].dtype})
    if rp.empty:
        rp = rp.astype({"userID": rt["userID"].dtype, "itemID": rt["itemID"].dtype, "prediction": float})
    train = raw = feats = None
    if case.get("train"):
        recommended = {(u, i) for u, i, _r, _s in case["recs"]}
        raw = pd.DataFrame(case["train"], columns=["userID", "itemID"])
        train = pd.DataFrame(
            [[u, i] for u, i in case["train"] if (u, i) not in recommended], columns=["userID", "itemID"]
        )
        if train.empty:
            train = train.astype({"userID": raw["userID"].dtype, "itemID": raw["itemID"].dtype})
    if case.get("features"):
        feats = pd.DataFrame(
            {"itemID": [i for i, _ in case["features"]], "features": [np.array(v) for _, v in case["features"]]}
        )
    return rt, rp, train, raw, feats


RANKING = ("precision_at_k", "recall_at_k", "map_at_k", "map", "r_precision_at_k", "ndcg_at_k")


def calls(case):
    """(label, function name, args, kwargs) of every call of a case; args name the frames of :func:`frames`."""
    out = []
    k0 = case["ks"][0]
    for k in case["ks"]:
        for name in RANKING:
            out.append((f"{name}@{k}", name, ("rt", "rp"), {"k": k}))
        for st in ("raw", "exp"):
            out.append((f"ndcg_at_k({st})@{k}", "ndcg_at_k", ("rt", "rp"), {"k": k, "score_type": st}))
    out.append((f"ndcg_at_k(log2)@{k0}", "ndcg_at_k", ("rt", "rp"), {"k": k0, "discfun_type": "log2"}))
    thr = case["ks"][-1]
    for name in RANKING:
        out.append(
            (
                f"{name}(by_threshold={thr})@{k0}",
                name,
                ("rt", "rp"),
                {"k": k0, "relevancy_method": "by_threshold", "threshold": thr},
            )
        )
        out.append((f"{name}(None)@{k0}", name, ("rt", "rp"), {"k": k0, "relevancy_method": None}))
    out.append(
        (
            f"ndcg_at_k(raw,None)@{k0}",
            "ndcg_at_k",
            ("rt", "rp"),
            {"k": k0, "score_type": "raw", "relevancy_method": None},
        )
    )
    for name in ("rmse", "mae", "rsquared", "exp_var"):
        out.append((name, name, ("rt", "rp"), {}))
    out.append(("auc", "auc", ("rt01", "rp01"), {}))
    out.append(("logloss", "logloss", ("rt01", "rp01"), {}))
    if case.get("train"):
        out.append(("catalog_coverage(raw train)", "catalog_coverage", ("raw", "rp"), {}))
        for name in ("catalog_coverage", "distributional_coverage", "novelty", "historical_item_novelty"):
            out.append((name, name, ("train", "rp"), {}))
        for name in ("user_diversity", "diversity", "user_serendipity", "serendipity", "user_item_serendipity"):
            out.append((name, name, ("train", "rp2"), {}))
            if case.get("features"):
                kw = {"item_feature_df": "feats", "item_sim_measure": "item_feature_vector"}
                out.append((f"{name}(features)", name, ("train", "rp2"), kw))
        for name in ("user_serendipity", "serendipity", "user_item_serendipity"):
            out.append((f"{name}(relevance)", name, ("train", "rp"), {"col_relevance": "relevance"}))
    return out


def run_all(E, case):
    """Every call of :func:`calls` on module ``E`` (Recommenders' python_evaluation or the compat module)."""
    import pandas as pd

    # Recommenders memoizes (lru_cache_df) under a hash of `DataFrame.values.tobytes()`: with int ids beside
    # float columns `.values` is float64, so tables whose ids differ beyond 2**53 collide and a call returns an
    # earlier case's result. Each case starts from empty caches (the compat module has none).
    for f in vars(E).values():
        if callable(getattr(f, "cache_clear", None)):
            f.cache_clear()
    rt, rp, train, raw, feats = frames(case)
    rt01 = rt.assign(rating=(rt["rating"] > 0.5).astype(float))
    rp01 = rp.assign(prediction=rp["prediction"] / 1.5)
    tables = {"rt": rt, "rp": rp, "rp2": rp[["userID", "itemID"]], "rt01": rt01, "rp01": rp01}
    tables.update({"train": train, "raw": raw, "feats": feats})
    out: dict = {}
    raised = []
    for label, name, args, kw in calls(case):
        kw = {a: tables[v] if a == "item_feature_df" else v for a, v in kw.items()}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = getattr(E, name)(*(tables[a].copy() for a in args), **kw)
        except Exception:
            raised.append([label, 1.0])
            out[label] = {"per_user": None, "mean": None}
            continue
        if isinstance(value, pd.DataFrame):
            key_cols = list(value.columns[:-1])
            keys = [[j, *[str(x) for x in row]] for j, row in enumerate(value[key_cols].itertuples(index=False))]
            values = value[value.columns[-1]].tolist()
            out[label] = {"per_user": [[key, _f(v)] for key, v in zip(keys, values)], "mean": None}
            out[f"{label}:columns"] = {
                "per_user": [[str(c), float(j)] for j, c in enumerate(value.columns)],
                "mean": None,
            }
        else:
            out[label] = {"per_user": None, "mean": _f(value)}
    out["raised"] = {"per_user": raised}
    return out


def main() -> int:
    from recommenders.evaluation import python_evaluation as E

    warnings.simplefilter("ignore")
    path_in, path_out = sys.argv[1:3]
    with open(path_in) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        try:
            results.append({"ok": run_all(E, case)})
        except Exception as e:  # an error of the tables' construction, reported by type
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(path_out, "w") as f:
        json.dump({"results": results}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
