"""Evaluation inside Spark (classic and Spark Connect), through Arrow partitions and exact state merges.

Only the DataFrame API is used (``mapInArrow``, ``select``, ``union``,
``repartition``, ``groupBy``, ``collect``): no ``df.rdd``, no SparkContext, no
broadcast variables, so the same call works on a classic session and on a Spark
Connect session (serverless and shared clusters). pyspark is imported inside the
functions; ``import rankmeter.spark`` does not need it.

What runs where:

- **executors** (one Python task per partition): the partition's Arrow batches
  are turned into ``Truth``/``Recs`` without a loop over users and evaluated by
  :func:`rankmeter.partial` (the C++ core); the task emits one row holding
  ``State.to_bytes()`` (exact sums, catalog histograms, user ids). In list form
  a task evaluates its batches in chunks of about 32 MB as they arrive, in a
  helper thread while it reads the next ones, and merges the chunk states: it
  never holds its whole partition, and the arithmetic overlaps Spark's Arrow
  conversion. In long form a task evaluates its whole partition at once.
- **driver**: collects those rows (one per non-empty partition) and merges
  them with :meth:`rankmeter.State.merge_all`, then ``finalize()``. Means are
  bit-identical to :func:`rankmeter.evaluate` on the same data, whatever the
  partitioning or the Arrow batch size (``spark.sql.execution.arrow.maxRecordsPerBatch``).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Optional, Union

from . import State
from . import metrics as _m
from ._aggregate import reads_catalog
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
    stream_per_user,
    stream_state,
)
from .evaluation import EvalOptions, context_needs
from .evaluation._groups import check_groups_spec

if TYPE_CHECKING:
    from ._aggregate import Means

__all__ = ["evaluate", "per_user"]


# the Arrow batches a job's tasks receive (spark.sql.execution.arrow.maxBytesPerBatch), see evaluate()
ARROW_BATCH_BYTES = 256 << 10
_MAX_BYTES_KEY = "spark.sql.execution.arrow.maxBytesPerBatch"


def _is_spark_frame(x: Any) -> bool:
    mod = type(x).__module__
    return mod.startswith("pyspark.sql") and hasattr(x, "mapInArrow")


def _check_columns(df: Any, names: list, what: str) -> None:
    have = set(df.columns)
    for n in names:
        if n is not None and n not in have:
            raise ValueError(f"`{what}` has no column {n!r}; its columns are {', '.join(df.columns)}")


def _long_frame(df: Any, truth: Any, cols: dict, partitions: Optional[int]) -> tuple[Any, str, str]:
    """recs rows and truth rows in one frame, partitioned by user (Spark's one shuffle)."""
    from pyspark.sql import functions as F

    user_col, item_col = cols.get("recs_user_col") or cols["user_col"], cols.get("recs_item_col") or cols["item_col"]
    t_user, t_item = cols.get("truth_user_col") or user_col, cols.get("truth_item_col") or item_col
    rank_col, score_col, rel_col = cols["rank_col"], cols["score_col"], cols["relevance_col"]
    if not _is_spark_frame(truth):
        raise TypeError(
            f"`truth` must be a Spark DataFrame of (user, item[, relevance]) rows, got {type(truth).__name__}"
        )
    if rank_col is not None and rank_col in df.columns:
        by, pos = "rank", rank_col
    elif score_col is not None and score_col in df.columns:
        by, pos = "score", score_col
    else:
        raise ValueError(
            f"`df` needs a rank column ({rank_col!r}) or a score column ({score_col!r}) in long form; "
            f"its columns are {', '.join(df.columns)}"
        )
    _check_columns(df, [user_col, item_col], "df")
    _check_columns(truth, [t_user, t_item], "truth")
    ut, it = df.schema[user_col].dataType, df.schema[item_col].dataType
    pt = df.schema[pos].dataType
    graded = rel_col is not None and rel_col in truth.columns
    rt = truth.schema[rel_col].dataType if graded else None
    recs_part = df.select(
        F.lit(0).cast("byte").alias(COL_SIDE),
        F.col(user_col).alias(COL_USER),
        F.col(item_col).alias(COL_ITEM),
        F.col(pos).alias(COL_POS),
        (F.lit(None).cast(rt) if rt is not None else F.lit(None).cast("double")).alias(COL_REL),
    )
    truth_part = truth.select(
        F.lit(1).cast("byte").alias(COL_SIDE),
        F.col(t_user).cast(ut).alias(COL_USER),
        F.col(t_item).cast(it).alias(COL_ITEM),
        F.lit(None).cast(pt).alias(COL_POS),
        (F.col(rel_col) if graded else F.lit(1.0)).alias(COL_REL),
    )
    both = recs_part.unionByName(truth_part)
    both = both.repartition(partitions, COL_USER) if partitions else both.repartition(COL_USER)
    return both, by, pos


def _train_context(train: Any, metrics: list, context: dict, options: EvalOptions) -> dict:
    """train as a Spark frame: reduced by Spark to the catalog when only the catalog of coverage/gini
    reads it, else collected (the metric table says which metrics read what)."""
    if not _is_spark_frame(train):
        context["train"] = train
        return context
    pre = options.preset_spec  # a preset may set what a metric reads (rectools: diversity by co-occurrence)
    parsed = [_m.parse(m, pre.metric_options if pre is not None else None) for m in metrics]
    user_col, item_col = options.user_col, options.item_col
    _check_columns(train, [item_col], "train")
    if any("train" in context_needs(m) for m in parsed):
        # popularity and histories are read: the (user, item) rows travel in the task closure
        _check_columns(train, [user_col, item_col], "train")
        context["train"] = train.select(user_col, item_col).toArrow()
    elif any(reads_catalog(m) for m in parsed) and context.get("catalog") is None:
        # only the set of train items is read (the default catalog): Spark computes it, one row per item
        context["catalog"] = train.select(item_col).distinct().toArrow().column(0).to_numpy(zero_copy_only=False)
    return context


def _plan_and_frame(
    df, metrics, truth, cols, options: EvalOptions, partitions, where: str = "rankmeter.spark.evaluate"
) -> tuple[Plan, Any]:
    if not _is_spark_frame(df):
        raise TypeError(f"`df` must be a pyspark DataFrame (classic or Spark Connect), got {type(df).__name__}")
    ms = check_metrics(metrics)
    cols = form_columns(
        where, cols, truth is not None, options.train is not None, truth.columns if _is_spark_frame(truth) else None
    )
    options = options.replace(user_col=cols["user_col"], item_col=cols["item_col"])
    opts = check_options(options)
    context = options.context()
    ctx = {k: v for k, v in context.items() if v is not None and k != "train"}
    if context.get("train") is not None:
        ctx = _train_context(context["train"], ms, ctx, options)
    if truth is None:
        names = [cols["user_col"], cols["recs_col"], cols["truth_col"], cols["scores_col"], cols["grades_col"]]
        _check_columns(df, names, "df")
        keep = [c for c in names if c]
        plan = Plan(
            "lists",
            ms,
            cols["user_col"],
            cols["recs_col"],
            cols["truth_col"],
            cols["scores_col"],
            grades_col=cols["grades_col"],
            options=opts,
            context=ctx,
            item_col=cols["item_col"],
        )
        frame = df.select(*keep)
        if partitions:
            frame = frame.repartition(partitions)
        return plan, frame
    frame, by, pos = _long_frame(df, truth, cols, partitions)
    plan = Plan(
        "long",
        ms,
        cols["user_col"],
        by=by,
        options=opts,
        context=ctx,
        item_col=cols["item_col"],
        pos_col=pos,
        rel_col=cols["relevance_col"],
    )
    return plan, frame


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
    arrow_batch_bytes: Optional[int] = ARROW_BATCH_BYTES,
    user_groups: Any = None,
    **options: Any,
) -> Union[Means, State]:
    """Evaluate recommendations held in a Spark DataFrame; the means of :func:`rankmeter.evaluate`, bit for bit.

    Two input forms:

    - **lists** (``truth=None``, the fast path: no shuffle): one row per user with
      ``user_col``, ``recs_col`` (``array<item>``, best first) and ``truth_col``
      (``array<item>``, grade 1, or ``map<item, double>``, item -> grade; or the items
      with their grades in ``grades_col``, an ``array<double>`` of the same lengths);
      with ``scores_col`` (``array<double>``, same lengths) each list is ranked by score.
      Defaults: ``recs_col="recs"``, ``truth_col="truth"``.
      A user must appear in one row only (a user in two rows raises ``ValueError``).
    - **long** (``truth=`` a Spark DataFrame of ``user_col, item_col[, relevance_col]`` rows):
      ``df`` holds ``user_col, item_col`` and ``rank_col`` (1 = best) or
      ``score_col`` rows (defaults ``item_id``, ``rank``, ``score``, ``relevance``; a truth
      without the relevance column is binary). Spark groups the rows of both frames by user once (a
      ``union`` and a ``repartition`` by user, ``partitions`` of them), so a
      user's rows may start in any partitions.

    A column keyword of the other form is a ``TypeError`` naming what to pass instead
    (``relevance_col=`` on one row per user: ``grades_col=``), never silently unused;
    ``item_col`` applies to a ``train`` frame in both forms.

    Every partition becomes one ``mapInArrow`` task on an executor emitting
    one exact state (in list form its Arrow batches go through
    ``rankmeter.partial`` in chunks of about 32 MB as they arrive, merged in the
    task); the driver merges the states. The other keyword arguments
    (``preset``, ``empty``, ``duplicates``, ``ties``, ``min_relevance``,
    ``max_items``, ``missing``, ``threads``) are the options of
    :func:`rankmeter.evaluate` (:class:`rankmeter.evaluation.EvalOptions`), checked
    on the driver before any job; ``threads`` (of the C++ pass inside each task)
    defaults to 1, as the engine runs one task per core.

    ``arrow_batch_bytes`` (default 256 KiB): for the duration of the job, the
    session's ``spark.sql.execution.arrow.maxBytesPerBatch`` is set to it (and
    restored after), so the JVM hands the tasks Arrow batches that stay in the
    CPU caches (a batch ends at whichever of that and ``maxRecordsPerBatch``
    comes first). With W1's 100-item lists this measured about 10% faster than
    Spark's default of 10,000 rows a batch (about 8 MB); ``None`` leaves the
    session's settings alone. Other jobs on the same session while this one runs
    see the setting too.

    Context of beyond-accuracy metrics: ``train`` may be a Spark DataFrame of
    (``user_col``, ``item_col``) rows. When only ``coverage``/``gini`` need it,
    Spark reduces it to its distinct items (the default catalog) and only those
    reach the driver; otherwise (``novelty``, ``arp``, ``serendipity``, ...) its
    two columns are collected once and travel to the tasks inside the
    ``mapInArrow`` closure (no broadcast variable, so it works on Connect): keep
    such a train small enough for the driver. ``item_features``,
    ``item_similarity`` and ``catalog`` are local objects shipped the same way.

    ``user_groups`` (a mapping user -> group, a pandas Series or ``rm.activity_groups(...)``, shipped to
    every task with the plan; docs/fairness.md): every task keeps one exact state per group; with
    ``state=True`` the merged ``GroupedState``'s ``by_group()`` equals ``rm.evaluate(...).by_group()``.

    Returns
    -------
    Means
        ``State.finalize()`` of the merged state: a dict of means keyed by the
        names as asked that answers to aliases and canonical names (like a
        ``Result``), with ``.meta`` (``n_users``, ``n_skipped``, ...). With
        ``state=True`` the merged :class:`rankmeter.State` itself.

    Examples
    --------
    >>> import rankmeter.spark  # doctest: +SKIP
    >>> df = spark.createDataFrame([(1, [5, 6, 7], [5, 7])], "user_id long, recs array<long>, truth array<long>")  # doctest: +SKIP
    >>> rankmeter.spark.evaluate(df, ["ndcg@10", "precision@2"])["precision@2"]  # doctest: +SKIP
    0.5
    """
    if arrow_batch_bytes is not None and (
        isinstance(arrow_batch_bytes, bool)
        or not isinstance(arrow_batch_bytes, int)
        or not 0 < arrow_batch_bytes < 2**31 - 1
    ):
        raise ValueError(f"`arrow_batch_bytes` must be None or an int in [1, 2^31 - 2], got {arrow_batch_bytes!r}")
    _check_user_groups(user_groups)
    opts = EvalOptions.pick("rankmeter.spark.evaluate", locals(), **options)
    cols = dict(opts.columns(), recs_col=recs_col, truth_col=truth_col, scores_col=scores_col, grades_col=grades_col)
    plan, frame = _plan_and_frame(df, metrics, truth, cols, opts, partitions)
    plan.user_groups = user_groups  # docs/fairness.md: shipped to every task with the plan

    def task(batches):
        import pyarrow as pa

        st = stream_state(batches, plan)
        if st is not None:
            yield pa.RecordBatch.from_pydict({"state": [st.to_bytes()]}, schema=pa.schema([("state", pa.binary())]))

    try:
        with _arrow_batches(frame, arrow_batch_bytes):
            rows = frame.mapInArrow(task, "state binary").collect()
    except Exception as e:  # a task's ValueError/TypeError arrives wrapped in a pyspark exception
        _reraise(e)
        raise
    merged = merge_blobs([r[0] for r in rows], plan)
    return merged if state else merged.finalize()


