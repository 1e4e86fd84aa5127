"""The TREC Fair Ranking 2022 Task 1 evaluation (AWRF and its product with nDCG), restated.

The track's scripts (github.com/fair-trec/trec2022-fair-public, ``wptrec/metrics/awrf.py`` ``AWRFMetric`` and
``wptrec/metrics/common.py`` ``discount``; the 2021 scripts compute the same per-ranking quantities) are not on
PyPI; this module restates, in our own code, what they compute for one ranking:

- the discount of rank j is 1 / log2(max(j, 2)) in float32 (positions 1 and 2 both get 1);
- a page without an alignment row (absent from the page alignments) is dropped, the others keep the discount of
  their rank in the full run;
- each known page's alignment row is 1 in every group the page belongs to (full alignment per group, as the
  track's page alignments for a single fairness dimension), 0 elsewhere; a known page with no group has an
  all-zero row;
- the run's alignment is the mean over the known pages of row × discount; the AWRF is 1 − JS², JS the SciPy
  ``jensenshannon`` distance (natural log) between that alignment and the target, each normalised to sum 1;
- SciPy's ``jensenshannon`` returns NaN when rounding makes the divergence of two equal distributions slightly
  negative (its square root): the scripts then have NaN for a query whose alignment is the target (see
  ``rounding_nan``);
- nDCG has binary utility (the page is in the query's relevant pages, in float32), the discount above, and the
  ideal over min(target_len, number of relevant pages) positions; the score is nDCG × AWRF.

``target_len`` is the track's run length (500); the run is cut to it. rankmeter's spelling:
``awrf(attention=log_trec, multi=each, ungrouped=skip, log_base=e, target=...)@k`` and
``awrf_ndcg(... , discount=trec)@k`` with k = target_len (docs/fairness.md, "Equal to the other tools").
"""

from __future__ import annotations

import math
from typing import Any, Hashable, Mapping, Sequence

import numpy as np
from scipy.spatial.distance import jensenshannon


def trec_discount(n: int) -> np.ndarray:
    ranks = np.arange(1, n + 1, dtype="f4")
    return np.reciprocal(np.log2(np.maximum(ranks, 2)))


def trec_awrf(run: Sequence, alignment: Mapping[Hashable, Sequence], groups: Sequence, target: Any) -> float:
    """1 − JS² between the run's discounted mean alignment over ``groups`` and ``target``; NaN when no known page
    carries alignment (SciPy's normalisation of an all-zero vector)."""
    disc = trec_discount(len(run))
    col = {g: j for j, g in enumerate(groups)}
    rows, weights = [], []
    for pos, page in enumerate(run):
        if page not in alignment:
            continue
        row = np.zeros(len(groups))
        for g in alignment[page]:
            row[col[g]] = 1.0
        rows.append(row)
        weights.append(float(disc[pos]))
    if not rows:
        return math.nan
    ralign = (np.array(rows) * np.array(weights)[:, None]).mean(axis=0)
    if not ralign.sum() > 0:
        return math.nan
    dist = float(jensenshannon(ralign, np.asarray(target, dtype=np.float64)))
    return 1.0 - dist * dist


def rounding_nan(run: Sequence, alignment: Mapping[Hashable, Sequence], groups: Sequence, target: Any) -> bool:
    """True when ``trec_awrf`` is NaN only because SciPy's ``jensenshannon`` takes the square root of a divergence
    that rounding made slightly negative (a run whose alignment equals the target: the scripts give NaN, which
    their pandas mean then skips; rankmeter gives 1)."""
    known = [page for page in run if alignment.get(page)]
    return bool(known) and np.asarray(target).sum() > 0 and math.isnan(trec_awrf(run, alignment, groups, target))


def trec_ndcg(run: Sequence, relevant: Sequence, target_len: int) -> float:
    if len(run) > target_len:
        raise ValueError("too many documents in query run")
    util = np.isin(np.asarray(run, dtype=object), np.asarray(list(relevant), dtype=object)).astype("f4")
    disc = trec_discount(target_len)
    ideal = float(np.sum(disc[: min(target_len, len(relevant))]))
    return float(np.sum(util * disc[: len(run)])) / ideal if ideal > 0 else math.nan
