"""Engine-neutral work of one partition for :mod:`rankmeter.spark` and :mod:`rankmeter.dask`.

An engine task hands the Arrow data of its partition to :func:`partition_state`,
which builds ``Truth``/``Recs`` from it without a Python loop over users and
calls :func:`rankmeter.partial`; the task returns ``State.to_bytes()`` and the
driver merges the states with :meth:`rankmeter.State.merge_all` (users are
disjoint across partitions: one row per user in list form, a partitioning by
user in long form). Everything here is picklable (a :class:`Plan` travels in
the task's closure). pyarrow is imported inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional, Union

import numpy as np

from . import Recs, State, Truth
from . import metrics as _metrics
from .evaluation import CONTEXT, EvalOptions, evaluate_with, partial_with
from .inputs._frame import NO_RANK

__all__ = [
    "Plan",
    "partition_state",
    "partition_per_user",
    "stream_state",
    "stream_per_user",
    "merge_blobs",
    "COL_SIDE",
    "COL_USER",
    "COL_ITEM",
    "COL_POS",
    "COL_REL",
]

# column names of the long form after the engine's one grouping (a union of recs and truth rows)
COL_SIDE, COL_USER, COL_ITEM, COL_POS, COL_REL = "__rm_side", "__rm_user", "__rm_item", "__rm_pos", "__rm_rel"

# list form: a task's Arrow batches are evaluated in groups of about this many bytes (W1: ~37k users a group)
CHUNK_BYTES = 32 << 20


@dataclass
class Plan:
    """What every task needs: the form, the column names, the metrics, the evaluation options (without
    column names: the task's own tables name theirs) and the context of beyond-accuracy metrics."""

    form: str  # "lists" or "long"
    metrics: list
    user_col: str
    recs_col: str = "recs"
    truth_col: Optional[str] = "truth"
    scores_col: Optional[str] = None
    grades_col: Optional[str] = None  # list form: an array of grades beside the truth lists
    by: str = "rank"  # long form: "rank" or "score"
    item_col: str = "item_id"
    pos_col: str = "rank"  # long form: the rank or score column's name
    rel_col: str = "relevance"
    options: EvalOptions = field(default_factory=EvalOptions)
    context: dict = field(default_factory=dict)
    # list form: a task evaluates its Arrow batches in groups of about this many bytes (None: CHUNK_BYTES,
    # read when the plan is built, on the driver)
    chunk_bytes: Optional[int] = None
    # user_groups= (docs/fairness.md): a mapping, Series or activity buckets shipped to every task
    user_groups: Any = None

    def __post_init__(self) -> None:
        if self.chunk_bytes is None:
            self.chunk_bytes = CHUNK_BYTES


FORM_DEFAULTS = {
    "recs_col": "recs",
    "truth_col": "truth",
    "item_col": "item_id",
    "rank_col": "rank",
    "score_col": "score",
    "relevance_col": "relevance",
}
_LONG_ONLY = {
    "rank_col": "the lists of `recs_col` are read best first (sort them), or pass their scores as an array "
    "column with `scores_col=`",
    "score_col": "pass each list's scores as an array column beside it with `scores_col=`",
    "relevance_col": "pass the grades as a map column (item -> grade) in `truth_col`, or as an array column "
    "beside the truth items with `grades_col=`",
    "item_col": "it names the item column of `train`: pass it with a `train` frame",
}
_SIDES = {
    k: "one row per user holds the user once: name it with `user_col=`"
    if k.endswith("user_col")
    else "one row per user holds items in lists: name those with `recs_col=` / `truth_col=`"
    for k in ("truth_user_col", "truth_item_col", "recs_user_col", "recs_item_col")
}
_LONG_ONLY.update(_SIDES)
_LISTS_ONLY = {
    "recs_col": "in long form `df` holds one row per recommended item (`item_col` and `rank_col` or `score_col`)",
    "truth_col": "in long form the truth is the `truth=` frame (`item_col`, `relevance_col`)",
    "scores_col": "in long form name the score column of `df` with `score_col=`",
    "grades_col": "in long form name the grade column of `truth` with `relevance_col=`",
}


def form_columns(where: str, given: dict, long_form: bool, has_train: bool, truth_columns: Any = None) -> dict:
    """The column names of one engine call, each keyword checked against the form it is given with.

    ``given``: the caller's column keywords, ``None`` where not passed. A keyword of the other form is a
    ``TypeError`` naming it and what to pass instead (never silently unused): ``relevance_col=`` on one row
    per user would otherwise leave the grades out and score binary relevance. An explicit ``relevance_col``
    that the truth frame lacks is a ``ValueError``. Returns every name, defaults filled in."""
    wrong = _LISTS_ONLY if long_form else _LONG_ONLY
    for key, fix in wrong.items():
        value = given.get(key)
        if value is None or (key == "item_col" and has_train):
            continue
        if long_form:
            raise TypeError(
                f"{where}(): `{key}={value!r}` names a column of the one-row-per-user form (truth=None), "
                f"but `truth=` is given, so `df` is read as long rows: {fix}"
            )
        raise TypeError(
            f"{where}(): `{key}={value!r}` names a column of the long form (`truth=` a frame of rows), but "
            f"`truth` is None, so `df` is read as one row per user: {fix}"
        )
    rel = given.get("relevance_col")
    if long_form and rel is not None and truth_columns is not None and rel not in list(truth_columns):
        raise ValueError(
            f"{where}(): `relevance_col={rel!r}` is not a column of `truth` (its columns are "
            f"{', '.join(map(str, truth_columns))}); leave it out for binary relevance (every truth row relevant)"
        )
    out = {k: (v if v is not None else FORM_DEFAULTS.get(k)) for k, v in given.items()}
    for k, v in FORM_DEFAULTS.items():
        out.setdefault(k, v)
    if long_form:  # per-side names (truth_user_col= ...) win over the shared ones for their frame
        for side in ("truth", "recs"):
            for what in ("user_col", "item_col"):
                own = given.get(f"{side}_{what}")
                out[f"{side}_{what}"] = own if own is not None else out[what]
    return out


def check_metrics(metrics: Any) -> list:
    """The metric spellings as a list (parsed once on the driver, so a bad name fails before any job)."""
    ms = [metrics] if isinstance(metrics, (str, _metrics.Metric)) else list(metrics)
    if not ms:
        raise ValueError("`metrics` must name at least one metric")
    for m in ms:
        _metrics.parse(m)
    return ms


def check_options(options: Union[dict, EvalOptions], where: str = "evaluate") -> EvalOptions:
    """The options a task passes on: checked once on the driver (a keyword argument that is no option
    raises a ``TypeError`` naming it), without column names and context (the plan carries those), and
    one C++ thread per task unless ``threads`` says otherwise (the engine already runs one task per core)."""
    opts = options if isinstance(options, EvalOptions) else EvalOptions.from_kwargs(where, **options)
    cleared = dict.fromkeys((*opts.columns(), *CONTEXT))
    return opts.replace(**cleared, threads=1 if opts.threads is None else opts.threads)


def _as_array(col: Any) -> Any:
    import pyarrow as pa

    if isinstance(col, pa.ChunkedArray):
        return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return col


def _csr(col: Any, what: str, users: np.ndarray) -> tuple[np.ndarray, Any, Optional[Any]]:
    """indptr and the flat values (and map values) of a list or map column; null lists are empty."""
    import pyarrow as pa

    arr = _as_array(col)
    t = arr.type
    is_map = pa.types.is_map(t)
    if not (is_map or pa.types.is_list(t) or pa.types.is_large_list(t)):
        hint = ""
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            hint = (
                ": each row holds text, not a list. Dask turns columns of Python objects (lists) into strings "
                "when its `dataframe.convert-string` option is on (the default with pyarrow): build the frame "
                "under `dask.config.set({'dataframe.convert-string': False})`, or read the lists from parquet, "
                "where they keep a list type"
            )
        raise TypeError(f"`{what}` column must hold lists (or a map item -> grade), got Arrow type {t}{hint}")
    offs = arr.offsets.to_numpy().astype(np.int64, copy=False)
    n = len(arr)
    lens = np.diff(offs)
    if arr.null_count:
        lens = np.where(arr.is_valid().to_numpy(zero_copy_only=False), lens, 0)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    values = arr.keys if is_map else arr.values
    extra = arr.items if is_map else None
    if n and (indptr[-1] != offs[-1] - offs[0] or arr.null_count):
        # null slots with a length: gather the valid ranges
        starts = offs[:-1]
        idx = np.repeat(starts - indptr[:-1], lens) + np.arange(indptr[-1], dtype=np.int64)
        take = pa.array(idx)
        values = values.take(take)
        extra = None if extra is None else extra.take(take)
    else:
        lo, hi = (int(offs[0]), int(offs[-1])) if n else (0, 0)
        values = values.slice(lo, hi - lo)
        extra = None if extra is None else extra.slice(lo, hi - lo)
    if values.null_count:
        i = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
        row = int(np.searchsorted(indptr, i, side="right") - 1)
        user = users[row].item() if isinstance(users[row], np.generic) else users[row]
        raise ValueError(f"`{what}` of user {user!r} holds a null item; items must be non-null ids")
    return indptr, values, extra


def _np(values: Any) -> np.ndarray:
    import pyarrow as pa

    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_large_string(values.type) or pa.types.is_string_view(values.type):
        values = values.cast(pa.string())
    return values.to_numpy(zero_copy_only=False)


def _user_ids(table: Any, col: str) -> np.ndarray:
    arr = _as_array(table.column(col))
    if arr.null_count:
        raise ValueError(f"`{col}` (the user column) holds nulls; every row needs a user id")
    return _np(arr)


def _lists_inputs(table: Any, plan: Plan) -> tuple[Truth, Recs]:
    users = _user_ids(table, plan.user_col)
    ip, items, _ = _csr(table.column(plan.recs_col), plan.recs_col, users)
    scores = None
    if plan.scores_col is not None:
        sp, svals, _ = _csr(table.column(plan.scores_col), plan.scores_col, users)
        if not np.array_equal(sp, ip):
            raise ValueError(f"`{plan.scores_col}` lists must have the lengths of the `{plan.recs_col}` lists")
        scores = svals.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    recs = Recs.from_csr(ip, _np(items), scores, users=users, by_score=scores is not None)
    if plan.truth_col is None:
        raise ValueError("list form needs `truth_col` (a column of truth lists or maps) or `truth=` a frame")
    tp, titems, grades = _csr(table.column(plan.truth_col), plan.truth_col, users)
    if plan.grades_col is not None:
        if grades is not None:
            raise ValueError(
                f"`{plan.truth_col}` is a map (item -> grade) and `grades_col={plan.grades_col!r}` gives grades too; "
                "pass one of them"
            )
        gp, grades, _ = _csr(table.column(plan.grades_col), plan.grades_col, users)
        if not np.array_equal(gp, tp):
            bad = int(np.flatnonzero(np.diff(gp) != np.diff(tp))[0])
            user = users[bad].item() if isinstance(users[bad], np.generic) else users[bad]
            raise ValueError(
                f"`{plan.grades_col}` of user {user!r} has {int(gp[bad + 1] - gp[bad])} grades for "
                f"{int(tp[bad + 1] - tp[bad])} items in `{plan.truth_col}`: the grades array must have the items' length"
            )
    g = None if grades is None else grades.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    truth = Truth.from_csr(tp, _np(titems), g, users=users)
    return truth, recs


def _long_inputs(table: Any, plan: Plan) -> tuple[Any, Any]:
    """The recs rows and the truth rows of a partition, under the caller's column names (so a ``train``
    table with those names reads the same way)."""
    import pyarrow.compute as pc

    side = _as_array(table.column(COL_SIDE))
    recs = table.filter(pc.equal(side, 0)).select([COL_USER, COL_ITEM, COL_POS])
    truth = table.filter(pc.equal(side, 1)).select([COL_USER, COL_ITEM, COL_REL])
    recs = recs.rename_columns([plan.user_col, plan.item_col, plan.pos_col])
    truth = truth.rename_columns([plan.user_col, plan.item_col, plan.rel_col])
    return truth, recs


def _empty_inputs(plan: Plan) -> tuple[Truth, Recs]:
    e = np.zeros(1, dtype=np.int64)
    return Truth.from_csr(e, np.zeros(0, np.int64), users=[]), Recs.from_csr(e, np.zeros(0, np.int64), users=[])


def _inputs(table: Any, plan: Plan) -> tuple[Any, Any, dict]:
    """truth, recs and the column keywords for partial()/evaluate()."""
    if table is None or table.num_rows == 0:
        t, r = _empty_inputs(plan)
        return t, r, dict(user_col=plan.user_col, item_col=plan.item_col)
    if plan.form == "lists":
        t, r = _lists_inputs(table, plan)
        return t, r, dict(user_col=plan.user_col, item_col=plan.item_col)
    truth, recs = _long_inputs(table, plan)
    cols = dict(user_col=plan.user_col, item_col=plan.item_col, relevance_col=plan.rel_col)
    cols["rank_col" if plan.by == "rank" else "score_col"] = plan.pos_col
    if plan.by == "score":
        cols["rank_col"] = NO_RANK  # rank decides when both are there: make sure it is absent
    return truth, recs, cols


def partition_state(table: Any, plan: Plan) -> State:
    """The exact mergeable state of the users in one partition (an Arrow table, possibly empty)."""
    truth, recs, cols = _inputs(table, plan)
    return partial_with(
        truth, recs, plan.metrics, plan.options.replace(**plan.context, **cols), user_groups=plan.user_groups
    )


GROUP_COL = "group"  # the column of each user's group in rankmeter.spark.per_user(user_groups=...)


def _label_kind(labels: list) -> str:
    ints = all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in labels)
    return "int" if labels and ints else "str"


