"""Streaming evaluation of recommendations bigger than memory: :func:`evaluate_stream`.

The recommendations are read in record batches (parquet files or directories
through ``pyarrow.dataset``, CSV through ``pyarrow.csv``'s streaming reader,
TREC run files in chunks of lines), cut into batches of *whole users*, and each
batch is evaluated with :func:`rankmeter.evaluate` (``missing="skip"``: only the
batch's users) against the truth, which is loaded once. The exact states of the
batches merge (:meth:`rankmeter.State.merge_all`), so the means are bit for bit
those of one in-memory :func:`rankmeter.evaluate` call. Memory depends on
``batch_rows``, the truth and the number of users, not on the size of the run.

Rows of one user must be contiguous (the input *grouped* by user, e.g. sorted):
the rows of the last user of a batch are carried over to the next batch, so a
user split across record batches or files is evaluated once, whole. A user whose
rows appear again after its group ended is an error naming the user (never a
double count). Truth users without any recommendation are handled as
``missing=`` says, exactly as the in-memory path does (see "Evaluating in
pieces" in docs/metrics.md).

A truth too big for memory is streamed too (``stream_truth=True``, or ``"auto"`` for a large
truth file): both inputs sorted by user id, their batches of whole users are merge-joined on
the user id, range of users by range (each step uses up the pending batch of at least one
side, so memory depends on the batch sizes, not on either file). Each range is evaluated with
``missing=`` as asked: truth-only users are zero or skipped, recs-only users get an empty truth,
as in memory; a user out of order on either side is an error naming it (never a double count or
a dropped user).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import numpy as np

from ._aggregate import Means, State
from .evaluation import EvalOptions, evaluate_with
from .evaluation._groups import GroupedState, check_groups_spec
from .inputs import Recs, Truth, to_truth
from .inputs._chunks import (
    as_batches,
    id_array,
    parse_qrels_chunks,
    parse_run_chunks,
    ranked_csr,
    table_batches,
    whole_user_tables,
)
from .inputs._frame import read_csv as read_csv_table
from .inputs._frame import side_keywords
from .inputs._sources import classify, is_compressed, path_size
from .metrics import Metric

__all__ = ["evaluate_stream", "StreamResult", "read_csv_table"]

_MERGE_EVERY = 64  # states held before they are merged into one


@dataclass
class StreamResult:
    """What :func:`evaluate_stream` returns: the means, the counts and the merged exact state.

    ``res[name]`` is the mean of a metric (names as asked, aliases answered),
    ``res.meta`` the user counts of :attr:`rankmeter.Result.meta` plus
    ``n_rows`` and ``n_batches``, ``res.state`` the merged :class:`rankmeter.State`
    and ``res.per_user`` the parquet file written with ``per_user=path`` (else None).
    """

    means: Means
    meta: dict
    state: State
    per_user: Optional[str] = None
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def __getitem__(self, key: Any) -> float:
        return self.means[key]

    def keys(self) -> list:
        return list(self.means.keys())

    def by_group(self) -> Any:
        """Each group's exact means (``user_groups=``; docs/fairness.md): a pandas DataFrame."""
        if not isinstance(self.state, GroupedState):
            raise ValueError("this result has no groups: call evaluate_stream(..., user_groups=...)")
        return self.state.by_group()

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v:.6g}" for k, v in self.means.items())
        return f"StreamResult({body}; {self.meta['n_users']:,} users, {self.meta['n_rows']:,} rows)"


# ----------------------------------------------------------------- batches
def _distinct_users(users: np.ndarray) -> np.ndarray:
    """The distinct users of a batch: one per run of equal ids, then made unique (cheap: one per user)."""
    if not len(users):
        return users
    starts = np.flatnonzero(users[1:] != users[:-1]) + 1
    runs = users[np.concatenate(([0], starts))]
    return np.unique(runs)


# ----------------------------------------------------------------- truth lookup
def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


