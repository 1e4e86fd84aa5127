"""Worker of the trec_eval preset's differential run (tests/differential/trec_eval.py): pytrec_eval (trec_eval
inside) in the ``ir_measures`` venv, every measure rankmeter computes at the case's cutoffs, one forked child
per case. The work is worker_pytrec_eval.py's; only the requests differ (style ``"params"``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("worker_pytrec_eval", Path(__file__).with_name("worker_pytrec_eval.py"))
assert _spec is not None and _spec.loader is not None
worker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(worker)  # it takes this folder out of sys.path before importing pytrec_eval

if __name__ == "__main__":
    worker.main(style="params")
