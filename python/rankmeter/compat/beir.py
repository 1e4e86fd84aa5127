"""BEIR's retrieval evaluation (``beir.retrieval.evaluation``) on rankmeter's fused pass.

Before::

    from beir.retrieval.evaluation import EvaluateRetrieval
    ndcg, _map, recall, precision = EvaluateRetrieval.evaluate(qrels, results, [1, 10, 100])
    mrr = EvaluateRetrieval.evaluate_custom(qrels, results, [1, 10, 100], metric="mrr")

After::

    from rankmeter.compat.beir import EvaluateRetrieval
    ndcg, _map, recall, precision = EvaluateRetrieval.evaluate(qrels, results, [1, 10, 100])
    # BEIR's evaluate() has removed the identical ids from `results`; this one leaves `results` as it was
    mrr = EvaluateRetrieval.evaluate_custom(qrels, results, [1, 10, 100], metric="mrr", ignore_identical_ids=True)

``qrels`` is ``{query_id: {doc_id: int grade}}``, ``results`` is ``{query_id: {doc_id: score}}``. The numbers
are BEIR 2.2's (docs/metrics.md 8.9):

* ``evaluate`` -- trec_eval's ``ndcg_cut_k``, ``map_cut_k``, ``recall_k`` and ``P_k`` as pytrec_eval computes
  them (scores rounded to float32, equal scores by document id descending as strings, relevant means grade >= 1,
  a query without a relevant document scores 0), averaged over the queries pytrec_eval evaluates (those of
  ``results`` with a non-empty qrels entry), summed in the order of ``results`` and rounded with
  ``round(mean, 5)``; keys ``"NDCG@k"``, ``"MAP@k"``, ``"Recall@k"``, ``"P@k"``.
  ``ignore_identical_ids=True`` leaves out of every ranking the document whose id equals its query's id.
* ``evaluate_custom`` -- BEIR's own definitions, on the rankings ``sorted(scores, reverse=True)`` gives (score
  descending as given, equal scores in the dict's order), relevant means grade > 0, and the sum over the queries
  of ``results`` divided by ``len(qrels)``, rounded to 5 decimals:
  ``"MRR@k"`` = 1 / rank of the first relevant document in the top k (``rr@k``);
  ``"R_cap@k"`` = relevant documents in the top k / min(relevant documents, k)
  (``recall(denominator=min_relevant_k)@k``); ``"Accuracy@k"`` = 1 if a relevant document is in the top k
  (``hit_rate@k``); ``"Hole@k"`` = documents of the top k that no qrels entry of any query names, / k.

A ``k`` repeated in ``k_values`` gives one key whose value BEIR adds up once per occurrence and divides (and
rounds) once per occurrence; so does this module. Differences (``unmatched``; BEIR's own outcome in brackets;
the errors are raised before any work): ``results`` is never changed (BEIR removes the identical documents
from it in place: see ``evaluate_custom``'s ``ignore_identical_ids``); ``k_values`` must be positive ints (0
ends the process inside pytrec_eval, a negative k is BEIR's ``ValueError`` or a slice from the end); an
unknown ``metric`` is a ``ValueError`` (``None``); NaN scores are a ``ValueError`` (an order that depends on
the sort's steps); ids need not be strings in ``evaluate`` (pytrec_eval's ``TypeError``; here ranked as their
``str()``).
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections import abc
from typing import Any, Iterable, Mapping, Optional

import numpy as np

import rankmeter as _rm
from rankmeter import _core

from ._nested import _row_of, read_nested, to_containers, trec_one_call

__all__ = ["EvaluateRetrieval", "mrr", "recall_cap", "hole", "top_k_accuracy", "unmatched"]

# what this module does not reproduce, each with its reason (docs/metrics.md 8.9)
unmatched = (
    "`results` is never changed: BEIR's evaluate() removes the documents whose id equals their query id from the "
    "caller's dict in place, so a BEIR evaluate_custom() after it no longer sees them; pass "
    "evaluate_custom(..., ignore_identical_ids=True) for the numbers of that sequence (without the keyword the "
    "module keeps them and warns)",
    "a query whose grades are all negative: pytrec_eval inside BEIR's evaluate() crashes the process; rankmeter "
    "evaluates the query (no relevant document: 0)",
    "NaN scores are a ValueError (BEIR's order of them depends on the steps of Python's sort)",
    "an unknown evaluate_custom metric is a ValueError (BEIR returns None); k_values must be positive ints (BEIR: "
    "0 stops the process inside pytrec_eval, a negative k is a ValueError in evaluate and a slice from the end in "
    "the custom metrics)",
    "ids need not be strings in evaluate() (pytrec_eval's TypeError); they are ranked among equal scores as their "
    "str()",
)

# evaluate_custom's metric names (BEIR's spellings, compared lower-cased) -> the function
_CUSTOM_NAMES = {
    "mrr": "mrr",
    "mrr@k": "mrr",
    "mrr_cut": "mrr",
    "recall_cap": "recall_cap",
    "r_cap": "recall_cap",
    "r_cap@k": "recall_cap",
    "hole": "hole",
    "hole@k": "hole",
    "acc": "top_k_accuracy",
    "top_k_acc": "top_k_accuracy",
    "accuracy": "top_k_accuracy",
    "accuracy@k": "top_k_accuracy",
    "top_k_accuracy": "top_k_accuracy",
}


def _ks(k_values: Any) -> list[int]:
    """The cutoffs in the caller's order, repeats kept (BEIR counts a repeated k once per occurrence)."""
    if isinstance(k_values, (str, bytes)) or not isinstance(k_values, Iterable):
        raise TypeError(f"`k_values` must be a list of positive ints such as [1, 10, 100], got {k_values!r}")
    ks = list(k_values)
    if not ks:
        raise ValueError("`k_values` must hold at least one cutoff, e.g. [1, 10, 100]")
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, (numbers.Integral, np.integer)):
            raise TypeError(f"`k_values` must be ints (BEIR formats them into measure names), got {k!r}")
        if k < 1:
            raise ValueError(
                f"`k_values` must be positive, got {k}: BEIR passes it to pytrec_eval, which stops the process on 0 "
                "and rejects negative cutoffs"
            )
    return [int(k) for k in ks]


