"""Nested dicts ``{query: {doc: value}}`` -> rankmeter containers, in a few C-level passes.

The IR libraries take qrels and runs as nested dicts of strings. Converting
them once here (one dict lookup per document through ``map``, no per-query
Python branches) is what keeps the compat calls fast: documents get int64 codes
in the order of their ``str()`` (so ``ties="item_desc"`` on the codes is
trec_eval's docno-descending order), queries keep their ids.
"""

from __future__ import annotations

import itertools
from typing import Any, Mapping, Optional

import numpy as np

import rankmeter as _rm

from .. import _core
from ..inputs._align import score_order

__all__ = ["to_containers"]


def _flat(nested: Mapping[Any, Mapping[Any, Any]], what: str) -> tuple[np.ndarray, list, np.ndarray]:
    try:
        lens = np.fromiter(map(len, nested.values()), dtype=np.int64, count=len(nested))
        docs = list(itertools.chain.from_iterable(nested.values()))
        vals = np.fromiter(
            itertools.chain.from_iterable(d.values() for d in nested.values()), dtype=np.float64, count=len(docs)
        )
    except (TypeError, ValueError, AttributeError):
        raise TypeError(f"`{what}` must be a dict {{query: {{doc: number}}}}") from None
    indptr = np.zeros(lens.size + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    return indptr, docs, vals


def _codes(t_docs: list, r_docs: list) -> tuple[np.ndarray, np.ndarray, list]:
    """int64 codes of both document lists in order of first appearance, and the documents of the codes."""
    both = np.empty(len(t_docs) + len(r_docs), dtype=object)
    both[: len(t_docs)] = t_docs
    both[len(t_docs) :] = r_docs
    try:
        import pandas as pd

        codes, found = pd.factorize(both)  # C hash table: first-appearance codes
        uniques = list(found)
    except ImportError:  # pragma: no cover - pandas is optional
        first: dict = {}
        codes = np.fromiter((first.setdefault(d, len(first)) for d in both), dtype=np.int64, count=both.size)
        uniques = list(first)
    codes = np.asarray(codes, dtype=np.int64)
    return codes[: len(t_docs)], codes[len(t_docs) :], uniques


def _str_rank(uniques: list) -> np.ndarray:
    """Rank of every document in the order of its str() (trec_eval's docno order). The one sort of strings of a
    conversion, done only when a list holds equal scores (the only place the order matters)."""
    keys = uniques if all(type(d) is str for d in uniques) else [str(d) for d in uniques]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    rank = np.empty(len(keys), dtype=np.int64)
    rank[order] = np.arange(len(keys), dtype=np.int64)
    return rank


def _row_of(users: np.ndarray, of: np.ndarray) -> np.ndarray:
    """For each id of ``of``, its position in ``users`` (-1: absent), without a Python loop per id (a dict for
    a few ids, where building pandas' index would cost more than the loop)."""
    if users.size + of.size < 512:
        where = {u: i for i, u in enumerate(users.tolist())}
        return np.fromiter((where.get(u, -1) for u in of.tolist()), dtype=np.int64, count=of.size)
    try:
        import pandas as pd

        return np.asarray(pd.Index(users, dtype=object).get_indexer(of), dtype=np.int64)
    except ImportError:  # pragma: no cover - pandas is optional
        where = {u: i for i, u in enumerate(users.tolist())}
        return np.fromiter((where.get(u, -1) for u in of.tolist()), dtype=np.int64, count=of.size)


def read_nested(
    qrels: Mapping[Any, Mapping[Any, Any]],
    run: Mapping[Any, Mapping[Any, Any]],
    names: tuple = ("qrels", "run"),
    walked: Any = None,
) -> tuple:
    """Both nested dicts as CSR: (qrels indptr, doc codes, grades, queries, run indptr, doc codes, scores,
    queries, documents of the codes), the codes shared and in order of first appearance (qrels first).

    str documents go through the C++ walker (one pass over the objects, no intermediate list or object
    array, the documents coded by their cached hashes); anything else (int documents, values that are not
    numbers, dict subclasses) through the Python passes below. ``walked``: the walker's answer for these two
    dicts when the caller has it already."""
    out = _core.walk_py(qrels, run, dict_rows=True) if walked is None else walked
    if out is not None and out[3] != 1:  # str documents (or none at all)
        (t_users, t_indptr, t_items, grades), (r_users, r_indptr, r_items, scores), labels, _, _ = out
        uniques = labels.tolist() if labels is not None else []
        grades = grades if grades is not None else np.zeros(0, dtype=np.float64)
        scores = scores if scores is not None else np.zeros(0, dtype=np.float64)
        # queries as objects, as the keys are (int keys come back as int64)
        t_users = t_users if t_users.dtype == object else t_users.astype(object)
        r_users = r_users if r_users.dtype == object else r_users.astype(object)
        return t_indptr, t_items, grades, t_users, r_indptr, r_items, scores, r_users, uniques
    t_indptr, t_docs, grades = _flat(qrels, names[0])
    r_indptr, r_docs, scores = _flat(run, names[1])
    t_items, r_items, uniques = _codes(t_docs, r_docs)
    t_users = np.array(list(qrels.keys()), dtype=object)
    r_users = np.array(list(run.keys()), dtype=object)
    return t_indptr, t_items, grades, t_users, r_indptr, r_items, scores, r_users, uniques


def to_containers(
    qrels: Mapping[Any, Mapping[Any, Any]],
    run: Mapping[Any, Mapping[Any, Any]],
    trec_ties: bool = True,
    by_score: bool = False,
    *,
    float32: bool = False,
    judged_only: bool = False,
    drop_empty_qrels: bool = False,
    walked: Any = None,
) -> tuple[_rm.Truth, _rm.Recs]:
    """(Truth with grades, Recs ranked by score) with shared int64 document codes.

    The lists come back ranked: by score descending, equal scores by document id
    descending as strings (trec_eval) with ``trec_ties``, else in input order. One
    argsort of an int64 key (row, score rank) does it when the key fits; only when
    some list holds equal scores (and ``trec_ties``) are the codes renumbered in
    the order of the documents' str() and the key extended by them.
    ``by_score=True``: the lists stay in input order, marked to be ranked by
    ``evaluate(ties=...)`` (e.g. ``ties="ranx"``).

    pytrec_eval's reading (keyword-only): ``float32`` rounds every score to float32 before
    ranking, as trec_eval 9 stores them (scores equal in float32 are equal; a score beyond
    float32's range is infinite; infinite scores rank first or last, NaN is a ValueError) and
    returns the lists ranked, without scores; ``judged_only`` keeps only the documents with a
    qrels row of grade >= 0 for their query (trec_eval -J); ``drop_empty_qrels`` leaves out the
    qrels queries without any row.
    """
    t_indptr, t_items, grades, t_users, r_indptr, r_items, scores, r_users, uniques = read_nested(
        qrels, run, walked=walked
    )
    if drop_empty_qrels:
        lens = np.diff(t_indptr)
        if (lens == 0).any():
            t_users = t_users[lens > 0]
            t_indptr = np.concatenate(([0], np.cumsum(lens[lens > 0]))).astype(np.int64)
    n_rows = r_indptr.size - 1
    row = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(r_indptr))
    if float32:
        if np.isnan(scores).any():
            raise ValueError(
                "run scores must not be NaN: pytrec_eval's order of NaN scores is undefined (its sort "
                "compares them as neither larger nor smaller)"
            )
        with np.errstate(over="ignore"):
            scores = scores.astype(np.float32).astype(np.float64)
    elif scores.size and not np.isfinite(scores).all():
        raise TypeError("run scores must be finite numbers")
    if by_score:
        return (
            _rm.Truth.from_csr(t_indptr, t_items, grades, users=t_users),
            _rm.Recs.from_csr(r_indptr, r_items, scores, users=r_users, by_score=True),
        )
    if scores.size:
        # one C++ sort per list (parallel over lists): score descending, equal scores in input order
        order = score_order(r_indptr, scores)
        if trec_ties:
            ss = scores[order]
            eq = ss[1:] == ss[:-1]
            eq &= row[1:] == row[:-1]  # the permutation keeps every list in its rows
            if eq.any():
                # equal scores in some list: by docno descending; only the documents of the tied groups are
                # put in str order (a sort of those strings alone), the others keep key 0
                in_tie = np.zeros(ss.size, dtype=bool)
                in_tie[1:] |= eq
                in_tie[:-1] |= eq
                at = order[in_tie]
                docs = np.unique(r_items[at])
                sub = _str_rank([uniques[i] for i in docs.tolist()])
                key = np.zeros(r_items.size, dtype=np.int64)
                key[at] = sub[np.searchsorted(docs, r_items[at])]
                order = score_order(r_indptr, scores, key)
        r_items, scores = r_items[order], scores[order]
    if judged_only and r_items.size:
        # a run row is judged when its (query, document) pair has a qrels row of grade >= 0
        t_row = np.repeat(np.arange(t_users.size, dtype=np.int64), np.diff(t_indptr))
        n_c = max(len(uniques), 1)
        judged = grades >= 0
        t_key = t_row[judged] * n_c + t_items[judged]
        of_row = _row_of(t_users, r_users)[row]
        keep = (of_row >= 0) & np.isin(of_row * n_c + r_items, t_key)
        r_items, scores = r_items[keep], scores[keep]
        r_indptr = np.concatenate(([0], np.cumsum(np.bincount(row[keep], minlength=n_rows)))).astype(np.int64)
    truth = _rm.Truth.from_csr(t_indptr, t_items, grades, users=t_users)
    recs = _rm.Recs.from_csr(r_indptr, r_items, None if float32 else scores, users=r_users)
    return truth, recs