class _TruthIndex:
    """The truth, loaded once, with a sorted index of its users: the rows of a batch's users, vectorised."""

    def __init__(self, truth: Truth):
        self.t = truth
        users = truth.users if truth.users is not None else np.arange(truth.n_users, dtype=np.int64)
        self.users = np.asarray(users)
        self.str_ids = self.users.dtype.kind not in "iu"
        keys = self.users.astype(str) if self.str_ids else self.users.astype(np.int64)
        self.order = np.argsort(keys, kind="stable")
        self.sorted = keys[self.order]
        self.seen = np.zeros(truth.n_users, dtype=bool)

    def rows(self, batch_users: np.ndarray) -> np.ndarray:
        """Truth rows of the batch's (distinct) users that have a truth."""
        if not len(self.sorted) or not len(batch_users):
            return np.zeros(0, dtype=np.int64)
        if self.str_ids != (batch_users.dtype.kind not in "iu"):
            t_kind, r_kind = ("str", "int") if self.str_ids else ("int", "str")
            raise ValueError(
                f"`truth` and `recs` user ids are of different kinds, so none can match: `truth` has {t_kind} user "
                f"ids, e.g. {_plain(self.users[0])!r}, but `recs` has {r_kind} user ids, e.g. "
                f"{_plain(batch_users[0])!r}; convert one side (CSV ids are read as text)"
            )
        q = batch_users.astype(str) if self.str_ids else batch_users.astype(np.int64)
        pos = np.searchsorted(self.sorted, q)
        pos = np.minimum(pos, len(self.sorted) - 1)
        found = self.sorted[pos] == q
        return self.order[pos[found]]

    def subset(self, rows: np.ndarray) -> Truth:
        t = self.t
        starts, ends = t.indptr[rows], t.indptr[rows + 1]
        lens = ends - starts
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        # index of every entry of the chosen rows: start of its row + offset within it
        idx = np.repeat(starts - indptr[:-1], lens) + np.arange(indptr[-1], dtype=np.int64)
        grades = None if t.grades_native is None else t.grades_native[idx]
        return Truth(indptr, t.items[idx], grades, self.users[rows])


def _load_truth(truth: Any, columns: dict) -> Truth:
    if isinstance(truth, Truth):
        return truth
    cols = {k: v for k, v in columns.items() if k in ("user_col", "item_col", "relevance_col") and v is not None}
    if isinstance(truth, (str, os.PathLike)) and not os.path.exists(truth):
        raise ValueError(f"`truth` {os.fspath(truth)}: no such file or directory")
    # a path (parquet, CSV or TREC qrels: inputs._sources.classify) is read as rankmeter.evaluate reads it
    return to_truth(truth, **cols)


# ----------------------------------------------------------------- truth streamed alongside
TRUTH_IN_MEMORY_MAX = 1 << 30  # stream_truth="auto": a truth file/directory above this many bytes is streamed


def _csr_split(c: Any, bound: Any) -> tuple[Any, Any]:
    """(users <= bound, users > bound) of a Truth/Recs whose users are sorted: two CSR slices, no copy."""
    users = c.users
    k = int(np.searchsorted(users, bound, side="right"))
    if k == 0:
        return None, c
    if k == len(users):
        return c, None
    e = int(c.indptr[k])
    head_ptr, tail_ptr = c.indptr[: k + 1], c.indptr[k:] - e
    if isinstance(c, Truth):
        g = c.grades_native
        return (
            Truth(head_ptr, c.items[:e], None if g is None else g[:e], users[:k]),
            Truth(tail_ptr, c.items[e:], None if g is None else g[e:], users[k:]),
        )
    sc = c.scores
    return (
        Recs(head_ptr, c.items[:e], None if sc is None else sc[:e], users[:k], by_score=c.by_score),
        Recs(tail_ptr, c.items[e:], None if sc is None else sc[e:], users[k:], by_score=c.by_score),
    )


def _id_kind(users: np.ndarray) -> str:
    return "int" if users.dtype.kind in "iu" else "str"


