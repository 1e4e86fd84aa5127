"""ir_measures' own tests (vendored unchanged but for their import lines) run against
rankmeter.compat.ir_measures; see README.md for their origin and what is in scope. The tests out of scope are
expected failures with their reason: strict (one that starts to pass must be moved into scope), but for the
tests made of subtests, where pytest marks the failing subtests and lets the test itself pass."""

from __future__ import annotations

import pytest

_INTERNALS = "ir_measures.util's QrelsConverter/RunConverter (its internal input conversion) are not in compat"
OUT_OF_SCOPE = {
    "test_qrels_converter": _INTERNALS,
    "test_run_converter": _INTERNALS,
}


SUBTESTS = {"test_qrels_converter", "test_run_converter"}


def pytest_collection_modifyitems(items: list) -> None:
    for item in items:
        if item.name in OUT_OF_SCOPE and "vendored/ir_measures" in str(item.fspath).replace("\\", "/"):
            strict = item.name not in SUBTESTS
            item.add_marker(pytest.mark.xfail(reason=OUT_OF_SCOPE[item.name], strict=strict))
