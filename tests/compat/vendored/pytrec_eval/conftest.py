"""The vendored pytrec_eval tests that are out of scope for rankmeter.compat.pytrec_eval, with the reason
(README.md): each is an expected failure (strict: a test that starts passing must be moved into scope)."""

from __future__ import annotations

import pytest

_NOT_COMPUTED = (
    "asks for measures rankmeter does not compute yet (runid, gm_map, iprec_at_recall, set_*, 11pt_avg, ...): "
    "compat.pytrec_eval computes the measures of compat.pytrec_eval.supported_measures"
)
OUT_OF_SCOPE = {
    # every measure of the nicknames all_trec, set and official, by exact key sets
    "test_nicknames": (_NOT_COMPUTED, (AssertionError, UserWarning)),
    # every measure trec_eval prints by default (runid, gm_map, iprec_at_recall_* among them)
    "test_results.test-qrels.test-out.test": (_NOT_COMPUTED, (KeyError, AssertionError, TypeError)),
    # fails on pytrec_eval itself: 11pt_avg 0.1804 against trec_eval 10.0's printed 0.1817
    "test_results.test-qrels.rel_level-out.test.aql-relevance_level=2": (
        "fails on the original pytrec_eval too (11pt_avg: 0.1804 against trec_eval 10.0's 0.1817); " + _NOT_COMPUTED,
        (KeyError, AssertionError, TypeError),
    ),
}


def pytest_collection_modifyitems(items: list) -> None:
    for item in items:
        if item.name in OUT_OF_SCOPE and "vendored/pytrec_eval" in str(item.fspath).replace("\\", "/"):
            reason, raises = OUT_OF_SCOPE[item.name]
            item.add_marker(pytest.mark.xfail(reason=reason, raises=raises, strict=True))