def _check_dicts(qrels: Any, results: Any) -> None:
    if not isinstance(qrels, Mapping):
        raise TypeError(f"`qrels` must be a dict {{query_id: {{doc_id: grade}}}}, got {type(qrels).__name__}")
    if not isinstance(results, Mapping):
        raise TypeError(f"`results` must be a dict {{query_id: {{doc_id: score}}}}, got {type(results).__name__}")


def _aggregate(values: np.ndarray, times: int, n: int) -> float:
    """BEIR's mean: ``acc += v`` once per query and per occurrence of the cutoff, in query order (a sequential
    sum, as ``np.cumsum`` is), then ``acc = round(acc / n, 5)`` once per occurrence."""
    acc = float(np.cumsum(np.repeat(values, times))[-1]) if values.size else 0.0
    for _ in range(times):
        acc = round(acc / n, 5)  # ZeroDivisionError on n = 0, as BEIR
    return acc


def _without_identical(results: Mapping) -> Mapping:
    """``results`` without the document whose id equals its query's id (a new outer dict and new inner dicts for
    the queries that hold one; the caller's dicts are not changed)."""
    hit = _identical(results)
    if not hit:
        return results
    out = dict(results)
    for q in hit:
        out[q] = {d: s for d, s in results[q].items() if d != q}
    return out


def _identical(results: Mapping) -> list:
    """The queries of ``results`` whose documents include the query's own id, in its order."""
    hit = _core.keys_in_values(results)  # one C loop over a plain dict of dicts
    if hit is None:
        hit = [q for q, docs in results.items() if _is_mapping(docs) and q in docs]
    return hit


def _has_identical(results: Mapping) -> bool:
    return bool(_identical(results))


def _is_mapping(x: Any) -> bool:
    return type(x) is dict or isinstance(x, abc.Mapping)  # a dict without the ABC's check (100,000 queries)