_TREC_COLUMNS: dict = {}  # rankmeter metric names -> the pass columns under trec_eval's conventions


def trec_columns(metrics: list) -> list:
    """The fused pass's columns of ``metrics`` under pytrec_eval's conventions, trec_eval 9.0.x's (what
    ``rm.evaluate(..., preset="trec_eval_9")`` runs), made once per list of names."""
    key = tuple(metrics)
    cols = _TREC_COLUMNS.get(key)
    if cols is None:
        from ..evaluation._evaluate import _parse_metrics
        from ..evaluation._presets import get_preset

        pre = get_preset("trec_eval_9")
        assert pre is not None
        _keys, parsed = _parse_metrics(list(metrics), pre.metric_options)
        if len(_TREC_COLUMNS) >= 1024:
            _TREC_COLUMNS.clear()
        cols = _TREC_COLUMNS[key] = [m._column() for m in parsed]
    return cols


def trec_one_call(
    qrels: Mapping,
    run: Mapping,
    metrics: list,
    min_relevance: float,
    *,
    columns: Optional[list] = None,
    by_input: bool = False,
) -> Optional[tuple]:
    """pytrec_eval's reading of two plain dicts of str documents in one C++ call: ``(values[metrics, users],
    run row of every user)`` for the queries of ``run`` with a non-empty qrels entry, in ``run``'s order (float32
    scores, equal scores by document id descending, grade >= ``min_relevance`` relevant, trec_eval's
    conventions); None for anything else (the caller's general path answers then). ``columns``: other columns than
    trec_eval's for ``metrics``; ``by_input``: ranked by the scores as given, equal scores in the dict's order."""
    from .._options import resolve_threads

    cols = trec_columns(metrics) if columns is None else columns
    return _core.trec_nested(
        qrels,
        run,
        cols,
        list(range(len(cols))),
        list(metrics),
        float(min_relevance),
        _core.EmptyPolicy.zero,
        _core.DupPolicy.error,
        resolve_threads(None),
        nested=False,
        by_input=by_input,
    )
