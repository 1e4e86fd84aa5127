"""Per-metric tie rules: ``ties={metric: rule}`` in one ``evaluate`` call (docs/metrics.md 6.3).

Libraries rank equal scores differently from one metric to the next (torchmetrics: argsort
for recall, topk at the cutoff for precision, tie-averaged gains for NDCG), so ``ties`` may
map metric names to rules (``'*'``: every other metric; without it, ``'item'``). Each
metric's rule decides its group; ``"torch_topk"`` also depends on the metric's cutoff (torch
ranks the top min(k, n) of each list), so its groups are per cutoff. One plan and one pass
run per group over the same inputs (read once), and the columns of all groups are put
back together in the order asked, as one result with one mergeable state. A single group
is the ordinary one-pass call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional

from .._aggregate import State
from ..metrics import Metric
from ._options import DEFAULTS

__all__ = ["rule_of", "tie_groups", "combine"]

DEFAULT_RULE = DEFAULTS["ties"]  # rankmeter's default rule, declared once with EvalOptions.ties


def rule_of(m: Metric, ties: Any) -> str:
    """The tie rule of metric `m` under the resolved ``ties`` option (a rule or a mapping)."""
    if isinstance(ties, Mapping):
        return ties.get(m.name, ties.get("*", DEFAULT_RULE))
    return ties


def tie_groups(parsed: list[Metric], ties: Any) -> list[tuple[str, list[int]]]:
    """(rule, positions in `parsed`) per group, in order of first appearance."""
    groups: dict[tuple, tuple[str, list[int]]] = {}
    catalog_at: dict[Optional[int], tuple] = {}
    for j, m in enumerate(parsed):
        rule = rule_of(m, ties)
        key = (rule, m.k if rule == "torch_topk" else None)
        # catalog-level metrics at one cutoff share one item-count histogram: one list order
        if m.family == "catalog" and catalog_at.setdefault(m.k, key) != key:
            raise ValueError(
                f"`ties` gives catalog-level metrics at cutoff {m.k} different rules ({key[0]!r} for {m}); "
                "give them one rule"
            )
        groups.setdefault(key, (rule, []))[1].append(j)
    return list(groups.values())


def combine(keys: list[str], parts: list[tuple[Any, list, State]], plan_cls: Callable[[], Any]) -> tuple:
    """One (plan, per-user values, State) from the (plan, values, state) of each group: columns in the
    order their names were first asked, the groups' users and counts (the same in every group)."""
    where: dict[str, tuple[int, int]] = {}  # key as asked -> (group, column of that group)
    for g, (p, _, _) in enumerate(parts):
        for key in p.keys:
            where[key] = (g, p.key_to_col[key])
    first_p = parts[0][0]
    names: list[str] = []
    values: list = []
    sums: list[int] = []
    counts: list[int] = []
    canon_to_col: dict[str, int] = {}
    key_to_col: dict[str, int] = {}
    columns: list[Metric] = []
    for key in keys:
        g, c = where[key]
        p, v, s = parts[g]
        name = s.names[c]
        if name not in canon_to_col:
            canon_to_col[name] = len(names)
            names.append(name)
            columns.append(p.columns[c])
            values.append(v[c])
            sums.append(s.sums[c])
            counts.append(s.counts[c])
        key_to_col[key] = canon_to_col[name]
    cat_parts: dict = {}
    catalog, context = None, {}
    for _, _, s in parts:
        cat_parts.update(s.parts)
        catalog = s.catalog if s.catalog is not None else catalog
        context.update(s.context)
    meta = dict(first_p.meta)
    # the groups read the same scores, each as far as its own metrics (torch_topk: per cutoff): the group that
    # reads furthest sees every tie another group sees
    meta["n_tied_users"] = max(p.meta.get("n_tied_users", 0) for p, _, _ in parts)
    state = State(
        names,
        sums,
        counts,
        meta,
        first_p.users,
        keys=[(k, key_to_col[k]) for k in dict.fromkeys(keys)],
        parts=cat_parts,
        catalog=catalog,
        context=context,
    )
    p = plan_cls()
    p.keys, p.metrics = keys, [m for q, _, _ in parts for m in q.metrics]
    p.columns, p.key_to_col, p.canon_to_col = columns, key_to_col, canon_to_col
    p.users, p.meta, p.preset = first_p.users, dict(meta), first_p.preset
    return p, values, state
