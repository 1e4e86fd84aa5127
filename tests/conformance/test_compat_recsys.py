"""rankmeter.compat.ml_metrics and rankmeter.compat.recmetrics against the originals (venv `recm`:
ml_metrics 0.1.4 and recmetrics 0.1.5), on random inputs and edge cases. recmetrics 0.1.5 has no `mapk`: it is
checked against its GitHub definition restated in tests/compat/test_ml_metrics_recmetrics.py."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest

from rankmeter.compat import ml_metrics as C_ml
from rankmeter.compat import recmetrics as C_rec
from tests.conformance.recsys_helpers import run_peer


def _lists(seed, n=60, n_items=25, max_len=12, dup=False, strings=False, huge=False, fixed_len=None):
    g = np.random.default_rng(seed)

    def iid(i):
        i = int(i)
        return f"i{i}" if strings else (2**63 - 1 - i if huge else i)

    actual, pred = [], []
    for _ in range(n):
        a = g.choice(n_items, int(g.integers(0, 6)), replace=bool(dup))
        length = fixed_len if fixed_len is not None else int(g.integers(0, max_len + 1))
        p = g.choice(n_items, length, replace=bool(dup) and fixed_len is None)
        actual.append([iid(x) for x in a])
        pred.append([iid(x) for x in p])
    return actual, pred


ACC = []  # (module, fn, args)
for s in range(4):
    for kw in ({}, {"dup": True}, {"strings": True}, {"huge": True}):
        a, p = _lists(s, **kw)
        for k in (1, 3, 10, 50):
            ACC += [("ml_metrics", "mapk", [a, p, k]), ("recmetrics", "mark", [a, p, k])]
        ACC += [("ml_metrics", "apk", [a[0], p[0], 5]), ("ml_metrics", "apk", [a[1], p[1], 2])]
# edge cases: empty truth, empty lists, zero users, k = 0 (ml_metrics divides by min(len, 0)), float k
ACC += [
    ("ml_metrics", "mapk", [[[]], [[1, 2]], 3]),
    ("ml_metrics", "mapk", [[[1]], [[]], 3]),
    ("ml_metrics", "mapk", [[[1, 2]], [[2, 1]], 0]),
    ("ml_metrics", "mapk", [[[1, 2]], [[2, 1, 3]], 2.0]),
    ("ml_metrics", "mapk", [[[1, 2]], [[2, 1]], 2.0]),
    ("recmetrics", "mark", [[[]], [[1]], 3]),
    ("recmetrics", "mark", [[[1, 2, 2]], [[2, 2, 1]], 3]),
    ("ml_metrics", "apk", [[1, 1, 2], [1, 2], 3]),
    ("ml_metrics", "mapk", [[[1], [2]], [[1]], 3]),
]
BEYOND = []
for s in range(4):
    a, p = _lists(100 + s, n=30, fixed_len=5)
    BEYOND.append(("recmetrics", "personalization", [p]))
    feats = {"index": list(range(25)), "values": np.random.default_rng(s).integers(0, 2, (25, 6)).tolist()}
    BEYOND.append(("recmetrics", "intra_list_similarity", [p, feats]))
    pop = {"pairs": [[i, int(c)] for i, c in enumerate(np.random.default_rng(s).integers(1, 40, 25))]}
    BEYOND.append(("recmetrics", "novelty", [p, pop, 50, 5]))
    BEYOND.append(("recmetrics", "prediction_coverage", [p, list(range(40))]))
    BEYOND.append(("recmetrics", "catalog_coverage", [p, list(range(40)), 7]))
BEYOND += [
    ("recmetrics", "personalization", [[[1, 2], [1, 3, 4]]]),  # ragged: the original raises
    ("recmetrics", "personalization", [[[1, 1], [2, 3]]]),  # repeated item
    ("recmetrics", "intra_list_similarity", [[[0, 1], []], {"index": [0, 1], "values": [[1, 0], [0, 1]]}]),
    ("recmetrics", "novelty", [[[0, 7]], {"pairs": [[0, 3]]}, 10, 2]),
]  # item without popularity: KeyError
CALLS = ACC + BEYOND
SEED = 12345


@pytest.fixture(scope="module")
def originals():
    calls = [
        {"module": m, "fn": f, "args": a, **({"seed": SEED} if f == "catalog_coverage" else {})} for m, f, a in CALLS
    ]
    return run_peer("recm", "calls", [{"calls": calls}])[0]["ok"]


def _call(module, fn, args):
    mod = {"ml_metrics": C_ml, "recmetrics": C_rec}[module]
    if fn == "intra_list_similarity" and isinstance(args[1], dict):
        import pandas as pd

        args = [args[0], pd.DataFrame(args[1]["values"], index=args[1]["index"])]
    if fn == "novelty":
        args = [args[0], dict(args[1]["pairs"]), *args[2:]]
    if fn == "catalog_coverage":
        random.seed(SEED)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return {"value": getattr(mod, fn)(*args)}
        except Exception as e:
            return {"raises": type(e).__name__}


def _close(a, b, rel):
    if a is None or b is None:
        return a is None and (b is None or math.isnan(b))
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)


@pytest.mark.parametrize("n", range(len(CALLS)))
def test_compat_equals_original(originals, n):
    module, fn, args = CALLS[n]
    want, got = originals[n], _call(module, fn, args)
    if "raises" in want:
        assert got == want, (fn, got, want)
        return
    assert "value" in got, (fn, got, want)
    v = got["value"]
    # exact for the accuracy functions and coverage; the pairwise cosine sums are added in another order
    rel = 1e-12 if fn in ("personalization", "intra_list_similarity") else 0.0
    if fn == "novelty":
        assert _close(float(v[0]), want["value"][0], rel) and all(
            _close(float(x), y, rel) for x, y in zip(v[1], want["value"][1])
        )
    else:
        assert _close(float(v), want["value"], rel), (fn, float(v), want["value"])
