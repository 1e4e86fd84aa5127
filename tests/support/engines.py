"""What the engine tests share: the optional-dependency gate, a local Spark session and the random lists.

``need(module, install)`` imports an optional module (Dask, pyspark, a peer library). Where it is
missing the calling test is skipped with the reason and the command that installs it, or, called at
module level, the whole file; under ``CI=true``, where ``.ci/run`` installs every optional
dependency, a missing one is a ``RuntimeError`` naming the test file instead. ``need_java()`` and
``need_spark()`` gate the Spark tests the same way.

``local_spark(app, shuffle_partitions)`` starts (or reuses) a classic ``local[2]`` session without the
web UI. ``random_lists`` and ``lists_table`` make the seeded users, recommendation lists and graded
truth the Spark, Dask and partition-task tests evaluate. pyarrow and pyspark are imported only in the
functions that use them.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pathlib
import shutil
from types import ModuleType
from typing import Any, NoReturn

import numpy as np
import pytest

_HERE = pathlib.Path(__file__).resolve()
_ROOT = _HERE.parents[2]


def _test_file() -> str:
    """The file of the first caller outside this one (the test file), relative to the repository."""
    frame = inspect.currentframe()
    while frame is not None and pathlib.Path(frame.f_code.co_filename).resolve() == _HERE:
        frame = frame.f_back
    if frame is None:  # pragma: no cover - there is always a caller
        return "a test file"
    path = pathlib.Path(frame.f_code.co_filename).resolve()
    return path.relative_to(_ROOT).as_posix() if path.is_relative_to(_ROOT) else str(path)


def _missing(what: str, why: str) -> NoReturn:
    """Fail under CI=true (naming the test file), else skip the test, or the whole file at module level."""
    __tracebackhide__ = True  # the skip or the error points at the line of the test file that asked
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"{_test_file()} needs {what} in CI: {why}")
    # allow_module_level only matters while a file is imported; in a test or a fixture it skips that test
    pytest.skip(why, allow_module_level=True)
    raise AssertionError("pytest.skip returned")  # pragma: no cover - for type checkers without pytest's stubs


def need(module: str, install: str) -> ModuleType:
    """The module, imported; missing: skip with the reason and ``install`` (the command), or fail in CI."""
    __tracebackhide__ = True
    try:
        return importlib.import_module(module)
    except ImportError as e:
        _missing(module, f"{module} is not installed ({e}); {install}")
    except SystemExit as e:
        # pyspark.sql.connect exits (status 0) at import when its client's packages are missing and the main module
        # looks like a doctest runner's, as a pytest-xdist worker's does: the same missing dependency, not an exit
        _missing(module, f"{module} could not be imported (it called sys.exit({e.code})); {install}")


def need_java() -> None:
    """A Java runtime for Spark (``java`` on PATH or JAVA_HOME); none: skip, or fail in CI."""
    __tracebackhide__ = True
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        _missing("Java", "Java is not installed (no java on PATH, JAVA_HOME unset)")


def need_spark(*, connect: bool = False) -> None:
    """Java and pyspark, with the Spark Connect client when ``connect``; missing: skip, or fail in CI."""
    __tracebackhide__ = True
    need_java()
    install = "pip install 'pyspark[connect]'" if connect else "pip install pyspark"
    need("pyspark", install)
    if connect:
        need("pyspark.sql.connect.session", install)


def local_spark(app: str, shuffle_partitions: int) -> Any:
    """A classic local Spark session (``local[2]``, no web UI, errors-only log), started or reused."""
    from pyspark.sql import SparkSession

    s = (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    return s


def random_lists(
    seed: int, n_users: int = 150, n_items: int = 40, str_ids: bool = False
) -> tuple[dict[Any, dict[Any, float]], dict[Any, list[Any]], list[Any]]:
    """Seeded ``(truth, recs, catalog)``: up to 13 recommended items and up to 5 graded (1-3) ones per user.

    Users without recommendations or without relevant items occur; integer user ids are huge
    (``u * 1_000_000_007``). ``str_ids``: ``"user-<u>"`` users and ``"i<i>"`` items instead."""
    rng = np.random.default_rng(seed)
    truth: dict[Any, dict[Any, float]] = {}
    recs: dict[Any, list[Any]] = {}
    for u in range(n_users):
        r: list[Any] = rng.choice(n_items, size=int(rng.integers(0, 14)), replace=False).tolist()
        t: dict[Any, float] = {
            int(i): float(rng.integers(1, 4)) for i in rng.choice(n_items, size=int(rng.integers(0, 6)), replace=False)
        }
        if str_ids:
            r, t = [f"i{i}" for i in r], {f"i{i}": g for i, g in t.items()}
        key = f"user-{u}" if str_ids else u * 1_000_000_007
        truth[key], recs[key] = t, r
    catalog: list[Any] = [f"i{i}" for i in range(n_items)] if str_ids else list(range(n_items))
    return truth, recs, catalog


def lists_table(truth: dict[Any, dict[Any, float]], recs: dict[Any, list[Any]], str_ids: bool = False) -> Any:
    """The users of ``truth`` as a pyarrow table: ``user_id``, ``recs`` (list) and ``truth`` (map item -> grade)."""
    import pyarrow as pa

    it = pa.string() if str_ids else pa.int64()
    users = list(truth)
    return pa.table(
        {
            "user_id": pa.array(users, pa.string() if str_ids else pa.int64()),
            "recs": pa.array([recs[u] for u in users], pa.list_(it)),
            "truth": pa.array([list(truth[u].items()) for u in users], pa.map_(it, pa.float64())),
        }
    )
