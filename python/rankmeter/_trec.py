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
from typing import Optional, Union

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
    try:
        with opener(path, "rt", encoding="utf-8", errors="strict") as f:  # type: ignore[operator]
            return f.read().splitlines()
    except UnicodeDecodeError as e:
        raise ValueError(f"`path` {path}: not UTF-8 text (byte {e.start}: {e.reason})") from None
    except (EOFError, gzip.BadGzipFile) as e:
        raise ValueError(f"`path` {path}: corrupt gzip file ({e})") from None


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


def _read_records(path: PathLike, n_min: int, n_max: Optional[int], value_field: int, layout: str,
                  value_name: str) -> tuple[list[str], list[str], np.ndarray]:
    """Query ids (field 0), docnos (field 2) and the finite number in `value_field` of every line."""
    qs, docs, values = [], [], []
    for n, line in enumerate(_read_text(path, "path"), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < n_min or (n_max is not None and len(parts) > n_max):
            raise ValueError(f"{path}: line {n}: {layout}, got {len(parts)}")
        try:
            v = float(parts[value_field])
        except ValueError:
            raise ValueError(f"{path}: line {n}: {value_name} {parts[value_field]!r} is not a number") from None
        if not math.isfinite(v):
            raise ValueError(f"{path}: line {n}: {value_name} {parts[value_field]!r} must be finite")
        qs.append(parts[0])
        docs.append(parts[2])
        values.append(v)
    return qs, docs, np.asarray(values, dtype=np.float64)


def read_trec_qrels(path: PathLike) -> Truth:
    """Read a TREC qrels file (``query iter docno grade``) into a :class:`Truth`."""
    qs, docs, grades = _read_records(path, 4, 4, 3, "a qrels line has 4 fields (query iter docno grade)", "grade")
    users, order, indptr = _group(qs)
    return Truth.from_csr(indptr, np.asarray(docs, dtype=object)[order], grades[order], users=users)


def read_trec_run(path: PathLike) -> Recs:
    """Read a TREC run file (``query Q0 docno rank score runid``) into a :class:`Recs` ranked by score."""
    qs, docs, scores = _read_records(path, 5, None, 4, "a run line has at least 5 fields (query Q0 docno rank score)", "score")
    users, order, indptr = _group(qs)
    return Recs.from_csr(indptr, np.asarray(docs, dtype=object)[order], scores[order], users=users, by_score=True)
