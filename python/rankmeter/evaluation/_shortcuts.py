"""Single-metric shortcuts: ``rm.ndcg(truth, recs, k=10, gain="exponential")``.

Each one is ``evaluate(truth, recs, [Metric(name, k, **options)], ...)`` and
returns the mean (``aggregate="mean"``, default) or the per-user array
(``aggregate=None``). A keyword is the metric's option when the metric has
one of that name, else an evaluation option (every option of
:class:`~rankmeter.evaluation.EvalOptions`: ``missing``, ``user_col``, ...).
"""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from ..metrics import SPECS, Metric
from ._evaluate import evaluate_with
from ._options import OPTION_NAMES, EvalOptions

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
    "alpha_ndcg",
]


def _single(
    name: str, where: str, truth: Any, recs: Any, k: Optional[int], aggregate: Optional[str], kwargs: dict
) -> Union[float, np.ndarray]:
    if aggregate not in ("mean", None):
        raise ValueError(f"`aggregate` must be 'mean' or None, got {aggregate!r}")
    if "per_user" in kwargs:
        raise TypeError(
            f"{where}() takes no `per_user`: aggregate=None returns the per-user values, aggregate='mean' "
            "(the default) their mean"
        )
    # a name the metric takes is the metric's option; the other evaluation options go to evaluate()
    own = SPECS[name].options
    eval_kw = {key: kwargs.pop(key) for key in list(kwargs) if key not in own and key in OPTION_NAMES}
    try:
        metric = Metric(name, k, **kwargs)
    except ValueError as e:
        if str(e).startswith("unknown option"):
            raise ValueError(f"{e}; evaluation options: {', '.join(OPTION_NAMES)}") from None
        raise
    if aggregate is None and metric.family == "catalog":
        raise ValueError(
            f"`aggregate` must be 'mean' for {name!r}: a catalog-level metric has one value, no per-user values"
        )
    opts = EvalOptions.from_kwargs(where, **eval_kw)
    # the mean alone needs no per-user column (the same exact mean, without writing one value per user)
    res = evaluate_with(truth, recs, [metric], opts, per_user=aggregate is None)
    return res[metric] if aggregate == "mean" else res.per_user[metric]


def _make(name: str, summary: str, options: str = ""):
    public = {"ap": "map", "rr": "mrr", "ar": "mar"}.get(name, name)

    def shortcut(
        truth: Any, recs: Any, k: Optional[int] = None, *, aggregate: Optional[str] = "mean", **kwargs: Any
    ) -> Union[float, np.ndarray]:
        return _single(name, public, truth, recs, k, aggregate, kwargs)

    shortcut.__name__ = shortcut.__qualname__ = public
    shortcut.__doc__ = (
        f"{summary}\n\nParameters\n----------\ntruth, recs\n    As for :func:`rankmeter.evaluate`.\n"
        f"k : int, optional\n    Cutoff (None: the whole list).\n{options}"
        "aggregate : {'mean', None}\n    The mean over users (default) or the per-user float64 array.\n"
        "**kwargs\n    "
        + _wrapped(f"Options of :func:`rankmeter.evaluate`: {', '.join(OPTION_NAMES)}.")
        + "\n\nSee ``docs/metrics.md`` for the formula and conventions.\n"
    )
    return shortcut


def _wrapped(text: str, width: int = 84) -> str:
    """``text`` in lines of at most ``width`` characters, indented as a parameter's description."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n    ".join([*lines, line])


precision = _make("precision", "Precision@k = hits@k / k.")
recall = _make("recall", "Recall@k = hits@k / |R|.", "denominator : {'relevant', 'min_relevant_k'}\n")
fbeta = _make("fbeta", "F-beta of precision@k and recall@k.", "beta : float, default 1\n")
map = _make(
    "ap", "Mean average precision at k.", "denominator : {'relevant', 'min_relevant_k', 'hits', 'k', 'min_listed'}\n"
)
mar = _make("ar", "Mean average recall at k.", "denominator : {'relevant', 'hits'}\n")
ndcg = _make(
    "ndcg",
    "Normalised DCG at k.",
    "gain : {'linear', 'exponential', 'binary'}\nideal : {'cut', 'all', 'k_slots'}\n"
    "missing_recs : {'inherit', 'zero'} ('zero': truth users without recs score 0 whatever `missing=`)\n",
)
dcg = _make("dcg", "Discounted cumulative gain at k.", "gain : str\nlog_base : float, default 2\n")
hit_rate = _make("hit_rate", "Hit rate at k: share of users with at least one hit.")
mrr = _make("rr", "Mean reciprocal rank of the first hit within k.")
arhr = _make("arhr", "Average reciprocal hit rank: sum of 1/j over every hit within k.")
hits = _make("hits", "Number of relevant items within k.")
cg = _make("cg", "Cumulative gain at k.", "gain : str\n")
r_precision = _make("r_precision", "R-precision: precision at |R|.")
fcp = _make(
    "fcp",
    "Fraction of concordant pairs (Koren 2008): truth pairs ordered like their grades.",
    "average : {'pairs', 'users'}\n",
)
diversity = _make(
    "diversity",
    "Intra-list diversity: 1 - mean pairwise similarity of the top-k items.",
    "similarity : {'features', 'matrix', 'cooccurrence'}\none_item : {'skip', 'zero'} ('zero': a one-item top k scores 0)\n",
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
coverage = _make(
    "coverage",
    "Share of the catalog recommended in some top k (catalog-level).",
    "outside : {'skip', 'count'} ('count': recommended items outside the catalog count too)\n",
)
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
alpha_ndcg = _make(
    "alpha_ndcg",
    "ndeval's alpha-nDCG@k (intent-aware, from the subtopic judgments ``subtopics=``).",
    "alpha : float in [0, 1] (redundancy penalty, default 0.5)\n",
)