class EvaluateRetrieval:
    """BEIR's ``EvaluateRetrieval``: ``evaluate`` and ``evaluate_custom`` are static methods (call them on the
    class or on an instance); an instance keeps ``k_values``, ``top_k = max(k_values)``, ``retriever`` and
    ``score_function`` as BEIR's does, and ``retrieve`` / ``encode_and_retrieve`` call the retriever's own
    ``search`` / ``encode`` and ``search_from_files`` (rankmeter retrieves nothing itself)."""

    def __init__(
        self,
        retriever: Any = None,
        k_values: Optional[list] = None,
        score_function: Optional[str] = "cos_sim",
    ):
        self.k_values = [1, 3, 5, 10, 100, 1000] if k_values is None else k_values
        self.top_k = max(self.k_values)
        self.retriever = retriever
        self.score_function = score_function

    def retrieve(self, corpus: Mapping, queries: Mapping, **kwargs: Any) -> Any:
        """``retriever.search(corpus, queries, top_k, score_function, **kwargs)``."""
        if not self.retriever:
            raise ValueError("Model/Technique has not been provided!")
        return self.retriever.search(corpus, queries, self.top_k, self.score_function, **kwargs)

    def encode_and_retrieve(
        self,
        corpus: Mapping,
        queries: Mapping,
        encode_output_path: str = "./embeddings/",
        overwrite: bool = False,
        query_filename: str = "queries.pkl",
        corpus_filename: str = "corpus.*.pkl",
        **kwargs: Any,
    ) -> Any:
        """``retriever.encode(...)`` into ``encode_output_path``, then ``retriever.search_from_files`` on the
        files written there (the query file and the corpus files matching ``corpus_filename``)."""
        import glob

        if not self.retriever:
            raise ValueError("Model/Technique has not been provided!")
        self.retriever.encode(
            corpus,
            queries,
            encode_output_path=encode_output_path,
            overwrite=overwrite,
            query_filename=query_filename,
            corpus_filename=corpus_filename,
            **kwargs,
        )
        return self.retriever.search_from_files(
            query_embeddings_file=f"{encode_output_path}/{query_filename}",
            corpus_embeddings_files=glob.glob(f"{encode_output_path}/{corpus_filename}"),
            top_k=self.top_k,
            **kwargs,
        )

    @staticmethod
    def evaluate(
        qrels: Mapping[Any, Mapping[Any, int]],
        results: Mapping[Any, Mapping[Any, float]],
        k_values: Iterable[int],
        ignore_identical_ids: bool = True,
    ) -> tuple[dict[str, float], dict[str, float], dict[str, float], dict[str, float]]:
        """``(ndcg, _map, recall, precision)``: ``{"NDCG@k": v}``, ``{"MAP@k": v}``, ``{"Recall@k": v}``,
        ``{"P@k": v}`` for every k of ``k_values``, in its order.

        Each value is ``round(sum_q m_q / n, 5)`` over the n queries of ``results`` that have a non-empty qrels
        entry (in ``results``' order), m_q being pytrec_eval's ``ndcg_cut_k``, ``map_cut_k``, ``recall_k`` or
        ``P_k`` (trec_eval 9.0.8: float32 scores, equal scores by doc id descending as strings, relevant means
        grade >= 1, ``P_k`` = hits@k / k, ``recall_k`` = hits@k / |R|, ``map_cut_k`` = sum of P@j at the hits
        in the top k / |R|, ``ndcg_cut_k`` with gain = grade and the ideal cut at k). No such query:
        ``ZeroDivisionError``, as BEIR. ``ignore_identical_ids=True``: the document whose id equals its query id
        is left out of that query's ranking (``results`` itself is not changed).
        """
        ks = _ks(k_values)
        _check_dicts(qrels, results)
        if not isinstance(ignore_identical_ids, (bool, np.bool_, numbers.Integral)):
            raise TypeError(f"`ignore_identical_ids` must be a bool, got {ignore_identical_ids!r}")
        got = _core.nested_types(qrels)  # one C loop over a plain dict of dicts
        grades = (
            got[2]
            if got is not None
            else {type(g) for docs in qrels.values() if _is_mapping(docs) for g in docs.values()}
        )
        if not all(issubclass(t, (numbers.Integral, np.integer)) for t in grades):
            raise TypeError("`qrels` grades must be ints (pytrec_eval, which BEIR's evaluate calls, takes no others)")
        run = _without_identical(results) if ignore_identical_ids else results
        uniq = list(dict.fromkeys(ks))
        names = {"NDCG": "ndcg@{k}", "MAP": "ap@{k}", "Recall": "recall@{k}", "P": "precision@{k}"}
        per_query: dict[str, np.ndarray] = {}
        n = 0
        metrics = [m.format(k=k) for k in uniq for m in names.values()]
        one_call = trec_one_call(qrels, run, metrics, 1.0) if run and qrels else None
        if one_call is not None:
            # dicts of str documents: read, ranked, evaluated in one C++ call; the queries of `results` that have
            # qrels come in its order
            n = int(one_call[0].shape[1])
            per_query = dict(zip(metrics, one_call[0]))
        elif run and qrels:
            try:
                truth, recs = to_containers(qrels, run, float32=True, drop_empty_qrels=True)
            except TypeError:
                raise TypeError(
                    "`qrels` must be a dict {query_id: {doc_id: int grade}} and `results` a dict "
                    "{query_id: {doc_id: score}}"
                ) from None
            r_users = np.array(list(run.keys()), dtype=object)
            judged = truth.users if truth.users is not None else np.empty(0, dtype=object)
            if judged.size and (_row_of(judged, r_users) >= 0).any():
                # the queries in both (missing="skip"), lists already in pytrec_eval's order (ties="input")
                res = _rm.evaluate(truth, recs, metrics, preset="trec_eval", ties="input")
                where = _row_of(np.asarray(res.users, dtype=object), r_users)
                where = where[where >= 0]  # the evaluated queries in the order of `results`
                n = int(where.size)
                per_query = {m: np.asarray(res.per_user[m], dtype=np.float64)[where] for m in metrics}
        if n == 0:
            raise ZeroDivisionError(
                "float division by zero: no query of `results` has a non-empty entry in `qrels`, and BEIR's mean "
                "over the evaluated queries divides by their number"
            )
        out: tuple[dict[str, float], ...] = ({}, {}, {}, {})
        for d, (label, metric) in zip(out, names.items()):
            for k in uniq:
                d[f"{label}@{k}"] = _aggregate(per_query[metric.format(k=k)], ks.count(k), n)
        ndcg, _map, recall, precision = out
        return ndcg, _map, recall, precision

    @staticmethod
    def evaluate_custom(
        qrels: Mapping[Any, Mapping[Any, Any]],
        results: Mapping[Any, Mapping[Any, float]],
        k_values: Iterable[int],
        metric: str,
        ignore_identical_ids: Optional[bool] = None,
    ) -> dict[str, float]:
        """BEIR's custom metrics by name (case-insensitive): ``"mrr"`` (``"mrr@k"``, ``"mrr_cut"``): :func:`mrr`;
        ``"recall_cap"`` (``"r_cap"``, ``"r_cap@k"``): :func:`recall_cap`; ``"hole"`` (``"hole@k"``):
        :func:`hole`; ``"acc"`` (``"top_k_acc"``, ``"accuracy"``, ``"accuracy@k"``, ``"top_k_accuracy"``):
        :func:`top_k_accuracy`. Another name is a ``ValueError`` (BEIR returns ``None``).

        ``ignore_identical_ids`` (not in BEIR): BEIR's ``evaluate`` removes the documents whose id equals their
        query id from the caller's ``results`` in place, so a BEIR ``evaluate_custom`` called after it no longer
        sees them; this module never changes ``results``. ``True`` leaves them out here (the numbers of that
        sequence), ``False`` keeps them (BEIR on a dict ``evaluate`` has not seen); ``None`` (default) keeps
        them and warns when ``results`` holds one.
        """
        if not isinstance(metric, str):
            raise TypeError(f"`metric` must be a str such as 'mrr', got {metric!r}")
        name = _CUSTOM_NAMES.get(metric.lower())
        if name is None:
            raise ValueError(f"unknown `metric` {metric!r}: BEIR's custom metrics are {', '.join(_CUSTOM_NAMES)}")
        _check_dicts(qrels, results)
        if ignore_identical_ids is None:
            if _has_identical(results):
                warnings.warn(
                    "`results` holds a document whose id equals its query id; BEIR's evaluate() removes such "
                    "documents from `results` in place, so a BEIR evaluate_custom() after it does not see them, "
                    "while rankmeter never changes `results`: pass ignore_identical_ids=True to leave them out, "
                    "False to keep them",
                    UserWarning,
                    stacklevel=2,
                )
        elif ignore_identical_ids:
            results = _without_identical(results)
        return {"mrr": mrr, "recall_cap": recall_cap, "hole": hole, "top_k_accuracy": top_k_accuracy}[name](
            qrels, results, k_values
        )