def group_label_kind(spec: Any) -> str:
    """``"int"`` when every group label of ``spec`` is an int, ``"str"`` otherwise (labels written as str)."""
    from .evaluation._groups import resolve_groups

    return _label_kind(resolve_groups(spec, np.zeros(0, dtype=np.int64))[0])


def _group_column(res: Any) -> Any:
    """Each evaluated user's group label as an Arrow array (labels indexed by the users' codes, no loop)."""
    import pyarrow as pa

    gs, codes = res._grouping
    labels = list(gs.groups)
    if _label_kind(labels) == "int":
        return pa.array(np.asarray(labels, dtype=np.int64)[codes])
    return pa.array(np.asarray([str(x) for x in labels], dtype=object)[codes].tolist(), type=pa.string())


def partition_per_user(table: Any, plan: Plan, names: list) -> Any:
    """A pyarrow table: the user column, the group column with ``plan.user_groups``, then one float64 column
    per metric (in ``names``)."""
    import pyarrow as pa

    truth, recs, cols = _inputs(table, plan)
    opts = plan.options.replace(**plan.context, **cols)
    res = evaluate_with(truth, recs, plan.metrics, opts, user_groups=plan.user_groups)
    users = res.users if res.users is not None else np.arange(len(res.per_user[plan.metrics[0]]))
    data = {plan.user_col: pa.array(np.asarray(users).tolist() if users.dtype == object else users)}
    if plan.user_groups is not None:
        data[GROUP_COL] = _group_column(res)
    for m, name in zip(plan.metrics, names):
        data[name] = pa.array(np.asarray(res.per_user[m], dtype=np.float64))
    return pa.table(data)


