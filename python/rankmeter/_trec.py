"""TREC qrels and run files.

qrels lines: ``query iteration docno grade``; run lines: ``query Q0 docno rank
score [runid ...]``. Query and document ids stay strings. trec_eval ignores the
rank column and orders each query's documents by score, so a run is returned
ranked by score (``ties=`` of :func:`rankmeter.evaluate` decides equal scores;
the ``trec_eval`` preset uses docno descending, as trec_eval does). Files ending
in ``.gz`` (or starting with the gzip magic bytes) are decompressed.
"""

from __future__ import annotations

import gzip
import math
import os
from typing import Union

import numpy as np

from ._convert import Recs, Truth

__all__ = ["read_trec_qrels", "read_trec_run"]

PathLike = Union[str, "os.PathLike[str]"]


def _read_text(path: PathLike, what: str) -> list[str]:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"`{what}` must be a path, got {type(path).__name__}")
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8", errors="strict") as f:  # type: ignore[operator]
        return f.read().splitlines()


def _group(queries: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Users in first-appearance order, and a stable order of rows grouped by user."""
    q = np.asarray(queries, dtype=str)
    uniq, first, inv = np.unique(q, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")  # unique ids in order of appearance
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(by_first.size)
    code = rank[inv]
    order = np.argsort(code, kind="stable")
    counts = np.bincount(code, minlength=uniq.size)
    indptr = np.zeros(uniq.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return uniq[by_first].astype(object), order, indptr


def read_trec_qrels(path: PathLike) -> Truth:
    """Read a TREC qrels file (``query iter docno grade``) into a :class:`Truth`."""
    qs, docs, grades = [], [], []
    for n, line in enumerate(_read_text(path, "path"), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4:
            raise ValueError(f"{path}: line {n}: a qrels line has 4 fields (query iter docno grade), got {len(parts)}")
        try:
            g = float(parts[3])
        except ValueError:
            raise ValueError(f"{path}: line {n}: grade {parts[3]!r} is not a number") from None
        if not math.isfinite(g):
            raise ValueError(f"{path}: line {n}: grade {parts[3]!r} must be finite")
        qs.append(parts[0])
        docs.append(parts[2])
        grades.append(g)
    users, order, indptr = _group(qs)
    items = np.asarray(docs, dtype=object)[order]
    return Truth.from_csr(indptr, items, np.asarray(grades, dtype=np.float64)[order], users=users)


def read_trec_run(path: PathLike) -> Recs:
    """Read a TREC run file (``query Q0 docno rank score runid``) into a :class:`Recs` ranked by score."""
    qs, docs, scores = [], [], []
    for n, line in enumerate(_read_text(path, "path"), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 5:
            raise ValueError(f"{path}: line {n}: a run line has at least 5 fields (query Q0 docno rank score), got {len(parts)}")
        try:
            s = float(parts[4])
        except ValueError:
            raise ValueError(f"{path}: line {n}: score {parts[4]!r} is not a number") from None
        if not math.isfinite(s):
            raise ValueError(f"{path}: line {n}: score {parts[4]!r} must be finite")
        qs.append(parts[0])
        docs.append(parts[2])
        scores.append(s)
    users, order, indptr = _group(qs)
    items = np.asarray(docs, dtype=object)[order]
    return Recs.from_csr(indptr, items, np.asarray(scores, dtype=np.float64)[order], users=users, by_score=True)