class _Ranked:
    """The top ``k_max`` of every ranking of ``results`` by ``sorted(..., reverse=True)`` (score descending,
    equal scores in input order), with document codes shared with ``qrels``."""

    def __init__(self, qrels: Mapping, results: Mapping, k_max: int):
        _check_dicts(qrels, results)
        t_indptr, t_items, grades, t_users, r_indptr, r_items, scores, r_users, _ = read_nested(
            qrels, results, ("qrels", "results")
        )
        if np.isnan(scores).any():
            raise ValueError(
                "`results` scores must not be NaN: BEIR sorts them with Python's sorted(), whose order of NaN "
                "depends on the steps of the sort"
            )
        n_rows = r_indptr.size - 1
        lens = np.diff(r_indptr)
        row = np.repeat(np.arange(n_rows, dtype=np.int64), lens)
        if scores.size:  # by row, then score descending; lexsort is stable: equal scores keep the dict's order
            r_items = r_items[np.lexsort((-scores, row))]
        pos = np.arange(r_items.size, dtype=np.int64) - r_indptr[:-1][row]
        keep = pos < k_max
        self.items = r_items[keep]
        self.pos = pos[keep]
        self.row = row[keep]
        self.indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(np.minimum(lens, k_max), out=self.indptr[1:])
        self.n_rows = n_rows
        self.t_indptr, self.t_items, self.grades = t_indptr, t_items, grades
        self.t_users, self.r_users = t_users, r_users
        self.n_qrels = len(qrels)
        # codes are given in order of first appearance, qrels first: a document some qrels entry names has a
        # code below the number of distinct qrels documents
        self.n_annotated = int(t_items.max()) + 1 if t_items.size else 0

    def query_rows(self, need_relevant: bool = False) -> np.ndarray:
        """For each query of ``results``, its row in ``qrels``. BEIR walks the queries of ``results`` in order:
        the first one without a qrels entry is its ``KeyError``; with ``need_relevant`` (R_cap), the first one
        whose entry has no document of grade > 0 is its ``ZeroDivisionError``, whichever comes first."""
        where = _row_of(self.t_users, self.r_users)
        bad = where < 0
        no_rel = np.zeros_like(bad)
        if need_relevant and self.t_users.size:
            t_row = np.repeat(np.arange(self.t_users.size, dtype=np.int64), np.diff(self.t_indptr))
            n_rel = np.bincount(t_row[self.grades > 0], minlength=self.t_users.size)
            no_rel = ~bad & (n_rel[np.where(bad, 0, where)] == 0)
        if (bad | no_rel).any():
            first = int(np.argmax(bad | no_rel))
            q = self.r_users[first]
            if bad[first]:
                raise KeyError(q)
            raise ZeroDivisionError(
                f"division by zero: query {q!r} of `results` has no document of grade > 0 in `qrels`, and BEIR's "
                "R_cap@k divides by min(relevant documents, k)"
            )
        return where


