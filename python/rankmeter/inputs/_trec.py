"""TREC qrels and run files.

qrels lines: ``query iteration docno grade``; run lines: ``query Q0 docno rank
score [runid ...]``. Query and document ids stay strings. trec_eval ignores the
rank column and orders each query's documents by score, so a run is returned
ranked by score (``ties=`` of :func:`rankmeter.evaluate` decides equal scores;
the ``trec_eval`` preset uses docno descending, as trec_eval does; the parser
codes the docnos in their string order, so that order is a comparison of
integers). Files ending
in ``.gz`` (or starting with the gzip magic bytes) are decompressed. Parsing
and grouping run in C++ (rankmeter/inputs.hpp); fields are split on ASCII
whitespace, as trec_eval splits them.
"""

from __future__ import annotations

import gzip
import os
import zlib
from typing import Optional, Union

from .. import _core
from .._status import is_ok, message
from ._ids import Coded, StringTable

__all__ = ["parse_qrels", "parse_run"]

PathLike = Union[str, "os.PathLike[str]"]


def _read_bytes(path: PathLike, what: str) -> bytes:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"`{what}` must be a path, got {type(path).__name__}")
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (EOFError, gzip.BadGzipFile, zlib.error) as e:
            raise ValueError(f"`path` {path}: corrupt gzip file ({e})") from None
    return data


def _parse(path: PathLike, n_min: int, n_max: Optional[int], value_field: int, layout: str, value_name: str):
    """(queries in first-appearance order, indptr, docnos grouped by query in file order, values).

    One C++ pass (rankmeter/inputs.hpp): UTF-8 check, whitespace split, numbers,
    grouping by query with a hash table and a counting sort; the docnos come as
    :class:`Coded` (codes in the docnos' string order, the distinct docnos sorted)."""
    return _parse_data(_read_bytes(path, "path"), path, n_min, n_max, value_field, layout, value_name)


def _parse_data(
    data: bytes,
    path: PathLike,
    n_min: int,
    n_max: Optional[int],
    value_field: int,
    layout: str,
    value_name: str,
    first_line: int = 1,
):
    users, indptr, codes, blob, offsets, values, err = _core.parse_trec(data, n_min, n_max or 0, value_field)
    code, line, n_fields, byte, token = err
    if not is_ok(code):
        raise ValueError(
            message(
                code,
                path=path,
                line=line + first_line - 1,
                layout=layout,
                n_fields=n_fields,
                value_name=value_name,
                token=token.decode("utf-8", "replace"),
                byte=byte,
            )
        )
    # docnos coded in C++ (codes in the docnos' string order); the distinct ones stay UTF-8 bytes
    # until something asks for them as Python str
    assert codes is not None and blob is not None and offsets is not None  # no error: the parse's outputs
    return users, indptr, Coded(codes, StringTable(blob, offsets), in_order=True), values


def parse_run_bytes(data: bytes, path: PathLike, first_line: int = 1):
    """:func:`parse_run` of a chunk of a run file already read (whole lines); error lines count from ``first_line``."""
    return _parse_data(
        data, path, 5, None, 4, "a run line has at least 5 fields (query Q0 docno rank score)", "score", first_line
    )


def parse_qrels(path: PathLike):
    """(queries, indptr, docnos, grades) of a TREC qrels file (``query iter docno grade``)."""
    return _parse(path, 4, 4, 3, "a qrels line has 4 fields (query iter docno grade)", "grade")


def parse_run(path: PathLike):
    """(queries, indptr, docnos, scores) of a TREC run file (``query Q0 docno rank score runid``)."""
    return _parse(path, 5, None, 4, "a run line has at least 5 fields (query Q0 docno rank score)", "score")
