"""pytrec_eval's own test suite (pytrec_eval_tests.py, vendored unchanged but for its import line) run against
rankmeter.compat.pytrec_eval; see README.md for its origin and what is in scope.

``PyTrecEvalUnitTest`` is the suite's class, collected as it is. The suite adds its trec_eval comparisons
(``PyTrecEvalIntegrationTest``) only when run as a script, from trec_eval's test folder; the same tests are
built here the way its ``__main__`` builds them, reading trec_eval's test data in place
(../shared/conformance/trec_eval, tests/compat/test_trec_eval_outputs.py). The tests out of scope are marked
in conftest.py with their reason.
"""

from __future__ import annotations

import unittest

from tests.compat.test_trec_eval_outputs import CONFORMANCE_DIR

from . import pytrec_eval_tests as suite
from .pytrec_eval_tests import PyTrecEvalUnitTest

__all__ = ["PyTrecEvalIntegrationTest", "PyTrecEvalUnitTest"]

suite.TREC_EVAL_TEST_DIR = str(CONFORMANCE_DIR)  # read by the generated tests when they run


class PyTrecEvalIntegrationTest(unittest.TestCase):
    """The suite's trec_eval comparisons, named and built as its ``__main__`` does."""

    def setUp(self) -> None:
        if not CONFORMANCE_DIR.is_dir():
            from tests.compat.test_trec_eval_outputs import require_conformance_dir

            require_conformance_dir()


for _case in suite.TRADITIONAL_TREC_EVAL_TEST_CASES:
    _name = "test_{}".format("-".join(_case[:3]))
    if _case[3]:
        _name = "{}-{}".format(_name, "-".join(f"{k}={v}" for k, v in _case[3].items()))
    setattr(PyTrecEvalIntegrationTest, _name, suite.generate_traditional_test(*_case[:3], **_case[3]))
