"""compat.ranx.optimize_fusion and fuse against the live ranx (its venv, in a subprocess): the same best
parameters and the same report of tried configurations. Skipped without the venv (a failure in CI)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import numpy as np
import pytest

from rankmeter.compat import ranx as cr
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import peer_env

SCRIPT = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from ranx import Qrels, Run, optimize_fusion
data = json.load(open(sys.argv[1]))
out = []
for spec in data["specs"]:
    runs = [Run(r) for r in data["runs"]]
    best, report = optimize_fusion(Qrels(data["qrels"]), runs, norm=spec["norm"], method=spec["method"],
                                   metric=spec["metric"], return_optimization_report=True, show_progress=False,
                                   **spec["kw"])
    best = {k: list(v) if isinstance(v, tuple) else v for k, v in best.items()}
    out.append({"best": best, "configs": list(report.configs), "results": [float(x) for x in report.results]})
json.dump(out, open(sys.argv[2], "w"))
"""

SPECS: list[dict[str, Any]] = [
    {"method": "wsum", "norm": "min-max", "metric": "ndcg", "kw": {"step": 0.25}},
    {"method": "wsum", "norm": "zmuv", "metric": "map@5", "kw": {"step": 0.5}},
    {"method": "wmnz", "norm": "max", "metric": "mrr", "kw": {"step": 0.25}},
    {"method": "mixed", "norm": "sum", "metric": "recall@3", "kw": {"step": 0.5}},
    # not w_bordafuse: its fused run lists each run's unranked documents in a Python set's order, which orders
    # equal fused scores (docs/fusion.md)
    {"method": "wsum", "norm": "rank", "metric": "precision@2", "kw": {"step": 0.5}},
    {"method": "rrf", "norm": None, "metric": "ndcg@5", "kw": {}},
    {"method": "rbc", "norm": None, "metric": "ndcg", "kw": {"step": 0.1, "min_phi": 0.1, "max_phi": 0.9}},
    {"method": "gmnz", "norm": "min-max", "metric": "map", "kw": {"step": 0.25, "min_gamma": 0.25}},
    {"method": "logn_isr", "norm": None, "metric": "hit_rate@2", "kw": {"step": 0.2, "min_sigma": 0.2}},
]


def _data():
    rng = np.random.default_rng(3)
    qs = [f"q{i}" for i in range(12)]
    runs = []
    for _ in range(3):
        runs.append(
            {
                q: {f"d{d:02d}": float(rng.integers(0, 4)) for d in rng.choice(30, int(rng.integers(1, 12)), False)}
                for q in qs
            }
        )
    qrels = {q: {f"d{d:02d}": int(rng.integers(1, 3)) for d in rng.choice(30, 4, replace=False)} for q in qs}
    return runs, qrels


def test_optimize_fusion_gives_ranx_best_parameters_and_report(tmp_path):
    py = peer_python("ranx")
    runs, qrels = _data()
    (tmp_path / "in.json").write_text(json.dumps({"runs": runs, "qrels": qrels, "specs": SPECS}))
    (tmp_path / "w.py").write_text(SCRIPT)
    subprocess.run(
        [str(py), "-P", str(tmp_path / "w.py"), str(tmp_path / "in.json"), str(tmp_path / "out.json")],
        check=True,
        capture_output=True,
        env=peer_env(),
        timeout=900,
    )
    want = json.loads((tmp_path / "out.json").read_text())
    for spec, w in zip(SPECS, want):
        best, report = cr.optimize_fusion(
            cr.Qrels(qrels),
            [cr.Run(r) for r in runs],
            norm=spec["norm"],
            method=spec["method"],
            metric=spec["metric"],
            return_optimization_report=True,
            **spec["kw"],
        )
        assert report.configs == w["configs"], spec
        np.testing.assert_allclose(report.results, w["results"], rtol=1e-9, atol=1e-12, err_msg=str(spec))
        got = {k: list(v) if isinstance(v, tuple) else v for k, v in best.items()}
        assert got == w["best"], spec


def test_fuse_asserts_as_ranx_when_runs_list_different_queries():
    with pytest.raises(AssertionError, match="query ids do not match"):
        cr.fuse([cr.Run({"q1": {"a": 1.0}}), cr.Run({"q2": {"a": 1.0}})])
    with pytest.raises(AssertionError, match="Only one run"):
        cr.fuse([cr.Run({"q1": {"a": 1.0}})])
