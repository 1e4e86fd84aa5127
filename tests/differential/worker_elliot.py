"""Elliot's metrics on the differential cases (tests/differential/cases.py), from the restatement of its
published code (tests/support/reference_elliot.py: Elliot does not install here).

    python tests/differential/worker_elliot.py IN.json OUT.json

Each case becomes Elliot's inputs: the test data {user: {item: rating}}, the recommendation lists {user: [item,
...]} in rank order (the case's empty lists too) and the train data {user: {item: 1}}; every metric at each cutoff
of the case with the case's relevance threshold ``t`` (0 or 1). Imports only the standard library and the
restatement (from its file), never rankmeter.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

# the restatement, loaded from its file (the worker runs as a script, outside the tests package)
_spec = importlib.util.spec_from_file_location(
    "reference_elliot", Path(__file__).resolve().parents[1] / "support" / "reference_elliot.py"
)
assert _spec is not None and _spec.loader is not None
ref: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


def one(case: dict) -> dict:
    test: dict = {}
    for u, i, g in case["truth"]:
        test.setdefault(u, {})[i] = g
    recs: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        recs.setdefault(u, []).append(i)
    for u in case.get("empty_lists", []):
        recs[u] = []
    train: dict = {}
    for u, i in case["train"]:
        train.setdefault(u, {})[i] = 1
    return ref.evaluate(test, recs, train, case["ks"], t=case["t"])


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(one)
