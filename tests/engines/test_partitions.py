"""The engine-neutral task of rankmeter.spark / rankmeter.dask (issue 15, speed follow-up): a task's Arrow
batches evaluated in chunks (list form) as they arrive, merged exactly; no engine needed, only pyarrow."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from tests.support.engines import lists_table, random_lists
from tests.support.same import assert_same_means

pa = pytest.importorskip("pyarrow")

from rankmeter import _partitions as P  # noqa: E402

METRICS = [
    "ndcg@10",
    "precision@5",
    "recall@3",
    "map",
    "mrr@10",
    "hit_rate@5",
    "ndcg(gain=exponential)@3",
    "coverage@10",
    "gini@10",
    "personalization@5",
]


def _batches(truth, recs, sizes, str_ids=False):
    """The rows (user, recs list, truth map) cut into record batches of the given sizes (0 = an empty batch)."""
    tbl = lists_table(truth, recs, str_ids)
    out, at = [], 0
    for s in sizes:
        part = tbl.slice(at, s).combine_chunks()
        out.append(part.to_batches()[0] if s else pa.RecordBatch.from_pylist([], schema=tbl.schema))
        at += s
    assert at == tbl.num_rows
    return out


def _plan(metrics, catalog, chunk_bytes):
    return P.Plan(
        "lists",
        P.check_metrics(metrics),
        "user_id",
        "recs",
        "truth",
        None,
        options=P.check_options({}),
        context=dict(catalog=catalog),
        chunk_bytes=chunk_bytes,
    )


@pytest.mark.parametrize("str_ids", [False, True])
@pytest.mark.parametrize("chunk_bytes", [1, 2_000, 1 << 30])
def test_stream_state_is_the_state_of_the_whole_partition(chunk_bytes, str_ids):
    truth, recs, catalog = random_lists(chunk_bytes % 97, 230, str_ids=str_ids)
    ref = rm.evaluate(truth, recs, METRICS, catalog=catalog)
    sizes = [0, 7, 1, 0, 50, 3, 100, 0, 69]  # empty batches anywhere, one-row batches
    plan = _plan(METRICS, catalog, chunk_bytes)
    n_chunks = sum(1 for _ in P.chunks(_batches(truth, recs, sizes, str_ids), plan))
    assert n_chunks == (6 if chunk_bytes == 1 else 1 if chunk_bytes == 1 << 30 else n_chunks)
    if chunk_bytes == 2_000:
        assert 1 < n_chunks < 6
    st = P.stream_state(iter(_batches(truth, recs, sizes, str_ids)), plan)
    assert st == ref.state
    assert_same_means(st.finalize(), ref, METRICS, meta=None)


def test_stream_state_of_no_rows_is_none():
    truth, recs, catalog = random_lists(1, 3)
    plan = _plan(METRICS, catalog, 1)
    assert P.stream_state(iter([]), plan) is None
    assert P.stream_state(iter(_batches(truth, recs, [0, 0, 3])[:2]), plan) is None


def test_stream_state_user_in_two_chunks_raises_naming_it():
    truth, recs, catalog = random_lists(2, 20)
    b = _batches(truth, recs, [10, 10])
    again = b[0].slice(3, 1)  # the 4th user a second time, in a later chunk
    with pytest.raises(ValueError, match=f"user {list(truth)[3]} is in more than one"):
        P.stream_state(iter([b[0], b[1], again]), _plan(METRICS, catalog, 1))
    # in one chunk: the list form's own check
    with pytest.raises(ValueError, match="more than once"):
        P.stream_state(iter([b[0], b[1], again]), _plan(METRICS, catalog, 1 << 30))


def test_stream_state_error_in_a_chunk_reaches_the_caller():
    truth, recs, catalog = random_lists(3, 30)
    good = _batches(truth, recs, [15, 15])
    bad = pa.RecordBatch.from_pydict(
        {"user_id": [99], "recs": [[1, None]], "truth": [[(1, 1.0)]]}, schema=good[0].schema
    )
    with pytest.raises(ValueError, match="user 99 holds a null item"):
        P.stream_state(iter([good[0], bad, good[1]]), _plan(METRICS, catalog, 1))


def test_long_form_is_one_chunk_whatever_the_size():
    t = pa.table(
        {
            P.COL_SIDE: pa.array([0, 1, 0], pa.int8()),
            P.COL_USER: [1, 1, 2],
            P.COL_ITEM: [5, 5, 6],
            P.COL_POS: [1.0, None, 1.0],
            P.COL_REL: [None, 1.0, None],
        }
    )
    plan = P.Plan("long", ["ndcg@3"], "user_id", options=P.check_options({}), chunk_bytes=1)
    got = list(P.chunks(iter(t.to_batches(max_chunksize=1)), plan))
    assert len(got) == 1 and got[0].num_rows == 3


def test_stream_per_user_in_chunks_equals_evaluate():
    truth, recs, catalog = random_lists(4, 120)
    ms = ["ndcg@10", "map@5", "recall@3"]
    ref = rm.evaluate(truth, recs, ms)
    plan = _plan(ms, catalog, 1)
    out = pa.Table.from_batches(list(P.stream_per_user(iter(_batches(truth, recs, [40, 0, 80])), plan, ms)))
    assert out.column("user_id").to_pylist() == list(truth)
    for m in ms:
        np.testing.assert_array_equal(out.column(m).to_numpy(), np.asarray(ref.per_user[m], dtype=np.float64))


def test_plan_takes_the_chunk_size_when_built():
    plan = P.Plan("lists", ["ndcg@3"], "user_id")
    assert plan.chunk_bytes == P.CHUNK_BYTES
