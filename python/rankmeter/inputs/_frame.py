"""Long tables (pandas, polars, pyarrow, parquet) into :class:`Truth` / :class:`Recs`.

A table holds one row per (user, item): truth tables a user, an item and an
optional grade column; recs tables a user, an item and a rank or a score
column (rank decides when both are there; scores ride along). Columns are
taken as numpy arrays (zero-copy where the dtype allows); string id columns
are coded once by a hash kernel (Arrow's ``dictionary_encode``, a dictionary
or categorical column's own codes, or pandas' factorizer: see
``_ids.Coded``), so no Python object is made per row; users are grouped
in order of first appearance by hashing and a counting sort (C++, no
comparison sort of the rows), and nothing loops over
rows or users in Python. None of pandas, polars or pyarrow is imported unless
the input is of that kind.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Optional

import numpy as np

from .. import _core
from ._arrays import check_scores, sum_is_finite
from ._ids import Coded, as_id_array, code_arrow, code_object_column, factorize
from ._sources import csv_delimiter

__all__ = [
    "is_frame",
    "is_ranked_table",
    "frame_to_truth",
    "frame_to_recs",
    "read_parquet",
    "read_csv",
    "csv_options",
]

DEFAULTS = {
    "user_col": "user_id",
    "item_col": "item_id",
    "relevance_col": "relevance",
    "rank_col": "rank",
    "score_col": "score",
}


SIDE_KEYWORDS = {
    "truth_user_col": ("truth", "user_col"),
    "truth_item_col": ("truth", "item_col"),
    "recs_user_col": ("recs", "user_col"),
    "recs_item_col": ("recs", "item_col"),
}


def side_keywords(kw: dict, side: str) -> dict:
    """The column keywords of one table: ``truth_user_col=`` and the like become ``user_col=`` for their
    side (winning over the shared one) and are dropped for the other tables (``train`` keeps the shared)."""
    if not any(k in SIDE_KEYWORDS for k in kw):
        return kw
    out = {k: v for k, v in kw.items() if k not in SIDE_KEYWORDS}
    for key, (owner, shared) in SIDE_KEYWORDS.items():
        if owner == side and kw.get(key) is not None:
            out[shared] = kw[key]
    return out


NO_RANK = "__rm_no_rank"  # rank_col= of a caller that ranks by score although a rank column may be there


def resolve_columns(cols: list, kw: dict, used: Optional[set] = None) -> dict:
    """The column names of one table (its columns ``cols``) from evaluate()'s keywords.

    ``user_col=`` / ``item_col=`` name the column in each table that has it; a table without that
    column keeps its default name when it has the default column. The other keywords name a
    column of one kind of table (relevance: truth; rank, score: recs). ``used`` collects the keywords
    some table took (a keyword no table has is then an error of the caller)."""
    out = dict(DEFAULTS)
    for key, default in DEFAULTS.items():
        val = kw.get(key)
        if val is None:
            continue
        # the user and item columns are in every table: a table without the named one keeps its default
        if val in cols or key not in ("user_col", "item_col") or default not in cols:
            out[key] = val
            if used is not None and val in cols:
                used.add(key)
    return out


def _kind(x: Any) -> Optional[str]:
    mod = type(x).__module__.split(".")[0]
    if mod == "pandas" and hasattr(x, "columns"):
        return "pandas"
    if mod == "polars" and hasattr(x, "get_column") and hasattr(x, "columns"):  # a LazyFrame has no get_column
        return "polars"
    if mod == "pyarrow" and hasattr(x, "schema") and hasattr(x, "column"):
        return "pyarrow"
    return None


def collect_lazy(x: Any) -> Any:
    """A polars ``LazyFrame`` collected into a DataFrame (the tables rankmeter reads are in memory); anything
    else as it is."""
    if type(x).__name__ == "LazyFrame" and type(x).__module__.split(".")[0] == "polars":
        return x.collect()
    return x


def is_frame(x: Any) -> bool:
    return _kind(x) is not None


def is_ranked_table(x: Any, **kw: Any) -> bool:
    """True for a table with a rank or a score column (recs-like); False for other tables (truth-like)."""
    kw = _kw(kw)
    cols = _columns(x)
    return kw["rank_col"] in cols or kw["score_col"] in cols


def csv_options(path: str, block_rows: Optional[int] = None, id_cols: tuple = ("user_id", "item_id")):
    """pyarrow.csv (read, parse, convert) options: comma (tab for .tsv), the id columns read as text
    (ids stay strings, as in TREC files), blocks of about ``block_rows`` rows when streaming."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    delimiter = csv_delimiter(path)
    block = 1 << 20 if block_rows is None else max(1 << 16, min(block_rows * 32, 1 << 28))
    convert = pacsv.ConvertOptions(column_types={c: pa.string() for c in id_cols})
    return pacsv.ReadOptions(block_size=block), pacsv.ParseOptions(delimiter=delimiter), convert


