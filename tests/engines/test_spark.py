"""rankmeter.spark (issue 15) on local Spark, classic (local[2]) and Spark Connect (remote("local[2]")),
and the "spark" preset against the real pyspark RankingMetrics.

Needs pyspark (with its Connect extras) and Java: skipped with the reason outside CI,
a failure in CI (CI=true), where .ci/run installs them. One session of each kind per module.
"""

from __future__ import annotations

import gc
import math
import os
import warnings
from typing import Any, cast

import numpy as np
import pytest

import rankmeter as rm
from tests.support.engines import local_spark, need_spark, random_lists
from tests.support.same import assert_same_means

need_spark(connect=True)

import pyarrow as pa  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

import rankmeter.spark as rs  # noqa: E402

METRICS = [
    "ndcg@10",
    "precision@5",
    "recall@3",
    "map",
    "map@5",
    "mrr@10",
    "hit_rate@5",
    "ndcg(gain=exponential)@3",
    "coverage@10",
    "gini@10",
    "personalization@5",
]


def _start(kind: str):
    if kind == "classic":
        return local_spark("rankmeter-tests", shuffle_partitions=4)
    # remote("local[...]") starts a Spark Connect server inside this process and connects to it; it refuses
    # to start beside a classic session, so the classic one is stopped first (tests are grouped by kind).
    # SPARK_TESTING makes pyspark bind that server to a free port and the client ask the server for it: without
    # it every server takes port 15002, and two test processes (pytest-xdist workers) starting one each collide
    return SparkSession.builder.remote("local[2]").config("spark.sql.shuffle.partitions", "4").getOrCreate()


@pytest.fixture(scope="module", params=["classic", "connect"])
def spark(request):
    set_testing = request.param == "connect" and "SPARK_TESTING" not in os.environ
    if set_testing:
        os.environ["SPARK_TESTING"] = "1"
    try:
        s = _start(request.param)
        s.rankmeter_kind = request.param
        yield s
        s.stop()
    finally:
        if set_testing:
            os.environ.pop("SPARK_TESTING", None)


@pytest.fixture
def classic(spark):
    if spark.rankmeter_kind != "classic":
        pytest.skip("classic-only test (RDD-based pyspark.mllib or error paths checked once)")
    return spark


def _lists_frame(spark, truth, recs, str_ids=False):
    it = "string" if str_ids else "long"
    ut = "string" if str_ids else "long"
    rows = [(u, recs[u], truth[u]) for u in truth]
    return spark.createDataFrame(rows, f"user_id {ut}, recs array<{it}>, truth map<{it}, double>")


@pytest.mark.parametrize("partitions", [1, 3, 7])
def test_lists_bit_identical_any_partitioning(spark, partitions):
    truth, recs, catalog = random_lists(partitions)
    ref = rm.evaluate(truth, recs, METRICS, catalog=catalog)
    df = _lists_frame(spark, truth, recs)
    got = rs.evaluate(df, METRICS, catalog=catalog, partitions=partitions)
    assert_same_means(got, ref, METRICS)
    st = rs.evaluate(df, METRICS, catalog=catalog, partitions=partitions, state=True)
    assert isinstance(st, rm.State) and st == ref.state


def test_tiny_arrow_batches_and_string_ids(spark):
    truth, recs, catalog = random_lists(11, n_users=60, str_ids=True)
    ref = rm.evaluate(truth, recs, METRICS, catalog=catalog)
    df = _lists_frame(spark, truth, recs, str_ids=True)
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    old = spark.conf.get(key)
    spark.conf.set(key, "3")
    try:
        got = rs.evaluate(df, METRICS, catalog=catalog, partitions=3)
    finally:
        spark.conf.set(key, old)
    assert_same_means(got, ref, METRICS)


@pytest.mark.parametrize("nbytes", [1, 4096, None])
def test_arrow_batch_bytes_is_set_for_the_job_and_restored(spark, nbytes):
    """evaluate() sets spark.sql.execution.arrow.maxBytesPerBatch for its job only (1 byte: one row a batch);
    the means are the in-memory ones whatever the batches, and the session's setting is as before after."""
    truth, recs, catalog = random_lists(17, n_users=80)
    ref = rm.evaluate(truth, recs, METRICS, catalog=catalog)
    df = _lists_frame(spark, truth, recs)
    key = rs._MAX_BYTES_KEY
    for before in (None, "123456"):
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
        seen = spark.conf.get(key, None)
        got = rs.evaluate(df, METRICS, catalog=catalog, partitions=2, arrow_batch_bytes=nbytes)
        assert_same_means(got, ref, METRICS)
        assert spark.conf.get(key, None) == seen
    spark.conf.unset(key)


