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
    # trec_eval reads a negative qrels grade as "in the pool but unjudged" (form_res_rels.c):
    # bpref counts such a document neither as judged non-relevant nor anywhere else.
    if name == "bpref":
        return {"negative": "unjudged"}
    return {}


def _trec_eval_9_options(name: str, k: Optional[int]) -> dict:
    # trec_eval 9.0.x turns a recall level x of iprec_at_recall (and 11pt_avg) into int(x |R| + 0.9) relevant
    # documents; 10.0 rounds x |R| to the nearest integer (m_iprec_at_recall.c)
    if name == "iprec":
        return {"cut": "trec9"}
    return _trec_eval_options(name, k)


def _ir_measures_options(name: str, k: Optional[int]) -> dict:
    # ir_measures' ERR@k is gdeval's, which prints each query's value with 5 decimals; the rest is pytrec_eval's
    # (trec_eval's conventions).
    if name == "err":
        return {"rounding": "gdeval"}
    return _trec_eval_options(name, k)


def _ranx_options(name: str, k: Optional[int]) -> dict:
    # ranx drops the qrels below rel_lvl before any gain is computed (common.clean_qrels), so a grade
    # below min_relevance adds nothing to DCG, to the ideal or to RBP; its rbp weighs hits by their grade.
    # and divides each gain by log2(j + 1) (not times its reciprocal): discount="divide" gives its bits
    if name in ("dcg", "ndcg"):
        return {"below_min": "zero", "discount": "divide"}
    if name == "cg":
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
            "of all relevant documents; a negative qrels grade is 'in the pool but unjudged' (form_res_rels.c): "
            "never relevant, and bpref counts it as unjudged (bpref(negative=unjudged)); "
            "duplicates are looked for in whole lists. "
            "Use max_items=N for -M N and min_relevance=L for -l L. trec_eval's `all` line sums num_rel_ret, "
            "num_rel, num_ret and num_q, rankmeter reports their means (docs/metrics.md 8.3). "
            "Verified against trec_eval 10.0's own test outputs (tests/compat/test_trec_eval_outputs.py) and, per "
            "query at relative 1e-9, against pytrec_eval-terrier 0.5 on random cases (tests/differential/"
            "trec_eval.py: graded, zero and negative grades, queries on one side only, empty runs, tied scores, "
            "string, int and huge ids as strings; every measure listed here, at several cutoffs, in one call). "
            "rankmeter.compat.pytrec_eval gives pytrec_eval's own numbers, float32 scores included."
        ),
        metrics=(
            ("P_k", "precision@k"),
            ("recall_k", "recall@k"),
            ("map", "ap"),
            ("map_cut_k", "ap@k"),
            ("ndcg", "ndcg(ideal=all)"),
            ("ndcg_cut_k", "ndcg@k"),
            ("recip_rank", "rr"),
            ("success_k", "hit_rate@k"),
            ("Rprec", "r_precision"),
            ("bpref", "bpref(negative=unjudged)"),
            ("num_rel_ret", "hits (trec_eval's `all`: the sum)"),
            ("num_rel", "num_rel (`all`: the sum)"),
            ("num_ret", "num_ret (`all`: the sum)"),
            ("num_q", "num_q (`all`: the sum, the number of queries)"),
            ("iprec_at_recall_x", "iprec(at=x)"),
            ("Rprec_mult_x", "rprec_mult(mult=x)"),
            ("relative_P_k", "recall(denominator=min_relevant_k)@k"),
            ("set_P, set_recall", "precision, recall (no cutoff)"),
            ("set_relative_P", "recall(denominator=min_relevant_k) (no cutoff)"),
            ("set_F", "fbeta (set_F.x: beta = sqrt(x))"),
            ("num_nonrel_judged_ret", "num_nonrel_judged (`all`: the sum)"),
            ("unj_k", "unjudged@k"),
            ("infAP", "infap"),
            ("binG, G", "bin_g, trec_g"),
            ("ndcg_rel, Rndcg", "ndcg_rel, rndcg"),
            ("rbp", "rbp(p=0.9,gain=linear,scale=max_grade)"),
            ("rbp_resid", "rbp_resid"),
        ),
        unmatched=(
            "trec_eval's gm_map, gm_bpref (geometric means over queries), 11pt_avg, utility, set_map, relstring, "
            "runid and gains per grade (ndcg.1=3,2=9) are printed by `rankmeter eval` (docs/metrics.md 8.2), "
            "not computed by evaluate(); -J (judged documents only) is `rankmeter eval -J` (filter the run first)",
            "scores equal in float32 only: pytrec_eval (trec_eval 9.0.8 inside) keeps scores as float32 and orders "
            "them as equal (by docno); trec_eval 10.0, which the preset follows, keeps doubles "
            "(rankmeter.compat.pytrec_eval rounds to float32 as pytrec_eval does)",
            "a query whose grades are all negative, or a first query with an empty ranking: trec_eval stops "
            "(\"Can't calculate measure\") or crashes and pytrec_eval crashes or returns another query's values "
            "(form_res_rels.c leaves its cache unset); rankmeter evaluates the query (no relevant document: 0; "
            "num_ret and num_q their counts)",
            "no query in both the qrels and the run: pytrec_eval returns {}; rm.evaluate raises ValueError, never an "
            "empty result (rankmeter.compat.pytrec_eval returns {})",
            "fractional grades: trec_eval reads the integer part (atol), pytrec_eval raises TypeError; rankmeter "
            "uses the grade as given",
        ),
    ),
    "trec_eval_9": Preset(
        "trec_eval_9",
        defaults={"ties": "trec9", "empty": "zero", "missing": "skip"},
        metric_options=_trec_eval_9_options,
        doc=(
            "trec_eval 9.0.8, the version inside pytrec_eval: preset='trec_eval' (10.0) but for what 9.0.x does "
            "otherwise: scores are stored as float32 before ranking (scores equal in float32 are equal, ordered by "
            "docno descending: ties='trec9'); iprec_at_recall and 11pt_avg turn a recall level x into int(x |R| + "
            "0.9) relevant documents (iprec(cut=trec9)), where 10.0 rounds x |R|; `rankmeter eval --preset "
            "trec_eval_9` leaves rbp, rbp_resid and unj_k out of all_trec (9.0.x has none of them) and, with -c -q, "
            "prints no query line for the qrels queries without results (they still count in `all`). "
            "Verified against trec_eval 9.0.8's own test outputs (tests/data/trec_eval_9, tests/engines/test_cli.py) "
            "and, per query, against pytrec_eval-terrier 0.5 (rankmeter.compat.pytrec_eval runs on this preset)."
        ),
        metrics=(
            ("iprec_at_recall_x", "iprec(at=x,cut=trec9)"),
            ("every other trec_eval 9.0.x measure", "as preset='trec_eval'"),
        ),
        unmatched=(
            "as preset='trec_eval' (rankmeter.presets.describe('trec_eval')), but for the float32 scores, which this "
            "preset reproduces",
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
            "(DCG, the ideal, RBP): the preset sets below_min='zero' on cg/dcg/ndcg/rbp, and discount='divide' on "
            "dcg/ndcg (ranx divides each gain by log2(j + 1): equal bits). ranx names: 'ndcg_burges'/"
            "'dcg_burges' = gain=exponential; 'r-precision' = r_precision; 'rbp.95' = rbp(p=0.95) with the grade "
            "as gain (the preset sets gain='linear'); 'bpref' = bpref (the value ranx gives a query evaluated alone; "
            "see 'not reproduced'). "
            "Equal scores (lists given with scores): ranx orders them with numba's quicksort argsort "
            "(unstable, deterministic), reproduced exactly: ties='ranx' (the preset's default) is a Run built from "
            "the dict, as ranx.evaluate(qrels, run) reads it; ties='ranx_comparable' a Run after "
            "evaluate(..., make_comparable=True), which sorts it again; ties='ranx_dict' a plain dict run given to "
            "ranx.evaluate (argsort of the scores read backwards); verified against the real ranx "
            "(tests/compat/test_ranx_peer.py, tests/conformance/test_ir_ranx.py and test_ir_ranx_ties.py: random data "
            "with short lists, k beyond the list, users without relevant items and users without recs, rel_lvl 1 "
            "and 2, lists of up to 60 items with few distinct scores): hits, hit_rate, precision, recall, f1, "
            "r-precision, mrr, map, dcg, dcg_burges, ndcg, ndcg_burges, bpref, rbp; and by the differential runs "
            "(tests/differential/ranx_preset.py: every ranx metric at several cutoffs and rel_lvl 0, 1, 2 on random "
            "cases with fractional, negative and zero grades, users without truth or recs, empty lists, ties, "
            "string and huge ids). rankmeter.compat.ranx gives ranx's numbers in the cases listed as not reproduced, "
            "but for the float(hash(id)) collisions."
        ),
        metrics=(
            ("hits@k", "hits@k"),
            ("hit_rate@k", "hit_rate@k"),
            ("precision@k", "precision@k"),
            ("recall@k", "recall@k"),
            ("f1@k", "f1@k"),
            ("r-precision", "r_precision"),
            ("mrr@k", "rr@k"),
            ("map@k", "ap@k"),
            ("dcg@k", "dcg@k"),
            ("dcg_burges@k", "dcg(gain=exponential)@k"),
            ("ndcg@k", "ndcg@k"),
            ("ndcg_burges@k", "ndcg(gain=exponential)@k"),
            ("bpref", "bpref"),
            ("rbp.95", "rbp(p=0.95)"),
            ("<metric>-lL", "<metric> with min_relevance=L"),
        ),
        unmatched=(
            "bpref over many queries: ranx's parallel bpref kernel divides by zero on a query without a relevant "
            "document and numba drops the error, leaving that query and every later query of the same thread's "
            "share of the queries at 0 (so ranx's values depend on numba's thread count); rankmeter gives every "
            "query the value ranx gives it alone (rankmeter.compat.ranx reproduces the thread split)",
            "bpref of a query with a relevant document retrieved and no judged non-relevant document: NaN in ranx "
            "(0/0, and so the mean), its trec_eval value in rankmeter (rankmeter.compat.ranx gives the NaN)",
            "ranx pairs qrels and run by position, not by query id: two dicts listing the queries in different "
            "orders, or a dict beside a Qrels/Run (sorted by id), are mispaired by ranx; rankmeter pairs by user id "
            "(rankmeter.compat.ranx pairs as ranx does)",
            "no query in both the qrels and the run: ranx with make_comparable=True scores every query 0; "
            "rm.evaluate raises ValueError (rankmeter.compat.ranx gives the zeros)",
            "ranx's dict inputs identify documents by float(hash(id)): distinct int ids of 2**53 and more whose "
            "hashes round to the same float are one document for ranx; they stay distinct in rankmeter",
            "a ranx Qrels stores grades as int (1.5 becomes 1); a dict qrels keeps them: rankmeter reads the "
            "grades it is given",
            "fusion training (rm.train_fusion, compat.ranx.fusion.*_train, optimize_fusion of probfuse, slidefuse, "
            "bayesfuse, mapfuse, posfuse, segfuse) under norm='borda' where a run lacks more than one candidate of a "
            "query: ranx lists those in a Python set's order (hash-randomised per process), which its training "
            "reads; rankmeter lists them in order of first appearance over the runs. A *_train call whose run "
            "holds fewer queries than the qrels: ranx reads past the run's last query (undefined); refused with a "
            "ValueError. rm.train_fusion under zmuv with an empty list: the normalisation done right (ranx empties "
            "later queries of a numba thread's share; compat.ranx reproduces it, docs/fusion.md)",
        ),
    ),
    "ir_measures": Preset(
        "ir_measures",
        defaults={"ties": "trec", "empty": "zero", "missing": "zero"},
        metric_options=_ir_measures_options,
        doc=(
            "ir_measures 0.4 with its default providers: P, R, AP, RR, nDCG, Success, Rprec, Bpref, NumRel, NumRet, "
            "NumQ and the Set measures come from pytrec_eval (trec_eval's conventions, as preset='trec_eval': equal "
            "scores by document id descending as strings, queries without a relevant document score 0, nDCG without "
            "cutoff uses the ideal of all judged documents, a negative grade is unjudged for bpref); every qrels "
            "query counts, one missing from the run scores 0 (missing='zero'); ERR@k and nDCG(dcg='exp-log2')@k are "
            "gdeval's, which prints each query's value with 5 decimals: the preset sets rounding='gdeval' on err "
            "(pass ndcg(gain=exponential,rounding=gdeval)@k for gdeval's nDCG); Judged@k is its judged provider "
            "(judged@k, share of the top min(k, n) with a qrels row); RR@k is MS MARCO's (rr@k); RBP(rel=L, p=P) is "
            "cwl_eval's binary RBP: rbp(p=P) with min_relevance=L. rel=L on any measure is min_relevance=L. "
            "Verified against the real ir_measures in tests/conformance/test_ir_measures.py and by the differential "
            "runs (tests/differential/ir_measures_preset.py: every measure above at several cutoffs and rel 1 and 2, "
            "random cases with zero, negative and graded grades, users without truth or recs, empty lists, ties, "
            "string and huge ids). rankmeter.compat.ir_measures gives ir_measures' numbers in the cases listed as "
            "not reproduced (each provider's own order among equal scores, cwl_eval's normalisation, judged_only, "
            "gains) but pytrec_eval's undefined values and crashes."
        ),
        metrics=(
            ("P@k, P(rel=L)@k", "precision@k (min_relevance=L)"),
            ("R@k", "recall@k"),
            ("AP, AP@k", "ap, ap@k"),
            ("RR", "rr"),
            ("RR@k", "rr@k (MS MARCO's; equal scores: see below)"),
            ("nDCG, nDCG@k", "ndcg (ideal=all), ndcg@k"),
            ("nDCG(dcg='exp-log2')@k", "ndcg(gain=exponential,rounding=gdeval)@k"),
            ("Success@k", "hit_rate@k"),
            ("Rprec", "r_precision"),
            ("Bpref", "bpref (negative=unjudged)"),
            ("NumRel, NumRelRet, NumRet, NumQ", "num_rel, hits, num_ret, num_q (ir_measures sums them)"),
            ("SetP, SetR, SetF(beta=b)", "precision, recall, fbeta(beta=sqrt(b)) without cutoff"),
            ("ERR@k", "err(rounding=gdeval)@k (the preset sets the rounding)"),
            ("Judged@k", "judged@k"),
            ("RBP(rel=L,p=P)", "rbp(p=P) with min_relevance=L"),
            ("Compat(p=P)", "compat(p=P); normalize=False: compat(p=P,normalize=none)"),
            ("Accuracy(rel=L)@k", "pairwise_accuracy@k with min_relevance=L"),
        ),
        unmatched=(
            "equal scores: ir_measures' providers order them each their own way: judged (Judged) and msmarco (RR@k) "
            "by document id ascending, cwl_eval (RBP) in input order, pytrec_eval and gdeval by id descending (the "
            "preset's ties='trec'); pass ties='input' for RBP; no ties= value orders ids ascending "
            "(rankmeter.compat.ir_measures orders each measure as its provider does)",
            "scores equal in float32 only: pytrec_eval (trec_eval 9) keeps scores as float32 and orders them as equal "
            "(rankmeter.compat.ir_measures rounds to float32 as pytrec_eval does)",
            "nDCG without gains= and NumRet/NumQ without rel= in one call with nDCG(gains=...) or judged_only=True "
            "measures: ir_measures computes them in whichever pytrec_eval invocation its set of measures lists first "
            "(an order of Python's string hashing, a random draw per process); rankmeter computes them on the "
            "grades and the whole ranking",
            "a query missing from the run: ir_measures gives every measure its default 0, NumRel too; rankmeter's "
            "num_rel counts its relevant documents",
            "a query with an empty ranking: pytrec_eval returns another query's num_rel or crashes (a segmentation "
            "fault, with bpref and Rprec or map), Judged raises ZeroDivisionError; rankmeter evaluates an empty list",
            "RBP: cwl_eval reads the first 1000 documents and divides by the sum of their weights, rbp(p) / (1 - "
            "p^1000): more than 1e-9 apart for p > 0.98 (rankmeter.compat.ir_measures reproduces it)",
            "inputs the providers reject: pytrec_eval integer grades only (TypeError), gdeval numeric query ids and "
            "integer grades up to 4 (its perl script dies); rankmeter computes",
            "no query in both the qrels and the run: ir_measures scores every query 0; rm.evaluate raises ValueError "
            "(rankmeter.compat.ir_measures gives the zeros)",
            "judged_only=True (trec_eval -J) and nDCG(gains=...) have no evaluate() option; "
            "rankmeter.compat.ir_measures computes them",
            "Compat: ir_measures ranks equal scores by document id ascending and orders relevant documents of equal "
            "grade in its ideal by their run score; compat takes the truth order; an empty ranking without a grade > "
            "0 raises ZeroDivisionError there and scores 0 here (rankmeter.compat.ir_measures reproduces all three)",
            "Accuracy: ir_measures scores only queries with a relevant document in the top k, raises "
            "ZeroDivisionError when such a query has no other document there, and with rel <= 0 counts documents "
            "without a qrels row as relevant; pairwise_accuracy scores every user (0 and 1 there) "
            "(rankmeter.compat.ir_measures reproduces all of it)",
        ),
    ),
    "spark": Preset(
        "spark",
        defaults={"empty": "zero", "missing": "zero", "min_relevance": 0.0, "duplicates": "count", "ties": "input"},
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

# ---- cwl-eval (the C/W/L framework metrics, docs/metrics.md 3.21)


def _cwl_options(name: str, k: Optional[int]) -> dict:
    # cwl-eval's RBP weighs each item by its gain as given (graded), with its default persistence 0.9.
    if name == "rbp":
        return {"gain": "linear", "p": 0.9}
    return {}


PRESETS["cwl"] = Preset(
    "cwl",
    defaults={"empty": "zero", "missing": "skip_empty", "recs_only": "empty", "duplicates": "count", "ties": "file"},
    metric_options=_cwl_options,
    doc=(
        "cwl-eval 1.0.12 (Azzopardi, Thomas, Moffat): every query of the run with at least one document is scored "
        "(queries without a judged document too: all their documents unjudged; qrels-only queries and empty lists "
        "are not); lists in the order given, scores or not (ties='file': cwl-eval reads a run in file order); the qrels grade is "
        "the gain, as given; a document without a qrels row gains 0, and max_gain in the residuals (res_*); a "
        "document listed twice gains twice; every document costs 1, or its cost in costs= (cwl-eval's cost file: "
        "`rankmeter cwl -c`; a document without one costs max_cost, min_cost in the residuals' best case); the list "
        "is cut or padded to depth=1000 "
        "positions; rbp is graded with p = 0.9. The C/W/L metrics (cwl_p, cwl_rbp, sdcg, cwl_rr, cwl_ap, inst, "
        "insq, bpm, bpm_dynamic, nerr8-nerr11, umeasure, tbg) report the quantity= of cwl-eval's output (eu, etu, "
        "ec, etc, ed and the residuals res_eu..res_ed). Verified per query at relative 1e-9 against cwl-eval's "
        "Python API on random cases (tests/differential/cwl.py: every metric, every quantity and residual, at "
        "two depths, half of the cases with a cost file, in one call)."
    ),
    metrics=(
        ("P@k", "cwl_p@k"),
        ("RBP@p", "cwl_rbp(p=p)"),
        ("NDCG-k@k", "sdcg@k"),
        ("RR", "cwl_rr"),
        ("AP", "cwl_ap"),
        ("INST-T=t", "inst(t=t)"),
        ("INSQ-T=t", "insq(t=t)"),
        ("BPM-Static-T=t-K=k", "bpm(t=t)@k"),
        ("BPM-Dynamic-T=t-K=k-hb=h-hc=c", "bpm_dynamic(t=t,hb=h)@k (hc has no effect in cwl-eval)"),
        ("NERR-EQ8@k=k, NERR-EQ9@k=k", "nerr8@k, nerr9@k"),
        ("NERR-EQ10@phi=p", "nerr10(p=p)"),
        ("NERR-EQ11@T=t", "nerr11(t=t)"),
        ("U-L@l", "umeasure(l=l)"),
        ("TBG-H@h", "tbg(halflife=h)"),
        ("EU ETU EC ETC ED, ResEU ... ResED", "quantity=eu|etu|ec|etc|ed|res_eu|...|res_ed"),
        ("--max_gain G, --max_depth N", "max_gain=G, depth=N"),
        ("-c COST_FILE (element type -> cost)", "costs= (user, item, cost); rankmeter cwl -c reads the file"),
        ("--max_cost C, --min_cost C", "max_cost=C, min_cost=C"),
    ),
    unmatched=(
        "BPM with a cost file (or costs other than 1) and a fractional K: K is then a cost limit, and rankmeter's "
        "cutoff @K a whole number (`rankmeter cwl` refuses such a line)",
        "qrels gains outside [0, 1] (or max_gain): cwl-eval refuses the whole gain file (ValueError); rankmeter "
        "raises ValueError when a user it evaluates has such a grade (a qrels-only query's grades are not read)",
        "an empty run: cwl-eval crashes (AttributeError); rm.evaluate raises ValueError",
        "no query in both the qrels and the run: cwl-eval scores every query of the run as unjudged; "
        "rm.evaluate raises ValueError (a guard against ids that do not match)",
        "IFT, NPV and the set-based measures of cwl-eval are not computed",
        "cwl_p@k with k > depth + 1: cwl-eval stops (its vectors do not align); rankmeter gives the value of "
        "k = depth + 1 (`rankmeter cwl` stops too)",
        "values within about 1e-16 of 0 (a residual of two equal sums, e.g. ResEC): cwl-eval's numpy sums and "
        "rankmeter's differ in the last bits, so `rankmeter cwl` may print 0.0000 where cwl-eval prints -0.0000 "
        "or the reverse",
    ),
)


def _table_preset(name: str, *, options: Optional[dict] = None, uncut: Optional[dict] = None, **kw) -> Preset:
    """A preset whose metric option defaults are a fixed table (metric -> options); ``uncut`` (metric ->
    options) replaces a metric's row when it is asked without a cutoff."""
    table = {m: dict(o) for m, o in (options or {}).items()}
    whole = {m: dict(o) for m, o in (uncut or {}).items()}

    def metric_options(metric: str, k: Optional[int]) -> dict:
        if k is None and metric in whole:
            return dict(whole[metric])
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
