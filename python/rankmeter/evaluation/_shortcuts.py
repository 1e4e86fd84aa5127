"""Single-metric shortcuts: ``rm.ndcg(truth, recs, k=10, gain="exponential")``.

Each one is ``evaluate(truth, recs, [Metric(name, k, **options)], ...)`` and
returns the mean (``aggregate="mean"``, default) or the per-user array
(``aggregate=None``).
"""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from ..metrics import Metric
from ._evaluate import evaluate

__all__ = [
    "precision",
    "recall",
    "fbeta",
    "map",
    "mar",
    "ndcg",
    "dcg",
    "hit_rate",
    "mrr",
    "arhr",
    "hits",
    "cg",
    "r_precision",
    "fcp",
    "diversity",
    "novelty",
    "serendipity",
    "personalization",
    "coverage",
    "arp",
    "gini",
    "score_entropy",
]

_EVAL_KW = (
    "preset",
    "threads",
    "empty",
    "duplicates",
    "ties",
    "min_relevance",
    "max_items",
    "train",
    "item_features",
    "item_similarity",
    "catalog",
)


def _single(
    name: str, truth: Any, recs: Any, k: Optional[int], aggregate: Optional[str], kwargs: dict
) -> Union[float, np.ndarray]:
    if aggregate not in ("mean", None):
        raise ValueError(f"`aggregate` must be 'mean' or None, got {aggregate!r}")
    eval_kw = {key: kwargs.pop(key) for key in _EVAL_KW if key in kwargs}
    metric = Metric(name, k, **kwargs)
    if aggregate is None and metric.family == "catalog":
        raise ValueError(
            f"`aggregate` must be 'mean' for {name!r}: a catalog-level metric has one value, no per-user values"
        )
    res = evaluate(truth, recs, [metric], **eval_kw)
    return res[metric] if aggregate == "mean" else res.per_user[metric]


def _make(name: str, summary: str, options: str = ""):
    def shortcut(
        truth: Any, recs: Any, k: Optional[int] = None, *, aggregate: Optional[str] = "mean", **kwargs: Any
    ) -> Union[float, np.ndarray]:
        return _single(name, truth, recs, k, aggregate, kwargs)

    shortcut.__name__ = shortcut.__qualname__ = name if name != "ap" else "map"
    shortcut.__doc__ = (
        f"{summary}\n\nParameters\n----------\ntruth, recs\n    As for :func:`rankmeter.evaluate`.\n"
        f"k : int, optional\n    Cutoff (None: the whole list).\n{options}"
        "aggregate : {'mean', None}\n    The mean over users (default) or the per-user float64 array.\n"
        "**kwargs\n    Options of :func:`rankmeter.evaluate` (preset, threads, empty, duplicates, ties,\n"
        "    min_relevance, max_items, and the context train, item_features, item_similarity, catalog).\n\n"
        "See ``docs/metrics.md`` for the formula and conventions.\n"
    )
    return shortcut


precision = _make("precision", "Precision@k = hits@k / k.")
recall = _make("recall", "Recall@k = hits@k / |R|.", "denominator : {'relevant', 'min_relevant_k'}\n")
fbeta = _make("fbeta", "F-beta of precision@k and recall@k.", "beta : float, default 1\n")
map = _make("ap", "Mean average precision at k.", "denominator : {'relevant', 'min_relevant_k', 'hits', 'k'}\n")
mar = _make("ar", "Mean average recall at k.", "denominator : {'relevant', 'hits'}\n")
ndcg = _make(
    "ndcg", "Normalised DCG at k.", "gain : {'linear', 'exponential', 'binary'}\nideal : {'cut', 'all', 'k_slots'}\n"
)
dcg = _make("dcg", "Discounted cumulative gain at k.", "gain : str\nlog_base : float, default 2\n")
hit_rate = _make("hit_rate", "Hit rate at k: share of users with at least one hit.")
mrr = _make("rr", "Mean reciprocal rank of the first hit within k.")
arhr = _make("arhr", "Average reciprocal hit rank: sum of 1/j over every hit within k.")
hits = _make("hits", "Number of relevant items within k.")
cg = _make("cg", "Cumulative gain at k.", "gain : str\n")
r_precision = _make("r_precision", "R-precision: precision at |R|.")
mrr.__name__ = mrr.__qualname__ = "mrr"
mar.__name__ = mar.__qualname__ = "mar"
fcp = _make(
    "fcp",
    "Fraction of concordant pairs (Koren 2008): truth pairs ordered like their grades.",
    "average : {'pairs', 'users'}\n",
)
diversity = _make(
    "diversity",
    "Intra-list diversity: 1 - mean pairwise similarity of the top-k items.",
    "similarity : {'features', 'matrix', 'cooccurrence'}\n",
)
novelty = _make(
    "novelty",
    "Mean self-information -log2(users_with_item / train_users) of the top-k items.",
    "unseen : {'skip', 'zero', 'one_user'}\ndivide_by : {'items', 'k'}\n",
)
serendipity = _make(
    "serendipity",
    "Mean unexpectedness (1 - mean cosine to the history) of relevant top-k items.",
    "relevance : {'relevant', 'all'}\n",
)
personalization = _make(
    "personalization",
    "1 - mean overlap of the top-k lists of two users (catalog-level).",
    "similarity : {'overlap', 'cosine'}\n",
)
coverage = _make("coverage", "Share of the catalog recommended in some top k (catalog-level).")
arp = _make(
    "arp",
    "Average recommendation popularity of the top-k items.",
    "popularity : {'users', 'interactions'}\nunseen : {'skip', 'zero'}\nnormalize : {'none', 'max', 'total'}\n",
)
gini = _make(
    "gini",
    "Gini index of how often catalog items are recommended (catalog-level).",
    "over : {'catalog', 'recommended'}\n",
)
score_entropy = _make("score_entropy", "Entropy of the softmax of all top-k scores pooled (catalog-level).")
