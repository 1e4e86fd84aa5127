"""``ranx.fusion``'s training functions, importable as ``rankmeter.compat.ranx.fusion`` (ranx's path):
``probfuse_train``, ``posfuse_train``, ``slidefuse_train``, ``segfuse_train``, ``bayesfuse_train``,
``mapfuse_train``, with ranx's signatures and return forms, trained by ``rm.train_fusion``'s vectorised tables
(docs/fusion.md, "Training").

As ranx does: the qrels and each run are sorted first (in place, when not sorted yet), queries by id; query i of
the qrels is paired with query i of the run (by position: the run's extra queries are not read); a document is
relevant at grade >= 1; ``mapfuse_train`` is ``evaluate(qrels, run, "map")`` per run (with its side effects).
A run with fewer queries than the qrels is refused: ranx reads past its last query (undefined).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import numpy as np

__all__ = [
    "bayesfuse_train",
    "mapfuse_train",
    "posfuse_train",
    "probfuse_train",
    "segfuse_train",
    "slidefuse_train",
]


def _sorted_dict(x: Any) -> dict:
    """The object's {query: {doc: value}} after ranx's in-place sort of an unsorted object, queries by id."""
    if isinstance(x, Mapping):
        d = {q: dict(v) for q, v in x.items()}
        return {q: d[q] for q in sorted(d)}
    if hasattr(x, "sorted") and not x.sorted and hasattr(x, "sort"):
        x.sort()
    d = x.to_dict()
    return {q: d[q] for q in sorted(d)} if not hasattr(x, "sort") else dict(d)


def paired(qrels: Any, runs: list) -> tuple[dict, list]:
    """(qrels as {i: docs}, runs as Run objects {i: ranked docs}) paired by position as ranx pairs them."""
    from . import ranx as cr

    if not isinstance(runs, (list, tuple)):
        raise TypeError(f"`runs` must be a list of Run objects, got {type(runs).__name__}")
    qd = _sorted_dict(qrels)
    qk = list(qd)
    truth = {i: qd[q] for i, q in enumerate(qk)}
    out = []
    for j, run in enumerate(runs):
        rd = _sorted_dict(run)
        rk = list(rd)
        if len(rk) < len(qk):
            raise ValueError(
                f"runs[{j}] holds {len(rk)} queries and the qrels {len(qk)}: ranx pairs query i of the qrels with "
                "query i of the run and reads past the run's last query (undefined); give every qrels query"
            )
        r = cr.Run()
        r._data = {i: rd[rk[i]] for i in range(len(qk))}
        r.sorted = True
        out.append(r)
    return truth, out


def _train(qrels: Any, runs: list, method: str, n_segments: Optional[int] = None) -> Any:
    from ..evaluation import _fusion_train as ft
    from ..evaluation._fusion import prepare_runs
    from ..inputs import to_truth

    truth, rs = paired(qrels, runs)
    if not truth:
        raise ValueError("the qrels hold no query")
    k = ft.check_n_segments(method, n_segments)
    prep = prepare_runs(rs, "ranx")
    indptr, hit, n_rel, nt = ft.hit_lists(prep, prep.codes, to_truth(truth), 1)
    return ft.train_tables(method, indptr, hit, n_rel, prep.n_runs, nt, k)


def probfuse_train(qrels: Any, runs: list, n_segments: int) -> np.ndarray:
    """ranx's ProbFuse training: per run, each list cut into ``n_segments`` segments of ``ceil(n / n_segments)``
    positions, the mean over the queries of each segment's share of relevant documents (Lillis et al. 2006).
    A 2-D array, one row per run."""
    return _train(qrels, runs, "probfuse", n_segments)


def posfuse_train(qrels: Any, runs: list) -> list:
    """ranx's PosFuse training: per run, the share of relevant documents at each position over the lists long
    enough to have it (Lillis et al. 2010). One array per run."""
    return _train(qrels, runs, "posfuse")


def slidefuse_train(qrels: Any, runs: list) -> list:
    """ranx's SlideFuse training: PosFuse's per-position probabilities (Lillis et al. 2008)."""
    return _train(qrels, runs, "slidefuse")


def segfuse_train(qrels: Any, runs: list) -> list:
    """ranx's SegFuse training: per run, the mean over the queries of the hits in each of the 10 segments
    [0, 5), [5, 15), [15, 35), ... divided by the segment's size (Shokouhi 2007). One array of 10 per run."""
    return _train(qrels, runs, "segfuse")


def bayesfuse_train(qrels: Any, runs: list) -> list:
    """ranx's BayesFuse training: per run, the log odds ln(a / (1 - a)) of the mean precision ``a`` in each
    interval [0, 5), [5, 10), [10, 15), [15, 20), [20, 30), [30, 100), [100, 200), [200, 500), [500, 1000)
    (0 taken as 0.001), repeated over the interval's positions (Aslam & Montague 2001). 1000 values per run."""
    return _train(qrels, runs, "bayesfuse")


def mapfuse_train(qrels: Any, runs: list) -> list:
    """ranx's MAPFuse training: each run's MAP, ``evaluate(qrels, run, "map")`` (Lillis et al. 2010)."""
    from .ranx import evaluate

    return [evaluate(qrels, run, "map") for run in runs]
