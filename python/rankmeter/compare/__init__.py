"""Comparing runs: paired significance tests over users, tables, plots, reports.

>>> import rankmeter as rm
>>> cmp = rm.compare(truth, {"bm25": run_a, "dense": run_b}, ["ndcg@10", "map@100"])  # doctest: +SKIP
>>> print(cmp.to_markdown())                                                          # doctest: +SKIP

This is a "use" layer: it calls rankmeter's public API (``evaluate``,
``Result``, ``metrics.parse``) and its own C++ kernels, nothing private.
"""

from ._ci import ci
from ._compare import CORRECTIONS, TESTS, compare
from ._table import COLUMNS, Comparison
from .plot import plot_result

__all__ = ["compare", "Comparison", "ci", "plot_result", "TESTS", "CORRECTIONS", "COLUMNS"]
