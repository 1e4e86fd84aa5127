"""Concurrency (issue 6): evaluate from many Python threads at once.

The C++ pass releases the GIL and keeps all its scratch per call, so calls
from 8 Python threads at once, on different inputs and on one shared input,
must return exactly what serial calls return (per-user values bit for bit,
means, meta, states). The wall-time figure of the GIL release is measured in
bench/gil_release.py, never asserted here.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import rankmeter as rm
from tests.support.same import assert_same_result

METRICS = [
    "precision@10",
    "recall@10",
    "ndcg@10",
    "ap@100",
    "rr",
    "arhr@5",
    "ndcg(gain=exponential,ideal=all)",
    "fbeta(beta=0.5)@3",
    "hits",
    "r_precision",
]


def _workloads():
    out = []
    for seed in range(8):
        w = rm.datasets.w1(3000 + 500 * seed, n_items=2000, seed=seed)
        out.append(w)
    return out


@pytest.fixture(scope="module")
def workloads():
    return _workloads()


def _call(w, threads, form):
    if form == "csr":
        return rm.evaluate(w.truth, w.recs, METRICS, threads=threads)
    # a Python-object form: the conversion holds the GIL, the pass releases it
    n = min(w.n_users, 400)
    h = w.head(n)
    truth = {
        u: dict(
            zip(
                h.truth_items[h.truth_indptr[u] : h.truth_indptr[u + 1]].tolist(),
                h.truth_grades[h.truth_indptr[u] : h.truth_indptr[u + 1]].tolist(),
            )
        )
        for u in range(n)
    }
    recs = {u: h.recs_items[h.recs_indptr[u] : h.recs_indptr[u + 1]].tolist() for u in range(n)}
    return rm.evaluate(truth, recs, METRICS, threads=threads)


@pytest.mark.parametrize("form", ["csr", "dict"])
def test_eight_threads_on_different_inputs_match_serial(workloads, form):
    jobs = [(w, 1 + i % 3) for i, w in enumerate(workloads)]
    serial = [_call(w, t, form) for w, t in jobs]
    start = threading.Barrier(8)

    def run(job):
        start.wait()  # all eight enter evaluate together
        w, threads = job
        return _call(w, threads, form)

    for _ in range(3):
        with ThreadPoolExecutor(max_workers=8) as ex:
            got = list(ex.map(run, jobs))
        for a, b in zip(got, serial):
            assert_same_result(a, b, state=True)


def test_eight_threads_on_one_shared_input_match_serial(workloads):
    w = workloads[3]
    truth, recs = w.truth, w.recs
    expected = rm.evaluate(truth, recs, METRICS, threads=1)
    snapshot = [a.copy() for a in (w.truth_indptr, w.truth_items, w.truth_grades, w.recs_indptr, w.recs_items)]
    start = threading.Barrier(8)

    def run(i):
        start.wait()
        return rm.evaluate(truth, recs, METRICS, threads=1 + i % 4)

    with ThreadPoolExecutor(max_workers=8) as ex:
        got = list(ex.map(run, range(8)))
    for g in got:
        assert_same_result(g, expected, state=True)
    for a, b in zip(snapshot, (w.truth_indptr, w.truth_items, w.truth_grades, w.recs_indptr, w.recs_items)):
        assert np.array_equal(a, b)


def test_concurrent_partials_merge_to_the_one_call_state(workloads):
    w = workloads[5]
    n = w.n_users
    cuts = [0, n // 5, n // 2, (3 * n) // 4, n]
    parts = [w.head(n)]  # whole, for the expected state
    expected = rm.partial(parts[0].truth, parts[0].recs, METRICS)

    def batch(i):
        lo, hi = cuts[i], cuts[i + 1]
        t_ip = w.truth_indptr[lo : hi + 1] - w.truth_indptr[lo]
        r_ip = w.recs_indptr[lo : hi + 1] - w.recs_indptr[lo]
        users = np.arange(lo, hi)
        truth = rm.Truth.from_csr(
            t_ip,
            w.truth_items[w.truth_indptr[lo] : w.truth_indptr[hi]],
            w.truth_grades[w.truth_indptr[lo] : w.truth_indptr[hi]],
            users=users,
        )
        recs = rm.Recs.from_csr(r_ip, w.recs_items[w.recs_indptr[lo] : w.recs_indptr[hi]], users=users)
        return rm.partial(truth, recs, METRICS, threads=2)

    with ThreadPoolExecutor(max_workers=4) as ex:
        states = list(ex.map(batch, range(4)))
    merged = rm.State.merge_all(states)
    assert merged.sums == expected.sums and merged.counts == expected.counts
    assert merged.finalize() == expected.finalize()


def test_errors_in_threads_stay_in_their_call(workloads):
    """A bad call in one thread raises there and leaves the others' results intact."""
    good = workloads[0]
    expected = rm.evaluate(good.truth, good.recs, METRICS)

    def run(i):
        if i % 2:
            with pytest.raises(ValueError, match="more than once"):
                rm.evaluate({1: [5, 5]}, {1: [5]}, ["ndcg@3"])
            return None
        return rm.evaluate(good.truth, good.recs, METRICS)

    with ThreadPoolExecutor(max_workers=8) as ex:
        got = [g for g in ex.map(run, range(8)) if g is not None]
    assert len(got) == 4
    for g in got:
        assert_same_result(g, expected, state=True)
