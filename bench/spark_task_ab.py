"""How a rankmeter.spark task spends its time: the task as it was (whole partition at once) against the
chunked streaming task, beside the mapInArrow pass-through and RankingEvaluator, in one Spark session.

    python bench/spark_task_ab.py [--users 1000000] [--repeats 3] [--no-re] [--chunk-mb 32]

Uses the parquet file of bench/spark_w1.py (written there if missing) and its 22 columns. Contenders,
alternating ``repeats`` times after one warm-up each, all over the same (user_id, recs, truth) frame:

- ``pass-through``: tasks count rows (the Arrow transfer floor);
- ``whole partition``: the task before chunking: ``list(batches)``, one table, one ``partition_state``;
- ``chunked, helper thread``: :func:`rankmeter._partitions.stream_state`, what ``rankmeter.spark`` runs;
- ``chunked, inline``: the same chunks evaluated in the reading thread (no overlap);
- ``RankingEvaluator``: ndcg@10, precision@10, map@10 on (prediction, label), three jobs.

Besides wall time it reports the CPU seconds of the JVM and of the Python workers (the JVM's
descendants, from /proc: Linux only) per call: on a shared machine the wall time swings with the load,
the CPU seconds much less. Every rankmeter answer is asserted equal to ``rankmeter.evaluate`` in memory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from typing import Any, cast

import numpy as np

import rankmeter as rm
from rankmeter import _partitions as P
from spark_w1 import METRICS, write_parquet

TCK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float]:
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    rest = s[s.rindex(")") + 2 :].split()
    return int(rest[1]), sum(int(x) for x in rest[11:15]) / TCK  # ppid, own + reaped children CPU s


def cpu_seconds(jvm: int) -> tuple[float, float]:
    """CPU seconds so far of the JVM and of all its descendant processes (the Python daemon and workers)."""
    kids: dict = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                kids.setdefault(_stat(int(p))[0], []).append(int(p))
            except (OSError, ValueError):
                continue
    py, stack = 0.0, list(kids.get(jvm, []))
    while stack:
        p = stack.pop()
        try:
            py += _stat(p)[1]
        except (OSError, ValueError):
            continue
        stack.extend(kids.get(p, []))
    with open(f"/proc/{jvm}/stat") as f:
        s = f.read()
    rest = s[s.rindex(")") + 2 :].split()
    return (int(rest[11]) + int(rest[12])) / TCK, py


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/rankmeter-spark-w1")
    ap.add_argument("--chunk-mb", type=float, default=P.CHUNK_BYTES / 2**20)
    ap.add_argument("--no-re", action="store_true", help="leave RankingEvaluator out")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", category=FutureWarning)

    import pyarrow as pa
    from pyspark.sql import SparkSession

    import rankmeter.spark as rs

    path = os.path.join(args.dir, f"w1_{args.users}.parquet")
    w = write_parquet(args.users, path)
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
    gateway: Any = spark.sparkContext._gateway
    jvm = gateway.proc.pid
    full = spark.read.parquet(path)
    df = full.select("user_id", "recs", "truth")
    P.CHUNK_BYTES = int(args.chunk_mb * 2**20)  # read when the plan is built
    plan = P.Plan(
        "lists",
        P.check_metrics(METRICS),
        "user_id",
        "recs",
        "truth",
        None,
        options=P.check_options({}),
        context=dict(catalog=catalog),
    )
    out = pa.schema([("state", pa.binary())])

    def whole_partition(batches):
        bl = list(batches)
        if bl and sum(b.num_rows for b in bl):
            st = P.partition_state(pa.Table.from_batches(bl), plan)
            yield pa.RecordBatch.from_pydict({"state": [st.to_bytes()]}, schema=out)

    def chunked(batches):
        st = P.stream_state(batches, plan)
        if st is not None:
            yield pa.RecordBatch.from_pydict({"state": [st.to_bytes()]}, schema=out)

    def chunked_inline(batches):
        states = [P.partition_state(t, plan) for t in P.chunks(batches, plan)]
        if states:
            yield pa.RecordBatch.from_pydict({"state": [rm.State.merge_all(states).to_bytes()]}, schema=out)

    def passthrough(it):
        n = 0
        for b in it:
            n += b.num_rows
        yield pa.RecordBatch.from_pydict({"n": [n]})

    def run(task):
        def f():
            got = P.merge_blobs([r[0] for r in df.mapInArrow(task, "state binary").collect()], plan).finalize()
            for m in METRICS:
                assert got[m] == ref[m], (m, got[m], ref[m])

        return f

    contenders = [
        ("mapInArrow pass-through", lambda: df.mapInArrow(passthrough, "n long").collect()),
        ("whole partition (before)", run(whole_partition)),
        ("chunked, helper thread (rankmeter.spark)", run(chunked)),
        ("chunked, inline", run(chunked_inline)),
        ("rankmeter.spark.evaluate", lambda: rs.evaluate(df, METRICS, catalog=catalog)),
    ]
    if not args.no_re:
        from pyspark.ml.evaluation import RankingEvaluator

        sub = full.select("prediction", "label")
        metrics = ("ndcgAtK", "precisionAtK", "meanAveragePrecisionAtK")
        contenders.append(
            (
                "RankingEvaluator (3 metrics)",
                lambda: [RankingEvaluator(metricName=cast(Any, m), k=10).evaluate(sub) for m in metrics],
            )
        )
    for _, f in contenders:
        f()
    res: dict = {n: [] for n, _ in contenders}
    for _ in range(args.repeats):
        for n, f in contenders:
            load = os.getloadavg()[0]
            c0 = cpu_seconds(jvm)
            t0 = time.perf_counter()
            f()
            t = time.perf_counter() - t0
            c1 = cpu_seconds(jvm)
            res[n].append((t, c1[0] - c0[0], c1[1] - c0[1], load))
    print(
        f"W1 {w.n_users:,} users, {df.rdd.getNumPartitions()} input partitions, chunk {args.chunk_mb:g} MB, "
        f"{args.repeats} repeats"
    )
    print(f"{'contender':<44}{'median s':>9}{'min s':>8}{'JVM cpu':>9}{'py cpu':>8}  load at start")
    for n, v in res.items():
        med = [statistics.median(x[i] for x in v) for i in range(3)]
        loads = " ".join(f"{x[3]:.1f}" for x in v)
        print(f"{n:<44}{med[0]:9.2f}{min(x[0] for x in v):8.2f}{med[1]:9.2f}{med[2]:8.2f}  {loads}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
