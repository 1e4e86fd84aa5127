"""Nested dicts ``{query: {doc: value}}`` -> rankmeter containers, in a few C-level passes.

The IR libraries take qrels and runs as nested dicts of strings. Converting
them once here (one dict lookup per document through ``map``, no per-query
Python branches) is what keeps the compat calls fast: documents get int64 codes
in the order of their ``str()`` (so ``ties="item_desc"`` on the codes is
trec_eval's docno-descending order), queries keep their ids.
"""

from __future__ import annotations

import itertools
from typing import Any, Mapping

import numpy as np

import rankmeter as _rm

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


def _codes(t_docs: list, r_docs: list) -> tuple[np.ndarray, np.ndarray]:
    """int64 codes of both document lists, numbered in the order of the documents' str()."""
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
    order = sorted(range(len(uniques)), key=lambda i: str(uniques[i]))
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[order] = np.arange(len(uniques), dtype=np.int64)
    coded = rank[codes]
    return coded[: len(t_docs)], coded[len(t_docs) :]


def to_containers(
    qrels: Mapping[Any, Mapping[Any, Any]],
    run: Mapping[Any, Mapping[Any, Any]],
    trec_ties: bool = True,
    by_score: bool = False,
) -> tuple[_rm.Truth, _rm.Recs]:
    """(Truth with grades, Recs ranked by score) with shared int64 document codes in str() order.

    The lists come back ranked: by score descending, equal scores by document id
    descending as strings (trec_eval) with ``trec_ties``, else in input order. One
    argsort of an int64 key (row, score rank, code) does it when the key fits.
    ``by_score=True``: the lists stay in input order, marked to be ranked by
    ``evaluate(ties=...)`` (e.g. ``ties="ranx"``).
    """
    t_indptr, t_docs, grades = _flat(qrels, "qrels")
    r_indptr, r_docs, scores = _flat(run, "run")
    t_items, r_items = _codes(t_docs, r_docs)
    t_users = np.array(list(qrels.keys()), dtype=object)
    r_users = np.array(list(run.keys()), dtype=object)
    n_rows = r_indptr.size - 1
    row = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(r_indptr))
    if scores.size and not np.isfinite(scores).all():
        raise TypeError("run scores must be finite numbers")
    if by_score:
        return (
            _rm.Truth.from_csr(t_indptr, t_items, grades, users=t_users),
            _rm.Recs.from_csr(r_indptr, r_items, scores, users=r_users, by_score=True),
        )
    if scores.size:
        uniq, s_rank = np.unique(scores, return_inverse=True)
        n_s = int(uniq.size)
        n_c = int(max(t_items.max(initial=-1), r_items.max(initial=-1))) + 1 if trec_ties else 1
        if n_rows * n_s * n_c < 2**62:
            key = (row * n_s + (n_s - 1 - s_rank.ravel())) * n_c
            if trec_ties:
                key += n_c - 1 - r_items
            order = np.argsort(key, kind="stable")
        else:  # pragma: no cover - astronomically many distinct scores and documents
            order = np.lexsort(((-r_items if trec_ties else np.zeros_like(r_items)), -scores, row))
        r_items, scores = r_items[order], scores[order]
    truth = _rm.Truth.from_csr(t_indptr, t_items, grades, users=t_users)
    recs = _rm.Recs.from_csr(r_indptr, r_items, scores, users=r_users)
    return truth, recs
