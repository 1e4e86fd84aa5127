"""W1 on Spark and Dask (docs/performance.md): rankmeter inside the engines against Spark's RankingEvaluator
and an Arrow pass-through of the same data, side by side in one run.

    python bench/spark_w1.py [--users 1000000] [--repeats 3] [--dir /tmp/rankmeter-spark-w1]

Writes workload W1 (rankmeter.datasets.w1: 100 recs per user, graded truth) once
to a parquet file with one row per user: ``user_id``, ``recs`` (array<long>),
``truth`` (map<long, double>), and the same lists as ``prediction`` /
``label`` (array<double>, the types RankingEvaluator takes). Then, on a local[2]
classic session, alternating ``repeats`` times, each contender reading the
parquet file itself:

- ``rankmeter.spark.evaluate``: the 20 accuracy columns of W1 (precision, recall,
  f1, map, mar, ndcg, dcg, hit_rate, mrr, arhr at 10 and 100) plus coverage@10
  and gini@10 (catalog = the W1 items), one mapInArrow job over (user_id, recs, truth);
- ``RankingEvaluator``: ndcgAtK, precisionAtK, meanAveragePrecisionAtK at k=10
  (pyspark.ml.evaluation, three evaluate() calls, each a job over (prediction, label));
- ``mapInArrow pass-through``: the same columns as rankmeter through mapInArrow,
  each task counting its rows and emitting one row (the Arrow transfer floor);
- Dask (local threads scheduler): ``rankmeter.dask.evaluate`` on the same parquet
  file (pyarrow-backed) and a map_partitions pass-through counting rows.

Prints medians and min per contender and the two ratios of the acceptance. The
means of rankmeter on Spark and on Dask are asserted bit-identical to
``rankmeter.evaluate`` in memory.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings

import numpy as np

import rankmeter as rm

ACCURACY = [
    f"{m}@{k}"
    for k in (10, 100)
    for m in ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
]
METRICS = [*ACCURACY, "coverage@10", "gini@10"]


def write_parquet(n_users: int, path: str):
    import pyarrow as pa
    import pyarrow.parquet as pq

    w = rm.datasets.w1(n_users, seed=0)
    if os.path.exists(path):
        return w
    r_off = pa.array(w.recs_indptr.astype(np.int32))
    t_off = pa.array(w.truth_indptr.astype(np.int32))
    recs = pa.ListArray.from_arrays(r_off, pa.array(w.recs_items))
    truth = pa.MapArray.from_arrays(t_off, pa.array(w.truth_items), pa.array(w.truth_grades))
    pred = pa.ListArray.from_arrays(r_off, pa.array(w.recs_items.astype(np.float64)))
    label = pa.ListArray.from_arrays(t_off, pa.array(w.truth_items.astype(np.float64)))
    users = pa.array(np.arange(w.n_users, dtype=np.int64))
    table = pa.table({"user_id": users, "recs": recs, "truth": truth, "prediction": pred, "label": label})
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(table, path + ".tmp", row_group_size=65536)
    os.replace(path + ".tmp", path)
    return w


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/rankmeter-spark-w1")
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", category=FutureWarning)

    import dask
    import dask.dataframe as dd
    import pyarrow as pa
    import pyspark
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import SparkSession

    import rankmeter.dask as rdk
    import rankmeter.spark as rs

    path = os.path.join(args.dir, f"w1_{args.users}.parquet")
    t0 = time.perf_counter()
    w = write_parquet(args.users, path)
    print(f"data: {path} ({os.path.getsize(path) / 1e6:,.0f} MB) ready in {time.perf_counter() - t0:.1f} s", flush=True)
    catalog = np.unique(w.recs_items)
    ref = rm.evaluate(w.truth, w.recs, METRICS, catalog=catalog)

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "6g")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "10000")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.read.parquet(path)
    n_parts = df.rdd.getNumPartitions()

    def rankmeter_spark():
        got = rs.evaluate(df.select("user_id", "recs", "truth"), METRICS, catalog=catalog)
        for m in METRICS:
            assert got[m] == ref[m], (m, got[m], ref[m])  # type: ignore[index]  # means, not state=True

    def ranking_evaluator():
        sub = df.select("prediction", "label")
        return [
            RankingEvaluator(metricName=m, k=10).evaluate(sub)
            for m in ("ndcgAtK", "precisionAtK", "meanAveragePrecisionAtK")
        ]

    def passthrough(it):
        n = 0
        for b in it:
            n += b.num_rows
        yield pa.RecordBatch.from_pydict({"n": [n]})

    def spark_passthrough():
        rows = df.select("user_id", "recs", "truth").mapInArrow(passthrough, "n long").collect()
        assert sum(r[0] for r in rows) == args.users

    def spark_passthrough_small():
        # the Arrow batches rankmeter.spark.evaluate asks for (maxBytesPerBatch = rs.ARROW_BATCH_BYTES)
        frame = df.select("user_id", "recs", "truth")
        with rs._arrow_batches(frame, rs.ARROW_BATCH_BYTES):
            rows = frame.mapInArrow(passthrough, "n long").collect()
        assert sum(r[0] for r in rows) == args.users

    def dask_frame():
        return dd.read_parquet(path, columns=["user_id", "recs", "truth"], dtype_backend="pyarrow")

    def rankmeter_dask():
        with dask.config.set(scheduler="threads", num_workers=2):
            got = rdk.evaluate(dask_frame(), METRICS, catalog=catalog)
        for m in METRICS:
            assert got[m] == ref[m], (m, got[m], ref[m])  # type: ignore[index]  # means, not state=True

    def dask_passthrough():
        with dask.config.set(scheduler="threads", num_workers=2):
            n = dask_frame().map_partitions(len).compute()
        assert int(sum(n)) == args.users

    def in_memory():
        rm.evaluate(w.truth, w.recs, METRICS, catalog=catalog, threads=2)

    contenders = [
        ("rankmeter.spark.evaluate (20 accuracy + coverage + gini)", rankmeter_spark),
        ("RankingEvaluator (ndcg@10, precision@10, map@10)", ranking_evaluator),
        ("Spark mapInArrow pass-through (same columns)", spark_passthrough),
        (f"  the same, {rs.ARROW_BATCH_BYTES >> 10} KiB Arrow batches (as rankmeter's job)", spark_passthrough_small),
    ]
    if not args.no_dask:
        contenders += [
            ("rankmeter.dask.evaluate (same 22 columns)", rankmeter_dask),
            ("Dask map_partitions pass-through", dask_passthrough),
        ]
    contenders.append(("rankmeter.evaluate in memory (threads=2)", in_memory))
    for _, f in contenders:  # warm-up: JVM, page cache, Python workers
        f()
    times: dict = {name: [] for name, _ in contenders}
    for _ in range(args.repeats):
        for name, f in contenders:
            t0 = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t0)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"pyspark {pyspark.__version__} local[2] ({n_parts} input partitions), dask {dask.__version__}, "
        f"rankmeter {rm.__version__}"
    )
    print(
        f"W1: {w.n_users:,} users, {w.recs_items.size:,} rec items, {w.truth_items.size:,} truth items; {args.repeats} repeats"
    )
    print(f"{'contender':<60}{'median s':>10}{'min s':>10}")
    med = {}
    for name, _ in contenders:
        med[name] = statistics.median(times[name])
        print(f"{name:<60}{med[name]:>10.2f}{min(times[name]):>10.2f}")
    names = [n for n, _ in contenders]
    print(f"RankingEvaluator / rankmeter on Spark (medians): {med[names[1]] / med[names[0]]:.2f}x")
    print(f"rankmeter on Spark / mapInArrow pass-through (medians): {med[names[0]] / med[names[2]]:.2f}x")
    fastest = min(med[names[2]], med[names[3]])
    print(f"rankmeter on Spark / the faster pass-through (medians): {med[names[0]] / fastest:.2f}x")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
