"""pytest-benchmark suite of the fused accuracy pass (run: python -m pytest bench --benchmark-enable).

Every benchmark asserts its answer against an independent numpy computation,
so a fast wrong kernel fails here too.
"""

import numpy as np
import pytest

import rankmeter as rm

ACCURACY_20 = [
    f"{m}@{k}"
    for k in (10, 100)
    for m in ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
]


def _numpy_precision_at(w, k: int) -> np.ndarray:
    """precision@k per user with plain numpy (lists are 100 long, truth is CSR)."""
    n = w.n_users
    recs = w.recs_items.reshape(n, -1)[:, :k]
    t_user = np.repeat(np.arange(n), np.diff(w.truth_indptr))
    truth_keys = np.sort(t_user * (w.n_items + 1) + w.truth_items)
    keys = (np.arange(n)[:, None] * (w.n_items + 1) + recs).ravel()
    pos = np.minimum(np.searchsorted(truth_keys, keys), truth_keys.size - 1)
    hit = (truth_keys[pos] == keys).reshape(n, k)
    return hit.sum(axis=1) / k


@pytest.mark.benchmark(group="accuracy-fused-20")
def test_fused_20_columns(benchmark, w1):
    truth, recs = w1.truth, w1.recs
    res = benchmark(rm.evaluate, truth, recs, ACCURACY_20)
    np.testing.assert_array_equal(res.per_user["precision@10"], _numpy_precision_at(w1, 10))
    assert res.meta["n_users"] == w1.n_users


@pytest.mark.benchmark(group="accuracy-single")
@pytest.mark.parametrize("metric", ["precision@10", "ndcg@10", "map@100"])
def test_single_metric(benchmark, w1, metric):
    res = benchmark(rm.evaluate, w1.truth, w1.recs, [metric])
    assert 0.0 < res[metric] < 1.0


@pytest.mark.benchmark(group="accuracy-ir-columns")
def test_ir_columns_ride_the_fused_pass(benchmark, w1):
    """bpref, rbp, err and judged add columns to the same pass as precision@10."""
    metrics = ["precision@10", "bpref", "rbp", "err@10", "judged@10"]
    res = benchmark(rm.evaluate, w1.truth, w1.recs, metrics)
    np.testing.assert_array_equal(res.per_user["precision@10"], _numpy_precision_at(w1, 10))
    # every truth row of W1 is relevant: the judged share of the top 10 is precision@10
    np.testing.assert_allclose(res.per_user["judged@10"], _numpy_precision_at(w1, 10), rtol=0, atol=1e-15)
    assert 0.0 < res["rbp"] < 1.0 and 0.0 < res["err@10"] < 1.0 and 0.0 < res["bpref"] <= 1.0


@pytest.mark.benchmark(group="accuracy-cwl-columns")
def test_cwl_columns_ride_the_fused_pass(benchmark, w1):
    """C/W/L metrics (cwl-eval's, docs/metrics.md 3.21) as walk columns of the pass: each walks the 1000
    positions cwl-eval pads every ranking to, whatever the list length."""
    metrics = ["precision@10", "cwl_p@10", "sdcg@10", "inst", "cwl_rbp(p=0.8)", "inst(quantity=res_eu)"]
    res = benchmark(rm.evaluate, w1.truth, w1.recs, metrics)
    # every truth row of W1 has grade 1: cwl-eval's P@10 EU is precision@10
    np.testing.assert_allclose(res.per_user["cwl_p@10"], res.per_user["precision@10"], rtol=1e-12, atol=0)


@pytest.mark.benchmark(group="read-pass-floor")
def test_read_pass_floor(benchmark, w1):
    """The memory floor: one np.add.reduce over every input buffer."""
    arrays = (w1.truth_indptr, w1.truth_items, w1.truth_grades, w1.recs_indptr, w1.recs_items)
    total = benchmark(lambda: [np.add.reduce(a) for a in arrays])
    assert total[4] == w1.recs_items.sum()


@pytest.mark.benchmark(group="threads")
@pytest.mark.parametrize("threads", [1, 2])
def test_threads(benchmark, w1, threads):
    res = benchmark(rm.evaluate, w1.truth, w1.recs, ACCURACY_20, threads=threads)
    one = rm.evaluate(w1.truth, w1.recs, ["ndcg@10"], threads=1)
    assert res["ndcg@10"] == one["ndcg@10"]
