"""rankmeter.compat.torchmetrics: torchmetrics' retrieval metrics (classes with update/compute/reset, functional
forms) give torchmetrics' numbers and raise its exceptions.

Three layers: behaviour tests (the life cycle, the keyword checks, the empty-query actions, the aggregations);
a pure-Python per-query reference on tie-free inputs; and the live torchmetrics (venv ``torch``, a subprocess)
on random inputs with the edges (queries without a positive target, all-zero targets, tied and non-positive
preds, ignore_index rows, top_k beyond the list, one query, many queries over several update calls). The live
tests skip with a reason when the venv is missing and fail under CI=true.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.compat import torchmetrics as tm
from tests.differential.harness import peer_python, require_peer
from tests.support.peers import peer_env, skip_if_sanitized

PYTHON_DIR = Path(rankmeter.__file__).resolve().parent.parent
CLASSES = (
    "RetrievalNormalizedDCG",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalPrecision",
    "RetrievalRecall",
    "RetrievalHitRate",
    "RetrievalRPrecision",
    "RetrievalFallOut",
    "RetrievalAUROC",
)


def _data(seed: int, n_queries: int, max_len: int, *, ties: bool = False, zero_frac: float = 0.0, pos: float = 0.3):
    g = np.random.default_rng(seed)
    lens = g.integers(1, max_len + 1, n_queries)
    idx = np.repeat(np.arange(n_queries, dtype=np.int64) * 3 + 7, lens)
    n = idx.size
    if ties:
        preds = g.choice(np.array([-1.0, 0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 3.0], dtype=np.float32), n)
    else:
        preds = g.permutation(n).astype(np.float32) / n + np.float32(0.01)
    target = (g.random(n) < pos).astype(np.int64)
    if zero_frac:
        dead = np.flatnonzero(g.random(n_queries) < zero_frac) * 3 + 7
        target[np.isin(idx, dead)] = 0
    perm = g.permutation(n)  # rows of different queries interleaved
    return idx[perm], preds[perm], target[perm]


# --------------------------------------------------------------------------- life cycle
def test_compute_aggregates_the_rows_of_every_update_call():
    idx, preds, target = _data(1, 40, 9)
    whole = tm.RetrievalMAP(top_k=5)
    whole.update(preds, target, idx)
    parts = tm.RetrievalMAP(top_k=5)
    for a, b in ((0, 50), (50, 51), (51, idx.size)):
        parts.update(preds[a:b], target[a:b], idx[a:b])
    assert float(parts.compute()) == pytest.approx(float(whole.compute()), rel=1e-6)


def test_reset_forgets_the_rows_and_compute_without_rows_raises_as_torchmetrics():
    m = tm.RetrievalRecall()
    m.update(np.array([0.5, 0.2], np.float32), np.array([1, 0]), np.array([0, 0]))
    assert float(m.compute()) == 1.0
    m.reset()
    with pytest.raises(ValueError, match="No samples to concatenate"):
        m.compute()
    m.update(np.array([0.5, 0.2], np.float32), np.array([0, 1]), np.array([0, 0]))
    assert float(m.compute()) == 1.0  # top_k=None: the whole list


def test_numpy_inputs_give_a_numpy_float32():
    m = tm.RetrievalNormalizedDCG()
    m.update(np.array([0.5, 0.2], np.float32), np.array([1, 0]), np.array([3, 3]))
    out = m.compute()
    assert isinstance(out, np.float32) and float(out) == 1.0


def test_compute_makes_one_evaluate_call_for_all_queries(monkeypatch):
    calls = []
    real = rankmeter.evaluate

    def counting(*a, **kw):
        calls.append(kw.get("preset"))
        return real(*a, **kw)

    monkeypatch.setattr(rankmeter, "evaluate", counting)
    idx, preds, target = _data(2, 3000, 12)
    m = tm.RetrievalPrecision(top_k=3)
    m.update(preds, target, idx)
    m.compute()
    assert calls == ["torchmetrics"]


# --------------------------------------------------------------------------- keyword checks
@pytest.mark.parametrize("cls", CLASSES)
def test_constructor_keywords_are_checked_as_torchmetrics_checks_them(cls):
    C = getattr(tm, cls)
    with pytest.raises(ValueError, match="empty_target_action"):
        C(empty_target_action="zero")
    with pytest.raises(ValueError, match="ignore_index"):
        C(ignore_index=1.5)
    with pytest.raises(ValueError, match="aggregation"):
        C(aggregation="sum")
    with pytest.raises(TypeError, match="unexpected keyword"):
        C(sync_on_compute=True)
    if cls in ("RetrievalNormalizedDCG", "RetrievalPrecision", "RetrievalRecall", "RetrievalHitRate"):
        for bad in (0, -2, 2.0):
            with pytest.raises(ValueError, match="top_k"):
                C(top_k=bad)


def test_map_and_mrr_keep_torchmetrics_loose_top_k_rules():
    # top_k=0 is `top_k or n`: the whole list; a negative k fails at compute as torch's topk does
    idx, preds, target = _data(3, 20, 6)
    full, zero = tm.RetrievalMAP(), tm.RetrievalMAP(top_k=0)
    for m in (full, zero):
        m.update(preds, target, idx)
    assert float(zero.compute()) == float(full.compute())
    neg = tm.RetrievalMRR(top_k=-1)
    neg.update(preds, target, idx)
    with pytest.raises(RuntimeError, match="out of range"):
        neg.compute()


def test_adaptive_k_and_max_fpr_are_checked():
    with pytest.raises(ValueError, match="adaptive_k"):
        tm.RetrievalPrecision(adaptive_k=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_fpr"):
        tm.RetrievalAUROC(max_fpr=1)  # an int in (0, 1]: torchmetrics' check
    with pytest.raises(ValueError, match="max_fpr"):
        tm.RetrievalAUROC(max_fpr=0.0)


def test_update_checks_the_inputs_as_torchmetrics_checks_them():
    m = tm.RetrievalMAP()
    p, t, i = np.array([0.5, 0.2], np.float32), np.array([1, 0]), np.array([0, 0])
    with pytest.raises(ValueError, match="cannot be None"):
        m.update(p, t, None)
    with pytest.raises(ValueError, match="same shape"):
        m.update(p, t[:1], i)
    with pytest.raises(ValueError, match="long integers"):
        m.update(p, t, i.astype(np.int32))
    with pytest.raises(ValueError, match="`preds` must be a tensor of floats"):
        m.update(np.array([1, 2]), t, i)
    with pytest.raises(ValueError, match="binary"):
        m.update(p, np.array([2, 0]), i)
    with pytest.raises(ValueError, match="booleans, integers or floats"):
        m.update(p, t.astype(np.uint8), i)
    with pytest.raises(ValueError, match="non-empty"):
        tm.RetrievalMAP(ignore_index=1).update(p[:1], t[:1], i[:1])


def test_targets_torchmetrics_counts_otherwise_are_refused():
    p, i = np.array([0.5, 0.2], np.float32), np.array([0, 0])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        tm.RetrievalRecall().update(p, np.array([0.5, 0.0], np.float32), i)
    with pytest.raises(ValueError, match="negative"):
        tm.RetrievalNormalizedDCG().update(p, np.array([-1.0, 2.0], np.float32), i)


def test_ignore_index_drops_those_rows_before_anything_is_computed():
    p = np.array([0.9, 0.8, 0.1], np.float32)
    i = np.array([0, 0, 0])
    m = tm.RetrievalMRR(ignore_index=-1)
    m.update(p, np.array([-1, 0, 1]), i)
    assert float(m.compute()) == pytest.approx(0.5)  # ranks: 0.8 (0), 0.1 (1)


# --------------------------------------------------------------------------- empty queries, aggregation
def _two_queries():
    # query 0: no positive target; query 1: relevant document first
    return np.array([0.9, 0.2, 0.8, 0.1], np.float32), np.array([0, 0, 1, 0]), np.array([0, 0, 1, 1])


@pytest.mark.parametrize(("action", "want"), [("neg", 0.5), ("pos", 1.0), ("skip", 1.0)])
def test_empty_target_action_scores_a_query_without_positive(action, want):
    m = tm.RetrievalMRR(empty_target_action=action)
    m.update(*_two_queries())
    assert float(m.compute()) == pytest.approx(want)


def test_empty_target_action_error_raises_valueerror():
    m = tm.RetrievalHitRate(empty_target_action="error")
    m.update(*_two_queries())
    with pytest.raises(ValueError, match="no positive target"):
        m.compute()


def test_every_query_skipped_gives_zero_as_torchmetrics():
    m = tm.RetrievalMAP(empty_target_action="skip")
    m.update(np.array([0.3, 0.2], np.float32), np.array([0, 0]), np.array([4, 4]))
    assert float(m.compute()) == 0.0


def test_fall_out_calls_a_query_without_negative_empty_and_scores_it_one_by_default():
    m = tm.RetrievalFallOut(top_k=1)
    m.update(np.array([0.9, 0.2, 0.5], np.float32), np.array([1, 1, 0]), np.array([0, 0, 1]))
    assert float(m.compute()) == pytest.approx(1.0)  # query 0: 'pos' -> 1; query 1: its negative is first -> 1
    m = tm.RetrievalFallOut(top_k=1, empty_target_action="neg")
    m.update(np.array([0.9, 0.2, 0.5], np.float32), np.array([1, 1, 0]), np.array([0, 0, 1]))
    assert float(m.compute()) == pytest.approx(0.5)


def test_aggregations_median_min_max_and_a_callable():
    idx = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    preds = np.array([0.9, 0.1] * 4, np.float32)
    target = np.array([1, 0, 0, 1, 1, 0, 0, 1])  # RR per query: 1, 0.5, 1, 0.5
    got = {}
    for agg in ("median", "min", "max", "mean"):
        m = tm.RetrievalMRR(aggregation=agg)
        m.update(preds, target, idx)
        got[agg] = float(m.compute())
    assert got == {"median": 0.5, "min": 0.5, "max": 1.0, "mean": 0.75}  # median of an even count: the lower
    seen = []

    def total(v, dim=None):
        seen.append(list(v))
        return v.sum()

    m = tm.RetrievalMRR(aggregation=total)
    m.update(preds, target, idx)
    assert float(m.compute()) == 3.0 and seen == [[1.0, 0.5, 1.0, 0.5]]  # queries in index order


# --------------------------------------------------------------------------- pure-Python reference
def _reference(name: str, preds: list, target: list, k):
    """One query's value, tie-free preds, as torchmetrics' functional forms define it."""
    ranked = [t for _p, t in sorted(zip(preds, target), key=lambda x: -x[0])]
    hits = [t if p > 0 else 0 for p, t in sorted(zip(preds, target), key=lambda x: -x[0])]
    n, kk = len(ranked), (len(ranked) if k is None else k)
    R = sum(target)
    if name == "RetrievalFallOut":
        negs = sum(1 - t for t in target)
        return sum(1 - t for t in ranked[:kk]) / negs if negs else 0.0
    if R == 0:
        return 0.0
    if name == "RetrievalPrecision":
        return sum(hits[:kk]) / kk
    if name == "RetrievalRecall":
        return sum(hits[:kk]) / R
    if name == "RetrievalHitRate":
        return float(any(ranked[:kk]))
    if name == "RetrievalRPrecision":
        return sum(ranked[:R]) / R
    if name == "RetrievalMRR":
        return next((1 / (j + 1) for j, h in enumerate(hits[:kk]) if h), 0.0)
    if name == "RetrievalMAP":
        pos = [j + 1 for j, h in enumerate(hits[:kk]) if h]
        return sum((c + 1) / p for c, p in enumerate(pos)) / len(pos) if pos else 0.0
    if name == "RetrievalNormalizedDCG":
        dcg = sum(t / math.log2(j + 2) for j, t in enumerate(ranked[:kk]))
        ideal = sum(t / math.log2(j + 2) for j, t in enumerate(sorted(target, reverse=True)[:kk]))
        return dcg / ideal
    if name == "RetrievalAUROC":
        top = sorted(zip(preds, target), key=lambda x: -x[0])[: min(kk, n)]
        P = [p for p, t in top if t]
        N = [p for p, t in top if not t]
        if not P or not N:
            return 0.0
        return sum((a > b) + 0.5 * (a == b) for a in P for b in N) / (len(P) * len(N))
    raise AssertionError(name)


@pytest.mark.parametrize(
    ("cls", "k"), [(c, k) for c in CLASSES for k in (None, 1, 3, 50) if k is None or c != "RetrievalRPrecision"]
)
def test_classes_match_a_per_query_reference_on_tie_free_inputs(cls, k):
    idx, preds, target = _data(7, 60, 9, zero_frac=0.2)
    preds = preds - np.float32(0.2)  # some preds <= 0: the hit filter of precision, recall, MAP and MRR
    m = getattr(tm, cls)() if k is None or cls == "RetrievalRPrecision" else getattr(tm, cls)(top_k=k)
    seen: list = []

    def catch(v, dim=None):
        seen.append(np.asarray(v, np.float64))
        return v.mean()

    m.aggregation = catch
    m.update(preds, target, idx)
    m.compute()
    want = []
    for q in np.unique(idx):
        rows = idx == q
        p, t = preds[rows].tolist(), target[rows].tolist()
        empty = (sum(t) == len(t)) if cls == "RetrievalFallOut" else sum(t) == 0
        want.append((1.0 if cls == "RetrievalFallOut" else 0.0) if empty else _reference(cls, p, t, k))
    np.testing.assert_allclose(seen[0], want, rtol=1e-6, atol=1e-7)


def test_auroc_partial_area_uses_mcclish_correction():
    # one query, ROC points (0,0) (0,.5) (.5,.5) (.5,1) (1,1): pAUC to 0.5 = 0.125 + ... computed by hand
    preds = np.array([0.9, 0.8, 0.7, 0.6], np.float32)
    target = np.array([1, 0, 1, 0])
    full = float(tm.retrieval_auroc(preds, target))
    assert full == pytest.approx(0.75)
    # area up to fpr 0.5: the segment (0,.5)->(.5,.5) = 0.25; McClish: 0.5 * (1 + (0.25 - 0.125) / (0.5 - 0.125))
    assert float(tm.retrieval_auroc(preds, target, max_fpr=0.5)) == pytest.approx(0.5 * (1 + 0.125 / 0.375))


# --------------------------------------------------------------------------- the live torchmetrics
PEER = r"""
import json, sys
import numpy as np, torch
from torchmetrics import retrieval as R
from torchmetrics.functional import retrieval as F
torch.set_num_threads(1)
spec = json.load(open(sys.argv[1]))
out = {}
for name, ds in spec["data"].items():
    d = np.load(ds["path"])
    idx, preds, target = (torch.from_numpy(d[k]) for k in ("idx", "preds", "target"))
    for label, (cls, kw) in spec["configs"].items():
        if ds["few"] and not label.endswith("@10"):
            continue
        kw = dict(kw)
        if "ignore_index" in ds:
            kw["ignore_index"] = ds["ignore_index"]
        tgt = target.float() if cls == "RetrievalNormalizedDCG" else target
        try:
            m = getattr(R, cls)(**kw)
            for part in np.array_split(np.arange(len(idx)), ds["updates"]):
                p = torch.from_numpy(part)
                m.update(preds[p], tgt[p], idx[p])
            out[name + "/" + label] = float(m.compute())
        except Exception as e:
            out[name + "/" + label] = type(e).__name__
    for fn in spec["functions"]:
        vals = []
        for q in torch.unique(idx)[:5].tolist():
            rows = idx == q
            t = target[rows]
            if "ignore_index" in ds:
                keep = t != ds["ignore_index"]
                t, pr = t[keep], preds[rows][keep]
            else:
                pr = preds[rows]
            try:
                vals.append(float(getattr(F, fn)(pr, t.float() if fn == "retrieval_normalized_dcg" else t)))
            except Exception as e:
                vals.append(type(e).__name__)
        out[name + "/" + fn] = vals
