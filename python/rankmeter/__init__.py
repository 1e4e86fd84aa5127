"""rankmeter: fast, exact offline evaluation of recommender and ranking systems.

>>> import rankmeter as rm
>>> res = rm.evaluate({"u": {"a": 3, "b": 1}}, {"u": ["a", "x", "b"]}, ["ndcg@3", "mrr"])
>>> round(res["ndcg@3"], 4), res["mrr"]
(0.9639, 1.0)
"""

from . import datasets, metrics, presets
from ._aggregate import State
from ._core import has_openmp
from ._version import __version__
from .compare import Comparison, compare
from .compare import ci as _ci
from .compare import plot_result as _plot_result
from .evaluation import PRESETS, AgreementResult, AgreementState, Result, agreement, evaluate, partial
from .evaluation._auc_matrix import auc_scores
from .evaluation._bias_disparity import bias_disparity  # bias disparity (ee)
from .evaluation._expected_exposure import ExpectedExposureResult, expected_exposure  # expected exposure (ee)
from .evaluation._fusion import fuse, optimize_fusion, train_fusion
from .evaluation._groups import GroupedState, activity_groups
from .evaluation._model import evaluate_model
from .evaluation._popularity import popularity_groups
from .evaluation._propensity import popularity_propensity
from .evaluation._sampled import SampledResult, evaluate_sampled
from .evaluation._shortcuts import (
    alpha_ndcg,
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
from .evaluation._tables import item_bias, rec_cases, user_bias
from .inputs import Recs, Truth, read_trec_qrels, read_trec_run
from .inputs._factors import factor_scores
from .stream import StreamResult, evaluate_stream

# Result.ci / Result.plot live with the comparison tools (a use layer); the root
# package, which sits above every layer, attaches them.
Result.ci = _ci  # type: ignore[attr-defined]
Result.plot = _plot_result  # type: ignore[attr-defined]

__all__ = [
    "evaluate",
    "auc_scores",
    "evaluate_model",
    "evaluate_sampled",
    "SampledResult",
    "factor_scores",
    "partial",
    "agreement",
    "AgreementResult",
    "AgreementState",
    "fuse",
    "optimize_fusion",
    "train_fusion",
    "evaluate_stream",
    "StreamResult",
    "Result",
    "State",
    "GroupedState",
    "activity_groups",
    "popularity_groups",
    "Truth",
    "Recs",
    "metrics",
    "presets",
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
    "alpha_ndcg",
    "item_bias",
    "expected_exposure",  # expected exposure (ee)
    "ExpectedExposureResult",
    "bias_disparity",  # bias disparity (ee)
    "user_bias",
    "rec_cases",
    "popularity_propensity",
    "compare",
    "Comparison",
    "has_openmp",
    "PRESETS",
    "__version__",
]
