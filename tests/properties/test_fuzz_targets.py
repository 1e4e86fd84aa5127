"""Every atheris target (fuzz/targets.py) on its seed and on every regression input: no finding.

Runs without atheris (a stand-in module when it is not installed): the targets are plain functions."""

from __future__ import annotations

import importlib.util
import sys
import types

import pytest

from tests.support import FUZZ_FINDINGS, ROOT

pytest.importorskip("pyarrow")
FINDINGS = FUZZ_FINDINGS


@pytest.fixture(scope="module")
def targets():
    try:
        import atheris  # noqa: F401
    except ImportError:
        sys.modules["atheris"] = types.ModuleType("atheris")
    # loaded from its path: fuzz/ is a folder of scripts, not a package
    spec = importlib.util.spec_from_file_location("fuzz_targets", ROOT / "fuzz" / "targets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_target_on_its_seed_and_every_finding(targets):
    seeds = targets.seeds()
    inputs = [p.read_bytes() for p in sorted(FINDINGS.iterdir())]
    assert set(seeds) == set(targets.TARGETS)
    for name, target in targets.TARGETS.items():
        guarded = targets._no_failed_allocation(target)
        for data in [seeds[name], *inputs, b"", b"PAR1", b"\x00" * 64]:
            guarded(data)  # raises (AssertionError or anything not ValueError/TypeError) on a finding


def test_a_failed_allocation_is_a_finding(targets):
    def allocates(data: bytes) -> None:
        raise ValueError("x.parquet: not a readable parquet file (malloc of size 274877906944 failed)")

    with pytest.raises(AssertionError, match="an allocation failed"):
        targets._no_failed_allocation(allocates)(b"")
    targets._no_failed_allocation(lambda data: None)(b"")