def read_csv(path: Any, what: str = "recs", user_col: Optional[str] = None, item_col: Optional[str] = None):
    """A whole CSV/TSV file (optionally gzipped) as a pyarrow Table; malformed files are one-line ValueErrors
    naming the file. The user and item columns are read as text: ids stay strings, as in TREC files."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("reading CSV needs pyarrow: pip install pyarrow") from None
    path = os.fspath(path)
    read, parse, convert = csv_options(path, None, (user_col or "user_id", item_col or "item_id"))
    try:
        return pacsv.read_csv(path, read_options=read, parse_options=parse, convert_options=convert)
    except pa.ArrowException as e:
        raise ValueError(f"`{what}` {path}: {' '.join(str(e).split())}") from None


def read_parquet(path: Any, id_cols: tuple = ()):
    """A parquet file or directory as a pyarrow Table (pyarrow.dataset).

    String columns named in ``id_cols`` are read dictionary-encoded: the reader hands over
    the file's own dictionary pages and codes instead of one string per row, and the ids
    are then coded from those codes (see ``_ids.code_arrow``)."""
    try:
        import pyarrow.dataset
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("reading parquet needs pyarrow: pip install pyarrow") from None
    import pyarrow as pa

    try:
        dataset = parquet_dataset(path)
        names = set(id_cols)
        as_dict = [
            f.name
            for f in dataset.schema
            if f.name in names and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
        ]
        if as_dict:
            # the same files (footers checked above), read with the id columns dictionary-encoded
            fmt = pyarrow.dataset.ParquetFileFormat(
                read_options=pyarrow.dataset.ParquetReadOptions(dictionary_columns=as_dict)
            )
            dataset = pyarrow.dataset.dataset(dataset.files, format=fmt, filesystem=dataset.filesystem)
        return dataset.to_table()
    except (pa.ArrowException, OSError) as e:  # a truncated or corrupt file: one clear error naming it
        if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise
        raise ValueError(f"{os.fspath(path)}: not a readable parquet file ({' '.join(str(e).split())})") from None


def parquet_dataset(path: Any):
    """``pyarrow.dataset`` of a parquet file or directory whose files' footers were checked first
    (:func:`rankmeter.inputs._parquet_footer.check_footer`): a footer declaring more rows or bytes
    than its file can hold is a ValueError naming the file, before pyarrow allocates what it declares."""
    import pyarrow.dataset as ds

    from ._parquet_footer import check_footer

    dataset = ds.dataset(os.fspath(path), format="parquet")
    for name in dataset.files:
        with dataset.filesystem.open_input_file(name) as f:
            check_footer(lambda offset, n, f=f: f.read_at(n, offset), f.size(), name)  # pyarrow: (nbytes, offset)
    return dataset


def file_columns(path: Any, kind: str) -> list:
    """The column names of a parquet file/directory (its schema) or of a CSV/TSV file (its header line),
    read without reading the rows."""
    if kind == "parquet":
        import pyarrow as pa

        try:
            return list(parquet_dataset(path).schema.names)
        except (pa.ArrowException, OSError) as e:  # a truncated or corrupt file: one clear error naming it
            if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError)):
                raise
            raise ValueError(f"{os.fspath(path)}: not a readable parquet file ({' '.join(str(e).split())})") from None
    import csv

    from ._sources import open_binary

    with open_binary(path) as f:
        head = f.readline().decode("utf-8", "replace")
    return next(csv.reader([head.strip("\r\n")], delimiter=csv_delimiter(os.fspath(path))), [])


def _n_rows(x: Any) -> int:
    return int(x.num_rows) if _kind(x) == "pyarrow" else len(x)


def _columns(x: Any) -> list:
    k = _kind(x)
    if k == "pyarrow":
        return list(x.schema.names)
    return [str(c) for c in x.columns]


def _column(x: Any, name: str, what: str, ids: bool = False, fix: str = "") -> Any:
    """One column as a numpy array; nulls are an error naming the column and the first row.

    With ``ids``, a string column (Arrow string/large_string/string_view or dictionary of
    strings, polars String/Categorical/Enum, pandas string or categorical dtypes) comes back
    coded (:class:`Coded`) instead; an object column is coded by pandas' factorizer."""
    cols = _columns(x)
    if name not in cols:
        raise ValueError(
            f"`{what}` table has no column {name!r} (columns: {', '.join(map(repr, cols))}); "
            f"{fix or 'name it with ' + _keyword(name)}"
        )
    if cols.count(name) > 1:
        raise ValueError(f"`{what}` table has {cols.count(name)} columns named {name!r}; column names must be unique")
    k = _kind(x)
    # The null mask is only built when there is a null (or for pandas columns that can hold
    # one): a 100M-row column is not scanned twice.
    nulls = None
    if k == "pandas":
        s = x[name]
        if not (isinstance(s.dtype, np.dtype) and s.dtype.kind in "iub"):  # numpy ints cannot be null
            mask = s.isna().to_numpy()
            nulls = mask if mask.any() else None
        if ids and nulls is None:
            coded = _pandas_coded(s, what, name)
            if coded is not None:
                return coded
        if hasattr(s, "cat"):
            s = s.astype(object)
        arr = s.to_numpy()
    elif k == "polars":
        s = x.get_column(name)
        if s.null_count():
            nulls = s.is_null().to_numpy()
        if ids and nulls is None and str(s.dtype).startswith(("String", "Utf8", "Categorical", "Enum")):
            try:
                coded = code_arrow(s.to_arrow())
            except ImportError:  # polars' Arrow export needs pyarrow: the column as objects then
                coded = None
            if coded is not None:
                return coded
        if str(s.dtype).startswith(("Categorical", "Enum")):
            s = s.cast(str)
        arr = s.to_numpy()
    else:
        col = x.column(name)
        import pyarrow as pa
        import pyarrow.compute as pc

        try:
            if ids and not col.null_count:
                coded = code_arrow(col)
                if coded is not None:
                    return coded
            if isinstance(col, pa.ChunkedArray):
                col = col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
            if pa.types.is_dictionary(col.type):
                col = col.cast(col.type.value_type)
            if col.null_count:
                nulls = pc.is_null(col).to_numpy(zero_copy_only=False)
            arr = col.to_numpy(zero_copy_only=False)
        except pa.ArrowException as e:  # e.g. invalid UTF-8 in a corrupt file's string column
            raise ValueError(f"`{what}` column {name!r} cannot be read: {' '.join(str(e).split())}") from None
    if nulls is not None:
        row = int(np.argmax(nulls))
        raise ValueError(f"`{what}` column {name!r} has a null at row {row}; ids, grades, ranks and scores must be set")
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    return arr


