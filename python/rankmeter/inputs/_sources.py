"""What a path holds, decided in one place: parquet, CSV or TREC text.

The rules, by name only (the file is not opened): a directory is a parquet dataset, a
name ending in ``.parquet`` a parquet file, a name ending in ``.csv``, ``.tsv``,
``.csv.gz`` or ``.tsv.gz`` (any case) a CSV file (tab-separated for ``.tsv``), and
anything else a TREC text file (qrels and run files have no fixed suffix: ``qrels.txt``,
``run1``, ``results.test``; a TREC file read in chunks or for its run id is gunzipped when
its name ends in ``.gz``). The in-memory readers (:func:`rankmeter.inputs.to_truth`,
:func:`rankmeter.inputs.to_recs`), the streaming readers (:mod:`rankmeter.stream`) and the
``rankmeter`` command all classify paths with :func:`classify`.
"""

from __future__ import annotations

import gzip
import io
import os
from typing import Any, Literal, Union

__all__ = ["classify", "is_compressed", "csv_delimiter", "open_binary", "path_size"]

Kind = Literal["parquet", "csv", "trec"]
PathLike = Union[str, "os.PathLike[str]"]

CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz")
TSV_SUFFIXES = (".tsv", ".tsv.gz")


def _fspath(path: Any, what: str) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"`{what}` must be a path (str or os.PathLike), got {type(path).__name__}")
    return os.fspath(path)


def classify(path: PathLike, what: str = "path") -> Kind:
    """``"parquet"`` (a directory or a ``.parquet`` file), ``"csv"`` (``.csv``/``.tsv``, optionally
    ``.gz``, any case) or ``"trec"`` (anything else), by the name alone; ``what`` names the argument
    in the TypeError raised for something that is not a path."""
    p = _fspath(path, what)
    if os.path.isdir(p) or p.endswith(".parquet"):
        return "parquet"
    if p.lower().endswith(CSV_SUFFIXES):
        return "csv"
    return "trec"


def is_compressed(path: PathLike) -> bool:
    """Whether a TREC file read in chunks (or for its run id) is gunzipped: its name ends in ``.gz``."""
    return os.fspath(path).endswith(".gz")


def csv_delimiter(path: PathLike) -> str:
    """A tab for ``.tsv``/``.tsv.gz`` (any case), else a comma."""
    return "\t" if os.fspath(path).lower().endswith(TSV_SUFFIXES) else ","


def open_binary(path: PathLike) -> Union[gzip.GzipFile, io.BufferedReader]:
    """A TREC file opened for reading bytes, gunzipped when :func:`is_compressed`."""
    if is_compressed(path):
        return gzip.open(path, "rb")
    return open(path, "rb")


def path_size(path: PathLike) -> int:
    """Bytes on disk of a file, or of every file under a directory."""
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
    return os.path.getsize(path)
