"""Differential worker for Apache Spark's RankingMetrics (pyspark with Java, beside rankmeter: VENV = None).

    python worker_spark.py IN.json OUT.json

For every case (tests/differential/cases.py) the users of either side as Spark's rows of (prediction, labels)
(cases.as_lists: labels are the truth items, without grades, as pyspark sends them to the JVM; predictions by
rank with their repeats; a user absent from one side has an empty array there), and for each cutoff K of the
case precisionAt(K), recallAt(K), meanAveragePrecisionAt(K), ndcgAt(K), and meanAveragePrecision.

Per-user values: Spark computes each user's value in a function of RankingMetrics.scala that its RDD.map calls
(compiled as public static methods ``$anonfun$precisionAt$2(RankingMetrics, k, Tuple3)`` ...); the worker
calls those very methods on each user's (prediction, labels, []) row through py4j, with item arrays as the
JVM holds them (long[] or String[], parsed from JSON by the Jackson that Spark ships). Means: for one case in MEAN_EVERY (env RANKMETER_SPARK_MEAN_EVERY,
default 20) the public pyspark API (RankingMetrics over a DataFrame of the case, one Spark job per metric);
the other cases carry per-user values only.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("differential_cases", HERE / "cases.py")  # stdlib + numpy only
assert _spec is not None and _spec.loader is not None
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
as_lists = _cases.as_lists

MEAN_EVERY = int(os.environ.get("RANKMETER_SPARK_MEAN_EVERY", "20"))


class Spark:
    def __init__(self) -> None:
        from pyspark.sql import SparkSession

        self.spark = (
            SparkSession.builder.master("local[1]")
            .appName("rankmeter-differential")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "1")
            .getOrCreate()
        )
        sc: Any = self.spark.sparkContext
        sc.setLogLevel("ERROR")
        self.gw: Any = sc._gateway
        self.jvm: Any = sc._jvm
        self.RM = self.jvm.org.apache.spark.mllib.evaluation.RankingMetrics
        self.empty = self.gw.new_array(self.jvm.double, 0)
        self.mapper = self.jvm.com.fasterxml.jackson.databind.ObjectMapper()
        self.keep: Any = None
        self.this: Any = None  # a RankingMetrics instance: `this` of the per-user functions (their log warnings)

    def metrics(self, rows: list, strings: bool):
        from pyspark.mllib.common import JavaModelWrapper, callMLlibFunc
        from pyspark.mllib.evaluation import RankingMetrics

        t = "string" if strings else "bigint"
        df = self.spark.createDataFrame(rows, f"prediction array<{t}>, label array<{t}>")
        jm = callMLlibFunc("newRankingMetrics", df._jdf)
        m = RankingMetrics.__new__(RankingMetrics)
        JavaModelWrapper.__init__(m, jm)
        return m

    def arrays(self, lists: list, strings: bool):
        """The lists as one JVM long[][] or String[][] (parsed from JSON in one call, not item by item)."""
        elem = self.jvm.java.lang.String if strings else self.jvm.long
        return self.mapper.readValue(json.dumps(lists), self.gw.new_array(elem, 0, 0).getClass())

    def user_values(self, pred, lab, ks: list) -> dict:
        row = self.jvm.scala.Tuple3(pred, lab, self.empty)
        RM, this = self.RM, self.this
        out = {"map": getattr(RM, "$anonfun$meanAveragePrecision$1")(this, row)}
        for k in ks:
            out[f"precision@{k}"] = getattr(RM, "$anonfun$precisionAt$2")(this, k, row)
            out[f"recall@{k}"] = getattr(RM, "$anonfun$recallAt$2")(this, k, row)
            out[f"map@{k}"] = getattr(RM, "$anonfun$meanAveragePrecisionAt$2")(this, k, row)
            out[f"ndcg@{k}"] = getattr(RM, "$anonfun$ndcgAt$2")(this, k, row)
        return out


def one(sp: Spark, case: dict, with_means: bool) -> dict:
    users, labels, preds = as_lists(case)
    strings = any(isinstance(x, str) for xs in labels + preds for x in xs)
    if sp.this is None:
        sp.keep = sp.metrics([([1], [1])], False)  # the wrapper detaches its JVM object when collected: kept
        sp.this = sp.keep._java_model
    jp, jl = sp.arrays(preds, strings), sp.arrays(labels, strings)
    per = [sp.user_values(jp[j], jl[j], case["ks"]) for j in range(len(users))]
    out = {name: {"per_user": [[u, v[name]] for u, v in zip(users, per)]} for name in per[0]}
    if with_means:
        m = sp.metrics(list(zip(preds, labels)), strings)
        out["map"]["mean"] = m.meanAveragePrecision
        for k in case["ks"]:
            out[f"precision@{k}"]["mean"] = m.precisionAt(k)
            out[f"recall@{k}"]["mean"] = m.recallAt(k)
            out[f"map@{k}"]["mean"] = m.meanAveragePrecisionAt(k)
            out[f"ndcg@{k}"]["mean"] = m.ndcgAt(k)
    return out


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    cases = json.loads(Path(src).read_text())["cases"]
    warnings.simplefilter("ignore")
    sp = Spark()
    results: list[dict] = []
    for j, case in enumerate(cases):
        try:
            results.append({"ok": one(sp, case, MEAN_EVERY > 0 and j % MEAN_EVERY == 0)})
        except Exception as e:  # the peer raised on the whole case
            results.append({"error": type(e).__name__, "message": str(e)[:300]})
    sp.spark.stop()
    Path(dst).write_text(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