def chunks(batches: Iterable[Any], plan: Plan) -> Iterator[Any]:
    """The non-empty Arrow batches of a task as tables, in arrival order.

    List form (one row per user): consecutive batches grouped into tables of at
    least ``plan.chunk_bytes`` (the last one smaller), so a task never holds its whole
    partition and its memory stays small and reused. Long form: one table of the
    whole partition (a user's rows may sit in any of its batches).
    """
    import pyarrow as pa

    limit = plan.chunk_bytes if plan.chunk_bytes is not None else CHUNK_BYTES
    pending: list = []
    size = 0
    for b in batches:
        if b.num_rows == 0:
            continue
        pending.append(b)
        size += b.nbytes
        if plan.form == "lists" and size >= limit:
            yield pa.Table.from_batches(pending)
            pending, size = [], 0
    if pending:
        yield pa.Table.from_batches(pending)


def stream_state(batches: Iterable[Any], plan: Plan) -> Optional[State]:
    """The exact state of a task's Arrow batches, ``None`` when they hold no row.

    Each table of :func:`chunks` is evaluated by :func:`partition_state` in one
    helper thread while the calling thread reads the next batches from the engine
    (the C++ pass releases the GIL), at most two tables in flight; the chunk
    states are merged with :meth:`State.merge_all`. The sums being exact, the
    merged state is that of one call over the whole partition, bit for bit; a
    user in two rows of the partition raises the merge's ``ValueError`` naming it.
    """
    from concurrent.futures import Future, ThreadPoolExecutor

    states: list = []
    inflight: list[Future] = []
    with ThreadPoolExecutor(1, thread_name_prefix="rankmeter-task") as pool:
        try:
            for table in chunks(batches, plan):
                inflight.append(pool.submit(partition_state, table, plan))
                del table
                if len(inflight) > 1:
                    states.append(inflight.pop(0).result())
            states.extend(f.result() for f in inflight)
        finally:
            for f in inflight:
                f.cancel()
    if not states:
        return None
    if len(states) == 1:
        return states[0]
    if plan.user_groups is not None:  # user_groups=: the chunks' GroupedStates, merged group by group
        from .evaluation._groups import GroupedState

        return GroupedState.merge_all(states)
    return State.merge_all(states)


def stream_per_user(batches: Iterable[Any], plan: Plan, names: list) -> Iterator[Any]:
    """:func:`partition_per_user` over the tables of :func:`chunks`: Arrow record batches, in arrival order."""
    for table in chunks(batches, plan):
        yield from partition_per_user(table, plan, names).to_batches()


def merge_blobs(blobs: list, plan: Plan) -> State:
    """Merge the states emitted by the tasks (an empty state when no partition held a user)."""
    from .evaluation._groups import GroupedState

    if plan.user_groups is not None:
        grouped = [GroupedState.from_bytes(bytes(b)) for b in blobs if b is not None]
        return GroupedState.merge_all(grouped) if grouped else partition_state(None, plan)
    states = [State.from_bytes(bytes(b)) for b in blobs if b is not None]
    if not states:
        return partition_state(None, plan)
    return State.merge_all(states)