class _SortedSide:
    """One input of the merge join: its chunks of whole users (Truth or Recs, users in file order), checked
    to come in ascending user order, the pending part of the last chunk, and how far it has got."""

    def __init__(self, chunks: Iterator[tuple[Any, int, int]], what: str, auto: bool):
        self.chunks, self.what, self.auto = chunks, what, auto
        self.part: Any = None
        self.last: Any = None  # the last user read so far
        self.done = False

    def _unsorted(self, user: Any, before: Any) -> ValueError:
        hint = (
            " (stream_truth='auto' streamed the truth because the file is large; stream_truth=False loads it "
            "in memory instead, where only the recs must be grouped)"
            if self.auto
            else ""
        )
        return ValueError(
            f"`{self.what}` is not sorted by user: user {_plain(user)!r} comes after user {_plain(before)!r}. "
            "Streaming the truth alongside the recs (a merge join) needs both sorted by user id, ascending "
            "(numbers by value, text by code point, e.g. `LC_ALL=C sort -k1,1 -s` for TREC files); sort it, "
            f"or load the truth in memory with stream_truth=False{hint}"
        )

    def fill(self) -> tuple[int, int]:
        """Read the next chunk when nothing is pending; (progress advance, rows) of what was read."""
        advance = rows = 0
        while self.part is None and not self.done:
            try:
                chunk, adv, n = next(self.chunks)
            except StopIteration:
                self.done = True
                break
            advance, rows = advance + adv, rows + n
            users = np.asarray(chunk.users)
            if not len(users):
                continue
            if users.dtype.kind in "US":
                users = users.astype(object)
                chunk.users = users
            down = np.flatnonzero(users[1:] <= users[:-1]) if len(users) > 1 else np.zeros(0, dtype=np.int64)
            if down.size:
                raise self._unsorted(users[down[0] + 1], users[down[0]])
            if self.last is not None:
                if _id_kind(users) != _id_kind(np.asarray([self.last])):
                    raise ValueError(f"`{self.what}` mixes int and str user ids across batches")
                if not users[0] > self.last:
                    raise self._unsorted(users[0], self.last)
            self.last = users[-1]
            self.part = chunk
        return advance, rows

    def take(self, bound: Any) -> Any:
        """The pending users <= bound (None if none); the rest stays pending."""
        if self.part is None:
            return None
        head, self.part = _csr_split(self.part, bound)
        return head


def _join_windows(truth: _SortedSide, recs: _SortedSide) -> Iterator[tuple[Any, Any, int, int]]:
    """(truth, recs, progress advance, recs rows) of consecutive user ranges: each range holds every row
    of its users on both sides (each side's chunks are whole users in ascending order), and each step
    uses up the pending chunk of at least one side, so both stay bounded by a batch."""
    checked = False
    while True:
        advance, rows = recs.fill()
        truth.fill()
        if truth.part is None and recs.part is None:
            if advance or rows:
                yield None, None, advance, rows
            return
        if not checked and truth.part is not None and recs.part is not None:
            t_kind, r_kind = _id_kind(np.asarray(truth.part.users)), _id_kind(np.asarray(recs.part.users))
            if t_kind != r_kind:
                raise ValueError(
                    f"`truth` and `recs` user ids are of different kinds, so none can match: `truth` has {t_kind} "
                    f"user ids, e.g. {_plain(truth.part.users[0])!r}, but `recs` has {r_kind} user ids, e.g. "
                    f"{_plain(recs.part.users[0])!r}; convert one side (CSV ids are read as text)"
                )
            checked = True
        if truth.part is None:
            bound = recs.part.users[-1]
        elif recs.part is None:
            bound = truth.part.users[-1]
        else:
            bound = min(truth.part.users[-1], recs.part.users[-1])
        n_before = 0 if recs.part is None else int(recs.part.indptr[-1])
        r_head = recs.take(bound)
        t_head = truth.take(bound)
        n_after = 0 if recs.part is None else int(recs.part.indptr[-1])
        yield t_head, r_head, advance, n_before - n_after


def _truth_chunks(truth: Any, names: dict, cols: dict, batch_rows: int) -> Iterator[tuple[Truth, int, int]]:
    """The truth in chunks of whole users (Truth objects, users in file order): a parquet file/directory,
    a CSV or TREC qrels file, or an iterable of pyarrow RecordBatches/Tables."""
    tcols = {k: v for k, v in cols.items() if k in ("user_col", "item_col", "relevance_col")}
    if isinstance(truth, (str, os.PathLike)):
        path = os.fspath(truth)
        kind = classify(path)
        if kind == "trec":
            for chunk in parse_qrels_chunks(path):
                yield chunk, 0, 0
            return
        batches, _, _ = table_batches(path, kind, batch_rows, names)
    else:
        batches = as_batches(truth, "truth")
    for table, _ in whole_user_tables(batches, batch_rows, names["user_col"], "truth"):
        yield Truth.from_frame(table, **tcols), 0, 0


