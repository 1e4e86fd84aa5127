"""pytest-benchmark suite of mergeable states on W1: merging two halves with catalog metrics.

Each benchmark checks that the merged state gives the one-call values.
"""

import numpy as np
import pytest

import rankmeter as rm

METRICS = ["ndcg@10", "coverage@10", "gini@10", "personalization@10", "personalization(similarity=cosine)@10"]


def _half(w, lo, hi, train):
    ip = w.recs_indptr[lo : hi + 1] - w.recs_indptr[lo]
    tip = w.truth_indptr[lo : hi + 1] - w.truth_indptr[lo]
    users = np.arange(lo, hi, dtype=np.int64)
    truth = rm.Truth.from_csr(
        tip,
        w.truth_items[w.truth_indptr[lo] : w.truth_indptr[hi]],
        w.truth_grades[w.truth_indptr[lo] : w.truth_indptr[hi]],
        users=users,
    )
    recs = rm.Recs.from_csr(ip, w.recs_items[w.recs_indptr[lo] : w.recs_indptr[hi]], users=users)
    return rm.partial(truth, recs, METRICS, train=train)


@pytest.mark.benchmark(group="state")
def test_merge_halves(benchmark, w1):
    train = (w1.truth_indptr, w1.truth_items)
    n = w1.n_users
    a, b = _half(w1, 0, n // 2, train), _half(w1, n // 2, n, train)
    merged = benchmark(a.merge, b)
    one = rm.evaluate(w1.truth, w1.recs, METRICS, train=train)
    fin = merged.finalize()
    for m in METRICS:
        assert fin[m] == one[m]


@pytest.mark.benchmark(group="state")
def test_bytes_round_trip(benchmark, w1):
    st = rm.partial(w1.truth, w1.recs, METRICS, train=(w1.truth_indptr, w1.truth_items))
    back = benchmark(lambda: rm.State.from_bytes(st.to_bytes()))
    assert back.finalize() == st.finalize()
