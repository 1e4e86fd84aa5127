"""Microsoft Recommenders' python_evaluation on the differential cases (tests/differential/cases.py), run in its
own venv (``msr``).

    <venv>/bin/python tests/differential/worker_recommenders.py IN.json OUT.json

Imports only the standard library, numpy, pandas and Recommenders, never rankmeter. ``rating_true`` is the
truth rows, ``rating_pred`` the recommendation rows with their scores as ``prediction``, in the row order of
:func:`pred_rows` (not grouped by rank: equal predictions are then ordered by that row order, as Recommenders
sorts). For every cutoff it asks for the means of every ranking function the preset reproduces, and for the
per-user values of the users of :func:`sampled_users` at the case's first cutoff (each function on one user's
rows: its value for that user); the beyond-accuracy functions read the whole tables (no cutoff). Labels are Recommenders' function names;
tests/differential/recommenders.py maps each to rankmeter.
"""

from __future__ import annotations

import json
import math
import sys
import zlib

# the worker runs as `python -P` (ISOLATED in the peer module): this directory is not on sys.path


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def pred_rows(case):
    """The recommendation rows in a fixed order that is not the rank order (a CRC of user and item), so that
    the order of equal predictions is the tables' row order, not the case's ranks."""
    return sorted(case["recs"], key=lambda r: zlib.crc32(repr((r[0], r[1])).encode()))


def train_rows(case):
    """The train rows without the (user, item) pairs of the recommendations: Recommenders' diversity, novelty
    and coverage raise on such a pair ("reco_df should not contain any user_item pairs that are already shown
    in train_df")."""
    recommended = {(u, i) for u, i, _r, _s in case["recs"]}
    return [[u, i] for u, i in case.get("train") or [] if (u, i) not in recommended]


def sampled_users(case, n=4):
    """The users whose per-user values are compared (Recommenders' functions take one user's rows per call, so
    a call per user and function is slow): ``n`` users of either table, in CRC order."""
    users = {u for u, _i, _g in case["truth"]} | {u for u, *_ in case["recs"]} | set(case["empty_lists"])
    return sorted(users, key=lambda u: zlib.crc32(repr(u).encode()))[:n]


def has_zero_feature(case):
    """A zero feature vector: Recommenders' feature cosine divides by its norm (ZeroDivisionError)."""
    return any(not any(v) for _, v in case.get("features") or [])


RANKING = ("precision_at_k", "recall_at_k", "ndcg_at_k", "ndcg_at_k(raw)", "ndcg_at_k(exp)", "map_at_k", "map")


def run(case):
    import numpy as np
    import pandas as pd
    from recommenders.evaluation import python_evaluation as E

    rt = pd.DataFrame(case["truth"], columns=["userID", "itemID", "rating"]).astype({"rating": float})
    rp = pd.DataFrame([[u, i, s] for u, i, _r, s in pred_rows(case)], columns=["userID", "itemID", "prediction"])
    if rt.empty:
        rt = rt.astype({"userID": rp["userID"].dtype, "itemID": rp["itemID"].dtype})
    if rp.empty:
        rp = rp.astype({"userID": rt["userID"].dtype, "itemID": rt["itemID"].dtype, "prediction": float})

    def call(name, a, b, k):
        kw = {"k": k}
        if name.startswith("ndcg_at_k("):
            kw["score_type"] = name[len("ndcg_at_k(") : -1]
            name = "ndcg_at_k"
        return getattr(E, name)(a, b, **kw)

    def fresh():
        # Recommenders memoizes its merges (lru_cache_df) under a hash of `DataFrame.values.tobytes()`: with int
        # ids beside float ratings, `.values` is float64, so tables whose ids differ beyond 2**53 hash (and
        # compare) equal and a call returns the result of an earlier call on other tables. Each case and each
        # user's tables start from an empty cache: the values compared are those of a first call on them.
        for f in vars(E).values():
            if callable(getattr(f, "cache_clear", None)):
                f.cache_clear()

    fresh()
    out = {}
    k0 = case["ks"][0]
    truth_users = set(rt["userID"].tolist())
    pred_users = set(rp["userID"].tolist())
    for k in case["ks"]:
        for name in RANKING:  # in this order, calls of one k reuse Recommenders' cached merge
            out[f"{name}@{k}"] = {"per_user": [] if k == k0 else None, "mean": _f(call(name, rt, rp, k))}
    for u in sampled_users(case):
        if u not in truth_users:
            continue
        rt_u, rp_u = rt[rt.userID == u], rp[rp.userID == u]
        fresh()
        for name in RANKING:
            # ndcg_at_k averages over every user of rating_true, the others over the users of both tables
            if name.startswith("ndcg") or u in pred_users:
                out[f"{name}@{k0}"]["per_user"].append([u, _f(call(name, rt_u, rp_u, k0))])
    if case.get("train"):
        fresh()
        train = pd.DataFrame(train_rows(case), columns=["userID", "itemID"])
        if train.empty:
            train = train.astype({"userID": rp["userID"].dtype, "itemID": rp["itemID"].dtype})
        if not train.empty and not rp.empty:
            out["catalog_coverage"] = {"per_user": None, "mean": _f(E.catalog_coverage(train, rp))}
            out["novelty"] = {"per_user": None, "mean": _f(E.novelty(train, rp))}
            ud = E.user_diversity(train, rp)
            out["user_diversity"] = {
                "per_user": [[u, _f(v)] for u, v in zip(ud["userID"].tolist(), ud["user_diversity"].tolist())],
                "mean": _f(E.diversity(train, rp)),
            }
            us = E.user_serendipity(train, rp)
            out["user_serendipity"] = {
                "per_user": [[u, _f(v)] for u, v in zip(us["userID"].tolist(), us["user_serendipity"].tolist())],
                "mean": _f(E.serendipity(train, rp)),
            }
            if case.get("features") and not has_zero_feature(case):
                feats = pd.DataFrame(
                    {"itemID": [i for i, _ in case["features"]], "features": [np.array(v) for _, v in case["features"]]}
                )
                kw = {"item_feature_df": feats, "item_sim_measure": "item_feature_vector"}
                ud = E.user_diversity(train, rp, **kw)
                out["user_diversity(features)"] = {
                    "per_user": [[u, _f(v)] for u, v in zip(ud["userID"].tolist(), ud["user_diversity"].tolist())],
                    "mean": _f(E.diversity(train, rp, **kw)),
                }
                us = E.user_serendipity(train, rp, **kw)
                out["user_serendipity(features)"] = {
                    "per_user": [[u, _f(v)] for u, v in zip(us["userID"].tolist(), us["user_serendipity"].tolist())],
                    "mean": _f(E.serendipity(train, rp, **kw)),
                }
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
        except Exception as e:  # Recommenders' own exception, reported by type
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(path_out, "w") as f:
        json.dump({"results": results}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
