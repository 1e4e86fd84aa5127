"""Evaluation inside Dask: ``map_partitions`` over (pyarrow-backed) frames and exact state merges.

The same semantics as :mod:`rankmeter.spark`: every partition becomes one
:func:`rankmeter.partial` call in a Dask task, which returns ``State.to_bytes()``;
the client merges the states with :meth:`rankmeter.State.merge_all`. Means are
bit-identical to :func:`rankmeter.evaluate` whatever the partitioning. dask is
imported inside the functions (``import dask`` there is the real library: the
package's imports are absolute).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

from . import State
from ._partitions import (
    COL_ITEM,
    COL_POS,
    COL_REL,
    COL_SIDE,
    COL_USER,
    Plan,
    check_metrics,
    check_options,
    form_columns,
    merge_blobs,
    partition_state,
)
from .evaluation import EvalOptions
from .evaluation._groups import check_groups_spec

if TYPE_CHECKING:
    from ._aggregate import Means

__all__ = ["evaluate"]


def _is_dask_frame(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "dask" and hasattr(x, "map_partitions")


def _check_columns(df: Any, names: list, what: str) -> None:
    have = list(df.columns)
    for n in names:
        if n is not None and n not in have:
            raise ValueError(f"`{what}` has no column {n!r}; its columns are {', '.join(map(str, have))}")


def _to_arrow(pdf: Any) -> Any:
    import pyarrow as pa

    return pa.Table.from_pandas(pdf, preserve_index=False)


def _long_frame(df: Any, truth: Any, cols: dict, partitions: Optional[int]) -> tuple[Any, str, str]:
    import dask.dataframe as dd

    user_col, item_col = cols.get("recs_user_col") or cols["user_col"], cols.get("recs_item_col") or cols["item_col"]
    t_user, t_item = cols.get("truth_user_col") or user_col, cols.get("truth_item_col") or item_col
    rank_col, score_col, rel_col = cols["rank_col"], cols["score_col"], cols["relevance_col"]
    if not _is_dask_frame(truth):
        raise TypeError(
            f"`truth` must be a Dask DataFrame of (user, item[, relevance]) rows, got {type(truth).__name__}"
        )
    if rank_col is not None and rank_col in df.columns:
        by, pos = "rank", rank_col
    elif score_col is not None and score_col in df.columns:
        by, pos = "score", score_col
    else:
        raise ValueError(
            f"`df` needs a rank column ({rank_col!r}) or a score column ({score_col!r}) in long form; "
            f"its columns are {', '.join(map(str, df.columns))}"
        )
    _check_columns(df, [user_col, item_col], "df")
    _check_columns(truth, [t_user, t_item], "truth")
    graded = rel_col is not None and rel_col in truth.columns
    r = df[[user_col, item_col, pos]].rename(columns={user_col: COL_USER, item_col: COL_ITEM, pos: COL_POS})
    r = r.assign(**{COL_SIDE: 0, COL_REL: float("nan")})
    t = truth[[t_user, t_item] + ([rel_col] if graded else [])].rename(
        columns={t_user: COL_USER, t_item: COL_ITEM, **({rel_col: COL_REL} if graded else {})}
    )
    t = (
        t.assign(**{COL_SIDE: 1, COL_POS: float("nan")})
        if graded
        else t.assign(**{COL_SIDE: 1, COL_POS: float("nan"), COL_REL: 1.0})
    )
    t = t.astype({COL_REL: "float64"})
    r = r.astype({COL_POS: "float64"})
    both = dd.concat(
        [r[[COL_SIDE, COL_USER, COL_ITEM, COL_POS, COL_REL]], t[[COL_SIDE, COL_USER, COL_ITEM, COL_POS, COL_REL]]]
    )
    # Dask's one grouping: every row of a user lands in the same output partition
    both = both.shuffle(COL_USER, npartitions=partitions) if partitions else both.shuffle(COL_USER)
    return both, by, pos


def evaluate(
    df: Any,
    metrics: Any,
    *,
    truth: Any = None,
    user_col: str = "user_id",
    recs_col: Optional[str] = None,
    truth_col: Optional[str] = None,
    scores_col: Optional[str] = None,
    grades_col: Optional[str] = None,
    item_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    truth_user_col: Optional[str] = None,
    truth_item_col: Optional[str] = None,
    recs_user_col: Optional[str] = None,
    recs_item_col: Optional[str] = None,
    train: Any = None,
    item_features: Any = None,
    item_similarity: Any = None,
    catalog: Any = None,
    subtopics: Any = None,
    costs: Any = None,
    tail_items: Any = None,
    item_categories: Any = None,
    propensity: Any = None,
    item_groups: Any = None,
    partitions: Optional[int] = None,
    state: bool = False,
    user_groups: Any = None,
    **options: Any,
) -> Union[Means, State]:
    """Evaluate recommendations held in a Dask DataFrame; the means of :func:`rankmeter.evaluate`, bit for bit.

    The arguments and the two forms are those of :func:`rankmeter.spark.evaluate`:
    list columns (one row per user; use pyarrow-backed columns,
    ``pd.ArrowDtype(pa.list_(pa.int64()))``, for zero-copy lists; object columns of
    Python lists work too, slower) or long rows of ``df`` plus ``truth=`` a Dask
    frame, grouped by user with one ``shuffle``. ``partitions`` repartitions
    first. ``threads`` (of the C++ pass in each task) defaults to 1. ``train`` may be a Dask DataFrame (computed to the client once and
    shipped to the tasks in the graph) or any form :func:`rankmeter.evaluate`
    takes. Returns ``State.finalize()`` (``Means`` with ``.meta``), or the
    merged ``State`` with ``state=True``.

    ``user_groups`` (a mapping user -> group, a pandas Series or ``rm.activity_groups(...)``, shipped to
    every task; docs/fairness.md): every task keeps one exact state per group; with ``state=True`` the
    merged ``GroupedState``'s ``by_group()`` equals ``rm.evaluate(...).by_group()`` bit for bit.
    """
    import pandas as pd

    if not _is_dask_frame(df):
        raise TypeError(f"`df` must be a dask DataFrame, got {type(df).__name__}")
    ms = check_metrics(metrics)
    cols = form_columns(
        "rankmeter.dask.evaluate",
        dict(
            user_col=user_col,
            recs_col=recs_col,
            truth_col=truth_col,
            scores_col=scores_col,
            grades_col=grades_col,
            item_col=item_col,
            rank_col=rank_col,
            score_col=score_col,
            relevance_col=relevance_col,
            truth_user_col=truth_user_col,
            truth_item_col=truth_item_col,
            recs_user_col=recs_user_col,
            recs_item_col=recs_item_col,
        ),
        truth is not None,
        train is not None,
        truth.columns if _is_dask_frame(truth) else None,
    )
    recs_col, truth_col, grades_col, item_col = (
        cols["recs_col"],
        cols["truth_col"],
        cols["grades_col"],
        cols["item_col"],
    )
    rank_col, score_col, relevance_col = cols["rank_col"], cols["score_col"], cols["relevance_col"]
    if user_groups is not None:
        if isinstance(user_groups, str):
            raise TypeError(
                f"`user_groups={user_groups!r}` names a truth column, which rankmeter.dask cannot read: pass a "
                "mapping user -> group or a pandas Series"
            )
        check_groups_spec(user_groups)
    given = EvalOptions.pick("rankmeter.dask.evaluate", locals(), **options)
    opts = check_options(given)
    ctx = {k: v for k, v in given.context().items() if v is not None and k != "train"}
    if train is not None:
        if _is_dask_frame(train):
            _check_columns(train, [user_col, item_col], "train")
            train = _to_arrow(train[[user_col, item_col]].compute())
        ctx["train"] = train
    if truth is None:
        keep = [c for c in (user_col, recs_col, truth_col, scores_col, grades_col) if c]
        _check_columns(df, keep, "df")
        plan = Plan(
            "lists",
            ms,
            user_col,
            recs_col,
            truth_col,
            scores_col,
            grades_col=grades_col,
            options=opts,
            context=ctx,
            item_col=item_col,
            user_groups=user_groups,
        )
        frame = df[keep]
        if partitions:
            frame = frame.repartition(npartitions=partitions)
    else:
        frame, by, pos = _long_frame(df, truth, given.columns(), partitions)
        plan = Plan(
            "long",
            ms,
            user_col,
            by=by,
            options=opts,
            context=ctx,
            item_col=item_col,
            pos_col=pos,
            rel_col=relevance_col,
            user_groups=user_groups,
        )

    def task(pdf: Any) -> Any:
        if len(pdf) == 0:
            return pd.DataFrame({"state": pd.Series([], dtype=object)})
        st = partition_state(_to_arrow(pdf), plan)
        return pd.DataFrame({"state": pd.Series([st.to_bytes()], dtype=object)})

    meta = pd.DataFrame({"state": pd.Series([], dtype=object)})
    out = frame.map_partitions(task, meta=meta).compute()
    merged = merge_blobs(list(out["state"]), plan)
    return merged if state else merged.finalize()
