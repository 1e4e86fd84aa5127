"""rexmex's coverage and personalization on the differential cases, in rexmex's venv (tests/differential/rexmex.py).

    <venv>/bin/python -P tests/differential/worker_rexmex.py IN.json OUT.json

Imports only the standard library and rexmex. For each cutoff k of the case every list is cut to its first k
items (rexmex takes the recommendations as given); ``item_coverage((users, catalog), pairs)`` and
``user_coverage((users, catalog), pairs)`` get the (user, item) pairs of the cut lists (an empty list adds no
pair; the users: those of the truth and of the lists), ``personalization`` every cut list (an empty one included). A function
that raises is recorded as ``raised``.
"""

from __future__ import annotations

import warnings


def one(case: dict) -> dict:
    from rexmex.metrics.coverage import item_coverage, user_coverage
    from rexmex.metrics.ranking import personalization
    from worker_io import scalar  # on the worker's PYTHONPATH (the harness puts it there)

    lists: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        lists.setdefault(u, []).append(i)
    for u in case.get("empty_lists", []):
        lists[u] = []
    users = list(dict.fromkeys([*(u for u, _i, _g in case["truth"]), *lists]))
    out: dict = {}
    for k in case["ks"]:
        cut = {u: lst[:k] for u, lst in lists.items()}
        pairs = [(u, i) for u, lst in cut.items() for i in lst]
        calls = {
            f"item_coverage@{k}": lambda pairs=pairs: item_coverage((users, case["catalog"]), pairs),
            f"user_coverage@{k}": lambda pairs=pairs: user_coverage((users, case["catalog"]), pairs),
            f"personalization@{k}": lambda cut=cut: personalization(list(cut.values())),
        }
        for label, f in calls.items():
            out[label] = scalar(f)
    return out


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    from worker_io import serve

    serve(one)