def test_arrow_batch_bytes_inside_the_job(classic, monkeypatch):
    """The setting is in force while the job runs (read back by a task-side probe: the batch sizes)."""
    truth, recs, _ = random_lists(19, n_users=50)
    df = _lists_frame(classic, truth, recs).repartition(1)
    seen = []
    orig = rs._arrow_batches

    from contextlib import contextmanager

    @contextmanager
    def probe(frame, nbytes):
        with orig(frame, nbytes):
            seen.append(frame.sparkSession.conf.get(rs._MAX_BYTES_KEY, None))
            yield

    monkeypatch.setattr(rs, "_arrow_batches", probe)
    rs.evaluate(df, ["ndcg@5"], arrow_batch_bytes=777)
    assert seen == ["777"]


@pytest.mark.parametrize("bad", [0, -1, 2**31, 1.5, "1m", True])
def test_bad_arrow_batch_bytes_is_a_value_error_before_any_job(classic, bad):
    truth, recs, _ = random_lists(23, n_users=5)
    df = _lists_frame(classic, truth, recs)
    with pytest.raises(ValueError, match="`arrow_batch_bytes` must be None or an int"):
        rs.evaluate(df, ["ndcg@5"], arrow_batch_bytes=bad)


def test_many_chunks_per_task_bit_identical(spark, monkeypatch):
    """Each task evaluates its batches in chunks as they arrive (a helper thread) and merges them: with every
    tiny Arrow batch its own chunk, the means, the state and the per-user rows are still those in memory."""
    import rankmeter._partitions as P

    monkeypatch.setattr(P, "CHUNK_BYTES", 1)  # read when the plan is built on the driver, shipped to the tasks
    truth, recs, catalog = random_lists(13, n_users=200)
    ref = rm.evaluate(truth, recs, METRICS, catalog=catalog)
    df = _lists_frame(spark, truth, recs)
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    old = spark.conf.get(key)
    spark.conf.set(key, "7")
    try:
        st = rs.evaluate(df, METRICS, catalog=catalog, partitions=2, state=True)
        ms = ["ndcg@10", "map@5"]
        pu = rs.per_user(df, ms, partitions=2).toArrow()
    finally:
        spark.conf.set(key, old)
    assert isinstance(st, rm.State) and st == ref.state
    assert_same_means(st.finalize(), ref, METRICS)
    by_user = dict(zip(pu.column("user_id").to_pylist(), pu.column("ndcg@10").to_pylist()))
    assert len(by_user) == len(truth)
    np.testing.assert_array_equal(
        np.array([by_user[u] for u in ref.users], dtype=np.float64),
        np.asarray(ref.per_user["ndcg@10"], dtype=np.float64),
    )  # NaN where truth is empty


def test_truth_as_plain_lists_and_scores_column(spark):
    rows = [(1, [5, 6, 7], [0.1, 0.9, 0.5], [5, 7]), (2, [8], [1.0], []), (3, [], [], [9])]
    df = spark.createDataFrame(rows, "user_id long, recs array<long>, s array<double>, truth array<long>")
    ref = rm.evaluate(
        {1: [5, 7], 2: [], 3: [9]},
        {1: {5: 0.1, 6: 0.9, 7: 0.5}, 2: {8: 1.0}, 3: {}},
        ["ndcg@2", "precision@1"],
        empty="zero",
    )
    got = rs.evaluate(df, ["ndcg@2", "precision@1"], scores_col="s", empty="zero")
    assert_same_means(got, ref, ["ndcg@2", "precision@1"])
    assert got["precision@1"] == pytest.approx(0.0)  # type: ignore[index]  # user 1's best by score is 6, not relevant


def _long_tables(truth, recs):
    ru, ri, rk = [], [], []
    for u, items in recs.items():
        ru += [u] * len(items)
        ri += items
        rk += list(range(1, len(items) + 1))
    tu, ti, tg = [], [], []
    for u, t in truth.items():
        tu += [u] * len(t)
        ti += list(t)
        tg += list(t.values())
    recs_t = pa.table(
        {"user_id": pa.array(ru, pa.int64()), "item_id": pa.array(ri, pa.int64()), "rank": pa.array(rk, pa.int64())}
    )
    truth_t = pa.table(
        {
            "user_id": pa.array(tu, pa.int64()),
            "item_id": pa.array(ti, pa.int64()),
            "relevance": pa.array(tg, pa.float64()),
        }
    )
    return recs_t, truth_t