def _pandas_coded(s: Any, what: str, name: str) -> Any:
    """A pandas id column coded without a Python object per row (None: not a string column).

    Categorical columns give their own codes (categories checked as ids); string dtypes
    (Arrow-backed or not) go through Arrow's hash kernel; object columns through pandas'
    factorizer, only the distinct values checked."""
    import pandas as pd

    dt = s.dtype
    try:
        if isinstance(dt, pd.CategoricalDtype):
            cats = _ids(s.cat.categories.to_numpy(), name, what)
            codes = s.cat.codes.to_numpy().astype(np.int64)
            if isinstance(cats, Coded):  # pragma: no cover - _ids returns arrays
                return None
            if cats.dtype == np.int64:
                return cats[codes]
            if not cats.size:
                return None
            # categories are distinct; unused ones are harmless
            return Coded(codes, cats if cats.dtype == object else cats.astype(object))
        if isinstance(dt, pd.StringDtype) or (isinstance(dt, pd.ArrowDtype) and "string" in str(dt)):
            import pyarrow as pa

            return code_arrow(pa.array(s))
        if isinstance(dt, np.dtype) and dt.kind == "O":
            return code_object_column(s.to_numpy(), f"{what} column {name!r}")
    except TypeError:
        raise TypeError(f"`{what}` column {name!r} must hold integer or string ids, got dtype {dt}") from None
    except ImportError:
        return None
    return None


def _keyword(name: str) -> str:
    for key, default in DEFAULTS.items():
        if default == name:
            return f"{key}="
    return "the *_col= keywords"


def _numeric(arr: np.ndarray, name: str, what: str, keep_float32: bool = False) -> np.ndarray:
    if arr.dtype.kind not in "iuf" or arr.dtype.kind == "b":
        raise TypeError(f"`{what}` column {name!r} must be numeric, got dtype {arr.dtype}")
    if keep_float32 and arr.dtype == np.float32:  # truth grades: read in place by the accuracy pass
        return np.ascontiguousarray(arr)
    return np.ascontiguousarray(arr, dtype=np.float64)