def _recs_chunks(source: Iterator[tuple[Any, int]], names: dict, cols: dict) -> Iterator[tuple[Recs, int, int]]:
    """The recs batches of whole users as Recs (users in file order): (recs, progress advance, rows)."""
    rcols = {k: v for k, v in cols.items() if k in ("user_col", "item_col", "rank_col", "score_col")}
    for batch, advance in source:
        if isinstance(batch, Recs):
            yield batch, advance, int(batch.indptr[-1])
            continue
        fast = ranked_csr(batch, names)
        yield (fast if fast is not None else Recs.from_frame(batch, **rcols)), advance, batch.num_rows


def _wants_truth_stream(truth: Any, stream_truth: Any) -> tuple[bool, bool]:
    """(stream the truth?, was it chosen by "auto"?)"""
    if stream_truth is False:
        return False, False
    if stream_truth is True:
        if isinstance(truth, (str, os.PathLike)):
            return True, False
        if (
            isinstance(truth, Iterable)
            and not isinstance(truth, (dict, bytes, str, Truth))
            and not hasattr(truth, "schema")
        ):
            return True, False
        raise TypeError(
            "`stream_truth=True` needs the truth as a path (parquet file/directory, CSV, TREC qrels) or an "
            f"iterable of pyarrow RecordBatches/Tables; got {type(truth).__name__}"
        )
    if stream_truth != "auto":
        raise ValueError(f"`stream_truth` must be True, False or 'auto', got {stream_truth!r}")
    if isinstance(truth, (str, os.PathLike)) and os.path.exists(truth):
        return path_size(os.fspath(truth)) > TRUTH_IN_MEMORY_MAX, True
    return False, False


# ----------------------------------------------------------------- progress
class _Progress:
    """tqdm (else rich, else a plain line) on stderr when it is a terminal; rows/s, users/s, ETA."""

    def __init__(self, enabled: Optional[bool], total: Optional[int], unit: str):
        if enabled is None:
            enabled = bool(getattr(sys.stderr, "isatty", lambda: False)())
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.rows = self.users = self.done = 0
        self.total, self.unit = total, unit
        self.bar: Any = None
        self.kind = "plain"
        if not enabled:
            return
        try:
            from tqdm import tqdm

            try:
                width, height = os.get_terminal_size(sys.stderr.fileno())
            except (OSError, ValueError):
                width = height = 0
            self.bar = tqdm(
                total=total,
                unit=unit,
                unit_scale=unit == "B",
                file=sys.stderr,
                desc="rankmeter",
                leave=True,
                # a terminal that reports no size (a bare pseudo-terminal) still gets a bar
                ncols=width or 100,
                nrows=height or 24,
            )
            self.kind = "tqdm"
        except ImportError:
            self.kind = "plain"

    def update(self, advance: int, rows: int, users: int) -> None:
        self.rows += rows
        self.users += users
        self.done += advance
        if not self.enabled:
            return
        dt = max(time.perf_counter() - self.t0, 1e-9)
        rates = f"{self.rows / dt:,.0f} rows/s, {self.users / dt:,.0f} users/s"
        if self.bar is not None and self.unit == "rows":
            rates = f"{self.users / dt:,.0f} users/s"  # tqdm shows rows/s and the ETA itself
        if self.bar is not None:
            self.bar.update(advance)
            self.bar.set_postfix_str(rates, refresh=True)
            return
        eta = ""
        if self.total:
            left = max(self.total - self.done, 0) / max(self.done / dt, 1e-9)
            eta = f", ETA {left:,.0f} s ({100 * self.done / self.total:.0f}%)"
        sys.stderr.write(f"\rrankmeter: {self.rows:,} rows, {self.users:,} users, {rates}{eta}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.close()
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()


# ----------------------------------------------------------------- per-user output
class _PerUserSink:
    def __init__(self, target: Union[str, os.PathLike, Callable[[np.ndarray, dict], Any], None]):
        self.target = target
        self.writer: Any = None
        self.path: Optional[str] = None
        if isinstance(target, (str, os.PathLike)):
            self.path = os.fspath(target)

    def write(self, users: np.ndarray, values: dict) -> None:
        if self.target is None or not len(users):
            return
        if self.path is None:
            assert callable(self.target)
            self.target(users, values)
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrays = {"user_id": pa.array(users.tolist() if users.dtype == object else users)}
        arrays.update({k: pa.array(v, type=pa.float64()) for k, v in values.items()})
        table = pa.table(arrays)
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, table.schema)
        elif table.schema != self.writer.schema:
            table = table.cast(self.writer.schema)
        self.writer.write_table(table)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


