"""Differential peer: ``rankmeter.compat.torchmetrics`` against the live torchmetrics (venv ``torch``).

Both sides get the same rows the same way (worker_torchmetrics_compat.py defines the rows and the labels once:
``rows``, ``specs``, ``functional_specs``): every retrieval metric class the compat module provides at every
cutoff of the case and at top_k=None, each empty_target_action, aggregation, ignore_index, adaptive_k and
max_fpr, the rows interleaved across queries and given in two ``update`` calls, and every functional form per
query. torchmetrics gets tensors in its venv; the compat module gets numpy arrays here (torch is optional).
A metric that raises must raise the same exception type on both sides (``<label>|raised:<type>``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Optional

import numpy as np

from .cases import FEATURES

VENV = "torch"
ISOLATED = True  # python -P: this directory's torchmetrics*.py must not shadow the package
WORKER = Path(__file__).with_name("worker_torchmetrics_compat.py")
# negative grades only reach RetrievalNormalizedDCG, where the compat module refuses them (ValueError: rankmeter's
# gains are max(grade, 0), torchmetrics adds negative gains; rankmeter.compat.torchmetrics.unmatched)
ALLOW = tuple(f for f in FEATURES if f != "negative")
DRAW = {"max_items": 40, "lengths": (1, 1, 2, 3, 5, 8, 12, 17, 25, 45), "signed_scores": True, "near_ties": True}
REL = 1e-5  # torchmetrics computes in float32


def _worker() -> Any:
    spec = importlib.util.spec_from_file_location("_worker_torchmetrics_compat", WORKER)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_W = _worker()


def _keyed(res: dict) -> dict:
    for v in res.values():
        if v["per_user"] is not None:
            v["per_user"] = dict(v["per_user"])
    return res


def ours(case: dict) -> dict:
    from rankmeter.compat import torchmetrics as tm

    def to_input(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a)

    def caught_values(v: np.ndarray) -> list:
        return np.asarray(v, dtype=np.float64).tolist()

    out = _W.compute(tm, case, _W.specs(case), np, to_input, caught_values)
    out.update(_W.compute_functional(tm, case, np, to_input))
    return _keyed(out)


def known(case: dict, peer: dict) -> Optional[str]:
    """No case is outside what the compat module reproduces (its refusals are outside ALLOW)."""
    return None
