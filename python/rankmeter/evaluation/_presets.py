"""Presets: whole families of conventions selected at once (``preset=``).

A preset sets evaluation defaults (``ties``, ``empty``, ...) and metric option
defaults; anything passed explicitly wins over the preset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from ._presets_recsys import RECSYS_PRESETS

__all__ = ["Preset", "PRESETS", "get_preset"]


@dataclass(frozen=True)
class Preset:
    """One library's conventions.

    ``defaults`` are ``evaluate()`` keyword defaults; ``metric_options(name, k)``
    gives option defaults of a metric (canonical name) at cutoff ``k``; both
    yield to anything passed explicitly. ``options`` is the same table as a
    dict (metric -> option defaults) when the options do not depend on ``k``;
    ``metrics`` pairs the library's own metric names with the rankmeter metric
    each equals under the preset; ``unmatched`` lists the cases the preset does
    not reproduce. ``rankmeter.presets.describe(name)`` prints all of it.
    """

    name: str
    defaults: dict = field(default_factory=dict)  # evaluate() keyword defaults
    metric_options: Callable[[str, Optional[int]], dict] = lambda name, k: {}
    doc: str = ""
    options: dict = field(default_factory=dict)  # metric -> option defaults (k-independent presets)
    metrics: tuple = ()  # (the library's metric, the rankmeter metric it equals under the preset)
    unmatched: tuple = ()  # cases the preset does not reproduce


def _trec_eval_options(name: str, k: Optional[int]) -> dict:
    # trec_eval's `ndcg` (no cutoff) normalises by the ideal DCG of ALL judged
    # relevant documents; its `ndcg_cut_k` cuts the ideal list at k.
    if name == "ndcg" and k is None:
        return {"ideal": "all"}
    return {}


def _ranx_options(name: str, k: Optional[int]) -> dict:
    # ranx drops the qrels below rel_lvl before any gain is computed (common.clean_qrels), so a grade
    # below min_relevance adds nothing to DCG, to the ideal or to RBP; its rbp weighs hits by their grade.
    if name in ("cg", "dcg", "ndcg"):
        return {"below_min": "zero"}
    if name == "rbp":
        return {"gain": "linear", "below_min": "zero"}
    return {}


def _spark_options(name: str, k: Optional[int]) -> dict:
    # RankingMetrics.meanAveragePrecisionAt(k) divides by min(|L|, k); meanAveragePrecision (no k) by |L|.
    # ndcgAt: gain 2^rel - 1 with relevance values (1 for a plain label set), ideal cut at min(|L|, k).
    if name == "ap" and k is not None:
        return {"denominator": "min_relevant_k"}
    if name == "ndcg":
        return {"gain": "exponential"}
    return {}


PRESETS: dict[str, Preset] = {
    "trec_eval": Preset(
        "trec_eval",
        defaults={"ties": "trec", "empty": "zero", "missing": "skip"},
        metric_options=_trec_eval_options,
        doc=(
            "trec_eval 10.0: lists ranked by score, equal scores by docno descending (string order); "
            "queries without relevant documents score 0 (x/0 = 0); only queries in both qrels and run are "
            "evaluated (trec_eval's default; missing='zero' gives -c); `ndcg` without cutoff uses the ideal DCG "
            "of all relevant documents; duplicates are looked for in whole lists. "
            "Use max_items=N for -M N and min_relevance=L for -l L."
        ),
    ),
    "ranx": Preset(
        "ranx",
        defaults={"empty": "zero", "ties": "ranx"},
        metric_options=_ranx_options,
        doc=(
            "ranx 0.3 (AmenRa/ranx, metrics/*.py): users without a relevant item score 0 and count in the mean "
            "(empty='zero'); a truth user absent from the run scores 0 (make_comparable=True; rankmeter's "
            "missing='zero' default); an item is relevant when its grade >= 1 (rel_lvl=1: the same as grade > 0 for "
            "integer grades, pass min_relevance=1 for fractional ones); precision@k = hits/k even for short lists; "
            "recall@k = hits/|R|; map@k = sum of P@j at the hits within k / |R|; ndcg@k: linear gain "
            "(Jarvelin, ranx 'ndcg'; ranx 'ndcg_burges' is gain=exponential), ideal DCG of the grades sorted "
            "descending cut at k; mrr@k: 1/rank of the first hit within k; hit_rate@k: 1 if a hit within k. "
            "ranx's rel_lvl=L (metric suffix '-lL') is min_relevance=L; ranx drops grades below it from every gain "
            "(DCG, the ideal, RBP): the preset sets below_min='zero' on cg/dcg/ndcg/rbp. ranx names: 'ndcg_burges'/"
            "'dcg_burges' = gain=exponential; 'r-precision' = r_precision; 'rbp.95' = rbp(p=0.95) with the grade "
            "as gain (the preset sets gain='linear'); 'bpref' = bpref (ranx gives NaN for a query without a judged "
            "non-relevant document, where trec_eval and rankmeter give its value). "
            "Equal scores (lists given with scores): ranx orders them with numba's quicksort argsort "
            "(unstable, deterministic), reproduced exactly: ties='ranx' (the preset's default) is a Run built from "
            "the dict, as ranx.evaluate(qrels, run) reads it; ties='ranx_comparable' a Run after "
            "evaluate(..., make_comparable=True), which sorts it again; ties='ranx_dict' a plain dict run given to "
            "ranx.evaluate (argsort of the scores read backwards); verified against the real ranx "
            "(tests/compat/test_ranx_peer.py, tests/conformance/test_ir_ranx.py and test_ir_ranx_ties.py: random data "
            "with short lists, k beyond the list, users without relevant items and users without recs, rel_lvl 1 "
            "and 2, lists of up to 60 items with few distinct scores): hits, hit_rate, precision, recall, f1, "
            "r-precision, mrr, map, dcg, dcg_burges, ndcg, ndcg_burges, bpref, rbp."
        ),
    ),
    "ir_measures": Preset(
        "ir_measures",
        defaults={"ties": "trec", "empty": "zero", "missing": "zero"},
        metric_options=_trec_eval_options,
        doc=(
            "ir_measures 0.4 with its default providers: P, R, AP, RR, nDCG, Success, Rprec, Bpref, NumRel come "
            "from pytrec_eval (trec_eval's conventions: equal scores by document id descending as strings, "
            "queries without a relevant document score 0, nDCG without cutoff uses the ideal of all judged "
            "documents); every qrels query counts, one missing from the run scores 0 (missing='zero'); "
            "ERR@k is gdeval's (err, max_grade=4: gdeval rejects grades above 4 and prints 5 decimals); "
            "Judged@k is its judged provider (judged@k, share of the top min(k, n) with a qrels row); "
            "RBP(rel=L, p=P) is cwl_eval's binary RBP: rbp(p=P) with min_relevance=L. rel=L on any measure is "
            "min_relevance=L. Verified against the real ir_measures in tests/conformance/test_ir_measures.py "
            "(distinct scores: its providers break ties differently from one another)."
        ),
    ),
    "spark": Preset(
        "spark",
        defaults={"empty": "zero", "missing": "zero", "min_relevance": 0.0, "duplicates": "count"},
        metric_options=_spark_options,
        doc=(
            "Apache Spark 4.3 mllib RankingMetrics / ml RankingEvaluator (RankingMetrics.scala): every labelled "
            "item is relevant (min_relevance=0: grade-0 labels count in |L| and as hits, with gain 0); a user "
            "with an empty label set scores 0 and counts in the mean (empty='zero'), as does a user without "
            "predictions (missing='zero'); precisionAt(k) = hits/k; recallAt(k) = hits/|L|; "
            "meanAveragePrecisionAt(k) = sum of P@j at the hits within k / min(|L|, k) (ap denominator "
            "min_relevant_k); meanAveragePrecision = the same over the whole list / |L|; ndcgAt(k): gain "
            "2^rel - 1 (1 for plain labels), ideal DCG over the first min(|L|, k) labels (gain=exponential, "
            "ideal=cut). A prediction list holding an item twice is read as given: every occurrence of a labelled "
            "item is a hit at its position (duplicates='count'), so recall, AP and NDCG can exceed 1, as in Spark. "
            "Spark takes logs base e, rankmeter base 2 (the ratio is the same up to rounding) and "
            "Spark averages with RDD.mean, so values agree to ~1e-15, not bit for bit. "
            "Graded relevance reaches RankingMetrics only from Scala or Java (pyspark's RankingMetrics and "
            "RankingEvaluator send the JVM (prediction, labels) pairs: from Python ndcgAt is always binary); there, "
            "see unmatched. Verified against the real pyspark (tests/engines/test_spark.py, "
            "tests/differential/spark.py): precision@k, recall@k, map, map@k, ndcg@k, with repeated predictions."
        ),
        unmatched=(
            "relevance values reach Spark only from Scala or Java (pyspark drops them: its ndcgAt is binary over the "
            "labels); to compare with pyspark give rankmeter the labels without grades, since a grade-0 label gains "
            "0 here and 1 in pyspark's binary NDCG",
            "graded labels not listed by descending relevance (Scala/Java): Spark's ideal DCG sums the first "
            "min(|L|, k) labels in the order given, so its NDCG of the best list can exceed 1; rankmeter's ideal is "
            "the best order (the labels sorted by relevance), Spark's value when the labels are given by descending "
            "relevance",
            "negative relevance values (Scala/Java): Spark's gain 2^rel - 1 is negative and a non-positive ideal "
            "DCG is divided by anyway; rankmeter's gain of a negative grade is 0 and a zero ideal scores 0",
        ),
    ),
}


def _table_preset(name: str, *, options: Optional[dict] = None, **kw) -> Preset:
    """A preset whose metric option defaults are a fixed table (metric -> options)."""
    table = {m: dict(o) for m, o in (options or {}).items()}

    def metric_options(metric: str, k: Optional[int]) -> dict:
        return dict(table.get(metric, {}))

    return Preset(name, metric_options=metric_options, options=table, **kw)


PRESETS.update({p["name"]: _table_preset(**p) for p in RECSYS_PRESETS})


def get_preset(name: Optional[str]) -> Optional[Preset]:
    """The preset of that name; None for no preset (``None`` or ``"none"``)."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"`preset` must be a string, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_")
    if key == "none":
        return None
    if key not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(sorted(PRESETS))}")
    return PRESETS[key]
