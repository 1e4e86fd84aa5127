"""A pytest plugin that runs LensKit's own metric tests against ``preset="lenskit"``.

Loaded into LensKit's venv (``bench/peers/setup.sh lenskit``, which also fetches LensKit 2025.8.1's
``tests/eval`` into ``<venv>/suite``) with rankmeter on ``PYTHONPATH``:

    PYTHONPATH=<rankmeter>/python:<repo> <venv>/bin/python -m pytest -p tests.conformance.lenskit_suite \\
        -o addopts= <venv>/suite/tests/eval/test_rank_ndcg.py ...

Every test module's ``call_metric`` (and ``AveragePrecision`` of test_rank_map.py) is replaced, once the module
is imported, by one that computes the metric with ``rm.evaluate(..., preset="lenskit")`` on the same lists: the
test's ItemLists become a one-user truth ({item: rating}, or 1 per item without ``gain``) and list, and the
metric class with its arguments becomes the rankmeter metric the preset pairs it with (``describe("lenskit")``).
Metric settings the preset does not cover (another weight or discount, ``RBP(normalize=True)``,
``weight_field``, a missing gain field) are computed by LensKit itself and counted in ``not_covered``, which the
session prints. A missing rating (None) is a gain of 0, as LensKit reads it; a test whose truth is empty is
evaluated as a list whose user has no test items (the preset's value, RunAnalysis's filled 0).
"""

from __future__ import annotations

import math
from typing import Any

COUNTS = {"covered": 0, "not_covered": 0}


def _metric_name(m: Any) -> str | None:
    """The rankmeter metric of a LensKit metric instance, or None when the preset does not cover its settings."""
    import numpy as np
    from lenskit.metrics.ranking import (
        DCG,
        NDCG,
        RBP,
        AveragePrecision,
        GeometricRankWeight,
        Hit,
        LogRankWeight,
        Precision,
        Recall,
        RecipRank,
    )

    sfx = f"@{m.n}" if m.n else ""
    if isinstance(m, (NDCG, DCG)):
        w = m.weight
        legacy = m.discount is np.log2  # DiscountWeight(np.log2): 1 / max(log2 j, 1), the same clipped discount
        if not legacy and (m.discount is not None or not isinstance(w, LogRankWeight) or w.base != 2 or w.offset):
            return None
        base = "ndcg" if isinstance(m, NDCG) else "dcg"
        return f"{base}(gain=linear){sfx}" if m.gain else f"{base}{sfx}"
    if isinstance(m, RBP):
        if m.normalize or m.weight_field is not None or not isinstance(m.weight, GeometricRankWeight):
            return None
        return f"rbp(p={m.weight.patience!r}){sfx}"
    for cls, name in ((Precision, "precision"), (Recall, "recall"), (Hit, "hit_rate"), (RecipRank, "rr")):
        if isinstance(m, cls):
            return f"{name}{sfx}"
    if isinstance(m, AveragePrecision):
        return f"ap{sfx}"
    return None


def _rankmeter_value(m: Any, recs: Any, truth: Any) -> float | None:
    import numpy as np

    import rankmeter as rm

    name = _metric_name(m)
    gain = getattr(m, "gain", None)
    if name is None or (gain and truth.field(gain) is None and len(truth)):
        return None
    items = [x.item() if hasattr(x, "item") else x for x in truth.ids()]
    if gain:
        grades = np.asarray(truth.field(gain), dtype=np.float64) if len(truth) else np.zeros(0)
        grades = np.where(np.isnan(grades), 0.0, grades)
    else:
        grades = np.ones(len(items))
    listed = [x.item() if hasattr(x, "item") else x for x in recs.ids()]
    # a second user with one hit keeps the call valid when the test's truth is empty (rankmeter needs a user in both)
    ids = items + listed
    pad = "_pad" if ids and isinstance(ids[0], str) else -987_654_321
    truth_d: dict = {1: {pad: 1.0}}
    if items:
        truth_d[0] = dict(zip(items, grades.tolist()))
    res = rm.evaluate(truth_d, {0: listed, 1: [pad]}, [name], preset="lenskit")
    pu = dict(zip(res.users.tolist(), res.per_user[name].tolist()))
    return pu.get(0, math.nan)


def call_metric(metric: Any, output: Any, test: Any, *args: Any, **kwargs: Any) -> float:
    from lenskit.metrics import call_metric as original

    m = metric(*args, **kwargs) if isinstance(metric, type) else metric
    v = _rankmeter_value(m, output, test)
    if v is None:
        COUNTS["not_covered"] += 1
        return original(m, output, test)
    COUNTS["covered"] += 1
    return v


def _ap_class() -> type:
    from lenskit.metrics.ranking import AveragePrecision as Original

    class AveragePrecision(Original):
        def measure_list(self, recs: Any, test: Any) -> float:
            v = _rankmeter_value(self, recs, test)
            if v is None:
                COUNTS["not_covered"] += 1
                return super().measure_list(recs, test)
            COUNTS["covered"] += 1
            return v

    return AveragePrecision


def pytest_collection_modifyitems(session: Any, config: Any, items: list) -> None:
    ap = _ap_class()
    for mod in {item.module for item in items if getattr(item, "module", None) is not None}:
        if hasattr(mod, "call_metric"):
            mod.call_metric = call_metric
        if hasattr(mod, "AveragePrecision"):
            mod.AveragePrecision = ap


def pytest_terminal_summary(terminalreporter: Any) -> None:
    terminalreporter.write_line(
        f"lenskit_suite: {COUNTS['covered']} metric values from rankmeter (preset='lenskit'), "
        f"{COUNTS['not_covered']} from LensKit (settings the preset does not cover)"
    )
