"""The case loop every differential worker runs inside its peer's venv (standard library only: a worker
imports nothing of rankmeter's; the harness puts this folder, which holds no module named like a peer, on
the worker's PYTHONPATH, so ``from worker_io import serve`` finds it also under ``python -P``).

    <venv>/bin/python tests/differential/worker_<peer>.py IN.json OUT.json

reads ``{"cases": [...]}`` from IN.json and writes ``{"results": [...]}`` to OUT.json, one entry per case in
order: ``{"ok": <what the worker's function returned>}``, or ``{"error": <exception type>, "message": <its
first 300 characters>}`` when the peer raised on the whole case (the harness reports it, it compares nothing).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any, Callable


def serve(one: Callable[[dict], Any]) -> None:
    """Run ``one`` over the cases of ``sys.argv[1]`` and write the results to ``sys.argv[2]``."""
    src, dst = sys.argv[1], sys.argv[2]
    cases = json.loads(Path(src).read_text())["cases"]
    results: list[dict] = []
    for case in cases:
        try:
            results.append({"ok": one(case)})
        except Exception as e:  # the peer raised on the whole case
            results.append({"error": type(e).__name__, "message": str(e)[:300]})
    Path(dst).write_text(json.dumps({"results": results}))


def scalar(f: Callable[[], Any]) -> dict:
    """One mean-only result of a peer's call: ``{"per_user": None, "mean": float(f())}`` (None for NaN), or
    ``"raised"`` with the exception's type when the call raised (a peer's refusal, compared as such)."""
    try:
        v = float(f())
    except Exception as e:
        return {"per_user": None, "mean": None, "raised": type(e).__name__}
    return {"per_user": None, "mean": None if math.isnan(v) else v}
