"""Inputs read in chunks of whole users: parquet datasets, CSV files, TREC runs and qrels.

The streaming evaluation (:mod:`rankmeter.stream`) reads inputs bigger than memory through
these: record batches of a parquet file or directory (``pyarrow.dataset``, little readahead) or
of a CSV file (``pyarrow.csv``'s streaming reader), cut into tables of *whole users* (the rows of
the last user of a batch carried over to the next); TREC files in chunks of whole lines that end
after the last complete query, parsed by the C++ TREC parser. Errors of pyarrow are one-line
ValueErrors naming the file; the TREC parser's name the file and the line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Optional

import numpy as np

from ._containers import Recs, Truth
from ._frame import csv_options, parquet_dataset
from ._sources import open_binary

__all__ = [
    "TREC_CHUNK",
    "BATCH_READAHEAD",
    "table_batches",
    "id_array",
    "whole_user_tables",
    "as_batches",
    "trec_chunks",
    "trec_last_query_start",
    "ranked_csr",
    "parse_run_chunks",
    "parse_qrels_chunks",
]

TREC_CHUNK = 64 << 20  # bytes of a TREC run read at once (before carry-over)
BATCH_READAHEAD = 2  # record batches pyarrow.dataset decodes ahead of the one being evaluated


def _arrow_error(path: str, e: Exception) -> ValueError:
    msg = " ".join(str(e).split())
    return ValueError(f"{path}: {msg}")


def table_batches(path: str, kind: str, batch_rows: int, columns: dict) -> tuple[Iterator[Any], Optional[int], str]:
    """(record batches, total rows or bytes, unit) of a parquet dataset or a CSV file."""
    import pyarrow as pa

    if kind == "parquet":
        try:
            dataset = parquet_dataset(path)  # footers checked: no allocation of what a corrupt footer declares
            names = set(dataset.schema.names)
            wanted = [c for c in columns.values() if c in names]
            total = dataset.count_rows()
        except (pa.ArrowException, OSError) as e:
            raise _arrow_error(path, e) from None

        def gen() -> Iterator[Any]:
            try:
                # little readahead: pyarrow's defaults (16 batches x 4 files) hold GBs of decoded rows
                yield from dataset.to_batches(
                    columns=wanted or None,
                    batch_size=batch_rows,
                    batch_readahead=BATCH_READAHEAD,
                    fragment_readahead=1,
                )
            except (pa.ArrowException, OSError) as e:
                raise _arrow_error(path, e) from None

        return gen(), total, "rows"
    import pyarrow.csv as pacsv

    read, parse, convert = csv_options(path, batch_rows, (columns["user_col"], columns["item_col"]))

    def gen_csv() -> Iterator[Any]:
        try:
            reader = pacsv.open_csv(path, read_options=read, parse_options=parse, convert_options=convert)
            yield from reader
        except pa.ArrowException as e:
            raise _arrow_error(path, e) from None

    return gen_csv(), None, "rows"


def _last_run_start(users: np.ndarray) -> int:
    """Index where the trailing run of the last user's rows starts."""
    differs = users[::-1] != users[-1]
    at = int(np.argmax(differs))
    return len(users) - at if differs[at] else 0


def id_array(col: Any) -> np.ndarray:
    import pyarrow as pa

    try:
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        arr = col.to_numpy(zero_copy_only=False)
    except pa.ArrowException as e:  # e.g. invalid UTF-8 in a corrupt file's string column
        raise ValueError(f"`recs` column cannot be read: {' '.join(str(e).split())}") from None
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    return arr


def whole_user_tables(batches: Iterable[Any], batch_rows: int, user_col: str, what: str) -> Iterator[tuple[Any, int]]:
    """pyarrow Tables of whole users (the last user of each batch carried over); (table, bytes or rows read)."""
    import pyarrow as pa

    pending: list = []
    n_pending = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        if user_col not in batch.schema.names:
            raise ValueError(
                f"`{what}` table has no column {user_col!r} (columns: {', '.join(map(repr, batch.schema.names))}); "
                "name it with user_col="
            )
        pending.append(batch)
        n_pending += batch.num_rows
        if n_pending < batch_rows:
            continue
        table = pa.Table.from_batches(pending)
        users = id_array(table.column(user_col))
        cut = _last_run_start(users)
        if cut == 0:  # one user fills everything so far: keep reading
            continue
        yield table.slice(0, cut), cut
        rest = table.slice(cut)
        pending, n_pending = rest.to_batches(), rest.num_rows
    if n_pending:
        yield pa.Table.from_batches(pending), n_pending


