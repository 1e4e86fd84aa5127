"""rankmeter: fast, exact offline evaluation of recommender and ranking systems.

>>> import rankmeter as rm
>>> res = rm.evaluate({"u": {"a": 3, "b": 1}}, {"u": ["a", "x", "b"]}, ["ndcg@3", "mrr"])
>>> round(res["ndcg@3"], 4), res["mrr"]
(0.9639, 1.0)
"""

from . import datasets, metrics
from ._aggregate import State
from ._convert import Recs, Truth
from ._core import has_openmp
from ._evaluate import Result, evaluate, partial
from ._presets import PRESETS
from ._shortcuts import (
    arhr,
    arp,
    cg,
    coverage,
    dcg,
    diversity,
    fbeta,
    fcp,
    gini,
    hit_rate,
    hits,
    map,
    mar,
    mrr,
    ndcg,
    novelty,
    personalization,
    precision,
    r_precision,
    recall,
    score_entropy,
    serendipity,
)
from ._tables import item_bias, rec_cases, user_bias
from ._trec import read_trec_qrels, read_trec_run
from .compare import Comparison, compare

__version__ = "0.1.0"

__all__ = [
    "evaluate",
    "partial",
    "Result",
    "State",
    "Truth",
    "Recs",
    "metrics",
    "datasets",
    "read_trec_qrels",
    "read_trec_run",
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
    "item_bias",
    "user_bias",
    "rec_cases",
    "compare",
    "Comparison",
    "has_openmp",
    "PRESETS",
    "__version__",
]