def _ids(arr: Any, name: str, what: str) -> Any:
    if isinstance(arr, Coded):
        return arr
    try:
        return as_id_array(arr, f"{what} column {name!r}")
    except TypeError:
        raise TypeError(f"`{what}` column {name!r} must hold integer or string ids, got dtype {arr.dtype}") from None


def _group(users: Any, rank: Optional[np.ndarray] = None):
    """Users in order of first appearance, the row order grouped by user (by rank within a
    user when ``rank`` is given, else in table order), the CSR indptr, and the first row with
    a bad rank (-1: none). Counting sort in C++: no comparison sort of the rows."""
    if isinstance(users, Coded) and users.first_seen:  # codes in order of first appearance already
        codes, labels = users.codes, users.labels
    elif isinstance(users, Coded):  # codes of a given dictionary: re-coded in order of first appearance
        codes, first_row = _core.factorize_int64(users.codes)
        labels = users.labels[users.codes[first_row]]
    else:
        codes, labels = factorize(users)
    indptr, order, bad = _core.group_rows(codes, labels.size, rank)
    return labels, order, indptr, int(bad)


def _user_of_row(users: Any, row: int):
    v = users.labels[users.codes[row]] if isinstance(users, Coded) else users[row]
    return v.item() if isinstance(v, np.generic) else v


def _fix(kw: dict, key: str, what: str) -> str:
    """How to name the column ``key`` of the table ``what``: the keyword of evaluate() and the constructor of
    that table."""
    cls = "Truth" if what in ("truth", "train") else "Recs"
    own = (
        f"{what}_{key}=... (this table only) or "
        if what in ("truth", "recs") and key in ("user_col", "item_col")
        else ""
    )
    return (
        f"name it with {key}= (it names the column in each table that has it), or, when the tables name it "
        f"differently, with {own}rankmeter.{cls}.from_frame(table, {key}=...)"
    )


def _kw(kw: dict) -> dict:
    out = dict(DEFAULTS)
    for key, val in kw.items():
        if key not in DEFAULTS:
            raise TypeError(f"unknown table keyword {key!r}; expected one of {', '.join(DEFAULTS)}")
        if val is not None:
            if not isinstance(val, str):
                raise TypeError(f"`{key}` must be a column name (str), got {val!r}")
            out[key] = val
    return out


def _check_finite(values: np.ndarray, name: str, what: str, users: Any, items: Any, noun: str) -> None:
    """Grades/scores must be finite: the message names the column, the table row, the user and the item.

    Vectorised; a finite sum (no temporary array) proves every value finite, so only a
    non-finite sum (which huge finite values can also give) pays for the mask.
    """
    if not values.size or sum_is_finite(values):
        return
    bad = np.flatnonzero(~np.isfinite(values))
    if not bad.size:
        return
    row = int(bad[0])
    raise ValueError(
        f"`{what}` column {name!r} has {values[row]} at row {row} (user {_user_of_row(users, row)!r}, item "
        f"{_user_of_row(items, row)!r}); {noun} must be finite"
    )


def _numeric_columns(x: Any, skip: tuple) -> list:
    """Names of the numeric (int or float, not bool) columns of a table, except ``skip``."""
    k = _kind(x)
    if k == "pandas":
        kinds = {str(c): getattr(t, "kind", "O") for c, t in x.dtypes.items()}
        names = [c for c, t in kinds.items() if t in "iuf"]
    elif k == "polars":
        names = [c for c, t in x.schema.items() if t.is_numeric()]
    else:
        import pyarrow as pa

        names = [
            f.name
            for f in x.schema
            if pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or pa.types.is_decimal(f.type)
        ]
    return [c for c in names if c not in skip]