@pytest.mark.parametrize("partitions", [1, 3, 7])
def test_long_form_users_split_across_partitions(spark, partitions):
    truth, recs, catalog = random_lists(20 + partitions, n_users=80)
    recs_t, truth_t = _long_tables(truth, recs)
    ref = rm.evaluate(truth_t, recs_t, METRICS, catalog=catalog)
    # round-robin input partitions: the rows of one user start in several partitions
    df = spark.createDataFrame(recs_t.to_pandas()).repartition(5)
    tdf = spark.createDataFrame(truth_t.to_pandas()).repartition(3)
    assert (
        df.select(F.spark_partition_id().alias("p"), "user_id")
        .distinct()
        .groupBy("user_id")
        .count()
        .where("count > 1")
        .count()
        > 0
    )
    got = rs.evaluate(df, METRICS, truth=tdf, catalog=catalog, partitions=partitions)
    assert_same_means(got, ref, METRICS)
    assert got.meta["n_users"] == ref.meta["n_users"]  # never double counted


def test_long_form_by_score_and_binary_truth(classic):
    recs = {1: {10: 0.5, 11: 0.9, 12: 0.1}, 2: {10: 0.3}}
    truth = {1: [10, 12], 2: [11]}
    df = classic.createDataFrame(
        [(u, i, s) for u, d in recs.items() for i, s in d.items()], "user_id long, item_id long, score double"
    )
    tdf = classic.createDataFrame([(u, i) for u, t in truth.items() for i in t], "user_id long, item_id long")
    ref = rm.evaluate(truth, recs, ["ndcg@3", "map@2"])
    assert_same_means(rs.evaluate(df, ["ndcg@3", "map@2"], truth=tdf, partitions=2), ref, ["ndcg@3", "map@2"])


def test_train_as_spark_frame(spark):
    truth, recs, _ = random_lists(5, n_users=50)
    rng = np.random.default_rng(3)
    train = {u: rng.choice(40, size=5, replace=False).tolist() for u in range(30)}
    tr_rows = [(u, i) for u, items in train.items() for i in items]
    tdf = spark.createDataFrame(tr_rows, "user_id long, item_id long")
    df = _lists_frame(spark, truth, recs)
    for ms in (["coverage@10", "gini@5"], ["novelty@10", "arp@5", "coverage@10"]):
        ref = rm.evaluate(truth, recs, ms, train=train)
        got = rs.evaluate(df, ms, train=tdf, partitions=3)
        assert_same_means(got, ref, ms)


def test_per_user_frame(spark):
    truth, recs, _ = random_lists(8, n_users=40)
    ref = rm.evaluate(truth, recs, ["ndcg@10", "map@5"])
    out = rs.per_user(_lists_frame(spark, truth, recs), ["ndcg@10", "map@5"], partitions=3).toArrow().to_pandas()
    assert list(out.columns) == ["user_id", "ndcg@10", "map@5"]
    want = dict(zip(ref.users.tolist(), ref.per_user["ndcg@10"].tolist()))
    got = dict(zip(out["user_id"].tolist(), out["ndcg@10"].tolist()))
    assert got.keys() == want.keys()
    assert all((math.isnan(got[u]) and math.isnan(want[u])) or got[u] == want[u] for u in want)
    with pytest.raises(ValueError, match="no per-user values"):
        rs.per_user(_lists_frame(spark, truth, recs), ["coverage@10"])


