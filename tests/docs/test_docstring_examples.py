"""Every docstring example of the installed rankmeter package runs as a doctest.

Each module of the package (the private ones too: public functions such as
``evaluate`` are defined there) is imported and its examples are run with the
standard library's doctest, one test per documented object. A module whose
examples need an optional dependency is skipped, with the reason, where that
dependency is missing. ``.ci/wheel_smoke.sh`` runs this file against a freshly
installed wheel, outside the source tree.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import rankmeter

# module -> (the import its examples need, the extra that installs it)
OPTIONAL = {
    "rankmeter.spark": ("pyspark", "spark"),
    "rankmeter.dask": ("dask.dataframe", "dask"),
    "rankmeter.compare.plot": ("matplotlib", "plot"),
    "rankmeter.stream": ("pyarrow", "arrow"),
}


def _module_names() -> list[str]:
    names = ["rankmeter"]
    names += [m.name for m in pkgutil.walk_packages(rankmeter.__path__, prefix="rankmeter.")]
    return sorted(set(names))


def _cases() -> list:
    cases = []
    for name in _module_names():
        need = OPTIONAL.get(name)
        if need is not None:
            try:
                importlib.import_module(need[0])
            except ImportError:
                reason = f"{name}'s examples need {need[0]} (pip install 'rankmeter[{need[1]}]')"
                cases.append(pytest.param(name, None, id=name, marks=pytest.mark.skip(reason=reason)))
                continue
        module = importlib.import_module(name)
        for test in doctest.DocTestFinder().find(module, name):
            if test.examples:
                cases.append(pytest.param(name, test.name, id=test.name))
    return cases


CASES = _cases()


def test_the_examples_are_found():
    """Guards the finder: the package's own docstring example (and those of ``evaluate``) are collected."""
    found = {case.values[1] for case in CASES}
    assert "rankmeter" in found
    assert "rankmeter.evaluation._evaluate.evaluate" in found


@pytest.mark.parametrize(("module_name", "test_name"), CASES)
def test_docstring_examples_run(module_name, test_name):
    module = importlib.import_module(module_name)
    (test,) = [t for t in doctest.DocTestFinder().find(module, module_name) if t.name == test_name]
    report: list[str] = []
    runner = doctest.DocTestRunner(verbose=False)
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)
