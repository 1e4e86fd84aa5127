"""``pytrec_eval.RelevanceEvaluator`` on rankmeter's fused pass.

Before::

    import pytrec_eval
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "bpref"})
    per_query = ev.evaluate(run)

After::

    from rankmeter.compat import pytrec_eval
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "bpref"})
    per_query = ev.evaluate(run)

``qrels`` is ``{query: {doc: int grade}}``, ``run`` is ``{query: {doc: float score}}``.
The result is pytrec_eval's nested dict ``{query: {measure: value}}`` with
trec_eval's measure names (``P_5``, ``ndcg_cut_10``, ``map``, ``bpref``, ...),
for the queries that are in both the run and the qrels. The numbers are
trec_eval's (``preset="trec_eval"``): documents ranked by score, equal scores
by document id descending; relevant means grade >= ``relevance_level``; judged
non-relevant (bpref) means a qrels row below it; queries without a relevant
document score 0. Measures rankmeter does not compute raise ``ValueError``,
as pytrec_eval does for a measure it does not know.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Iterable, Mapping

import numpy as np

import rankmeter as _rm

from ._nested import to_containers

__all__ = ["RelevanceEvaluator", "supported_measures"]

# trec_eval's default cutoffs of the parameterised measures
_DEFAULT_CUTOFFS = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10),
}
# measure family -> rankmeter metric (with "{k}" for the cutoff)
_CUT = {
    "P": "precision@{k}",
    "recall": "recall@{k}",
    "map_cut": "ap@{k}",
    "ndcg_cut": "ndcg@{k}",
    "success": "hit_rate@{k}",
}
_PLAIN = {
    "map": "ap",
    "ndcg": "ndcg",  # the trec_eval preset gives ideal="all"
    "recip_rank": "rr",
    "Rprec": "r_precision",
    "num_rel_ret": "hits",
    "num_rel": "num_rel",
    "bpref": "bpref",
}

supported_measures = frozenset(_CUT) | frozenset(_PLAIN)


def _expand(measures: Iterable[str]) -> dict[str, str]:
    """pytrec_eval measure requests ('P', 'P.5,10', 'P_5', 'map') -> {output name: rankmeter metric}."""
    if isinstance(measures, str):
        raise TypeError("`measures` must be a set of measure names such as {'map', 'P.10'}, got a string")
    out: dict[str, str] = {}
    for req in measures:
        if not isinstance(req, str):
            raise TypeError(f"measure names must be strings, got {req!r}")
        name, _, params = req.partition(".")
        cut = re.fullmatch(r"(P|recall|map_cut|ndcg_cut|success)_(\d+)", req)
        if cut:
            name, params = cut.group(1), cut.group(2)
        if name in _PLAIN:
            if params:
                raise ValueError(f"measure {req!r} takes no parameters")
            out[name] = _PLAIN[name]
        elif name in _CUT:
            try:
                ks = [int(x) for x in params.split(",")] if params else list(_DEFAULT_CUTOFFS[name])
            except ValueError:
                raise ValueError(f"cannot parse the cutoffs of measure {req!r}") from None
            for k in ks:
                if k < 1:
                    raise ValueError(f"cutoffs must be positive in measure {req!r}")
                out[f"{name}_{k}"] = _CUT[name].format(k=k)
        else:
            raise ValueError(f"unsupported measure {name}")
    return out


class RelevanceEvaluator:
    """pytrec_eval's evaluator: the qrels and measures once, then ``evaluate(run)`` per run."""

    def __init__(
        self,
        query_relevance: Mapping[Any, Mapping[Any, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ):
        if not isinstance(query_relevance, Mapping):
            raise TypeError("Expected a dictionary of query relevance judgments.")
        if judged_docs_only_flag:
            raise ValueError("judged_docs_only_flag=True is not supported by rankmeter.compat.pytrec_eval")
        grades = np.fromiter(itertools.chain.from_iterable(d.values() for d in query_relevance.values()), dtype=object)
        if grades.size and not all(
            isinstance(g, (int, np.integer)) and not isinstance(g, bool) for g in set(grades.tolist())
        ):
            raise TypeError("Expected relevance to be integer.")
        self._qrels = query_relevance
        self._measures = _expand(measures)
        self._metrics = list(dict.fromkeys(self._measures.values()))
        self._relevance_level = int(relevance_level)

    def evaluate(self, scores: Mapping[Any, Mapping[Any, float]]) -> dict:
        """``{query: {measure: value}}`` for the run's queries that have qrels."""
        if not isinstance(scores, Mapping):
            raise TypeError("Expected a dictionary of query scores.")
        try:
            truth, recs = to_containers(self._qrels, scores)
        except TypeError:
            raise TypeError("Unable to extract query/object scores.") from None
        # preset="trec_eval" evaluates the queries in both the run and the qrels (missing="skip");
        # run queries without qrels are ignored. The codes are in docno order: item_desc = trec_eval's ties.
        res = _rm.evaluate(
            truth,
            recs,
            self._metrics,
            preset="trec_eval",
            ties="item_desc",
            min_relevance=self._relevance_level,
        )
        if not res.users.size:
            return {}
        names = list(self._measures)
        cols = [res.per_user[self._measures[n]] for n in names]
        rows = np.column_stack(cols).tolist() if cols else [[] for _ in res.users]
        users = res.users.tolist()
        return {u: dict(zip(names, row)) for u, row in zip(users, rows)}
