"""``ranx.evaluate`` on rankmeter's fused pass.

Before::

    from ranx import evaluate
    evaluate(qrels, run, ["ndcg@10", "map@100", "rbp.95"])

After::

    from rankmeter.compat.ranx import evaluate
    evaluate(qrels, run, ["ndcg@10", "map@100", "rbp.95"])

``qrels`` is ``{query: {doc: grade}}`` and ``run`` ``{query: {doc: score}}``, or
ranx ``Qrels``/``Run`` objects (anything with ``to_dict()``). The metric strings
are ranx's: ``hits``, ``hit_rate``, ``precision``, ``recall``, ``f1``,
``r-precision``, ``mrr``, ``map``, ``dcg``, ``dcg_burges``, ``ndcg``,
``ndcg_burges``, ``bpref`` with an optional ``@k``, ``rbp.95`` (persistence
0.95), and an optional ``-lL`` suffix for ``rel_lvl=L``. One metric gives a
float, several a dict ``{metric: float}`` (``return_mean=False``: per-query
arrays, in the qrels' query order; ``return_std=True``: ``{"mean", "std"}``).
The numbers are ranx's (``preset="ranx"``), equal scores included: ranx orders
them with numba's quicksort, reproduced here as ranx reaches it (a plain dict
run: ``ties="ranx_dict"``; a ``Run``, whose ``to_dict()`` is already sorted:
its order, sorted once more with ``make_comparable=True`` or when the ``Run``
is not sorted yet, as ranx does). Plain dicts are paired by query id (ranx
pairs them by position, which is the same when both dicts list the queries in
the same order).
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

import rankmeter as _rm

from ._nested import to_containers

__all__ = ["evaluate", "to_rankmeter"]

_PLAIN = {
    "hits": "hits",
    "hit_rate": "hit_rate",
    "precision": "precision",
    "recall": "recall",
    "f1": "f1",
    "mrr": "rr",
    "map": "ap",
    "dcg": "dcg",
    "dcg_burges": "dcg(gain=exponential)",
    "ndcg": "ndcg",
    "ndcg_burges": "ndcg(gain=exponential)",
}


def to_rankmeter(metric: str) -> tuple[str, int]:
    """A ranx metric string -> (rankmeter metric under preset='ranx', rel_lvl)."""
    if not isinstance(metric, str):
        raise AssertionError("Metrics error")
    rel_lvl = 1
    m = metric
    if "-l" in m:
        m, lvl = m.split("-l")
        rel_lvl = int(lvl)
    if "rbp" in m:
        if "." in m:
            base, p = m.split(".")
        elif "@" in m:
            base, p = m.split("@")
        else:
            raise ValueError("RBP requires persistence value. Example: `rpb.95`")
        if base != "rbp":
            raise ValueError(f"Metric {base} not supported.")
        return f"rbp(p={float('0.' + p)!r})", rel_lvl
    base, _, k_text = m.partition("@")
    k = int(k_text) if k_text else 0
    if base == "bpref":
        return "bpref", rel_lvl  # ranx ignores k for bpref
    if base == "r-precision":
        return "r_precision", rel_lvl  # and for r-precision
    if base not in _PLAIN:
        raise ValueError(
            f"Metric {base} not supported. Supported metrics are `hits`, `hit_rate`, `precision`, `recall`, `f1`, "
            "`r-precision`, `mrr`, `map`, `ndcg`, and `ndcg_burges`."
        )
    return _PLAIN[base] + (f"@{k}" if k > 0 else ""), rel_lvl


def _as_dict(x: Any, what: str) -> dict:
    if isinstance(x, dict):
        return x
    if hasattr(x, "to_dict"):
        return x.to_dict()
    raise TypeError(
        f"`{what}` must be a dict {{query: {{doc: value}}}} or a ranx {what.capitalize()}, got {type(x).__name__}"
    )


def evaluate(
    qrels: Any,
    run: Any,
    metrics: Union[list, str],
    return_mean: bool = True,
    return_std: bool = False,
    threads: int = 0,
    save_results_in_run: bool = True,
    make_comparable: bool = False,
) -> Any:
    """ranx.evaluate's signature and outputs, computed in one fused pass per rel_lvl."""
    metric_list = [metrics] if isinstance(metrics, str) else list(metrics)
    if not all(isinstance(m, str) for m in metric_list):
        raise AssertionError("Metrics error")
    q, r = _as_dict(qrels, "qrels"), _as_dict(run, "run")
    objects = not isinstance(qrels, dict) and not isinstance(run, dict)
    if make_comparable and objects:
        r = {k: r.get(k, {}) for k in q}
    elif q.keys() != r.keys():
        raise AssertionError(
            "Qrels and Run query ids do not match. Pass `make_comparable=True` to add empty results for queries "
            "missing from the run and remove those not appearing in qrels."
        )
    if not return_mean:
        return_std = False
    translated = {m: to_rankmeter(m) for m in metric_list}
    by_level: dict[int, list[str]] = {}
    for name, lvl in translated.values():
        by_level.setdefault(lvl, []).append(name)
    # ranx's order among equal scores (numba's quicksort, data_structures/common.py): a plain dict run is
    # sorted by utils.descending_sort; a Run's to_dict() is its sorted order, which ranx sorts once more in
    # make_comparable (or in to_typed_list when the Run is not sorted yet).
    if isinstance(run, dict):
        ties = "ranx_dict"
    elif (make_comparable and objects) or not getattr(run, "sorted", True):
        ties = "ranx"
    else:
        ties = "input"
    truth, recs = to_containers(q, r, trec_ties=False, by_score=True)
    per_user: dict[tuple[str, int], np.ndarray] = {}
    for lvl, names in by_level.items():
        res = _rm.evaluate(
            truth,
            recs,
            list(dict.fromkeys(names)),
            preset="ranx",
            ties=ties,
            min_relevance=lvl,
            threads=threads or None,
        )
        for name in names:
            per_user[(name, lvl)] = np.asarray(res.per_user[name], dtype=np.float64)
    out: dict[str, Any] = {}
    for m in metric_list:
        scores = per_user[translated[m]]
        if return_mean:
            out[m] = (
                {"mean": float(np.mean(scores)), "std": float(np.std(scores))} if return_std else float(np.mean(scores))
            )
        else:
            out[m] = scores
        if save_results_in_run and not isinstance(run, dict) and hasattr(run, "mean_scores"):
            run.mean_scores[m] = float(np.mean(scores))
    return out[metric_list[-1]] if len(metric_list) == 1 else out
