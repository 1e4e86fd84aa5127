"""jurity's binary fairness metrics on per-user outcomes by user group, in jurity's venv (tests/differential/jurity.py).

    <venv>/bin/python -P tests/differential/worker_jurity.py IN.json OUT.json

Imports only the standard library, numpy and jurity. The per-user binary outcomes are computed here from the case
(plain Python, their definitions): ``hit@k`` is 1 when the list's first k items hold an item of the user's truth
with a grade above 0, over the truth users with such an item (a user without a list: 0); ``served@k`` the same over
every truth user (a user without a relevant item: 0). jurity's ``BinaryFairnessMetrics.StatisticalParity`` and
``DisparateImpact`` get these outcomes as predictions and the case's ``user_group`` (0 / 1) as memberships, with
``membership_label=1``; each value also as the ``group_gaps`` column it equals (label ``...|gap``: |SP| and
min(DI, 1 / DI)). Beside them, ``InterListDiversity`` of the lists at each cutoff (``_inter_list``). A metric
that raises is recorded as ``raised``.
"""

from __future__ import annotations

import math
import warnings


def one(case: dict) -> dict:

    from jurity.fairness import BinaryFairnessMetrics

    lists: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        lists.setdefault(u, []).append(i)
    truth: dict = {}
    for u, i, g in case["truth"]:
        truth.setdefault(u, {})[i] = g
    group = dict(case["user_group"])
    sp, di = BinaryFairnessMetrics.StatisticalParity(), BinaryFairnessMetrics.DisparateImpact()
    out: dict = {}
    for k in case["ks"]:
        for name, only_relevant in (("hit", True), ("served", False)):
            users = [u for u, t in truth.items() if not only_relevant or any(g > 0 for g in t.values())]
            outcome = [int(any(truth[u].get(i, 0) > 0 for i in lists.get(u, [])[:k])) for u in users]
            member = [group[u] for u in users]
            for label, metric in ((f"StatisticalParity[{name}@{k}]", sp), (f"DisparateImpact[{name}@{k}]", di)):
                try:
                    v = float(metric.get_score(outcome, member, 1))
                except Exception as e:
                    out[label] = {"per_user": None, "mean": None, "raised": type(e).__name__}
                    continue
                out[label] = {"per_user": None, "mean": None if math.isnan(v) else v}
                # the same value as rankmeter's group_gaps column: |SP|, and min(DI, 1 / DI)
                gap = abs(v) if label.startswith("Stat") else (min(v, 1 / v) if v else 0.0)
                out[label + "|gap"] = {"per_user": None, "mean": None if math.isnan(v) else gap}
    out.update(_inter_list(case))
    return out


def _inter_list(case: dict) -> dict:
    """``InterListDiversity(click_column, k, user_sample_size=None)`` (every user, no sampling) of the lists, whose
    score column is minus the rank (jurity keeps each user's k rows of highest score: the first k by rank)."""
    import pandas as pd
    from jurity.recommenders import InterListDiversity
    from worker_io import scalar  # on the worker's PYTHONPATH (the harness puts it there)

    rows = [(u, i, -r) for u, i, r, _s in case["recs"]]
    predicted = pd.DataFrame(rows, columns=["user_id", "item_id", "score"], dtype=object)
    predicted["score"] = predicted["score"].astype(float)
    actual = pd.DataFrame([(u, i, 1) for u, i, _g in case["truth"]], columns=["user_id", "item_id", "clicks"])
    out: dict = {}
    for k in case["ks"]:
        out[f"InterListDiversity@{k}"] = scalar(
            lambda k=k: InterListDiversity("score", k=k, user_sample_size=None).get_score(actual, predicted)
        )
    return out


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    from worker_io import serve

    serve(one)