def as_batches(items: Iterable[Any], what: str = "recs") -> Iterator[Any]:
    for x in items:
        if hasattr(x, "to_batches"):
            yield from x.to_batches()
        elif hasattr(x, "schema") and hasattr(x, "num_rows"):
            yield x
        else:
            raise TypeError(f"`{what}` iterable must yield pyarrow RecordBatches or Tables, got {type(x).__name__}")


def trec_chunks(path: str) -> Iterator[tuple[bytes, int]]:
    """Chunks of whole lines of a TREC run, each ending after the last complete query run; (bytes, bytes read)."""
    carry = b""
    with open_binary(path) as f:
        while True:
            block = f.read(TREC_CHUNK)
            if not block:
                break
            data = carry + block
            end = data.rfind(b"\n") + 1
            if end == 0:
                carry = data
                continue
            cut = trec_last_query_start(data, end)
            if cut == 0:
                carry = data
                continue
            yield data[:cut], len(block)
            carry = data[cut:]
    if carry.strip():
        yield carry, 0


def _first_field(line: bytes) -> bytes:
    fields = line.split(None, 1)
    return fields[0] if fields else b""


def trec_last_query_start(data: bytes, end: int) -> int:
    """Byte offset of the first line of the trailing run of lines of the last complete line's query.

    Walks back line by line over that one query's lines only (bounded by one user's rows)."""
    start = data.rfind(b"\n", 0, end - 1) + 1
    query = _first_field(data[start:end])
    while start > 0:
        prev = data.rfind(b"\n", 0, start - 1) + 1
        q = _first_field(data[prev:start])
        if q and q != query:
            return start
        start = prev
    return 0


def ranked_csr(table: Any, names: dict) -> Optional[Recs]:
    """A batch already grouped by user and ordered by rank 1..n within each user, as CSR without any
    hashing or sorting (the common layout of ranked recommendations); None when it is not, and the
    general table reader (which groups, checks and reports errors) takes the batch."""
    cols = table.schema.names
    if names["rank_col"] not in cols or names["score_col"] in cols or names["item_col"] not in cols:
        return None
    users = id_array(table.column(names["user_col"]))
    if users.dtype.kind not in "iu" or not len(users):
        return None
    n = len(users)
    starts = np.flatnonzero(users[1:] != users[:-1]) + 1
    indptr = np.empty(starts.size + 2, dtype=np.int64)
    indptr[0], indptr[-1] = 0, n
    indptr[1:-1] = starts
    run_users = users[indptr[:-1]]
    if not (run_users[1:] > run_users[:-1]).all() and np.unique(run_users).size != run_users.size:
        return None  # a user in two runs: not grouped within the batch
    rank = table.column(names["rank_col"])
    rank = (rank.combine_chunks() if hasattr(rank, "combine_chunks") else rank).to_numpy(zero_copy_only=False)
    if rank.dtype.kind not in "iu":
        return None
    # ranks 1, 2, ... within every run: 1 at each run start, +1 from one row to the next inside a run
    if not (rank[indptr[:-1]] == 1).all():
        return None
    step = np.diff(rank)
    step[starts - 1] = 1  # across a run boundary anything goes
    if not (step == 1).all():
        return None
    items = id_array(table.column(names["item_col"]))
    if items.dtype.kind not in "iuO":
        return None
    return Recs.from_csr(indptr, items, users=run_users)


def parse_run_chunks(path: str) -> Iterator[tuple[Recs, int]]:
    """A TREC run in chunks of whole queries, each parsed into Recs ranked by score; (recs, bytes read)."""
    from ._trec import parse_run_bytes  # the C++ TREC parser, on bytes

    first_line = 1
    for data, advance in trec_chunks(path):
        users, indptr, docs, scores = parse_run_bytes(data, path, first_line)
        first_line += data.count(b"\n")
        yield Recs(indptr, docs, scores, users, by_score=True), advance


def parse_qrels_chunks(path: str) -> Iterator[Truth]:
    """TREC qrels in chunks of whole queries, each parsed into a Truth (queries in file order)."""
    from ._trec import _parse_data

    first_line = 1
    for data, _ in trec_chunks(path):
        users, indptr, docs, grades = _parse_data(
            data, path, 4, 4, 3, "a qrels line has 4 fields (query iter docno grade)", "grade", first_line
        )
        first_line += data.count(b"\n")
        yield Truth(indptr, docs, grades, users)
