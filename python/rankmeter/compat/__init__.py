"""Drop-in replacements for the evaluation calls of other libraries.

Each module keeps the signature, the argument handling and the output of the
function it replaces, and computes the numbers with rankmeter's fused pass in
one batched call (``rankmeter.evaluate`` with the matching preset):

* :mod:`rankmeter.compat.pytrec_eval` -- ``RelevanceEvaluator(qrels, measures).evaluate(run)``.

Import the module you need, e.g. ``from rankmeter.compat import pytrec_eval``.
"""

from __future__ import annotations

__all__ = ["pytrec_eval"]