# ----------------------------------------------------------------- the loop
class MaybeNotGrouped(ValueError):
    """A batch's rank error in a stream, whose usual cause is input not grouped by user (the command line then
    reads the run whole when streaming was its own choice)."""


def _rank_error_in_stream(e: ValueError) -> ValueError:
    """A batch's "ranks of user U must be 1..n" error, read in a stream: the usual cause there is input not
    sorted by user (the user's rows split over batches, each holding part of its ranks), so say that first."""
    msg = str(e)
    if "ranks of user" not in msg:
        return e
    return MaybeNotGrouped(
        f"{msg}. The input is read in batches of whole users: is it sorted (grouped) by user? A user whose rows "
        "are not contiguous has part of its ranks in one batch and the rest in another. Sort the input by user "
        "(e.g. with polars, duckdb or pyarrow), or evaluate it in memory with rankmeter.evaluate; if it is "
        "sorted, the ranks themselves have a gap or a repeat"
    )


def evaluate_stream(
    truth: Any,
    recs: Any,
    metrics: Any,
    *,
    batch_rows: int = 1_000_000,
    progress: Optional[bool] = None,
    per_user: Union[str, os.PathLike, Callable[[np.ndarray, dict], Any], None] = None,
    preset: Optional[str] = None,
    threads: Optional[int] = None,
    empty: Optional[str] = None,
    duplicates: Optional[str] = None,
    truth_duplicates: Optional[str] = None,
    ties: Union[str, Mapping[str, str], None] = None,
    min_relevance: Optional[float] = None,
    max_items: Optional[int] = None,
    missing: Optional[str] = None,
    recs_only: Optional[str] = None,
    stream_truth: Union[bool, str] = "auto",
    truth_batch_rows: Optional[int] = None,
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
    truth_user_col: Optional[str] = None,
    truth_item_col: Optional[str] = None,
    recs_user_col: Optional[str] = None,
    recs_item_col: Optional[str] = None,
    user_groups: Any = None,
    **context: Any,
) -> StreamResult:
    """Evaluate recommendations too big for memory, batch by batch of whole users, with exact means.

    Parameters
    ----------
    truth : any truth form of :func:`rankmeter.evaluate`, or a path
        A TREC qrels file, a parquet file/directory, a CSV (``.csv``/``.tsv``, optionally
        ``.gz``) file, a table, a dict or a :class:`rankmeter.Truth`: loaded once; or, with
        ``stream_truth``, a path or an iterable of pyarrow RecordBatches/Tables streamed
        alongside the recs.
    recs : path, or an iterable of pyarrow RecordBatches / Tables
        A parquet file or directory (read with ``pyarrow.dataset``, several files in
        order), a CSV file (``pyarrow.csv`` streaming reader) or a TREC run file (read in
        chunks of lines; ``.gz`` allowed). Rows of one user must be contiguous (grouped
        by user); a user split across record batches or files is carried over whole.
    metrics : str, Metric or list of them
        As for :func:`rankmeter.evaluate`.
    batch_rows : int
        Rows per evaluated batch (at least; a batch always holds whole users). Peak
        memory grows with it, not with the size of ``recs``.
    progress : bool, optional
        A progress bar on stderr (tqdm when installed, else a plain line) with rows/s,
        users/s and ETA. Default: on when stderr is a terminal; ``False`` silences it.
    per_user : path or callable, optional
        A parquet file written as batches finish (``user_id`` and one float64 column per
        metric with per-user values), or ``f(users, {name: values})`` called per batch.
        Truth users without recs (``missing="zero"``) come last.
    preset, threads, empty, duplicates, truth_duplicates, ties, min_relevance, max_items, missing, recs_only
        As for :func:`rankmeter.evaluate`; ``missing`` decides the truth users that no
        batch recommends to (default: the preset's, else ``"zero"``), exactly as the
        in-memory path does.
    stream_truth : bool or "auto"
        ``False``: the truth is loaded once (only the recs must be grouped by user).
        ``True``: the truth is read in batches too, in step with the recs (a merge join on
        the user id): both must then be *sorted* by user id, ascending (numbers by value,
        text by code point, as ``LC_ALL=C sort`` orders it), within and across files; a
        user out of order on either side is a ValueError naming it. Users only in the truth
        are handled as ``missing=`` says, users only in the recs get an empty truth
        (``empty=``), exactly as in memory; memory then depends on the batch sizes only.
        ``"auto"`` (default): ``True`` for a truth path bigger than
        ``rankmeter.stream.TRUTH_IN_MEMORY_MAX`` bytes on disk (1 GiB), else ``False``.
    truth_batch_rows : int, optional
        Rows per truth batch when the truth is streamed (default ``batch_rows``).
    user_col, item_col, relevance_col, rank_col, score_col : str, optional
        Column names of parquet/CSV tables (defaults ``user_id``, ``item_id``,
        ``relevance``, ``rank``, ``score``).
    user_groups : mapping, pandas Series or rankmeter.activity_groups(...), optional
        A group per user, as in :func:`rankmeter.evaluate` (not the name of a truth column: the
        truth is read in batches): every batch keeps one exact state per group, ``res.state``
        is then a ``GroupedState`` and ``res.by_group()`` each group's exact means (docs/fairness.md).
    **context
        ``train``, ``item_features``, ``item_similarity``, ``catalog`` for the
        beyond-accuracy metrics, passed to every batch.

    Returns
    -------
    StreamResult
        ``res[name]`` the means (bit-identical to :func:`rankmeter.evaluate` on the same
        data), ``res.meta`` (``n_users``, ``n_skipped``, ``n_missing_recs``,
        ``n_ignored_recs``, ``n_rows``, ``n_batches``, ``truth_streamed``), ``res.state``.

    Raises
    ------
    ValueError
        A user whose rows appear again after its group ended (the input is not grouped
        by user: sort it by user first), with a streamed truth a user out of ascending
        order in either input, a malformed file (the message names it), or anything
        :func:`rankmeter.evaluate` rejects.

    Examples
    --------
    >>> import rankmeter as rm
    >>> import pyarrow as pa
    >>> recs = [pa.record_batch({"user_id": [1, 1, 2], "item_id": [5, 6, 7], "rank": [1, 2, 1]})]
    >>> rm.evaluate_stream({1: {5: 1}, 2: {9: 1}}, recs, ["precision@1"], progress=False)["precision@1"]
    0.5
    """
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        raise ValueError(f"`batch_rows` must be a positive integer, got {batch_rows!r}")
    if truth_batch_rows is None:
        truth_batch_rows = batch_rows
    if isinstance(truth_batch_rows, bool) or not isinstance(truth_batch_rows, int) or truth_batch_rows < 1:
        raise ValueError(f"`truth_batch_rows` must be a positive integer, got {truth_batch_rows!r}")
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"`progress` must be True, False or None, got {progress!r}")
    # every evaluation option, checked once; the context (train, ...) comes in **context
    opts = EvalOptions.pick("evaluate_stream", locals(), **context)
    columns = opts.columns()
    given: dict[str, Any] = {k: v for k, v in columns.items() if v is not None}
    # per-side names (truth_user_col= ...): the recs batches read the recs side's, the truth the truth's
    cols = side_keywords(given, "recs")
    t_cols = side_keywords(given, "truth")
    defaults = dict(
        user_col="user_id", item_col="item_id", relevance_col="relevance", rank_col="rank", score_col="score"
    )
    names = {**defaults, **cols}
    t_names = {**defaults, **t_cols}
    # the truth users no batch recommends to: as `missing` says (the preset's default, else "zero")
    opts = opts.replace(missing=opts.resolved().missing)
    batch_opts = opts.replace(missing="skip")  # a batch of recs: only its users
    metric_list = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    t0 = time.perf_counter()
    streamed, auto = _wants_truth_stream(truth, stream_truth)
    if streamed and isinstance(truth, (str, os.PathLike)) and not os.path.exists(truth):
        raise ValueError(f"`truth` {os.fspath(truth)}: no such file or directory")
    index = None if streamed else _TruthIndex(_load_truth(truth, t_cols))

    # the batches of whole users: (recs of the batch, advance for the bar, rows)
    if isinstance(recs, (str, os.PathLike)):
        path = os.fspath(recs)
        if not os.path.exists(path):
            raise ValueError(f"`recs` {path}: no such file or directory")
        kind = classify(path)
        if kind == "trec":
            total: Optional[int] = None if is_compressed(path) else os.path.getsize(path)
            unit = "B"
            source: Iterator[tuple[Any, int]] = parse_run_chunks(path)
        else:
            batches, total, unit = table_batches(path, kind, batch_rows, names)
            source = whole_user_tables(batches, batch_rows, names["user_col"], "recs")
    elif isinstance(recs, Iterable) and not isinstance(recs, (dict, bytes)):
        total, unit = None, "rows"
        source = whole_user_tables(as_batches(recs), batch_rows, names["user_col"], "recs")
    else:
        raise TypeError(
            f"`recs` must be the path of a parquet file/directory, a CSV or a TREC run file, or an iterable of "
            f"pyarrow RecordBatches/Tables; got {type(recs).__name__} (use rankmeter.evaluate for in-memory data)"
        )

    if user_groups is not None:
        if isinstance(user_groups, str):
            raise TypeError(
                f"`user_groups={user_groups!r}` names a truth column, which evaluate_stream cannot read (its truth "
                "comes in batches): pass a mapping user -> group or a pandas Series"
            )
        check_groups_spec(user_groups)
    merge_all = GroupedState.merge_all if user_groups is not None else State.merge_all
    bar = _Progress(progress, total, unit)
    sink = _PerUserSink(per_user)
    states: list[State] = []
    merged: Optional[State] = None
    n_rows = n_batches = 0
    try:
        if index is None:
            # the truth streamed alongside: a merge join of the two sorted streams, range of users by range
            matched, seen_sides = False, [False, False]
            windows = _join_windows(
                _SortedSide(_truth_chunks(truth, t_names, t_cols, truth_batch_rows), "truth", auto),
                _SortedSide(_recs_chunks(source, names, cols), "recs", auto),
            )
            for t_part, r_part, advance, rows_here in windows:
                if t_part is None and r_part is None:
                    bar.update(advance, 0, 0)
                    continue
                pieces = [(t_part, r_part)]
                if t_part is not None and len(t_part.items):
                    seen_sides[0] = True
                if r_part is not None and len(r_part.items):
                    seen_sides[1] = True
                if t_part is None:
                    pieces = [(_empty_truth(r_part), r_part)]
                elif r_part is not None and not _any_common(t_part.users, r_part.users):
                    # no user on both sides (rm.evaluate calls that a mistake): the two sides one by one
                    pieces = [(t_part, None), (_empty_truth(r_part), r_part)]
                matched = matched or (len(pieces) == 1 and t_part is not None and r_part is not None)
                for t_piece, r_piece in pieces:
                    res = evaluate_with(
                        t_piece, {} if r_piece is None else r_piece, metric_list, opts, user_groups=user_groups
                    )
                    states.append(res.state)
                    _emit(sink, res, metric_list)
                n_rows += rows_here
                n_batches += r_part is not None
                n_users = 0 if r_part is None else len(r_part.users)
                bar.update(advance if unit == "B" else rows_here, rows_here, n_users)
                if len(states) >= _MERGE_EVERY:
                    merged = merge_all(([merged] if merged is not None else []) + states)
                    states = []
            if not matched and seen_sides[0] and seen_sides[1]:  # as rm.evaluate: surely a mistake
                raise ValueError(
                    "no `recs` user matches a `truth` user (the streamed truth and recs share no user id): "
                    "check that both sides use the same user ids"
                )
            if merged is None and not states:  # nothing on either side: the in-memory path's empty result
                res = evaluate_with(
                    Truth(np.zeros(1, np.int64), np.zeros(0, np.int64), None, np.zeros(0, np.int64)),
                    {},
                    metric_list,
                    opts,
                    user_groups=user_groups,
                )
                states.append(res.state)
        else:
            for batch, advance in source:
                rows_here = batch.num_rows if hasattr(batch, "num_rows") else int(batch.indptr[-1])
                try:
                    fast = None if isinstance(batch, Recs) else ranked_csr(batch, names)
                except ValueError as e:
                    raise _rank_error_in_stream(e) from None
                batch = batch if fast is None else fast
                if fast is not None:
                    batch_users = np.asarray(fast.users)  # distinct (checked by ranked_csr)
                elif isinstance(batch, Recs):
                    batch_users = np.unique(np.asarray(batch.users))
                else:
                    batch_users = _distinct_users(id_array(batch.column(names["user_col"])))
                rows = index.rows(batch_users)
                again = rows[index.seen[rows]]
                if again.size:
                    user = index.users[again[0]]
                    user = user.item() if isinstance(user, np.generic) else user
                    raise ValueError(
                        f"`recs` is not grouped by user: the rows of user {user!r} appear again after its group ended "
                        "(a user's rows must be contiguous); sort the input by user (e.g. with polars, duckdb or "
                        "pyarrow), or evaluate it in memory with rankmeter.evaluate"
                    )
                index.seen[rows] = True
                try:
                    res = evaluate_with(index.subset(rows), batch, metric_list, batch_opts, user_groups=user_groups)
                except ValueError as e:
                    raise _rank_error_in_stream(e) from None
                states.append(res.state)
                _emit(sink, res, metric_list)
                n_rows += rows_here
                n_batches += 1
                bar.update(advance if unit == "B" else rows_here, rows_here, len(batch_users))
                if len(states) >= _MERGE_EVERY:
                    merged = merge_all(([merged] if merged is not None else []) + states)
                    states = []
            # truth users no batch recommends to: as the in-memory path (missing="zero": empty lists; "skip": counted)
            rest = np.flatnonzero(~index.seen)
            if rest.size or (merged is None and not states):
                res = evaluate_with(index.subset(rest), {}, metric_list, opts, user_groups=user_groups)
                states.append(res.state)
                _emit(sink, res, metric_list)
        state = merge_all(([merged] if merged is not None else []) + states)
    except ValueError as e:
        if "more than one of the states" in str(e):  # the State's safety net: never a double count
            raise ValueError(f"`recs` is not grouped by user: {str(e).split(';')[0]}; sort it by user") from None
        raise
    finally:
        bar.close()
        sink.close()
    means = state.finalize()
    meta = dict(state.meta, n_rows=n_rows, n_batches=n_batches, truth_streamed=streamed)
    return StreamResult(means, meta, state, sink.path, time.perf_counter() - t0)


def _any_common(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two ascending arrays of distinct user ids share one."""
    if not len(a) or not len(b):
        return False
    pos = np.minimum(np.searchsorted(a, b), len(a) - 1)
    return bool((a[pos] == b).any())


def _empty_truth(recs: Recs) -> Truth:
    """A truth of no users, its ids of the kind of the recs' (the recs' users then have an empty truth)."""
    users = np.asarray(recs.users)
    return Truth(np.zeros(1, np.int64), np.asarray(recs.items)[:0], None, users[:0])


def _emit(sink: _PerUserSink, res: Any, metric_list: list) -> None:
    if sink.target is None:
        return
    values = {}
    for key in dict.fromkeys(str(m) for m in metric_list):
        try:
            values[key] = np.asarray(res.per_user[key], dtype=np.float64)
        except KeyError:  # catalog-level metrics: one value, no per-user values
            continue
    sink.write(np.asarray(res.users), values)
