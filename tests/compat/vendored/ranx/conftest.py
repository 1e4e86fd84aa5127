"""ranx's own tests (evaluate_test.py, qrels_test.py, run_test.py: vendored unchanged but for their import lines)
run against rankmeter.compat.ranx; see README.md for their origin and what is in scope.

- ``numba.typed.List`` (the suite builds ranx's low-level inputs with it): when numba is not installed, a plain
  list stands in, which rankmeter.compat.ranx reads the same way;
- each test runs in a temporary copy of ``data/`` (the suite reads and writes ``tests/unit/ranx/test_data``
  relative to the working directory, as it does from ranx's repository root);
- the tests out of scope are strict expected failures with their reason.
"""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import pytest

try:  # pragma: no cover - numba present
    import numba.typed  # noqa: F401
except ImportError:
    _numba = types.ModuleType("numba")
    _typed = types.ModuleType("numba.typed")
    _typed.List = list  # type: ignore[attr-defined]
    _numba.typed = _typed  # type: ignore[attr-defined]
    sys.modules.setdefault("numba", _numba)
    sys.modules.setdefault("numba.typed", _typed)

HERE = Path(__file__).parent
_TYPED = "numba typed lists are ranx's internal form (to_typed_list), not something rankmeter.compat.ranx makes"
OUT_OF_SCOPE = {
    "test_to_typed_list": (_TYPED, (AttributeError,)),
}


@pytest.fixture(autouse=True)
def _in_a_copy_of_ranx_repository_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if "vendored/ranx" in str(Path.cwd()).replace("\\", "/"):
        return
    shutil.copytree(HERE / "data", tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)


def pytest_collection_modifyitems(items: list) -> None:
    for item in items:
        if item.name in OUT_OF_SCOPE and "vendored/ranx" in str(item.fspath).replace("\\", "/"):
            reason, raises = OUT_OF_SCOPE[item.name]
            item.add_marker(pytest.mark.xfail(reason=reason, raises=raises, strict=True))