def _check_user_groups(user_groups: Any) -> None:
    if user_groups is None:
        return
    if isinstance(user_groups, str):
        raise TypeError(
            f"`user_groups={user_groups!r}` names a truth column, which rankmeter.spark cannot read: pass a "
            "mapping user -> group or a pandas Series"
        )
    check_groups_spec(user_groups)


def per_user(
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
    user_groups: Any = None,
    **options: Any,
) -> Any:
    """Per-user values as a (lazy) Spark DataFrame: ``user_col`` then one double column per metric.

    With ``user_groups`` (a mapping user -> group, a pandas Series or ``rm.activity_groups(...)``, shipped to
    every task), a column ``group`` follows the user column: the user's group (string labels as strings,
    int labels as longs, any other labels as their ``str``); a user without a group is an error, as in
    :func:`rankmeter.evaluate` (docs/fairness.md).

    Same arguments as :func:`evaluate`; the columns are named as the metrics
    were asked (``"ndcg@10"``: use backticks in Spark SQL). Catalog-level
    metrics (coverage, gini, personalization, score_entropy) have no per-user
    value and raise ``ValueError``. Users follow the partitions' order.
    """
    from pyspark.sql.types import DoubleType, StructField, StructType

    _check_user_groups(user_groups)
    opts = EvalOptions.pick("rankmeter.spark.per_user", locals(), **options)
    if opts.catalog is not None:
        raise TypeError(
            "rankmeter.spark.per_user() takes no `catalog`: only catalog-level metrics (coverage, gini) read it, "
            "and they have no per-user values; use rankmeter.spark.evaluate"
        )
    cols = dict(opts.columns(), recs_col=recs_col, truth_col=truth_col, scores_col=scores_col, grades_col=grades_col)
    plan, frame = _plan_and_frame(df, metrics, truth, cols, opts, partitions, "rankmeter.spark.per_user")
    catalog_level = [m for m in plan.metrics if _m.parse(m).family == "catalog"]
    if catalog_level:
        raise ValueError(f"`metrics`: {', '.join(map(str, catalog_level))} have no per-user values (catalog-level)")
    names = [str(m) for m in plan.metrics]
    user_type = df.schema[opts.recs_user_col or user_col].dataType  # long form: df's own user column
    fields = [StructField(plan.user_col, user_type)]
    if user_groups is not None:
        from pyspark.sql.types import LongType, StringType

        from ._partitions import GROUP_COL, group_label_kind

        if GROUP_COL in (plan.user_col, *names):
            raise ValueError(f"`user_groups` adds a column {GROUP_COL!r}, which the user column already is: rename it")
        plan.user_groups = user_groups
        kind = group_label_kind(user_groups)
        fields.append(StructField(GROUP_COL, LongType() if kind == "int" else StringType()))
    schema = StructType(fields + [StructField(n, DoubleType()) for n in names])

    def task(batches):
        yield from stream_per_user(batches, plan, names)

    return frame.mapInArrow(task, schema)


@contextmanager
def _arrow_batches(frame: Any, nbytes: Optional[int]) -> Iterator[None]:
    """The session's Arrow batch byte limit set to ``nbytes`` inside the block, restored after."""
    if nbytes is None:
        yield
        return
    conf = frame.sparkSession.conf
    prev = conf.get(_MAX_BYTES_KEY, None)
    conf.set(_MAX_BYTES_KEY, str(nbytes))
    try:
        yield
    finally:
        if prev is None:
            conf.unset(_MAX_BYTES_KEY)
        else:
            conf.set(_MAX_BYTES_KEY, prev)


def _reraise(e: Exception) -> None:
    """Raise the ValueError/TypeError a task raised (named in the Python worker's traceback) as itself."""
    import re

    if not type(e).__module__.startswith("pyspark"):
        return
    found = re.findall(r"^(ValueError|TypeError): (.*)$", str(e), re.M)
    if found:
        kind, msg = found[-1]
        raise (ValueError if kind == "ValueError" else TypeError)(msg) from e
