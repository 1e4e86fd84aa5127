"""user_groups= through rankmeter.dask and rankmeter.spark (docs/fairness.md): every partition keeps one exact state per group,
and the merged groups equal rm.evaluate(...).by_group() bit for bit for any partitioning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankmeter as rm
from tests.support.engines import lists_table, local_spark, need, need_spark, random_lists
from tests.support.same import same_bits

METRICS = ["ndcg@10", "precision@5", "recall@3", "map", "mrr@10"]


# Dask and Spark (a JVM) are left out of the sanitizer run, as tests/engines/test_dask.py and test_spark.py are
pytestmark = pytest.mark.engines


@pytest.mark.parametrize("partitions", [1, 3, 7])
@pytest.mark.parametrize("str_ids", [False, True])
def test_dask_group_means_equal_evaluate_by_group_bit_for_bit(partitions, str_ids):
    dd = need("dask.dataframe", "pip install 'dask[dataframe]'")
    import rankmeter.dask as rdk

    truth, recs, _ = random_lists(partitions, str_ids=str_ids)
    users = sorted(set(truth) | set(recs))
    groups = {u: ("x", "y", "z")[i % 3] for i, u in enumerate(users)}
    want = rm.evaluate(truth, recs, METRICS, user_groups=groups).by_group()
    frame = lists_table(truth, recs, str_ids).to_pandas(types_mapper=pd.ArrowDtype)
    st = rdk.evaluate(dd.from_pandas(frame, npartitions=partitions), METRICS, user_groups=groups, state=True)
    assert isinstance(st, rm.GroupedState)
    got = st.by_group()
    assert list(got.index) == list(want.index)
    for col in want.columns:
        assert same_bits(got[col].to_numpy(), want[col].to_numpy()), col


def test_dask_refuses_a_truth_column_as_groups():
    dd = need("dask.dataframe", "pip install 'dask[dataframe]'")
    import rankmeter.dask as rdk

    truth, recs, _ = random_lists(1)
    frame = lists_table(truth, recs, False).to_pandas(types_mapper=pd.ArrowDtype)
    with pytest.raises(TypeError, match="names a truth column"):
        rdk.evaluate(dd.from_pandas(frame, npartitions=2), METRICS, user_groups="country")


@pytest.mark.parametrize("partitions", [1, 4])
def test_spark_group_means_equal_evaluate_by_group_bit_for_bit(partitions):
    need_spark()
    import rankmeter.spark as rsp

    spark = local_spark("rankmeter-groups", 4)
    truth, recs, _ = random_lists(10 + partitions)
    groups = {u: ("x", "y", "z")[i % 3] for i, u in enumerate(sorted(truth))}
    want = rm.evaluate(truth, recs, METRICS, user_groups=groups).by_group()
    rows = [(u, recs[u], {i: float(g) for i, g in truth[u].items()}) for u in truth]
    df = spark.createDataFrame(rows, "user_id long, recs array<long>, truth map<long, double>").repartition(partitions)
    st = rsp.evaluate(df, METRICS, user_groups=groups, state=True)
    assert isinstance(st, rm.GroupedState)
    got = st.by_group()
    assert list(got.index) == list(want.index)
    for col in want.columns:
        assert same_bits(got[col].to_numpy(), want[col].to_numpy()), col


@pytest.mark.parametrize("labels", [("x", "y", "z"), (3, 1, 2)])
def test_spark_per_user_gives_each_users_group_beside_the_same_values(labels):
    need_spark()
    import rankmeter.spark as rsp

    spark = local_spark("rankmeter-groups", 4)
    truth, recs, _ = random_lists(11)
    groups = {u: labels[i % 3] for i, u in enumerate(sorted(truth))}
    want = rm.evaluate(truth, recs, METRICS)
    rows = [(u, recs[u], {i: float(g) for i, g in truth[u].items()}) for u in truth]
    df = spark.createDataFrame(rows, "user_id long, recs array<long>, truth map<long, double>").repartition(3)
    out = rsp.per_user(df, METRICS, user_groups=groups)
    assert out.columns == ["user_id", "group", *METRICS]
    rows = out.collect()
    assert {r["user_id"]: r["group"] for r in rows} == groups  # int labels stay ints, str labels str
    order = {u: j for j, u in enumerate(want.users.tolist())}
    for m in METRICS:
        got = np.array([r[m] for r in rows], dtype=np.float64)
        mine = want.per_user[m][[order[r["user_id"]] for r in rows]]
        assert same_bits(got, mine), m
    # a user without a group fails the task that meets it with rm.evaluate's error (the frame is lazy: at
    # the action), named in the Spark exception
    first = min(groups)
    partial_groups = {u: g for u, g in groups.items() if u != first}
    with pytest.raises(Exception, match=rf"ValueError: `user_groups` gives no group to 1 evaluated user\(s\): {first}"):
        rsp.per_user(df, METRICS, user_groups=partial_groups).collect()
    with pytest.raises(TypeError, match="names a truth column"):
        rsp.per_user(df, METRICS, user_groups="country")