def test_bad_arguments_are_clear_errors(classic):
    df = classic.createDataFrame([(1, [1, 2], [1])], "user_id long, recs array<long>, truth array<long>")
    with pytest.raises(TypeError, match="`df` must be a pyspark DataFrame"):
        rs.evaluate({1: [1]}, ["ndcg@3"])
    with pytest.raises(ValueError, match="has no column 'labels'"):
        rs.evaluate(df, ["ndcg@3"], truth_col="labels")
    with pytest.raises(ValueError, match=r"unknown metric|not a metric|Unknown"):
        rs.evaluate(df, ["nope@3"])
    with pytest.raises(TypeError, match="unexpected keyword"):
        rs.evaluate(df, ["ndcg@3"], tie="trec")
    dup = classic.createDataFrame([(1, [1], [1]), (1, [2], [2])], "user_id long, recs array<long>, truth array<long>")
    with pytest.raises(ValueError, match="lists user 1 more than once"):  # one user in two rows
        rs.evaluate(dup, ["ndcg@3"], partitions=1)
    # the two rows in two partitions: the driver's merge names the user instead of counting it twice
    split = dup.repartition(2, "recs")
    assert split.select(F.spark_partition_id()).distinct().count() == 2
    with pytest.raises(ValueError, match="user 1 is in more than one of the states"):
        rs.evaluate(split, ["ndcg@3"])
    nul = classic.createDataFrame([(7, [1, None], [1])], "user_id long, recs array<long>, truth array<long>")
    with pytest.raises(ValueError, match="user 7 holds a null item"):
        rs.evaluate(nul, ["ndcg@3"])


def test_one_row_per_user_reads_a_grades_array_beside_the_items(spark):
    """The call of issue 26 item 8: truth items and their grades as two array columns. ``relevance_col`` (a
    long-form keyword) is an error naming ``grades_col``, which reads the grades (before: binary NDCG)."""
    truth = {1: {10: 3.0, 11: 1.0}, 2: {20: 2.0}, 3: {30: 1.0, 31: 2.0, 32: 0.0}}
    recs = {1: [11, 10, 12], 2: [21, 20], 3: [32, 31, 30]}
    rows = [(u, recs[u], list(truth[u]), list(truth[u].values())) for u in truth]
    df = spark.createDataFrame(
        rows, "user_id long, recs array<long>, truth_items array<long>, truth_grades array<double>"
    )
    with pytest.raises(TypeError, match=r"`relevance_col='truth_grades'`.*one row per user.*grades_col="):
        rs.evaluate(df, ["ndcg@10"], truth_col="truth_items", relevance_col="truth_grades")
    names = ["ndcg@10", "ndcg(gain=exponential)@2", "precision@2"]
    got = rs.evaluate(df, names, truth_col="truth_items", grades_col="truth_grades")
    want = rm.evaluate(truth, recs, names)
    assert isinstance(got, dict)
    for n in names:
        assert got[n] == want[n]
    per = rs.per_user(df, ["ndcg@10"], truth_col="truth_items", grades_col="truth_grades").toArrow().to_pandas()
    assert dict(zip(per["user_id"].tolist(), per["ndcg@10"].tolist())) == dict(
        zip(want.users.tolist(), want.per_user["ndcg@10"].tolist())
    )


def test_long_form_keywords_on_the_list_form_and_back_are_errors(classic):
    df = classic.createDataFrame([(1, [1, 2], [1])], "user_id long, recs array<long>, truth array<long>")
    kws: list[dict[str, Any]] = [{"rank_col": "r"}, {"score_col": "s"}, {"item_col": "i"}]
    for kw in kws:
        with pytest.raises(TypeError, match="long form"):
            rs.evaluate(df, ["ndcg@3"], **kw)
    rows = classic.createDataFrame([(1, 10, 1)], "user_id long, item_id long, rank int")
    t = classic.createDataFrame([(1, 10)], "user_id long, item_id long")
    kws = [{"recs_col": "recs"}, {"truth_col": "truth"}, {"scores_col": "s"}, {"grades_col": "g"}]
    for kw in kws:
        with pytest.raises(TypeError, match="one-row-per-user form"):
            rs.evaluate(rows, ["ndcg@3"], truth=t, **kw)
    with pytest.raises(ValueError, match="`relevance_col='grade'` is not a column of `truth`"):
        rs.evaluate(rows, ["ndcg@3"], truth=t, relevance_col="grade")


def test_empty_frame_gives_nan_means(classic):
    df = classic.createDataFrame([], "user_id long, recs array<long>, truth array<long>")
    got = rs.evaluate(df, ["ndcg@3"])
    assert math.isnan(got["ndcg@3"]) and got.meta["n_users"] == 0  # type: ignore[index]