json.dump(out, open(sys.argv[2], "w"))
"""

DATASETS = {
    # name: (seed, queries, max length, ties, zero fraction, positive rate, updates, ignore_index)
    "no_positive_queries": (11, 80, 10, False, 0.3, 0.3, 2, None),
    "all_zero_targets": (12, 30, 8, True, 0.0, 0.0, 1, None),
    "ties_and_nonpositive_preds": (13, 200, 20, True, 0.1, 0.3, 3, None),
    "ignore_index_rows": (14, 100, 12, True, 0.1, 0.4, 2, -1),
    "top_k_beyond_the_lists": (15, 100, 3, True, 0.0, 0.5, 1, None),
    "single_query": (16, 1, 60, True, 0.0, 0.3, 1, None),
    "many_queries_radix_sorted": (17, 5000, 15, True, 0.1, 0.2, 4, None),
}


def _configs() -> dict:
    out: dict = {"RetrievalRPrecision": ("RetrievalRPrecision", {})}
    for cls in CLASSES[:-3] + CLASSES[-2:]:
        for k in (None, 1, 3, 10, 100):
            out[f"{cls}@{k}"] = (cls, {"top_k": k})
    for cls in CLASSES:
        for action in ("pos", "skip", "error"):
            out[f"{cls}|{action}"] = (cls, {"empty_target_action": action})
        for agg in ("median", "min", "max"):
            out[f"{cls}|{agg}"] = (cls, {"aggregation": agg, "top_k": 5} if cls != "RetrievalRPrecision" else {})
    out["RetrievalPrecision|adaptive"] = ("RetrievalPrecision", {"top_k": 10, "adaptive_k": True})
    out["RetrievalAUROC|fpr"] = ("RetrievalAUROC", {"max_fpr": 0.3})
    out["RetrievalAUROC|fpr_top"] = ("RetrievalAUROC", {"max_fpr": 0.6, "top_k": 4})
    return out


FUNCTIONS = [
    "retrieval_normalized_dcg",
    "retrieval_average_precision",
    "retrieval_reciprocal_rank",
    "retrieval_precision",
    "retrieval_recall",
    "retrieval_hit_rate",
    "retrieval_r_precision",
    "retrieval_fall_out",
    "retrieval_auroc",
]


def _write_data(tmp: Path) -> dict:
    out = {}
    for name, (seed, nq, ml, ties, zf, pos, updates, ign) in DATASETS.items():
        idx, preds, target = _data(seed, nq, ml, ties=ties, zero_frac=zf, pos=pos)
        if ign is not None:
            target[::4] = ign
        path = tmp / f"{name}.npz"
        np.savez(path, idx=idx, preds=preds, target=target)
        few = name.startswith("many_queries")  # torchmetrics' per-query loop: one config per class there
        out[name] = {
            "path": str(path),
            "updates": updates,
            "few": few,
            **({"ignore_index": ign} if ign is not None else {}),
        }
    return out


def _ours(data: dict, configs: dict) -> dict:
    out: dict = {}
    for name, ds in data.items():
        d = np.load(ds["path"])
        idx, preds, target = d["idx"], d["preds"], d["target"]
        for label, (cls, kw) in configs.items():
            if ds["few"] and not label.endswith("@10"):
                continue
            kw = dict(kw)
            if "ignore_index" in ds:
                kw["ignore_index"] = ds["ignore_index"]
            tgt = target.astype(np.float32) if cls == "RetrievalNormalizedDCG" else target
            try:
                m = getattr(tm, cls)(**kw)
                for part in np.array_split(np.arange(len(idx)), ds["updates"]):
                    m.update(preds[part], tgt[part], idx[part])
                out[name + "/" + label] = float(m.compute())
            except Exception as e:
                out[name + "/" + label] = type(e).__name__
        for fn in FUNCTIONS:
            vals: list = []
            for q in np.unique(idx)[:5]:
                rows = idx == q
                t, pr = target[rows], preds[rows]
                if "ignore_index" in ds:
                    keep = t != ds["ignore_index"]
                    t, pr = t[keep], pr[keep]
                try:
                    vals.append(float(getattr(tm, fn)(pr, t.astype(np.float32) if "dcg" in fn else t)))
                except Exception as e:
                    vals.append(type(e).__name__)
            out[name + "/" + fn] = vals
    return out


def _same(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)


def test_classes_and_functions_match_live_torchmetrics_on_random_inputs_with_edges(tmp_path):
    require_peer("torch")
    data = _write_data(tmp_path)
    configs = _configs()
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"data": data, "configs": configs, "functions": FUNCTIONS}))
    worker = tmp_path / "peer.py"
    worker.write_text(PEER)
    res = tmp_path / "out.json"
    proc = subprocess.run(
        [str(peer_python("torch")), "-P", str(worker), str(spec), str(res)],
        capture_output=True,
        text=True,
        timeout=1200,
        env=peer_env(),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads(res.read_text())
    ours = _ours(data, configs)
    bad = [(k, ours[k], v) for k, v in theirs.items() if not _same(ours[k], v)]
    assert not bad, bad[:20]
    # the edges were reached: raised errors, skipped queries
    assert theirs["all_zero_targets/RetrievalMAP|error"] == "ValueError"
    assert theirs["all_zero_targets/RetrievalMAP|skip"] == 0.0


TENSORS = r"""
import sys, json
import numpy as np, torch
from torchmetrics import retrieval as R
from torchmetrics.functional import retrieval as F
try:
    from rankmeter.compat import torchmetrics as C
