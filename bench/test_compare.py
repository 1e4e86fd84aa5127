"""pytest-benchmark entry of rankmeter.compare (docs/compare.md); the answer is asserted."""

import numpy as np
import pytest

import rankmeter as rm
from compare_runs import METRICS, make_runs
from conftest import workload


@pytest.mark.benchmark(group="compare-randomization")
def test_compare_randomization(benchmark):
    w = workload(10_000)
    items = make_runs(w, 3)
    truth = w.truth
    runs = {f"run{i}": rm.Recs.from_array(r) for i, r in enumerate(items)}
    runs["copy"] = rm.Recs.from_array(items[0])
    cmp = benchmark(rm.compare, truth, runs, METRICS, n_resamples=500)
    by = {(r["run"], r["baseline"], r["metric"]): r for r in cmp.rows}
    # an identical run: the statistic is 0 in every resample -> p = 1
    assert all(by[("copy", "run0", m)]["p_value"] == 1.0 for m in METRICS)
    # run2 rotates the top 20 of 20% of the users: clearly worse on ndcg@10
    assert by[("run2", "run0", "ndcg@10")]["diff"] < 0 and by[("run2", "run0", "ndcg@10")]["significant"]
    one = rm.compare(truth, runs, METRICS, n_resamples=500, threads=1)
    assert [r["p_value"] for r in one.rows] == [r["p_value"] for r in cmp.rows]
    assert np.isfinite([r["ci_low"] for r in cmp.rows]).all()