# --------------------------------------------------------------------------- preset="spark"
def _spark_reference_data(seed: int):
    """(pred, labels, rels) per user with Spark's edge cases: empty labels, empty predictions,
    k beyond the list, labels listed by descending relevance (grades 0..3), one relevant item."""
    rng = np.random.default_rng(seed)
    # the first row has both lists non-empty: pyspark infers the RDD's schema from it
    rows = [
        ([3, 2, 1], [1, 4], [2.0, 1.0]),
        ([1, 2, 3], [], []),
        ([], [4, 5], [1.0, 1.0]),
        ([7], [7], [2.0]),
        ([9, 8, 7, 6], [6, 9], [3.0, 0.0]),
    ]
    for _ in range(120):
        pred = rng.choice(30, size=int(rng.integers(0, 20)), replace=False).tolist()
        lab = rng.choice(30, size=int(rng.integers(0, 8)), replace=False).tolist()
        rel = sorted((float(rng.integers(0, 4)) for _ in lab), reverse=True)
        rows.append((pred, lab, rel))
    return rows


def _scala_ndcg(pred: list, lab: list, rel: list, k: int) -> float:
    """A plain transcription of RankingMetrics.ndcgAt (Spark's Scala source) for one user: with relevance
    values the gain is 2^rel - 1 and the ideal DCG takes the labels in the order given; natural logs."""
    if not lab:
        return 0.0
    rel_of = dict(zip(lab, rel))
    dcg = sum((2.0 ** rel_of.get(x, 0.0) - 1) / math.log(i + 2) for i, x in enumerate(pred[:k]))
    ideal = sum((2.0 ** rel_of.get(x, 0.0) - 1) / math.log(i + 2) for i, x in enumerate(lab[: min(len(set(lab)), k)]))
    return 0.0 if ideal == 0.0 else dcg / ideal


def test_preset_spark_graded_ndcg_equals_the_scala_rule():
    # pyspark 4.3's Python RankingMetrics passes only (prediction, labels) to the JVM (relevance values are
    # dropped), so graded ndcgAt is checked against a transcription of the Scala code instead
    rows = _spark_reference_data(4)
    recs = {u: p for u, (p, _, _) in enumerate(rows)}
    truth = {u: dict(zip(lab, rel)) for u, (_, lab, rel) in enumerate(rows)}
    for k in (1, 3, 5, 15, 25):
        want = math.fsum(_scala_ndcg(p, lab, rel, k) for p, lab, rel in rows) / len(rows)
        assert rm.evaluate(truth, recs, [f"ndcg@{k}"], preset="spark")[f"ndcg@{k}"] == pytest.approx(want, rel=1e-12)
    # the default ndcg (linear gain) differs: the test can fail
    assert rm.evaluate(truth, recs, ["ndcg@5"], empty="zero")["ndcg@5"] != pytest.approx(
        math.fsum(_scala_ndcg(p, lab, rel, 5) for p, lab, rel in rows) / len(rows), rel=1e-9
    )


def test_preset_spark_equals_pyspark_ranking_metrics(classic):
    from pyspark.mllib.evaluation import RankingMetrics

    rows = _spark_reference_data(0)
    sc = classic.sparkContext
    with warnings.catch_warnings():  # pyspark's RankingMetrics calls the deprecated SQLContext.getOrCreate
        warnings.simplefilter("ignore", FutureWarning)
        binary = RankingMetrics(sc.parallelize([(p, lab) for p, lab, _ in rows], 3))
    recs = {u: p for u, (p, _, _) in enumerate(rows)}
    truth_bin = {u: lab for u, (_, lab, _) in enumerate(rows)}
    # graded labels (0..3, listed by descending grade): every label still counts as relevant for
    # precision, recall and AP (min_relevance=0)
    truth_graded = {u: dict(zip(lab, rel)) for u, (_, lab, rel) in enumerate(rows)}
    ks = [1, 3, 5, 15, 25]
    names = (
        [f"precision@{k}" for k in ks]
        + [f"recall@{k}" for k in ks]
        + [f"map@{k}" for k in ks]
        + [f"ndcg@{k}" for k in ks]
        + ["map"]
    )
    res_b = rm.evaluate(truth_bin, recs, names, preset="spark")
    res_g = rm.evaluate(truth_graded, recs, names, preset="spark")
    for k in ks:
        for res, spark_m in ((res_b, binary), (res_g, binary)):
            assert res[f"precision@{k}"] == pytest.approx(spark_m.precisionAt(k), rel=1e-12, abs=1e-15)
            assert res[f"recall@{k}"] == pytest.approx(spark_m.recallAt(k), rel=1e-12, abs=1e-15)
            assert res[f"map@{k}"] == pytest.approx(spark_m.meanAveragePrecisionAt(k), rel=1e-12, abs=1e-15)
        assert res_b[f"ndcg@{k}"] == pytest.approx(binary.ndcgAt(k), rel=1e-12, abs=1e-15)
    assert res_b["map"] == pytest.approx(binary.meanAveragePrecision, rel=1e-12)
    # without the preset the conventions differ (empty labels skipped, AP@k / |L|): the test can fail
    plain = rm.evaluate(truth_bin, recs, names)
    assert plain["map@5"] != pytest.approx(binary.meanAveragePrecisionAt(5), rel=1e-9)
    assert res_b.meta["n_users"] == len(rows)
    del binary
    gc.collect()  # drop the JVM wrapper while the session lives


