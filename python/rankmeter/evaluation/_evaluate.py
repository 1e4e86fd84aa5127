"""``evaluate`` / ``partial``: validate, convert to buffers, one C++ pass, aggregate."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from typing import Any, Iterable, Optional, Union

import numpy as np

from .. import _core
from .._aggregate import State, limbs_to_int
from .._options import resolve_threads
from ..inputs import (
    RANX_TIES,
    Recs,
    Truth,
    add_recs_only_users,
    align,
    all_finite,
    check_id_kinds,
    count_tied_users,
    factorize_items,
    label_rank,
    list_lengths,
    padded_to_csr,
    ranx_order,
    score_order,
    subset_users,
    tie_key,
    to_recs,
    to_truth,
)
from ..inputs._align import item_after_pad
from ..inputs._containers import combine_truth_duplicates, walk_objects
from ..inputs._torch_order import TORCH_TIES, float32_scores, torch_order
from ..metrics import Metric, parse
from ._accuracy import accuracy_pass, count_no_relevant
from ._beyond import Context, check_context, run_beyond
from ._calibration import check_item_categories
from ._capri import apply_capri_ndcg, check_capri_options
from ._costs import check_costs
from ._evidently import apply_evidently, check_evidently_options, check_evidently_ties, uses_evidently
from ._exposure import check_item_groups
from ._gdeval import apply_gdeval_rounding
from ._groups import check_groups_spec, grouped_state, resolve_groups
from ._options import EvalOptions
from ._propensity import check_known, check_propensity
from ._result import Result
from ._tie_groups import combine, tie_groups
from ._ties import AVERAGE_TIES, TIE_AVERAGED, apply_tie_average, apply_tie_last, check_tie_last

__all__ = ["evaluate", "partial", "evaluate_with", "partial_with", "Result"]

MetricsArg = Union[str, Metric, Iterable[Union[str, Metric]]]


def _parse_metrics(metrics: MetricsArg, preset_options) -> tuple[list[str], list[Metric]]:
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise TypeError(f"`metrics` must be a metric name, a Metric or a list of them, got {type(metrics).__name__}")
    keys, parsed = [], []
    for m in metrics:
        keys.append(m if isinstance(m, str) else str(m))
        parsed.append(parse(m, preset_options))  # str names are parsed once per process (metrics.parse)
    if not parsed:
        raise ValueError("`metrics` is empty: name at least one metric, e.g. ['ndcg@10']")
    return keys, parsed


# --------------------------------------------------------------------------- plan
class _Plan:
    """Everything the C++ pass needs, validated."""

    keys: list[str]  # metric names as asked
    metrics: list[Metric]  # parsed, one per key
    columns: list[Metric]  # deduplicated by canonical name
    key_to_col: dict[str, int]
    canon_to_col: dict[str, int]
    users: np.ndarray  # the evaluated users' ids
    truth: Truth
    recs: Recs
    rowmap: Optional[np.ndarray]  # recs row of every truth user (-1: none; None: identity)
    labels: Optional[np.ndarray]  # item id of every code (None: ids are codes)
    t_items: np.ndarray
    r_items: np.ndarray
    r_indptr: Optional[np.ndarray]  # None: padded 2-D recs
    meta: dict[str, int]
    min_relevance: Optional[float]
    empty: str
    duplicates: str  # the duplicates= policy
    max_items: Optional[int]
    ctx: Context
    b_indptr: Optional[np.ndarray]  # the ordered lists as CSR of raw ids, for the beyond kernels
    b_items: Optional[np.ndarray]  # (or, b_indptr None, a padded int64 2-D array with b_lens per row)
    b_lens: Optional[np.ndarray]
    b_scores: Optional[np.ndarray]
    preset: Optional[str]  # the preset's name (None: no preset)
    tie_scores: Optional[np.ndarray]  # ties="average": the ranked lists' scores (CSR order)
    r_scores: Optional[np.ndarray]  # the scores of r_items, in the same (ranked) order; None: lists without scores
    left_out: Optional[np.ndarray]  # users the call's `missing` leaves out, kept for a metric with missing_recs="zero"
    evidently_scores: Optional[np.ndarray]  # ties="evidently" on lists ranked by score: their scores (CSR order)
    last_scores: Optional[np.ndarray]  # ties="last" on lists with scores: their scores (CSR order)


def _int_ids(a: Optional[np.ndarray]) -> bool:
    """Ids the accuracy pass reads as they are: int64 or int32 (no codes needed)."""
    return a is not None and a.dtype in (np.int64, np.int32)


def check_column_keywords(table_kw: dict, inputs: tuple) -> None:
    """Before anything is read: a column keyword no table takes is an error where a table it applies to was
    given (``inputs``: truth, recs, train): it names a column that table does not have (``user_col=`` /
    ``item_col=`` fall back to a table's default column only where another table has the named one). The
    columns of a table are its own; of a parquet or CSV path, its schema or header line."""
    from ..inputs import _frame
    from ..inputs._sources import classify

    def columns(x: Any) -> Optional[list]:
        if x is None:
            return None
        x = _frame.collect_lazy(x)
        if _frame.is_frame(x):
            return _frame._columns(x)
        if isinstance(x, (str, os.PathLike)) and os.path.exists(x):
            kind = classify(x)
            return _frame.file_columns(x, kind) if kind in ("parquet", "csv") else None
        return None

    truth, recs, train = (columns(x) for x in inputs)
    for key, (side, _) in _frame.SIDE_KEYWORDS.items():
        val, cols = table_kw.get(key), truth if side == "truth" else recs
        if val is not None and cols is not None and val not in cols:
            raise ValueError(
                f"`{key}={val!r}` names a column the {side} table does not have (its columns are "
                f"{', '.join(map(str, cols))})"
            )
    shared = {k: v for k, v in table_kw.items() if k not in _frame.SIDE_KEYWORDS}
    used: set = set()
    for cols, side in ((truth, "truth"), (recs, "recs"), (train, "other")):
        if cols is not None:
            # a table whose own keyword names its user (item) column does not take the shared one
            own = {
                _frame.SIDE_KEYWORDS[k][1]
                for k in table_kw
                if k in _frame.SIDE_KEYWORDS and _frame.SIDE_KEYWORDS[k][0] == side
            }
            _frame.resolve_columns(cols, {k: v for k, v in shared.items() if k not in own}, used)
    applies = {"relevance_col": (truth, train), "rank_col": (recs,), "score_col": (recs,)}
    for key, val in shared.items():
        if key in used or (key == "rank_col" and val == _frame.NO_RANK):
            continue
        if all(cols is None for cols in applies.get(key, (truth, recs, train))):
            continue  # no table it applies to (Truth/Recs objects, dicts, arrays, TREC files): nothing to name
        owner = {"relevance_col": "truth", "rank_col": "recs", "score_col": "recs"}.get(key)
        where = f"the {owner} table does not have" if owner else "no table has"
        raise ValueError(
            f"`{key}={val!r}` names a column {where}; a column keyword names the column in each table that has "
            "it (the other tables keep their default); for tables that name it differently build them with "
            "rankmeter.Truth.from_frame(table, ...) / rankmeter.Recs.from_frame(table, ...)"
        )


def _py_objects(x: Any) -> bool:
    """A dict or a list: a form the walker of Python objects reads (tuples may be CSR arrays)."""
    return isinstance(x, (dict, list))


def _plan(truth: Any, recs: Any, metrics: MetricsArg, options: EvalOptions) -> _Plan:
    opts = options.resolved()  # the preset's defaults, then rankmeter's, where nothing was passed
    pre = opts.preset_spec
    empty, duplicates, ties, missing = opts.empty, opts.duplicates, opts.ties, opts.missing
    min_relevance, max_items, threads = opts.min_relevance, opts.max_items, opts.threads
    assert empty is not None and duplicates is not None and ties is not None and missing is not None

    keys, parsed = _parse_metrics(metrics, pre.metric_options if pre is not None else None)
    if ties in AVERAGE_TIES:
        other = [str(m) for m in parsed if m.name not in TIE_AVERAGED]
        if other:
            raise ValueError(
                f"ties={ties!r} (tie-averaged gains, scikit-learn's dcg_score/ndcg_score) is defined for dcg and "
                f"ndcg only; got {', '.join(other)}: give those another rule (ties={{'ndcg': {ties!r}, '*': "
                "'item'}) or evaluate them in another call with ties='item', 'input', 'trec' or 'item_desc'"
            )
        divided = [str(m) for m in parsed if m.options.get("discount") in ("divide", "clip")]
        if divided:
            raise ValueError(
                f"ties={ties!r} averages the discounts of a tie group (scikit-learn's arithmetic): "
                f"discount='divide' or 'clip' has no meaning there ({', '.join(divided)}); drop discount= or use "
                "another ties="
            )
        if duplicates == "first" or max_items is not None:
            raise ValueError(
                f"ties={ties!r} cannot be combined with duplicates='first' or max_items (they change which items "
                "a tie group holds); duplicates='miss' and 'count' are accepted"
            )
    if ties == "last":
        check_tie_last(parsed, duplicates, max_items)
    if ties == "torch_topk" and len({m.k for m in parsed}) > 1:  # pragma: no cover - _call groups by cutoff
        raise ValueError("ties='torch_topk' ranks each list for one cutoff: evaluate one cutoff per call")
    for m in parsed:
        if m.options.get("rounding") == "capri":
            check_capri_options(m, duplicates, ties)
    check_evidently_options(parsed, duplicates, max_items, ties)
    table_kw = {k: v for k, v in opts.columns().items() if v is not None}
    if table_kw:
        check_column_keywords(table_kw, (truth, recs, opts.train))
    ctx = Context(**opts.context(), table_kw=table_kw)
    check_context([m for m in parsed if m.family != "accuracy"], ctx)
    check_costs(ctx.costs, parsed, duplicates)
    check_item_categories(ctx.item_categories, parsed)
    check_propensity(ctx.propensity, parsed)
    check_item_groups(ctx.item_groups, parsed)
    # dicts and lists on both sides: one walk of the objects in C++ (shared item codes, users joined there)
    read = walk_objects(truth, recs) if _py_objects(truth) and _py_objects(recs) else None
    t = read[0] if read is not None and read[0] is not None else to_truth(truth, **table_kw)
    if opts.truth_duplicates not in (None, "error"):
        t = combine_truth_duplicates(t, opts.truth_duplicates)
    r = read[1] if read is not None and read[1] is not None else to_recs(recs, **table_kw)

    p = _Plan()
    p.evidently_scores = None
    p.preset = pre.name if pre is not None else None
    p.ctx = ctx
    p.keys, p.metrics = keys, parsed
    # Columns are deduplicated by canonical name; keys as passed map to them
    # separately (with a preset, "ndcg" may mean "ndcg(ideal=all)", whose
    # canonical name differs from the text).
    cols: list[Metric] = []
    canon_to_col: dict[str, int] = {}
    key_to_col: dict[str, int] = {}
    for key, m in zip(keys, parsed):
        name = str(m)
        if name not in canon_to_col:
            canon_to_col[name] = len(cols)
            cols.append(m)
        key_to_col[key] = canon_to_col[name]
    p.columns, p.key_to_col, p.canon_to_col = cols, key_to_col, canon_to_col

    # Every grade must be finite. The accuracy pass reads every grade of every truth user
    # and reports the first non-finite one itself (the same message), so a call that runs it
    # over all of the truth needs no pass of its own; otherwise (beyond-accuracy metrics
    # only, or missing="skip", which leaves users out) one parallel C++ pass checks here.
    g = t.grades_native
    pass_checks = missing != "skip" and any(m.family == "accuracy" for m in parsed)
    if g is not None and g.size and not pass_checks and not all_finite(g, _check_threads(threads)):
        bad = int(np.argmax(~np.isfinite(g)))
        row = int(np.searchsorted(t.indptr, bad, side="right") - 1)
        user = t.users[row] if t.users is not None else row
        item = t.items[bad]
        user, item = (x.item() if isinstance(x, np.generic) else x for x in (user, item))
        raise ValueError(f"`truth` grades must be finite; user {user!r} has grade {g[bad]} for item {item!r}")

    rowmap, n_missing, n_ignored = align(t, r)
    if opts.recs_only in ("empty", "listed") and n_ignored:
        # recs users absent from the truth: evaluated with an empty truth ("listed": those with a non-empty list)
        t, rowmap = add_recs_only_users(t, r, rowmap, listed_only=opts.recs_only == "listed")
    left_out = None
    if missing != "zero" and (n_missing or missing == "skip_empty"):
        # only the users on both sides (trec_eval without -c): truth users without recs are left out, and with
        # "skip_empty" those whose list is empty too (a table of recommendations has no row for them)
        full = rowmap if rowmap is not None else np.arange(t.n_users, dtype=np.int64)
        keep = full >= 0
        if missing == "skip_empty":
            keep[keep] = list_lengths(r)[full[keep]] > 0
        if not keep.all():
            if any(m.options.get("missing_recs") == "zero" for m in parsed):
                left_out = ~keep  # a metric scores them (missing_recs="zero"): the others mask them
            else:
                keep_rows = np.flatnonzero(keep)
                t = subset_users(t, keep_rows)
                rowmap = full[keep_rows]

    # item ids of different kinds (str against int) can never match: an error, not zeros
    # (coded sides show only their distinct ids: enough to tell the kinds)
    check_id_kinds(t.item_values(), r.item_values(), ("truth", "recs"), "item", (False, False))
    if ctx.train is not None:
        check_id_kinds(ctx.train.item_values(), r.item_values(), ("train", "recs"), "item", (False, False))
    if ctx.item_categories is not None:
        cats = ctx.item_categories
        check_id_kinds(
            cats.items if cats.items.size else cats.empty,
            r.item_values(),
            ("item_categories", "recs"),
            "item",
            (False, False),
        )
    if ctx.propensity is not None and ctx.propensity.ids.size:
        check_id_kinds(ctx.propensity.ids, r.item_values(), ("propensity", "recs"), "item", (False, False))
    if ctx.item_groups is not None:
        grp = ctx.item_groups
        check_id_kinds(
            grp.items if grp.items.size else grp.empty, r.item_values(), ("item_groups", "recs"), "item", (False, False)
        )

    # Items as codes when an id is not an int (one hash pass over truth and recs together,
    # or, for sides read coded from a table or a TREC file, over their distinct ids only);
    # the codes then also order equal scores by docno (ties="trec") without sorting strings.
    # Integer ids are read as given: int64, or int32 on both sides (in place, no widened copy).
    r_indptr, r_scores = r.indptr, r.scores
    t_nat = t.items_native if t.coded is None else None
    r_nat = r.items_native if r.coded is None else None
    needs_codes = not (_int_ids(t_nat) and _int_ids(r_nat))
    r_side: Any = None
    r_codes: Optional[np.ndarray] = None
    if needs_codes:
        t_side = t.coded if t.coded is not None else t.items
        r_side = r.coded if r.coded is not None else r.items
        if r_indptr is None:
            r_indptr, r_side = padded_to_csr(r)
        (t_items, r_codes), labels = factorize_items(t_side, r_side)
    else:
        assert t_nat is not None
        t_items, labels = t_nat, None  # int32 on one side only: the accuracy pass widens both
    # Recommendations ranked by score when the form carries only scores.
    p_tie_scores = None
    order: Optional[np.ndarray] = None
    n_tied = 0
    if (ties in TORCH_TIES or ties == "trec9") and r_scores is not None:
        # torch reads float32 scores: ranks and tests score > 0 on those; trec_eval 9.0.x stores them as float
        r_scores = float32_scores(r_scores)
    if r.by_score:
        tie_keys: Optional[np.ndarray] = None
        # ties="average" orders equal scores any way (input order): the tie groups are averaged later;
        # ties="evidently" keeps input order too (Evidently's rel_j reads the last row of a group in row order);
        # under ties="last" the order within a group changes nothing (each group is valued as a whole)
        if ties == "file":  # not ranked by score: the items in the order given (cwl-eval reads a run in file order)
            order = np.arange(r_scores.size, dtype=np.int64)
        elif ties in RANX_TIES:
            order = ranx_order(r.indptr, r.scores, ties)
        elif ties in TORCH_TIES:
            order = torch_order(r, r_scores, ties, parsed[0].k, threads)
        else:
            rule = "trec" if ties == "trec9" else ties  # trec9: trec's order of the float32 scores
            if rule not in ("input", "average", "evidently", "last"):
                if r.coded is not None and r.coded.in_order:
                    # codes in the ids' string order (a TREC run): the key itself (reversed: ascending ids)
                    tie_keys = ~r.coded.codes if rule == "item" else r.coded.codes
                else:
                    tie_keys = label_rank(labels, rule)[r_codes] if labels is not None else tie_key(r.items, rule)
            order = score_order(r.indptr, r_scores, tie_keys)
        r_scores = r_scores[order]
        n_tied = 0 if ties == "file" else count_tied_users(r.indptr, r_scores, _read_length(parsed, max_items), rowmap)
        if r_codes is not None:
            r_codes = r_codes[order]
        if ties in AVERAGE_TIES:
            p_tie_scores = r_scores
        if ties == "evidently":
            check_evidently_ties(parsed)
            p.evidently_scores = r_scores
    p.b_indptr = p.b_items = p.b_scores = p.b_lens = None
    if any(m.family != "accuracy" for m in parsed):
        # the beyond-accuracy kernels read the ordered lists as CSR of raw ids (+ scores), or a padded
        # int64 array in place with the lengths of its rows
        if r_indptr is None and r.items_native.dtype == np.int64:
            p.b_items = r.items_native
            p.b_lens, bad = _core.padded_lengths(p.b_items, int(r.pad), _check_threads(threads))
            if bad >= 0:
                raise item_after_pad(r, bad)
        elif r_indptr is None:
            p.b_indptr, p.b_items = padded_to_csr(r)
        else:
            raw = r_side if isinstance(r_side, np.ndarray) else r.items
            p.b_indptr, p.b_items, p.b_scores = r_indptr, raw if order is None else raw[order], r_scores
    if r_codes is not None:
        r_items = r_codes
    else:
        assert r_nat is not None
        r_items = r_nat if order is None else r_nat[order]

    p.tie_scores = p_tie_scores
    # ties="last": the tie groups are the runs of equal scores along each list (a list ranked by score, or given in
    # order with its scores); lists without scores have no ties
    p.last_scores = r_scores if ties == "last" else None
    p.left_out = left_out
    p.r_scores = r_scores
    p.truth, p.recs, p.rowmap, p.labels = t, r, rowmap, labels
    p.t_items, p.r_items, p.r_indptr = t_items, r_items, r_indptr
    p.users = t.users if t.users is not None else np.arange(t.n_users, dtype=np.int64)
    p.meta = {
        "n_users": t.n_users,
        "n_skipped": 0,
        "n_missing_recs": n_missing,
        "n_ignored_recs": n_ignored,
        "n_tied_users": n_tied,
    }
    p.min_relevance, p.empty = min_relevance, empty
    p.duplicates, p.max_items = duplicates, max_items
    check_known(p, parsed)  # a relevant item without a propensity: refused before any metric runs
    return p


def _read_length(parsed: list, max_items: Optional[int]) -> Optional[int]:
    """How many positions of each list the metrics read: the largest cutoff, or every position (None) when
    a metric has none (num_rel reads no list item), never more than ``max_items``."""
    ks = [m.k for m in parsed if m.name != "num_rel"]
    read = None if any(k is None for k in ks) else max(ks, default=0)
    if max_items is not None:
        read = max_items if read is None else min(read, max_items)
    return read


def _run(p: _Plan, threads: Optional[int], per_user: bool = True) -> tuple[list, State]:
    """Every column: the fused accuracy pass for the accuracy family, the beyond kernels
    for the rest. Returns (per-user values per column (None: catalog-level, or every
    column when not `per_user`), the State)."""
    n_threads = resolve_threads(threads)
    n = len(p.columns)
    values: list = [None] * n
    sums, counts = [0] * n, [0] * n
    gated = [(i, m) for i, m in enumerate(p.columns) if m.options.get("hit_scores") == "positive"]
    acc = [(i, m) for i, m in enumerate(p.columns) if m.family == "accuracy" and (i, m) not in gated]
    beyond = [(i, m) for i, m in enumerate(p.columns) if m.family != "accuracy"]
    if gated:
        for (i, _), vals, s_, c_ in zip(gated, *_positive_hits_pass(p, [m for _, m in gated], n_threads)):
            values[i], sums[i], counts[i] = vals, s_, c_
    if acc or not (beyond or gated):
        cols = [m for _, m in acc] or [parse("num_rel")]
        # ties="average", CAPRI's and gdeval's rounding and Evidently's rows replace values per user, so they need
        # them even for means only
        capri = any(m.options.get("rounding") == "capri" for m in cols)
        gdeval = any(m.options.get("rounding") == "gdeval" for m in cols)
        evidently = uses_evidently(p, cols)
        per = (
            per_user
            or p.tie_scores is not None
            or p.last_scores is not None
            or capri
            or gdeval
            or evidently
            or p.left_out is not None
        )
        v, s, c = accuracy_pass(p, cols, n_threads, per_user=per)
        if p.tie_scores is not None:
            apply_tie_average(p, cols, v, s, c, n_threads, p.tie_scores)
        if p.last_scores is not None:
            apply_tie_last(p, cols, v, s, c, n_threads, p.last_scores)
        if capri:
            apply_capri_ndcg(p, cols, v, s, c, n_threads)
        if evidently:
            apply_evidently(p, cols, v, s, c, n_threads)
        if gdeval:  # gdeval prints each user's value with 5 decimals (docs/metrics.md 3.17)
            apply_gdeval_rounding(cols, v, s, c, n_threads)
        for j, (i, _) in enumerate(acc):
            values[i], sums[i], counts[i] = v[j], s[j], c[j]
    else:
        p.meta["n_skipped"] = count_no_relevant(p, n_threads)
    parts: dict = {}
    catalog = None
    fingerprints: dict = {}
    if beyond:
        by_col, parts, catalog, fingerprints = run_beyond(p, beyond, p.ctx, n_threads)
        for i, (vals, s_, c_) in by_col.items():
            values[i], sums[i], counts[i] = vals, s_, c_
    if p.left_out is not None:
        _leave_out(p, values, sums, counts, n_threads)
    if not per_user:
        values = [None] * n
    state = State(
        [str(m) for m in p.columns],
        sums,
        counts,
        p.meta,
        p.users,
        keys=[(k, p.key_to_col[k]) for k in dict.fromkeys(p.keys)],
        parts=parts,
        catalog=catalog,
        context=fingerprints,
    )
    return values, state


def _leave_out(p: _Plan, values: list, sums: list, counts: list, threads: int) -> None:
    """The users the call's ``missing`` leaves out were kept for a metric with ``missing_recs="zero"``:
    every other per-user column gets NaN for them, and its exact sum and count are taken again without them."""
    for i, m in enumerate(p.columns):
        if m.family == "catalog" or m.options.get("missing_recs") == "zero" or values[i] is None:
            continue
        v = np.array(values[i], dtype=np.float64)
        if not np.any(p.left_out & ~np.isnan(v)):
            continue  # no value to take out (a beyond metric on a missing or empty list): sum and count stand
        # a mean of per-user values (pooled aggregates, fcp's pairs or novelty's items, get nothing from a user
        # without a list, so they never come here)
        v[p.left_out] = np.nan
        limbs, count = _core.exact_sum(v, threads)
        values[i], sums[i], counts[i] = v, limbs_to_int(limbs), int(count)


def _positive_hits_pass(p: _Plan, cols: list, n_threads: int) -> tuple:
    """The columns with hit_scores="positive": an item whose score is <= 0 keeps its rank but is never a hit
    (torchmetrics: torch.where(preds > 0, target, 0)). The lists are first read as given (duplicates and bad
    input raise as for any column), then again with every such item replaced by an id found in no truth and in
    no list (each position its own, so no duplicate appears). Lists without scores are read as given."""
    plain = [m.with_options(hit_scores="any") for m in cols]
    v, s, c = accuracy_pass(p, plain, n_threads)
    if p.r_scores is None or not np.any(p.r_scores <= 0):
        return v, s, c
    items, scores = p.r_items, p.r_scores
    if p.r_indptr is not None:
        lens = np.diff(p.r_indptr)
        pos = np.arange(items.size, dtype=np.int64) - np.repeat(p.r_indptr[:-1], lens)
        width = int(lens.max(initial=0))
    else:
        pos = np.broadcast_to(np.arange(items.shape[1], dtype=np.int64), items.shape)
        width = items.shape[1]
    ids = [a for a in (p.t_items, items) if a.size]
    lo = min(int(a.min()) for a in ids) if ids else 0
    hi = max(int(a.max()) for a in ids) if ids else 0
    if lo - width - 1 >= -(2**63) + 1:
        sentinel = (lo - 1) - pos
    elif hi + width + 1 <= 2**63 - 1:
        sentinel = (hi + 1) + pos
    else:  # pragma: no cover - ids spanning all of int64
        raise ValueError("hit_scores='positive' needs item ids that leave room in int64 for placeholder ids")
    masked = scores <= 0
    if p.r_indptr is None:
        masked &= items != p.recs.pad
    pm = copy.copy(p)
    pm.meta = dict(p.meta)
    pm.r_items = np.where(masked, sentinel, items)
    return accuracy_pass(pm, cols, n_threads)


def _check_threads(threads: Optional[int]) -> int:
    """Threads for the input checks of the plan: as asked, or all cores when RANKMETER_NUM_THREADS
    is invalid (the run reports it, after the checks, as before)."""
    try:
        return resolve_threads(threads)
    except (TypeError, ValueError):
        return 0


def _call(truth: Any, recs: Any, metrics: MetricsArg, options: EvalOptions, per_user: bool) -> tuple:
    """Plan and run one call: (plan, per-user values, State). Metrics under different tie rules
    (``ties={metric: rule}``, ``"torch_topk"`` at several cutoffs) run one plan and pass per rule
    over inputs read once (evaluation/_tie_groups.py)."""
    opts = options.resolved()
    pre = opts.preset_spec
    items: Any = metrics
    if not isinstance(metrics, (str, Metric)) and isinstance(metrics, Iterable):
        items = list(metrics)  # read once: a generator is walked here and by the plan
    keys, parsed = _parse_metrics(items, pre.metric_options if pre is not None else None)
    groups = tie_groups(parsed, opts.ties)
    if len(groups) == 1:
        if isinstance(opts.ties, Mapping):
            options = options.replace(ties=groups[0][0])
        p = _plan(truth, recs, items, options)
        values, state = _run(p, options.threads, per_user)
        return p, values, state
    table_kw = {k: v for k, v in opts.columns().items() if v is not None}
    t, r = to_truth(truth, **table_kw), to_recs(recs, **table_kw)  # read once for every group
    parts = []
    for rule, idx in groups:
        g_opts = options.replace(ties=rule)
        p = _plan(t, r, [items[j] for j in idx], g_opts)
        values, state = _run(p, options.threads, per_user)
        parts.append((p, values, state))
    return combine(keys, parts, _Plan)


def evaluate_with(
    truth: Any, recs: Any, metrics: MetricsArg, options: EvalOptions, per_user: bool = True, user_groups: Any = None
) -> Result:
    """:func:`evaluate` with its options already gathered in one :class:`EvalOptions` (what every
    entry point calls once it has checked its own arguments)."""
    if not isinstance(per_user, bool):
        raise TypeError(f"`per_user` must be True or False, got {per_user!r}")
    if user_groups is not None:
        return _evaluate_grouped(truth, recs, metrics, options, per_user, user_groups)
    p, values, state = _call(truth, recs, metrics, options, per_user)
    return Result(
        values,
        list(dict.fromkeys(p.keys)),
        p.key_to_col,
        p.canon_to_col,
        state,
        p.users,
        dict(p.meta),
        state.values(),
        per_user=per_user,
    )


def partial_with(truth: Any, recs: Any, metrics: MetricsArg, options: EvalOptions, user_groups: Any = None) -> State:
    """:func:`partial` with its options already gathered in one :class:`EvalOptions`."""
    if user_groups is not None:
        return _grouped(truth, recs, metrics, options, user_groups)[1]
    return _call(truth, recs, metrics, options, False)[2]


# --------------------------------------------------------------------------- user_groups= (evaluation/_groups.py)
def _grouped(truth: Any, recs: Any, metrics: MetricsArg, options: EvalOptions, user_groups: Any) -> tuple:
    """One pass keeping per-user values, then one exact state per group: (plan, GroupedState, values, codes)."""
    check_groups_spec(user_groups)
    p, values, state = _call(truth, recs, metrics, options, True)
    table_kw = {k: v for k, v in options.resolved().columns().items() if v is not None}
    labels, codes = resolve_groups(user_groups, p.users, truth, table_kw)
    return p, grouped_state(state, values, p.users, labels, codes, options.threads), values, codes


def _evaluate_grouped(
    truth: Any, recs: Any, metrics: MetricsArg, options: EvalOptions, per_user: bool, user_groups: Any
) -> Result:
    p, gs, values, codes = _grouped(truth, recs, metrics, options, user_groups)
    res = Result(
        values if per_user else [None] * len(values),
        list(dict.fromkeys(p.keys)),
        p.key_to_col,
        p.canon_to_col,
        gs,
        p.users,
        dict(p.meta),
        gs.values(),
        per_user=per_user,
    )
    res._grouping = (gs, codes if per_user else None)
    return res


# --------------------------------------------------------------------------- public
def evaluate(
    truth: Any,
    recs: Any,
    metrics: MetricsArg,
    *,
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
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
    truth_user_col: Optional[str] = None,
    truth_item_col: Optional[str] = None,
    recs_user_col: Optional[str] = None,
    recs_item_col: Optional[str] = None,
    per_user: bool = True,
    user_groups: Any = None,
) -> Result:
    """Evaluate ranked recommendations against ground truth, every metric in one C++ pass.

    Parameters
    ----------
    truth : dict, list of lists, CSR tuple, long table, scipy.sparse, path or rankmeter.Truth
        Per user the relevant items with grades: ``{user: {item: grade}}``,
        ``{user: iterable_of_items}`` (grade 1), ``list[list[item]]`` (users
        0..n-1), ``(indptr, items[, grades])``, a pandas/polars/pyarrow table
        (user, item[, grade] columns), a users x items scipy.sparse matrix, a
        parquet path or a TREC qrels path, or ``Truth.from_*``.
    recs : dict, list of lists, 2-D int array, CSR tuple or rankmeter.Recs
        Per user the ranked list, best first: ``{user: [items]}``,
        ``{user: {item: score}}`` (ranked by score), ``list[list[item]]``, a
        padded ``n_users x k`` array (pad -1), a table with user, item and rank
        or score columns, a parquet or TREC run path, or ``Recs.from_*``.
    metrics : str, Metric or list of them
        ``"ndcg@10"``, ``"ap(denominator=hits)@20"``, ``"mrr"`` ...; see
        :func:`rankmeter.metrics.list`. All are computed in one pass.
    preset : str, optional
        A family of conventions matching another tool, e.g. ``"trec_eval"``.
    threads : int, optional
        Threads of the C++ pass; default ``RANKMETER_NUM_THREADS`` or all cores.
        Results are bit-identical for any value.
    empty : {'skip', 'zero', 'one', 'error'}
        Users whose truth has no relevant item: excluded (NaN, default), 0,
        1, or an error.
    duplicates : {'error', 'first', 'miss', 'count'}
        The same item twice in one list: an error (default); keep the first
        (the list closes up); keep the repeat's position but never count it as
        a hit (``'miss'``: ml_metrics, recmetrics, CAPRI); or count every
        occurrence as a hit at its position (``'count'``: Spark), docs/metrics.md 6.1.
    truth_duplicates : {'error', 'max', 'sum', 'first', 'last'}
        The same item twice in one user's truth (repeated interaction rows):
        an error (default), or one item whose grade is the largest, the sum,
        the first or the last of the repeats' grades (docs/conventions.md).
    ties : {'item', 'input', 'file', 'trec', 'trec9', 'item_desc', 'average', 'ranx', 'ranx_comparable', 'ranx_dict', 'torch', 'torch_topk', 'torch_average', 'evidently', 'last'} or dict
        Equal scores when ranking by score: item id ascending (default: the
        same numbers whatever the row order), input order, no ranking at all
        (file: the order given, scores ignored, as cwl-eval), item id
        descending as strings (trec_eval), the same on scores rounded to
        float32 (trec9: trec_eval 9.0.x, pytrec_eval), item id descending,
        tie-averaged DCG/NDCG (scikit-learn), ranx's numba quicksort order (a ``Run``;
        a ``Run`` after ``make_comparable=True``; a plain dict), torch's
        order of float32 scores (argsort; topk at the metric's cutoff;
        tie-averaged), Evidently's ranks (a tie group at positions a..b at
        rank floor((a+b)/2)), or every tie group at its last rank b (ap only:
        Cornac's MAP). A dict ``{metric: rule}`` gives each metric its
        own rule (``'*'``: the others; default 'item'), docs/metrics.md 6.3.
    min_relevance : float, optional
        Items are relevant when grade >= min_relevance (default: grade > 0);
        ``-inf``: every truth row is relevant, whatever its grade (RecTools,
        Recommenders). Gains of the DCG family still use the grade itself.
    max_items : int, optional
        Truncate every list to its first ``max_items`` items (trec_eval -M).
    missing : {'zero', 'skip', 'skip_empty'}
        Truth users without recommendations: scored as empty lists (default;
        trec_eval ``-c``), left out (only users on both sides: trec_eval's
        default, and the per-shard recipe of :func:`partial`), or left out
        together with the users whose list is empty (``skip_empty``: a table of
        recommendations has no row for them; Microsoft Recommenders).
    recs_only : {'skip', 'empty', 'listed'}
        Recommendation users absent from the truth: left out (default, counted
        in ``meta['n_ignored_recs']``) or evaluated with an empty truth
        (``empty``: accuracy metrics then follow ``empty=``; the beyond-accuracy
        metrics, which read the lists, score them: RecTools, Recommenders);
        ``listed``: as ``empty`` for those whose list holds an item, the users
        with an empty list left out (LensKit's RunAnalysis).
    train : any truth-like form, optional
        Training interactions (user, item): item popularity, user histories and the
        default catalog of the beyond-accuracy metrics (novelty, arp, serendipity,
        coverage, gini, diversity with similarity=cooccurrence).
    item_features : 2-D array (row = item id), dict, (ids, matrix) or DataFrame indexed by item id, optional
        Item feature vectors for diversity (similarity=features) and serendipity.
    item_similarity : square array or scipy.sparse (row/column = item id), (ids, matrix), DataFrame or dict, optional
        Item x item similarity for diversity(similarity=matrix): also a DataFrame whose index and
        columns are item ids, or ``{a: {b: sim}}`` (missing pairs 0).
    catalog : iterable of item ids, optional
        The catalog of coverage and gini (default: the items seen in ``train``).
    subtopics : long table, dict of columns, (users, subtopics, items, grades) arrays or ndeval qrels path, optional
        Subtopic judgments of the intent-aware diversity metrics (alpha_ndcg, err_ia,
        nrbp, p_ia, strec, map_ia, ...): one row per (user, subtopic, item, grade);
        a file path is read as ndeval's qrels (``topic subtopic doc judgment``).
    costs : long table, dict of columns or (users, items, costs) arrays, optional
        The cost of each (user, item) of the lists for the C/W/L metrics (cwl_p, cwl_rbp,
        sdcg, inst, bpm, umeasure, tbg, ...: EC, ETC, BPM's cost limit K, U-measure's and
        TBG's weights), as cwl-eval's cost file gives it per element type; an item without
        a row costs the metric's ``max_cost`` (``min_cost`` in the residuals' best case).
    tail_items : iterable of item ids, optional
        The long-tail items of aplt, aclt and tail_percentage with ``tail=given`` (every other
        item is head) in place of the split of the train popularity (docs/metrics.md 3.19.14-3.19.15).
    item_categories : dict item -> category or list of categories, pandas Series, item/category table or (items, categories), optional
        The categories of the items for miscalibration (Steck's calibration): a multi-category
        item spreads weight 1 over its categories; an item without one (absent, or an empty
        list) adds nothing to the user's or the list's category distribution.
    propensity : dict item -> propensity, pandas Series, (items, propensities) or 'popularity', optional
        The propensity p_i of each item for the propensity-weighted metrics (ips_precision,
        ips_recall, ips_ndcg, ips_rr, ips_hit_rate, ips_ap): a relevant item weighs 1 / p_i.
        'popularity' computes Yang et al.'s p_i = n_i / sum_j n_j from ``train``
        (rm.popularity_propensity(train, gamma=...) for other exponents; docs/metrics.md 3.19.21).
    item_groups : dict item -> group or list of groups, pandas Series, item/group table or (items, groups), optional
        The groups of the items (providers, categories, popularity head/tail) for exposure_disparity,
        awrf and awrf_ndcg (docs/fairness.md, "Item exposure"): an item in m groups counts 1/m in
        each; an item without a group is left out (``ungrouped=skip``) or in a "no group" bucket
        (``ungrouped=own``).
    user_col, item_col, relevance_col, rank_col, score_col : str, optional
        Column names of long tables (pandas, polars, pyarrow, parquet paths);
        defaults ``user_id``, ``item_id``, ``relevance``, ``rank``, ``score``.
    truth_user_col, truth_item_col, recs_user_col, recs_item_col : str, optional
        The user or item column of one table only, where truth and recs name it
        differently (``truth_user_col='userId', recs_user_col='uid'``); they win
        over ``user_col``/``item_col`` for that table (``train`` keeps those).
    per_user : bool, default True
        Keep every user's value (``res.per_user``). ``False`` computes the same
        exact means without allocating or writing per-user columns (an 8-byte
        value per user and column: 160 MB for 20 columns of 1M users), the
        fastest way to get means only; ``res.per_user`` then raises.
    user_groups : mapping, pandas Series, str or rankmeter.activity_groups(...), optional
        A group per user (``{user: group}``, a Series indexed by user, the name of a
        column of the truth table, or activity buckets of ``train``): ``res.by_group()``
        gives each group's exact means (equal to an evaluation of that group's users
        alone) and ``res.group_gaps()`` the gaps between groups (docs/fairness.md).
        Every evaluated user needs a group: one without is an error naming it.

    Returns
    -------
    Result
        ``res[name]`` means, ``res.per_user[name]``, ``res.users``, ``res.meta``.

    Raises
    ------
    ValueError, TypeError
        On malformed input, unknown metrics or options; the message names the
        argument, the user and what was expected.

    Examples
    --------
    >>> import rankmeter as rm
    >>> res = rm.evaluate({"u1": {"a": 1, "b": 1}}, {"u1": ["a", "x", "b"]}, ["precision@2", "ap"])
    >>> res["precision@2"], round(res["ap"], 4)
    (0.5, 0.8333)
    """
    if not isinstance(per_user, bool):
        raise TypeError(f"`per_user` must be True or False, got {per_user!r}")
    return evaluate_with(truth, recs, metrics, EvalOptions.pick("evaluate", locals()), per_user, user_groups)


def partial(
    truth: Any,
    recs: Any,
    metrics: MetricsArg,
    *,
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
) -> State:
    """Evaluate one batch of users and return its mergeable exact :class:`State`.

    Same arguments as :func:`evaluate`. Merge the states of disjoint batches
    (``a.merge(b)``) and ``finalize()`` to get the means of all users, bit for
    bit equal to one :func:`evaluate` call. State names are canonical metric
    names (``"ap@10"`` for ``"map@10"``).

    Examples
    --------
    >>> import rankmeter as rm
    >>> a = rm.partial({1: {5: 1}}, {1: [5, 6]}, ["precision@2"])
    >>> b = rm.partial({2: {7: 1}}, {2: [8, 9]}, ["precision@2"])
    >>> a.merge(b).finalize()["precision@2"]
    0.25

    States answer to every name asked for (``partial(..., ["map@10"]).finalize()["map@10"]``),
    carry catalog-level metrics (coverage, gini, personalization, score_entropy) as
    integer item-count histograms, and hold their users: merging two states that share
    a user raises a ``ValueError`` naming it. Recommendations sharded across files
    against one truth: ``partial(truth, shard, ..., missing="skip")`` per shard, so
    each shard evaluates only its own users (see docs/metrics.md, "Evaluating in pieces").

    With ``user_groups=`` (as in :func:`evaluate`) it returns a ``GroupedState``: a State
    of all users that also holds one exact state per group (``.groups``), merged the same
    way (docs/fairness.md).
    """
    return partial_with(truth, recs, metrics, EvalOptions.pick("partial", locals()), user_groups)


# the options' entries of the docstring, from their one declaration (EvalOptions)