def _one_call(qrels: Mapping, results: Mapping, names: list[str]) -> Optional[np.ndarray]:
    """``values[names, queries]`` of the queries of ``results`` that have a non-empty qrels entry, in ``results``'
    order, read, ranked (scores as given descending, equal scores in the dict's order) and evaluated in one C++
    call (documents of grade > 0 relevant; rankmeter's conventions); None when the dicts are not plain dicts of
    str documents with number values or a score is NaN (the general path answers then, with its errors)."""
    from ..evaluation._evaluate import _parse_metrics

    cols = [m._column() for m in _parse_metrics(names, None)[1]]  # rankmeter's conventions, not trec_eval's
    # grade > 0: the smallest positive double and up
    got = trec_one_call(qrels, results, names, math.ulp(0.0), columns=cols, by_input=True)
    return None if got is None else got[0]


def _accuracy_metric(qrels: Mapping, results: Mapping, k_values: Any, label: str, metric: str) -> dict[str, float]:
    """``label@k`` of a rankmeter metric per query of ``results`` (values of queries without a relevant
    document: 0), summed in ``results``' order and divided by ``len(qrels)``."""
    ks = _ks(k_values)
    uniq = list(dict.fromkeys(ks))
    names = [f"{metric}@{k}" for k in uniq]
    _check_dicts(qrels, results)
    # every query of `results` in `qrels` (else BEIR's KeyError, which the general path below raises)
    if type(qrels) is dict and type(results) is dict and qrels and results and not results.keys() - qrels.keys():
        one = _one_call(qrels, results, [*names, "num_rel"])
        # R_cap divides by min(relevant documents, k): a query without one (an empty qrels entry is not evaluated,
        # so it is missing from the values) is BEIR's ZeroDivisionError, raised by the general path
        if one is not None and not (
            metric.startswith("recall") and (one.shape[1] < len(results) or (one[-1] == 0).any())
        ):
            return {f"{label}@{k}": _aggregate(one[j], ks.count(k), len(qrels)) for j, k in enumerate(uniq)}
    r = _Ranked(qrels, results, max(ks))
    where = r.query_rows(need_relevant=metric.startswith("recall"))
    values = {k: np.zeros(0) for k in uniq}
    if where.size and r.items.size:
        truth = _rm.Truth.from_csr(r.t_indptr, r.t_items, r.grades, users=r.t_users)
        recs = _rm.Recs.from_csr(r.indptr, r.items, None, users=r.r_users)
        res = _rm.evaluate(truth, recs, names, empty="zero", missing="skip", min_relevance=None)
        at = _row_of(np.asarray(res.users, dtype=object), r.r_users)
        at = at[at >= 0]  # the queries of `results` in its order (a query without a hit adds 0 either way)
        for k, nm in zip(uniq, names):
            values[k] = np.asarray(res.per_user[nm], dtype=np.float64)[at]
    return {f"{label}@{k}": _aggregate(values[k], ks.count(k), r.n_qrels) for k in uniq}