except ImportError as e:  # rankmeter's compiled core built for another python than the peer venv's
    print(json.dumps({"skip": str(e)}))
    sys.exit(0)
g = np.random.default_rng(5)
idx = torch.from_numpy(g.integers(0, 50, 3000)).long()
preds = torch.from_numpy(g.choice([0.0, 0.2, 0.5, 0.9, -0.3], 3000)).double()  # float64 preds, tied
target = torch.from_numpy(g.random(3000) < 0.3)  # bool target
out = {}
for cls in ("RetrievalNormalizedDCG", "RetrievalMAP", "RetrievalPrecision", "RetrievalFallOut", "RetrievalAUROC"):
    a, b = getattr(C, cls)(top_k=4), getattr(R, cls)(top_k=4)
    a.update(preds, target, idx)
    b.update(preds, target, idx)
    x, y = a.compute(), b.compute()
    out[cls] = [type(x).__name__, str(x.dtype), float(x), str(y.dtype), float(y)]
x = C.retrieval_reciprocal_rank(preds[:30], target[:30])
out["retrieval_reciprocal_rank"] = [type(x).__name__, str(x.dtype), float(x), "torch.float32",
                                    float(F.retrieval_reciprocal_rank(preds[:30], target[:30]))]
print(json.dumps(out))
"""


def test_torch_tensors_in_give_float32_tensors_out_equal_to_torchmetrics(tmp_path):
    skip_if_sanitized()
    require_peer("torch")
    script = tmp_path / "tensors.py"
    script.write_text(TENSORS)
    proc = subprocess.run(
        [str(peer_python("torch")), "-P", str(script)],
        capture_output=True,
        text=True,
        timeout=600,
        env=peer_env(PYTHONPATH=str(PYTHON_DIR)),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if "skip" in out:
        pytest.skip(f"rankmeter does not import in the torch venv's python: {out['skip']}")
    for name, (typ, dtype, ours, their_dtype, theirs) in out.items():
        assert (typ, dtype) == ("Tensor", "torch.float32") and their_dtype == "torch.float32", name
        assert math.isclose(ours, theirs, rel_tol=1e-5, abs_tol=1e-6), (name, ours, theirs)


def test_torch_is_not_imported_for_numpy_inputs():
    """Run where torch is installed (the peer venv) when it exists, else here."""
    skip_if_sanitized()
    py = peer_python("torch")
    python = str(py) if py.exists() else sys.executable
    code = (
        "import sys, numpy as np\n"
        "from rankmeter.compat import torchmetrics as tm\n"
        "m = tm.RetrievalMAP(); m.update(np.array([.5, .1], np.float32), np.array([1, 0]), np.array([0, 0]))\n"
        "m.compute(); tm.retrieval_auroc(np.array([.5, .1], np.float32), np.array([1, 0]))\n"
        "assert 'torch' not in sys.modules\n"
    )
    env = peer_env(PYTHONPATH=str(PYTHON_DIR))
    proc = subprocess.run([python, "-P", "-c", code], capture_output=True, text=True, env=env, cwd=PYTHON_DIR)
    if "ImportError" in proc.stderr and "_core" in proc.stderr:
        pytest.skip("rankmeter's compiled core does not import in the torch venv's python")
    assert proc.returncode == 0, proc.stderr[-2000:]


# --------------------------------------------------------------------------- AUROC with ties, hypothesis
def _roc_reference(preds: list, target: list, max_fpr) -> float:
    """binary_auroc of one query in plain Python: one ROC point per distinct score (descending), trapezoids up
    to max_fpr (interpolated there), McClish's correction."""
    P = sum(target)
    N = len(target) - P
    if not P or not N:
        return 0.0
    pts = [(0.0, 0.0)]
    tp = fp = 0
    for s in sorted(set(preds), reverse=True):
        tp += sum(t for p, t in zip(preds, target) if p == s)
        fp += sum(1 - t for p, t in zip(preds, target) if p == s)
        pts.append((fp / N, tp / P))
    m = 1.0 if max_fpr is None else max_fpr
    area = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x1 <= m:
            area += (x1 - x0) * (y0 + y1) / 2
        elif x0 <= m:
            yi = y0 + (m - x0) / (x1 - x0) * (y1 - y0)
            area += (m - x0) * (y0 + yi) / 2
    if m == 1.0:
        return area
    lo = m * m / 2
    return 0.5 * (1 + (area - lo) / (m - lo))


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 4), st.sampled_from([0.0, 0.125, 0.25, 0.5, 0.75, 1.0]), st.integers(0, 1)),
        min_size=1,
        max_size=40,
    ),
    max_fpr=st.sampled_from([None, 0.1, 0.25, 0.5, 0.9, 1.0]),
)
def test_auroc_with_tied_scores_matches_a_plain_python_roc(rows, max_fpr):
    idx = np.array([q for q, _p, _t in rows], dtype=np.int64)
    preds = np.array([p for _q, p, _t in rows], dtype=np.float32)
    target = np.array([t for _q, _p, t in rows], dtype=np.int64)
    seen: list = []

    def catch(v, dim=None):
        seen.append(np.asarray(v, np.float64))
        return v.mean()

    m = tm.RetrievalAUROC(max_fpr=max_fpr, aggregation=catch, empty_target_action="skip")
    m.update(preds, target, idx)
    m.compute()
    want = []
    for q in np.unique(idx):
        sel = idx == q
        if target[sel].sum():
            want.append(_roc_reference(preds[sel].tolist(), target[sel].tolist(), max_fpr))
    np.testing.assert_allclose(seen[0] if seen else [], want, rtol=1e-6, atol=1e-7)  # values given as float32
