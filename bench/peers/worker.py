"""One contender of bench/compare.py, run in its own process (and venv).

    <venv>/bin/python bench/peers/worker.py NAME WORKLOAD.npz REPEATS OUT.json

Reads the workload (CSR buffers: truth_indptr, truth_items, truth_grades,
recs_indptr, recs_items; lists are ranked, best first), times the peer's
conversion from those buffers to its own input form and its computation
separately (medians over REPEATS; for ranx the first compute is also kept as
the cold, JIT-compiling call), and writes the mean value of every metric it
computed and the process's peak RSS to OUT.json.

Only numpy and the peer itself are imported here, never rankmeter: peers
live in virtual environments of their own (bench/peers/setup.sh).
"""

from __future__ import annotations

import json
import math
import resource
import sys
import time

import numpy as np

K = 10


def rss_mb() -> float:
    """Peak resident set of this process (VmHWM: reset at exec, unlike ru_maxrss)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def load(path):
    z = np.load(path)
    return {k: z[k] for k in z.files}


def rows(indptr, values):
    """Split a CSR value array into per-user numpy views."""
    return np.split(values, indptr[1:-1])


def trec_dicts(w):
    """qrels {query: {doc: grade}} and run {query: {doc: score}} with string ids (ranx, pytrec_eval)."""
    ti, tg, ri = w["truth_items"].tolist(), w["truth_grades"].tolist(), w["recs_items"].tolist()
    tp, rp = w["truth_indptr"].tolist(), w["recs_indptr"].tolist()
    qrels, run = {}, {}
    for u in range(len(tp) - 1):
        q = str(u)
        qrels[q] = {str(ti[p]): int(tg[p]) for p in range(tp[u], tp[u + 1])}
        b, e = rp[u], rp[u + 1]
        run[q] = {str(ri[p]): float(e - p) for p in range(b, e)}
    return qrels, run


def flat_pairs(w):
    """One row per (user, listed item) and the relevant items missing from the lists.

    Returns (user of each list row, 0-based rank, user of each truth row, whether each
    list row is a truth item, its grade (0 when not), mask of truth rows absent from their list)."""
    tp, ti, tg = w["truth_indptr"], w["truth_items"], w["truth_grades"]
    rp, ri = w["recs_indptr"], w["recs_items"]
    n = tp.size - 1
    n_items = int(max(ti.max(initial=0), ri.max(initial=0))) + 1
    ru = np.repeat(np.arange(n), np.diff(rp))
    rank = np.arange(ri.size) - np.repeat(rp[:-1], np.diff(rp))
    tu = np.repeat(np.arange(n), np.diff(tp))
    tkey, rkey = tu * n_items + ti, ru * n_items + ri
    order = np.argsort(tkey)
    pos = np.searchsorted(tkey[order], rkey)
    pos[pos >= tkey.size] = 0
    hit = tkey[order][pos] == rkey
    grade = np.where(hit, tg[order][pos], 0.0)
    return ru, rank, tu, hit, grade, ~np.isin(tkey, rkey)


# --------------------------------------------------------------------------- peers
# Each peer is (convert(w) -> state, compute(state) -> {metric: mean}).


def ranx_peer():
    import ranx

    def convert(w):
        qrels, run = trec_dicts(w)
        return ranx.Qrels(qrels), ranx.Run(run)

    def compute(s):
        metrics = [f"precision@{K}", f"recall@{K}", f"map@{K}", f"ndcg@{K}", f"mrr@{K}", f"hit_rate@{K}"]
        return {k: float(v) for k, v in ranx.evaluate(s[0], s[1], metrics, make_comparable=False).items()}

    return convert, compute


def ranx_fast_peer():
    """ranx's fastest path: its numba metric kernels called directly on the typed-List qrels and a
    U x K x 2 run array (doc-id hash, score; K = the cutoff, as the @K metrics read no further),
    built once in convert(), so compute() is only the kernels (ranx.evaluate converts every call)."""
    import numpy as np
    import ranx
    from ranx import metrics as rxm

    def convert(w):
        qrels, run = trec_dicts(w)
        q = ranx.Qrels(qrels)
        r = ranx.Run(run)
        q_tl = q.to_typed_list()
        r_arr = np.stack([a[:K] for a in r.to_typed_list()])  # every W1 list has >= K items
        return q_tl, r_arr

    def compute(s):
        q, r = s
        return {
            f"precision@{K}": float(rxm.precision(q, r, K).mean()),
            f"recall@{K}": float(rxm.recall(q, r, K).mean()),
            f"map@{K}": float(rxm.average_precision(q, r, K).mean()),
            f"ndcg@{K}": float(rxm.ndcg(q, r, K).mean()),
            f"mrr@{K}": float(rxm.reciprocal_rank(q, r, K).mean()),
            f"hit_rate@{K}": float(rxm.hit_rate(q, r, K).mean()),
        }

    return convert, compute


RANX16 = {
    "precision": "precision",
    "recall": "recall",
    "f1": "f1",
    "map": "average_precision",
    "ndcg": "ndcg",
    "dcg": "dcg",
    "hit_rate": "hit_rate",
    "mrr": "reciprocal_rank",
}


def ranx_fast16_peer():
    """ranx's fastest path for its 16 columns (the 8 of rankmeter's 10 accuracy metrics it has, at
    k = 10 and 100): its numba kernels on the typed-List qrels and one U x 100 x 2 run array (the
    @10 kernels read its first 10 columns), built once in convert()."""
    import numpy as np
    import ranx
    from ranx import metrics as rxm

    def convert(w):
        qrels, run = trec_dicts(w)
        q = ranx.Qrels(qrels)
        r = ranx.Run(run)
        return q.to_typed_list(), np.stack([a[:100] for a in r.to_typed_list()])  # W1 lists: 100 items

    def compute(s):
        q, r = s
        return {
            f"{name}@{k}": float(getattr(rxm, fn)(q, r, k).mean()) for name, fn in RANX16.items() for k in (10, 100)
        }

    return convert, compute


def pytrec_eval_peer():
    import pytrec_eval

    measures = {f"P_{K}", f"recall_{K}", f"map_cut_{K}", f"ndcg_cut_{K}", "recip_rank", f"success_{K}"}

    def convert(w):
        qrels, run = trec_dicts(w)
        return pytrec_eval.RelevanceEvaluator(qrels, measures), run

    def compute(s):
        res = s[0].evaluate(s[1])
        n = len(res)
        return {m: math.fsum(r[m] for r in res.values()) / n for m in sorted(measures)}

    return convert, compute


def pytrec_eval_top_peer():
    """pytrec_eval's evaluate on its run cut to the top K (what its @K measures read), the evaluator
    built beforehand: the fastest way to get these six measures from it."""
    import pytrec_eval

    measures = {f"P_{K}", f"recall_{K}", f"map_cut_{K}", f"ndcg_cut_{K}", "recip_rank", f"success_{K}"}

    def convert(w):
        qrels, run = trec_dicts(w)
        top = {q: dict(sorted(d.items(), key=lambda kv: -kv[1])[:K]) for q, d in run.items()}
        return pytrec_eval.RelevanceEvaluator(qrels, measures), top

    def compute(s):
        res = s[0].evaluate(s[1])
        n = len(res)
        return {m: math.fsum(r[m] for r in res.values()) / n for m in sorted(measures)}

    return convert, compute


def torchmetrics_peer():
    import torch
    from torchmetrics import retrieval as R

    def convert(w):
        # one row per (user, listed item), plus every relevant item missing from the
        # list with a score below the whole list (so recall sees all of |R|)
        tg = w["truth_grades"]
        ru, rank, tu, _, grade, missing = flat_pairs(w)
        idx = np.concatenate([ru, tu[missing]])
        preds = np.concatenate([1000.0 - rank, np.full(int(missing.sum()), 0.5)])
        gr = np.concatenate([grade, tg[missing]])
        return torch.from_numpy(idx), torch.from_numpy(preds), torch.from_numpy(gr)

    def compute(s):
        idx, preds, gr = s
        binary = gr > 0
        out = {}
        for name, cls, target in [
            ("precision", R.RetrievalPrecision, binary),
            ("recall", R.RetrievalRecall, binary),
            ("map", R.RetrievalMAP, binary),
            ("ndcg", R.RetrievalNormalizedDCG, gr),
            ("mrr", R.RetrievalMRR, binary),
            ("hit_rate", R.RetrievalHitRate, binary),
        ]:
            m = cls(top_k=K)
            out[name] = float(m(preds, target, indexes=idx))
        return out

    return convert, compute


def _long_frames(w, pd):
    tp, rp = w["truth_indptr"], w["recs_indptr"]
    n = tp.size - 1
    truth = pd.DataFrame(
        {"user_id": np.repeat(np.arange(n), np.diff(tp)), "item_id": w["truth_items"], "weight": w["truth_grades"]}
    )
    ru = np.repeat(np.arange(n), np.diff(rp))
    rank = np.arange(rp[-1]) - np.repeat(rp[:-1], np.diff(rp)) + 1
    recs = pd.DataFrame({"user_id": ru, "item_id": w["recs_items"], "rank": rank})
    return truth, recs


def rectools_peer():
    import pandas as pd
    from rectools import metrics as M

    def convert(w):
        truth, recs = _long_frames(w, pd)
        return truth.rename(columns={"user_id": "user_id"}), recs

    def compute(s):
        truth, recs = s
        metrics = {
            "precision": M.Precision(k=K),
            "recall": M.Recall(k=K),
            "map": M.MAP(k=K),
            "ndcg": M.NDCG(k=K),
            "mrr": M.MRR(k=K),
            "hit_rate": M.HitRate(k=K),
        }
        res = M.calc_metrics(metrics, reco=recs, interactions=truth[["user_id", "item_id"]])
        return {k: float(v) for k, v in res.items()}

    return convert, compute


def msr_peer():
    import pandas as pd
    from recommenders.evaluation import python_evaluation as E

    def convert(w):
        truth, recs = _long_frames(w, pd)
        rt = truth.rename(columns={"user_id": "userID", "item_id": "itemID", "weight": "rating"})
        rp = recs.rename(columns={"user_id": "userID", "item_id": "itemID"})
        rp["prediction"] = (1000 - rp["rank"]).astype(np.float64)
        return rt, rp[["userID", "itemID", "prediction"]]

    def compute(s):
        rt, rp = s
        return {
            "precision": float(E.precision_at_k(rt, rp, k=K)),
            "recall": float(E.recall_at_k(rt, rp, k=K)),
            "map": float(E.map_at_k(rt, rp, k=K)),
            "ndcg": float(E.ndcg_at_k(rt, rp, k=K)),
        }

    return convert, compute


def ml_metrics_peer():
    import ml_metrics
    import recmetrics

    def convert(w):
        actual = [r.tolist() for r in rows(w["truth_indptr"], w["truth_items"])]
        pred = [r.tolist() for r in rows(w["recs_indptr"], w["recs_items"])]
        return actual, pred

    def compute(s):
        actual, pred = s
        return {
            "ml_metrics.mapk": float(ml_metrics.mapk(actual, pred, k=K)),
            "recmetrics.mark": float(recmetrics.mark(actual, pred, k=K)),
        }

    return convert, compute


def implicit_peer():
    import scipy.sparse as sp
    from implicit.evaluation import ranking_metrics_at_k

    class Precomputed:
        """Stands in for a trained model: recommend() returns the precomputed lists."""

        def __init__(self, ids):
            self.ids = ids

        def recommend(
            self,
            userid,
            user_items,
            N=10,
            filter_already_liked_items=True,
            filter_items=None,
            recalculate_user=False,
            items=None,
        ):
            ids = self.ids[np.asarray(userid)][:, :N]
            return ids, np.broadcast_to(np.arange(N, 0, -1, dtype=np.float32), ids.shape)

    def convert(w):
        tp, ti = w["truth_indptr"], w["truth_items"]
        n = tp.size - 1
        n_items = int(max(ti.max(initial=0), w["recs_items"].max(initial=0))) + 1
        test = sp.csr_matrix((np.ones(ti.size, dtype=np.float32), ti, tp), shape=(n, n_items))
        train = sp.csr_matrix((n, n_items), dtype=np.float32)
        ids = w["recs_items"].reshape(n, -1)[:, :K].astype(np.int32)  # W1 lists all have the same length
        return Precomputed(ids), train, test

    def compute(s):
        model, train, test = s
        res = ranking_metrics_at_k(model, train, test, K=K, show_progress=False)
        return {k: float(v) for k, v in res.items()}

    return convert, compute


def numpy_peer():
    """A careful vectorised numpy implementation (precision, recall, MAP, NDCG @10, linear gains)."""

    def convert(w):
        return w

    def compute(w):
        tp, ti, tg = w["truth_indptr"], w["truth_items"], w["truth_grades"]
        ri = w["recs_items"]
        n = tp.size - 1
        n_items = int(max(ti.max(initial=0), ri.max(initial=0))) + 1
        m = np.diff(tp)
        top = ri.reshape(n, -1)[:, :K]  # W1 lists all have the same length
        tkey = np.repeat(np.arange(n, dtype=np.int64), m) * n_items + ti  # sorted: users ascending, items sorted
        order = np.argsort(tkey, kind="stable")
        skey, sgr = tkey[order], tg[order]
        key = np.arange(n, dtype=np.int64)[:, None] * n_items + top
        pos = np.searchsorted(skey, key)
        pos[pos >= skey.size] = 0
        hit = skey[pos] == key
        gain = np.where(hit, sgr[pos], 0.0)
        h = hit.sum(1)
        disc = 1.0 / np.log2(np.arange(2, K + 2))
        dcg = gain @ disc
        # ideal: each user's grades sorted descending, cut at K
        ideal = np.zeros((n, K))
        srt = -np.sort(-np.where(np.arange(m.max(initial=0))[None, :] < m[:, None], _pad(tg, tp, m), 0.0), axis=1)
        w_ = min(K, srt.shape[1])
        ideal[:, :w_] = srt[:, :w_]
        idcg = ideal @ disc
        cum = np.cumsum(hit, 1)
        ap = (hit * cum / np.arange(1, K + 1)).sum(1) / m
        return {
            "precision": float(np.mean(h / K)),
            "recall": float(np.mean(h / m)),
            "map": float(np.mean(ap)),
            "ndcg": float(np.mean(np.divide(dcg, idcg, out=np.zeros(n), where=idcg > 0))),
        }

    return convert, compute


def _pad(values, indptr, m):
    n = indptr.size - 1
    out = np.zeros((n, int(m.max(initial=0))))
    col = np.arange(values.size) - np.repeat(indptr[:-1], m)
    out[np.repeat(np.arange(n), m), col] = values
    return out


def python_loops_peer():
    """The textbook per-user loops of the seed documents (sets, one user at a time)."""

    def convert(w):
        truth = [
            dict(zip(i.tolist(), g.tolist()))
            for i, g in zip(rows(w["truth_indptr"], w["truth_items"]), rows(w["truth_indptr"], w["truth_grades"]))
        ]
        recs = [r.tolist() for r in rows(w["recs_indptr"], w["recs_items"])]
        return truth, recs

    def compute(s):
        truth, recs = s
        sp = sr = sa = sn = 0.0
        for t, r in zip(truth, recs):
            top = r[:K]
            hits = [i in t for i in top]
            sp += sum(hits) / K
            sr += sum(hits) / len(t)
            score, nh = 0.0, 0
            for j, h in enumerate(hits):
                if h:
                    nh += 1
                    score += nh / (j + 1)
            sa += score / len(t)
            dcg = sum(t.get(i, 0.0) / math.log2(j + 2) for j, i in enumerate(top))
            ideal = sorted(t.values(), reverse=True)[:K]
            idcg = sum(g / math.log2(j + 2) for j, g in enumerate(ideal))
            sn += dcg / idcg if idcg > 0 else 0.0
        n = len(truth)
        return {"precision": sp / n, "recall": sr / n, "map": sa / n, "ndcg": sn / n}

    return convert, compute


def evidently_peer():
    import pandas as pd
    from evidently import DataDefinition, Dataset, Recsys, Report
    from evidently import metrics as M

    def convert(w):
        # one row per (user, listed item) with its rank, plus every relevant item missing
        # from the list at rank 1000; target = 1 for relevant items
        ti, ri = w["truth_items"], w["recs_items"]
        ru, rank, tu, hit, _, missing = flat_pairs(w)
        df = pd.DataFrame(
            {
                "user_id": np.concatenate([ru, tu[missing]]),
                "item_id": np.concatenate([ri, ti[missing]]),
                "prediction": np.concatenate([rank + 1, np.full(int(missing.sum()), 1000)]),
                "target": np.concatenate([hit, np.ones(int(missing.sum()), bool)]).astype(int),
            }
        )
        dd = DataDefinition(
            ranking=[
                Recsys(
                    user_id="user_id",
                    item_id="item_id",
                    target="target",
                    prediction="prediction",
                    recommendations_type="rank",
                )
            ]
        )
        return Dataset.from_pandas(df, data_definition=dd)

    def compute(ds):
        names = {
            "PrecisionTopK": "precision",
            "RecallTopK": "recall",
            "MAP": "map",
            "NDCG": "ndcg",
            "MRR": "mrr",
            "HitRate": "hit_rate",
        }
        rep = Report([M.PrecisionTopK(k=K), M.RecallTopK(k=K), M.MAP(k=K), M.NDCG(k=K), M.MRR(k=K), M.HitRate(k=K)])
        out = {}
        for m in rep.run(current_data=ds).dict()["metrics"]:
            v = m["value"]
            name = names[m["config"]["type"].rsplit(":", 1)[-1]]
            # Evidently's new API labels NDCG and MRR one rank off: the value of K sits at rank K + 1
            # (docs/metrics.md section 11.2)
            at = K + 1 if name in ("ndcg", "mrr") else K
            key = next(j for j, r in v["rank"].items() if r == at)
            out[name] = float(v["value"][key])
        return out

    return convert, compute


def rankmeter_peer():
    """rankmeter itself, in a process of its own like every contender (for its peak RSS)."""
    import rankmeter as rm

    metrics = [
        f"{m}@{k}"
        for k in (10, 100)
        for m in ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
    ]

    def convert(w):
        return (
            rm.Truth.from_csr(w["truth_indptr"], w["truth_items"], w["truth_grades"]),
            rm.Recs.from_csr(w["recs_indptr"], w["recs_items"]),
        )

    def compute(s):
        return dict(rm.evaluate(s[0], s[1], metrics).means)

    return convert, compute


def floor_peer():
    """The memory floor: one read pass over the input buffers (np.add.reduce)."""

    def convert(w):
        return w

    def compute(w):
        for k in ("truth_indptr", "truth_items", "truth_grades", "recs_indptr", "recs_items"):
            np.add.reduce(w[k])
        return {}

    return convert, compute


PEERS = {
    "ranx": ranx_peer,
    "ranx_fast": ranx_fast_peer,
    "ranx_fast16": ranx_fast16_peer,
    "pytrec_eval": pytrec_eval_peer,
    "pytrec_eval_top": pytrec_eval_top_peer,
    "torchmetrics": torchmetrics_peer,
    "rectools": rectools_peer,
    "recommenders": msr_peer,
    "ml_metrics": ml_metrics_peer,
    "implicit": implicit_peer,
    "evidently": evidently_peer,
    "numpy": numpy_peer,
    "python_loops": python_loops_peer,
    "rankmeter": rankmeter_peer,
    "floor": floor_peer,
}


def main() -> int:
    name, path, repeats, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    w = load(path)
    base = rss_mb()
    convert, compute = PEERS[name]()
    t_conv, t_comp, values, cold = [], [], {}, None
    for r in range(repeats):
        t0 = time.perf_counter()
        state = convert(w)
        t1 = time.perf_counter()
        if r == 0:  # the first compute pays JIT compilation and thread-pool start: "cold"
            values = compute(state)
            cold = time.perf_counter() - t1
        t2 = time.perf_counter()
        values = compute(state)
        t3 = time.perf_counter()
        t_conv.append(t1 - t0)
        t_comp.append(t3 - t2)
        del state
    with open(out, "w") as f:
        json.dump(
            {
                "convert": t_conv,
                "compute": t_comp,
                "cold": cold,
                "values": values,
                "rss_mb": rss_mb(),
                "base_rss_mb": base,
                "users": int(w["truth_indptr"].size - 1),
            },
            f,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
