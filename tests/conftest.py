"""Fixtures shared by the whole suite.

Shared helpers that are not fixtures live in ``tests/support`` and are imported by name:
``tests.support.same`` (bit-for-bit equality of results: ``assert_same_result``, ``assert_same_means``,
``same_bits``, ``bits``; ``close`` for comparisons with a plain reference), ``tests.support.reference``,
``reference_beyond`` and ``reference_stats`` (the pure-Python references), ``tests.support.fuzz_strategies``
(hypothesis strategies and the ``guarded`` contract of every entry point).
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

with warnings.catch_warnings():
    # When a @given test fails, hypothesis' pytest plugin imports libcst to suggest a patch; that
    # import emits a DeprecationWarning (mypy_extensions.TypedDict), which `filterwarnings = ["error"]`
    # would turn into an INTERNALERROR hiding the failure. Importing it here, once, keeps it quiet.
    warnings.simplefilter("ignore")
    with contextlib.suppress(Exception):  # depends on the hypothesis version
        import hypothesis.extra._patching  # noqa: F401


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator, new for every test: the same draws on every run."""
    return np.random.default_rng(1234)
