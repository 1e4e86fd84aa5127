"""Fixtures and Hypothesis profiles shared by the whole suite.

Shared helpers that are not fixtures live in ``tests/support`` and are imported by name:
``tests.support.same`` (bit-for-bit equality of results: ``assert_same_result``, ``assert_same_means``,
``same_bits``, ``bits``; ``close`` for comparisons with a plain reference), ``tests.support.reference``,
``reference_beyond`` and ``reference_stats`` (the pure-Python references), ``tests.support.fuzz_strategies``
(hypothesis strategies and the ``guarded`` contract of every entry point), ``tests.support.engines``
(``need``: an optional module, skipped without it or an error under CI=true; the local Spark session and
the random lists of the engine tests).

``RANKMETER_HYPOTHESIS_PROFILE=quick`` (set by ``bash .ci/run --quick``) loads the ``quick`` profile,
which caps every property test at its ``max_examples``, also the tests that ask for more with their own
``@settings``. ``repeat`` (20 examples) does the same for the second and third whole-suite runs of
``bash .ci/run`` (the scalar paths, the sanitizer build), after the first run has drawn every test's full
number of examples.
"""

from __future__ import annotations

import contextlib
import os
import warnings

import numpy as np
import pytest
from hypothesis import settings

with warnings.catch_warnings():
    # When a @given test fails, hypothesis' pytest plugin imports libcst to suggest a patch; that
    # import emits a DeprecationWarning (mypy_extensions.TypedDict), which `filterwarnings = ["error"]`
    # would turn into an INTERNALERROR hiding the failure. Importing it here, once, keeps it quiet.
    warnings.simplefilter("ignore")
    with contextlib.suppress(Exception):  # depends on the hypothesis version
        import hypothesis.extra._patching  # noqa: F401

# LensKit's own tests (tests/conformance/vendored/lenskit/) run in LensKit's venv, from
# tests/conformance/test_lenskit_suite.py; this suite does not collect them (they import lenskit)
collect_ignore_glob = ["conformance/vendored/*"]

_CAPPED = {"quick": 10, "repeat": 20}  # profiles that also cap the tests' own @settings
for _name, _cap in _CAPPED.items():
    settings.register_profile(_name, max_examples=_cap)
_PROFILE = os.environ.get("RANKMETER_HYPOTHESIS_PROFILE")
if _PROFILE:
    settings.load_profile(_PROFILE)  # an unknown name fails here with Hypothesis' InvalidArgument


def pytest_collection_modifyitems(items):
    """Under the quick and repeat profiles, lower the examples of tests whose own settings ask for more.

    A test's ``@settings(max_examples=...)`` outranks any profile; Hypothesis reads a
    test's settings from its ``_hypothesis_internal_use_settings`` when the test runs,
    so the capped copy is put there (a Hypothesis without that attribute: no cap)."""
    if _PROFILE not in _CAPPED:
        return
    cap = _CAPPED[_PROFILE]
    for item in items:
        obj = getattr(item, "obj", None)
        test = getattr(obj, "__func__", obj)  # a method's function
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if isinstance(own, settings) and own.max_examples > cap:
            setattr(test, "_hypothesis_internal_use_settings", settings(own, max_examples=cap))  # noqa: B010


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator, new for every test: the same draws on every run."""
    return np.random.default_rng(1234)
