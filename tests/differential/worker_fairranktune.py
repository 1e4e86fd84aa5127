"""FairRankTune's group exposure metrics on the differential cases, in FairRankTune's venv
(tests/differential/fairranktune.py).

    <venv>/bin/python -P tests/differential/worker_fairranktune.py IN.json OUT.json

Imports only the standard library, pandas and FairRankTune. The rankings are one column per list (items by rank,
padded with NaN; an empty list is a column of NaN), of object dtype so that huge ids stay exact; the item -> group
dict is the case's ``item_group``. ``EXP(rankings, groups, combo)``, ``ERBE`` / ``ERBP(rankings, groups, decay, combo)`` and
``AWRF(rankings, groups, p, combo)`` with every combo; a call that raises is recorded as ``raised``.
"""

from __future__ import annotations

import warnings

COMBOS = ("MinMaxRatio", "MaxMinRatio", "MaxMinDiff", "MaxAbsDiff", "MeanAbsDev", "LTwo", "Variance")


def one(case: dict) -> dict:
    import pandas as pd
    from FairRankTune.Metrics import AWRF, ERBE, ERBP, EXP
    from worker_io import scalar  # on the worker's PYTHONPATH (the harness puts it there)

    lists: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        lists.setdefault(u, []).append(i)
    for u in case.get("empty_lists", []):
        lists[u] = []
    longest = max([len(v) for v in lists.values()] + [0])
    cols = {f"r{j}": pd.Series(v + [None] * (longest - len(v)), dtype=object) for j, v in enumerate(lists.values())}
    rankings = pd.DataFrame(cols)
    groups = dict(case["item_group"])
    calls = {
        "EXP": lambda c: EXP(rankings, groups, c),
        "ERBE(0.5)": lambda c: ERBE(rankings, groups, 0.5, c),
        "ERBE(0.8)": lambda c: ERBE(rankings, groups, 0.8, c),
        "ERBP(0.5)": lambda c: ERBP(rankings, groups, 0.5, c),
        "AWRF(0.3)": lambda c: AWRF(rankings, groups, 0.3, c),
    }
    out: dict = {}
    for name, f in calls.items():
        for c in COMBOS:
            out[f"{name}[{c}]"] = scalar(lambda f=f, c=c: f(c)[0])
    return out


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    from worker_io import serve

    serve(one)
