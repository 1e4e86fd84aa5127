"""rankmeter.compat.ranx against the live ranx on the cases where the two used to differ: bpref over many
queries (ranx's parallel kernel), queries paired by position, what ``save_results_in_run`` leaves in the
``Run``. The ranx venv runs the same data in a subprocess; skipped without it (a failure in CI)."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from rankmeter.compat import ranx as compat
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import peer_env

SCRIPT = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import ranx
d = json.load(open(sys.argv[1]))
out = {}
q, r = d["qrels"], d["run"]
out["bpref"] = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), ["bpref", "bpref-l2"], return_mean=False)
out["bpref"] = {m: [None if np.isnan(x) else float(x) for x in v] for m, v in out["bpref"].items()}
out["dicts"] = {m: v.tolist() for m, v in ranx.evaluate(q, d["run_reordered"], ["ndcg@10", "precision@5"],
                                                       return_mean=False).items()}
out["mixed"] = ranx.evaluate(q, ranx.Run(r), ["ndcg@10", "map"], return_mean=False)
out["mixed"] = {m: v.tolist() for m, v in out["mixed"].items()}
run = ranx.Run(r)
ranx.evaluate(ranx.Qrels(q), run, ["ndcg@10", "mrr", "bpref"], return_std=True)
out["saved"] = {"scores": {m: {k: (None if np.isnan(x) else float(x)) for k, x in s.items()}
                           for m, s in run.scores.items()},
                "mean": {m: (None if np.isnan(x) else float(x)) for m, x in run.mean_scores.items()},
                "std": {m: (None if np.isnan(x) else float(x)) for m, x in run.std_scores.items()}}
json.dump(out, open(sys.argv[2], "w"))
"""


def _data(seed: int = 0):
    """Runs of a few hundred documents per query; some queries without a relevant document (grades 0 only) and
    some without a judged non-relevant one: the cases of ranx's bpref kernel."""
    g = np.random.default_rng(seed)
    qrels, run = {}, {}
    for qi in range(45):
        q = f"q{qi:02d}"
        docs = g.choice(3000, 300, replace=False)
        judged = g.choice(docs, 40, replace=False)
        grades = g.integers(0, 3, judged.size)
        if qi % 7 == 3:
            grades[:] = 0  # no relevant document
        if qi % 11 == 5:
            grades[:] = np.maximum(grades, 1)  # no judged non-relevant document
        qrels[q] = {f"d{d}": int(x) for d, x in zip(judged, grades)}
        run[q] = {f"d{d}": float(s) for d, s in zip(docs, g.random(docs.size))}
    keys = list(run)
    g.shuffle(keys)
    return qrels, run, {k: run[k] for k in keys}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    py = peer_python("ranx")
    qrels, run, reordered = _data()
    tmp = tmp_path_factory.mktemp("ranx_compat")
    (tmp / "in.json").write_text(json.dumps({"qrels": qrels, "run": run, "run_reordered": reordered}))
    (tmp / "w.py").write_text(SCRIPT)
    p = subprocess.run(
        [str(py), str(tmp / "w.py"), str(tmp / "in.json"), str(tmp / "out.json")],
        capture_output=True,
        text=True,
        env=peer_env(),
        timeout=900,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return qrels, run, reordered, json.loads((tmp / "out.json").read_text())


def _same(got, want):
    got = np.asarray(got, dtype=float)
    want = np.array([np.nan if w is None else w for w in want], dtype=float)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, equal_nan=True)


def test_bpref_over_many_queries_is_ranx_parallel_kernel(live):
    qrels, run, _, want = live
    compat._NUMBA_THREADS[0] = None  # a fresh process, as the subprocess
    got = compat.evaluate(compat.Qrels(qrels), compat.Run(run), ["bpref", "bpref-l2"], return_mean=False)
    for m in ("bpref", "bpref-l2"):
        _same(got[m], want["bpref"][m])
    # the kernel's stops are in there: a query without relevant documents zeroes later queries of its share
    assert sum(1 for v in want["bpref"]["bpref"] if v == 0.0) > 45 // 7 + 1


def test_plain_dicts_are_paired_by_position_as_ranx_does(live):
    qrels, _, reordered, want = live
    got = compat.evaluate(qrels, reordered, ["ndcg@10", "precision@5"], return_mean=False)
    for m in ("ndcg@10", "precision@5"):
        _same(got[m], want["dicts"][m])


def test_dict_qrels_beside_a_run_are_paired_by_position_as_ranx_does(live):
    qrels, run, _, want = live
    got = compat.evaluate(qrels, compat.Run(run), ["ndcg@10", "map"], return_mean=False)
    for m in ("ndcg@10", "map"):
        _same(got[m], want["mixed"][m])


def test_save_results_in_run_fills_scores_means_and_stds_as_ranx(live):
    qrels, run, _, want = live
    compat._NUMBA_THREADS[0] = None
    r = compat.Run(run)
    compat.evaluate(compat.Qrels(qrels), r, ["ndcg@10", "mrr", "bpref"], return_std=True)
    for m in ("ndcg@10", "mrr", "bpref"):
        assert list(r.scores[m]) == list(want["saved"]["scores"][m])
        _same(list(r.scores[m].values()), list(want["saved"]["scores"][m].values()))
        _same([r.mean_scores[m]], [want["saved"]["mean"][m]])
        _same([r.std_scores[m]], [want["saved"]["std"][m]])
