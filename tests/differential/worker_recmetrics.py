"""Differential worker for recmetrics (runs in the `recm` venv; stdlib, numpy, pandas and recmetrics only).

    python worker_recmetrics.py IN.json OUT.json

Two versions of the peer: the 0.1.5 release (``import recmetrics``) and the current GitHub source
(commit b21222d), which bench/peers/setup.sh puts in ``<venv>/github/recmetrics`` and which alone has ``mapk``
and ``prediction_coverage(..., unseen_warning)``; it is loaded from that file under another module name.

For every case (tests/differential/cases.py) the users of either side are zipped as recmetrics takes them
(cases.as_lists: truth items without grades, lists by rank with their repeats) and, for each cutoff K of the
case (lists cut at K where the function has no k of its own):

- ``mark@K`` (0.1.5 ``_ark`` per user, ``mark``), ``mapk@K`` (GitHub ``_apk`` per user, ``mapk``);
- ``personalization@K``; ``ils@K`` (``_single_list_similarity`` per user, ``intra_list_similarity``; with the
  case's features); ``novelty@K`` (pop = train interactions per item, u = train users, n = K; with train);
- ``prediction_coverage@K`` (0.1.5), ``prediction_coverage_gh_warn@K`` / ``_gh_strict@K`` (GitHub, with
  unseen_warning True / False), ``catalog_coverage@K`` (``random.seed(12345)`` first: K lists drawn);
- ``recommender_precision`` / ``recommender_recall`` (whole lists; per user and the mean).

Labels ``compat:...`` are what rankmeter.compat.recmetrics answers, ``preset:...`` what ``preset="recmetrics"``
answers. A function that raises gives its compat label ``{"per_user": None, "mean": None}`` (rankmeter.compat
must raise too) and no preset label.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
import warnings
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


as_lists = _load("differential_cases", HERE / "cases.py").as_lists  # stdlib + numpy only
GITHUB = Path(sys.prefix) / "github" / "recmetrics" / "metrics.py"
RAISED = {"per_user": None, "mean": None}
SEED = 12345  # random.seed before catalog_coverage (rankmeter.compat draws the same)


def _f(x):
    return None if x is None else float(x)


def one(case: dict, released, github) -> dict:
    import pandas as pd

    users, actual, predicted = as_lists(case)
    out: dict = {}

    def put(name, per_user, mean, preset=True, preset_mean=True):
        pu = None if per_user is None else [[u, _f(v)] for u, v in zip(users, per_user)]
        out[f"compat:{name}"] = {"per_user": pu, "mean": _f(mean)}
        if preset:
            out[f"preset:{name}"] = {"per_user": pu, **({"mean": _f(mean)} if preset_mean else {})}

    def attempt(name, fn, preset=True, preset_mean=True):
        try:
            per_user, mean = fn()
        except Exception:
            out[f"compat:{name}"] = dict(RAISED)
            return
        put(name, per_user, mean, preset, preset_mean)

    feats = None
    if case.get("features"):
        feats = pd.DataFrame([v for _, v in case["features"]], index=[i for i, _ in case["features"]])
    pop = u_train = None
    if case.get("train"):
        pop = dict(Counter(i for _, i in case["train"]))
        u_train = len({u for u, _ in case["train"]})
    catalog = case["catalog"]

    def at(k: int) -> None:  # one cutoff (its closures bind k and top)
        top = [p[:k] for p in predicted]
        attempt(
            f"mark@{k}",
            lambda: (
                [released.metrics._ark(a, p, k) for a, p in zip(actual, predicted)],
                released.mark(actual, predicted, k),
            ),
        )
        if github is not None:  # the GitHub source (absent where GitHub was not reachable at set-up)
            attempt(
                f"mapk@{k}",
                lambda: ([github._apk(a, p, k) for a, p in zip(actual, predicted)], github.mapk(actual, predicted, k)),
            )
        attempt(f"personalization@{k}", lambda: (None, released.personalization(top)))
        if feats is not None:
            attempt(
                f"ils@{k}",
                lambda: (
                    [released.metrics._single_list_similarity(p, feats.fillna(0), j) for j, p in enumerate(top)],
                    released.intra_list_similarity(top, feats),
                ),
                preset_mean=False,  # np.mean over users includes NaN (one-item lists); rankmeter's mean skips them
            )
        if pop is not None:
            attempt(f"novelty@{k}", lambda: tuple(reversed(released.novelty(top, pop, u_train, k))))
        attempt(f"prediction_coverage@{k}", lambda: (None, released.prediction_coverage(top, catalog)))
        if github is not None:
            attempt(
                f"prediction_coverage_gh_warn@{k}",
                lambda: (None, github.prediction_coverage(top, catalog, True)),
                False,
            )
            attempt(
                f"prediction_coverage_gh_strict@{k}",
                lambda: (None, github.prediction_coverage(top, catalog, unseen_warning=False)),
                False,
            )

        def draw():
            random.seed(SEED)
            return None, released.catalog_coverage(top, catalog, k)

        attempt(f"catalog_coverage@{k}", draw, False)

    for k in case["ks"]:
        at(k)
    attempt(
        "recommender_precision",
        lambda: (
            [released.recommender_precision([p], [a]) for a, p in zip(actual, predicted)],
            released.recommender_precision(predicted, actual),
        ),
        False,
    )
    attempt(
        "recommender_recall",
        lambda: (
            [released.recommender_recall([p], [a]) for a, p in zip(actual, predicted)],
            released.recommender_recall(predicted, actual),
        ),
        False,
    )
    return out


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    cases = json.loads(Path(src).read_text())["cases"]
    import matplotlib

    matplotlib.use("Agg")
    import recmetrics as released

    # without the GitHub source only the release is compared (tests/differential/test_recmetrics.py says so)
    github = _load("recmetrics_github", GITHUB) if GITHUB.exists() else None
    results: list[dict] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import numpy as np

        with np.errstate(all="ignore"):
            for case in cases:
                try:
                    results.append({"ok": one(case, released, github)})
                except Exception as e:  # the peer raised on the whole case
                    results.append({"error": type(e).__name__, "message": str(e)[:300]})
    Path(dst).write_text(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
