"""The "ranx" preset and compare() against the real ranx (issue 13).

ranx lives in a virtual environment of its own (bench/peers/setup.sh ranx);
this test runs that environment's Python as a subprocess and exchanges the
data as JSON files. Skipped when the environment is missing, except in CI
(CI=true), where .ci/run builds it and a missing ranx is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import rankmeter as rm
from tests.support.peers import peer_env

RANX_PY = (
    Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers")) / "ranx" / "bin" / "python"
)
METRICS = ["precision@5", "recall@10", "map@10", "ndcg@10", "mrr@10", "hit_rate@5", "ndcg@3", "map@100"]

WORKER = r"""
import json, sys
import ranx
data = json.load(open(sys.argv[1]))
qrels = ranx.Qrels(data["qrels"])
runs = [ranx.Run(r, name=name) for name, r in data["runs"].items()]
means = {}
for run in runs:
    res = ranx.evaluate(qrels, run, data["metrics"], make_comparable=True)
    means[run.name] = {m: float(v) for m, v in (res.items() if isinstance(res, dict) else [(data["metrics"][0], res)])}
report = ranx.compare(qrels, runs, data["compare_metrics"], stat_test="fisher", n_permutations=data["n_perm"],
                      max_p=0.05, random_seed=42, make_comparable=True)
p = {}
names = [r.name for r in runs]
for i, a in enumerate(names):
    for b in names[i + 1:]:
        for m in data["compare_metrics"]:
            p[f"{a}|{b}|{m}"] = float(report.comparisons[a, b][m]["p_value"])
json.dump({"means": means, "p": p}, open(sys.argv[2], "w"))
"""


def _data(seed=0, n_users=250, n_items=60):
    g = np.random.default_rng(seed)
    qrels, runs = {}, {}
    for u in range(n_users):
        items = g.choice(n_items, int(g.integers(1, 8)), replace=False)
        grades = g.integers(0, 4, items.size)  # grade 0: judged non-relevant; some users have none relevant
        qrels[f"q{u}"] = {f"d{i}": int(x) for i, x in zip(items, grades)}
    quality = {"weak": 0.05, "mid": 0.25, "mid2": 0.27, "strong": 0.6}
    for name, q in quality.items():
        run = {}
        for u in range(n_users):
            if u % 17 == 3:
                continue  # truth user without recs
            rel = [d for d, x in qrels[f"q{u}"].items() if x > 0]
            length = int(g.integers(1, 15))  # short lists, k beyond the list
            pool = [f"d{i}" for i in g.permutation(n_items)]
            lst = []
            for d in rel:
                if g.random() < q:
                    lst.append(d)
            lst += [d for d in pool if d not in lst]
            lst = lst[:length]
            g.shuffle(lst[: max(1, length // 3)])
            # distinct scores, best first (ranx sorts equal scores unstably)
            run[f"q{u}"] = {d: float(100 - j) + 0.001 * g.random() for j, d in enumerate(lst)}
        runs[name] = run
    return qrels, runs


@pytest.fixture(scope="module")
def ranx_out(tmp_path_factory):
    if not RANX_PY.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"ranx is missing at {RANX_PY}: .ci/run must build it (bash bench/peers/setup.sh --reuse ranx)")
        pytest.skip(f"ranx not installed at {RANX_PY} (bash bench/peers/setup.sh ranx)")
    tmp = tmp_path_factory.mktemp("ranx")
    qrels, runs = _data()
    inp, out, script = tmp / "in.json", tmp / "out.json", tmp / "worker.py"
    inp.write_text(
        json.dumps(
            {
                "qrels": qrels,
                "runs": runs,
                "metrics": METRICS,
                "compare_metrics": ["ndcg@10", "precision@5", "mrr@10"],
                "n_perm": 4000,
            }
        )
    )
    script.write_text(WORKER)
    env = peer_env(PYTHONWARNINGS="ignore")
    p = subprocess.run(
        [str(RANX_PY), str(script), str(inp), str(out)], capture_output=True, text=True, timeout=900, env=env
    )
    assert p.returncode == 0, p.stderr[-2000:]
    return qrels, runs, json.loads(out.read_text())


def test_preset_ranx_means_equal_ranx(ranx_out):
    qrels, runs, out = ranx_out
    for name, run in runs.items():
        res = rm.evaluate(qrels, run, METRICS, preset="ranx")
        for m in METRICS:
            assert res[m] == pytest.approx(out["means"][name][m], abs=1e-12), (name, m)


def test_default_conventions_differ_from_ranx_where_documented(ranx_out):
    # without the preset, users with no relevant item are skipped (not 0): the means differ
    qrels, runs, out = ranx_out
    res = rm.evaluate(qrels, runs["mid"], ["ndcg@10"])
    assert res.meta["n_skipped"] > 0
    assert res["ndcg@10"] != pytest.approx(out["means"]["mid"]["ndcg@10"], abs=1e-9)


def test_randomization_conclusions_agree_with_ranx_fisher(ranx_out):
    qrels, runs, out = ranx_out
    alpha = 0.05
    cmp = rm.compare(
        qrels,
        runs,
        ["ndcg@10", "precision@5", "mrr@10"],
        preset="ranx",
        correction="none",
        alpha=alpha,
        n_resamples=10_000,
    )
    clear_below = clear_above = 0
    for row in cmp.rows:
        key = f"{row['baseline']}|{row['run']}|{row['metric']}"  # ranx keys: earlier run first
        p_ranx = out["p"][key]
        if p_ranx < alpha / 5:  # clearly significant for ranx
            clear_below += 1
            assert row["significant"], (key, p_ranx, row["p_value"])
        elif p_ranx > alpha * 4:  # clearly not significant for ranx
            clear_above += 1
            assert not row["significant"], (key, p_ranx, row["p_value"])
    assert clear_below >= 3 and clear_above >= 1, (clear_below, clear_above)