def mrr(qrels: Mapping, results: Mapping, k_values: Iterable[int]) -> dict[str, float]:
    """BEIR's ``custom_metrics.mrr``: ``{"MRR@k": round(sum_q 1 / rank_q / len(qrels), 5)}``, rank_q the rank of
    the first document of grade > 0 in the top k of query q of ``results`` (0 if none); the queries of ``qrels``
    absent from ``results`` add 0; a query of ``results`` absent from ``qrels`` is a ``KeyError``."""
    return _accuracy_metric(qrels, results, k_values, "MRR", "rr")


def top_k_accuracy(qrels: Mapping, results: Mapping, k_values: Iterable[int]) -> dict[str, float]:
    """BEIR's ``custom_metrics.top_k_accuracy``: ``{"Accuracy@k": round(sum_q hit_q / len(qrels), 5)}``, hit_q = 1
    when a document of grade > 0 is in the top k of query q of ``results``; as :func:`mrr` otherwise."""
    return _accuracy_metric(qrels, results, k_values, "Accuracy", "hit_rate")


def recall_cap(qrels: Mapping, results: Mapping, k_values: Iterable[int]) -> dict[str, float]:
    """BEIR's ``custom_metrics.recall_cap``: ``{"R_cap@k": round(sum_q hits_q@k / min(|R_q|, k) / len(qrels), 5)}``
    over the queries of ``results`` (R_q: the documents of grade > 0); a query of ``results`` without one is a
    ``ZeroDivisionError``, a query absent from ``qrels`` a ``KeyError``, as in BEIR."""
    return _accuracy_metric(qrels, results, k_values, "R_cap", "recall(denominator=min_relevant_k)")


def hole(qrels: Mapping, results: Mapping, k_values: Iterable[int]) -> dict[str, float]:
    """BEIR's ``custom_metrics.hole``: ``{"Hole@k": round(sum_q u_q@k / k / len(qrels), 5)}``, u_q@k the documents
    of the top k of query q of ``results`` that no qrels entry names (of any query, any grade). Every query of
    ``results`` counts, with or without qrels."""
    ks = _ks(k_values)
    r = _Ranked(qrels, results, max(ks))
    hole_doc = r.items >= r.n_annotated
    out = {}
    for k in dict.fromkeys(ks):
        unjudged = np.bincount(r.row[hole_doc & (r.pos < k)], minlength=r.n_rows)
        out[f"Hole@{k}"] = _aggregate(unjudged.astype(np.float64) / k, ks.count(k), r.n_qrels)
    return out