def test_preset_spark_equals_ranking_evaluator(classic):
    from pyspark.ml.evaluation import RankingEvaluator

    rows = _spark_reference_data(1)
    df = classic.createDataFrame(
        [([float(x) for x in p], [float(x) for x in lab]) for p, lab, _ in rows],
        "prediction array<double>, label array<double>",
    )
    recs = {u: p for u, (p, _, _) in enumerate(rows)}
    truth = {u: lab for u, (_, lab, _) in enumerate(rows)}
    res = rm.evaluate(truth, recs, ["ndcg@10", "precision@10", "map@10", "recall@10", "map"], preset="spark")
    for metric, name in (
        ("ndcgAtK", "ndcg@10"),
        ("precisionAtK", "precision@10"),
        ("meanAveragePrecisionAtK", "map@10"),
        ("recallAtK", "recall@10"),
        ("meanAveragePrecision", "map"),
    ):
        ev = RankingEvaluator(metricName=cast(Any, metric), k=10)
        assert res[name] == pytest.approx(ev.evaluate(df), rel=1e-12, abs=1e-15), name


def test_preset_spark_counts_a_repeated_prediction_as_spark_does(classic):
    # Spark reads the prediction array as given: a repeated labelled item is a hit at each position, so
    # recall, AP and NDCG exceed 1 here (the preset's duplicates="count")
    from pyspark.mllib.evaluation import RankingMetrics

    rows = [([5, 5, 1, 5], [5, 1]), ([2, 3, 2, 9], [2]), ([7, 7, 4], [8, 4]), ([6, 1, 6], [1, 2, 3])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        spark_m = RankingMetrics(classic.sparkContext.parallelize(rows, 2))
    truth = {u: lab for u, (_, lab) in enumerate(rows)}
    recs = {u: p for u, (p, _) in enumerate(rows)}
    ks = [1, 2, 3, 4, 10]
    names = [f"{m}@{k}" for k in ks for m in ("precision", "recall", "map", "ndcg")] + ["map"]
    res = rm.evaluate(truth, recs, names, preset="spark")
    assert res.per_user["recall@4"].max() > 1 and res.per_user["ndcg@3"].max() > 1
    for k in ks:
        assert res[f"precision@{k}"] == pytest.approx(spark_m.precisionAt(k), rel=1e-12)
        assert res[f"recall@{k}"] == pytest.approx(spark_m.recallAt(k), rel=1e-12)
        assert res[f"map@{k}"] == pytest.approx(spark_m.meanAveragePrecisionAt(k), rel=1e-12)
        assert res[f"ndcg@{k}"] == pytest.approx(spark_m.ndcgAt(k), rel=1e-12)
    assert res["map"] == pytest.approx(spark_m.meanAveragePrecision, rel=1e-12)
    # the other policies differ from Spark here: the test can fail
    first = rm.evaluate(truth, recs, ["recall@4"], preset="spark", duplicates="first")
    assert first["recall@4"] != pytest.approx(spark_m.recallAt(4), rel=1e-9)
    del spark_m
    gc.collect()


def test_spark_preset_through_spark(classic):
    rows = _spark_reference_data(2)
    recs = {u: p for u, (p, _, _) in enumerate(rows)}
    truth = {u: dict(zip(lab, rel)) for u, (_, lab, rel) in enumerate(rows)}
    df = _lists_frame(classic, truth, recs)
    ms = ["ndcg@5", "map@5", "precision@3"]
    assert_same_means(
        rs.evaluate(df, ms, preset="spark", partitions=3), rm.evaluate(truth, recs, ms, preset="spark"), ms
    )