def frame_to_truth(x: Any, what: str = "truth", **kw):
    """(indptr, items, grades or None, users, table row of every entry, item column name).

    A ``truth`` table without the relevance column is binary (grade 1 for every row);
    when it has other numeric columns (e.g. ``rating``) that is likely a mistake, so a
    ``UserWarning`` names them and ``relevance_col=``.
    """
    kw = _kw(kw)
    if _n_rows(x) == 0:  # no rows: no truth (pandas gives an empty table object columns)
        _column(x, kw["user_col"], what, fix=_fix(kw, "user_col", what))
        _column(x, kw["item_col"], what, fix=_fix(kw, "item_col", what))
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros(1, dtype=np.int64), empty, None, empty, empty, kw["item_col"]
    users = _ids(_column(x, kw["user_col"], what, ids=True, fix=_fix(kw, "user_col", what)), kw["user_col"], what)
    items = _ids(_column(x, kw["item_col"], what, ids=True, fix=_fix(kw, "item_col", what)), kw["item_col"], what)
    grades = None
    if kw["relevance_col"] in _columns(x):
        grades = _numeric(_column(x, kw["relevance_col"], what), kw["relevance_col"], what, keep_float32=True)
        _check_finite(grades, kw["relevance_col"], what, users, items, "grades")
    elif what == "truth":
        others = _numeric_columns(x, (kw["user_col"], kw["item_col"]))
        if others:
            warnings.warn(
                f"`{what}` table has no column {kw['relevance_col']!r}, so every row has grade 1 (binary "
                f"relevance), but it has numeric columns {', '.join(map(repr, others))}: pass "
                f"relevance_col={others[0]!r} to use one as the grade (or drop them to silence this warning)",
                UserWarning,
                stacklevel=2,
            )
    u, order, indptr, _ = _group(users)
    return indptr, _take(items, order), None if grades is None else grades[order], u, order, kw["item_col"]


def frame_to_recs(x: Any, what: str = "recs", **kw):
    """(indptr, items, scores or None, users, by_score): ranked by rank, else by score at evaluation."""
    kw = _kw(kw)
    cols = _columns(x)
    if _n_rows(x) == 0:  # no rows: no recommendations (pandas gives an empty table object columns)
        _column(x, kw["user_col"], what, fix=_fix(kw, "user_col", what))
        _column(x, kw["item_col"], what, fix=_fix(kw, "item_col", what))
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros(1, dtype=np.int64), empty, None, empty, False
    users = _ids(_column(x, kw["user_col"], what, ids=True, fix=_fix(kw, "user_col", what)), kw["user_col"], what)
    items = _ids(_column(x, kw["item_col"], what, ids=True, fix=_fix(kw, "item_col", what)), kw["item_col"], what)
    has_rank, has_score = kw["rank_col"] in cols, kw["score_col"] in cols
    if not (has_rank or has_score):
        raise ValueError(
            f"`{what}` table needs a rank column {kw['rank_col']!r} or a score column "
            f"{kw['score_col']!r} (columns: {', '.join(map(repr, cols))}); name them with rank_col= / "
            "score_col=, or pass rankmeter.Recs.from_frame(table, rank_col=... or score_col=...)"
        )
    scores = None
    if has_score:
        scores = _numeric(_column(x, kw["score_col"], what), kw["score_col"], what)
        _check_finite(scores, kw["score_col"], what, users, items, "scores")
    if has_rank:
        rank = _column(x, kw["rank_col"], what)
        if rank.dtype.kind not in "iu":
            if rank.dtype.kind == "f" and np.all(np.mod(rank, 1) == 0):
                rank = rank.astype(np.int64)
            else:
                raise TypeError(f"`{what}` column {kw['rank_col']!r} must hold integer ranks, got dtype {rank.dtype}")
        rank = np.ascontiguousarray(rank, dtype=np.int64)
        # each row goes to slot rank - 1 of its user: ranks must be exactly 1..n per user
        u, order, indptr, bad = _group(users, rank)
        if bad >= 0:
            ru = _user_of_row(users, bad)
            same = users.codes == users.codes[bad] if isinstance(users, Coded) else users == users[bad]
            n_rows = int(np.count_nonzero(same))
            k = int(rank[bad])
            why = f"outside 1..{n_rows}" if not 1 <= k <= n_rows else "a repeat"
            raise ValueError(
                f"`{what}` column {kw['rank_col']!r}: ranks of user {ru!r} must be 1..n without gaps or "
                f"repeats (n = {n_rows} rows); row {bad} has rank {k}, {why}"
            )
        return indptr, _take(items, order), None if scores is None else scores[order], u, False
    u, order, indptr, _ = _group(users)
    assert scores is not None  # a score column is there when there is no rank column
    s = scores[order]
    check_scores(s, indptr, u)
    return indptr, _take(items, order), s, u, True


def _take(items: Any, order: np.ndarray) -> Any:
    """The ids (or their codes) in ``order``."""
    return items.with_codes(items.codes[order]) if isinstance(items, Coded) else items[order]
