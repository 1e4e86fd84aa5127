"""Drop-in replacements for the evaluation calls of other libraries.

Each module keeps the signature, the argument handling, the output and the
exception types of the function it replaces, and computes the numbers with
rankmeter's fused pass in one batched call (``rankmeter.evaluate`` with the
matching preset):

* :mod:`rankmeter.compat.pytrec_eval` -- ``RelevanceEvaluator(qrels, measures).evaluate(run)``;
* :mod:`rankmeter.compat.ranx` -- ``evaluate(qrels, run, metrics)``;
* :mod:`rankmeter.compat.ir_measures` -- ``calc_aggregate(measures, qrels, run)``, ``iter_calc``;
* :mod:`rankmeter.compat.ml_metrics` -- ``apk``, ``mapk``;
* :mod:`rankmeter.compat.recmetrics` -- ``mapk``, ``mark``, ``personalization``, ``novelty``,
  ``intra_list_similarity``, ``catalog_coverage``, ``prediction_coverage``;
* :mod:`rankmeter.compat.beir` -- ``EvaluateRetrieval.evaluate(qrels, results, k_values)``, ``evaluate_custom``;
* :mod:`rankmeter.compat.recommenders` -- Microsoft Recommenders' ``python_evaluation``: ``precision_at_k``,
  ``recall_at_k``, ``ndcg_at_k``, ``map_at_k``, ``map``, ``r_precision_at_k``, the beyond-accuracy functions
  (``diversity``, ``serendipity``, ``novelty``, ``catalog_coverage``, ...) and ``rmse``, ``mae``, ``rsquared``,
  ``exp_var``, ``auc``, ``logloss`` on pandas DataFrames.
* :mod:`rankmeter.compat.torchmetrics` -- the retrieval metric classes (``RetrievalMAP``, ``RetrievalNormalizedDCG``,
  ...: ``update``/``compute``/``reset``) and the functional ``retrieval_*`` forms of torchmetrics.

Import the module you need, e.g. ``from rankmeter.compat import pytrec_eval``.
See docs/metrics.md, "Migrating from ...".
"""

from __future__ import annotations

__all__ = ["beir", "ir_measures", "ml_metrics", "pytrec_eval", "ranx", "recmetrics", "recommenders", "torchmetrics"]
