"""The vendored pytrec_eval tests that are out of scope for rankmeter.compat.pytrec_eval, with the reason
(README.md): each is an expected failure (strict: a test that starts passing must be moved into scope)."""

from __future__ import annotations

import pytest

OUT_OF_SCOPE: dict = {
    # fails on pytrec_eval itself: the test compares with trec_eval 10.0's output, and 11pt_avg of pytrec_eval
    # (trec_eval 9.0.8 inside) is 0.1804 where 10.0 prints 0.1817 (9.0.x and 10.0 turn recall levels into
    # document counts differently, docs/metrics.md 3.18.4)
    "test_results.test-qrels.rel_level-out.test.aql-relevance_level=2": (
        "fails on the original pytrec_eval too (11pt_avg: 0.1804 against trec_eval 10.0's 0.1817)",
        (AssertionError,),
    ),
}


def pytest_collection_modifyitems(items: list) -> None:
    for item in items:
        if item.name in OUT_OF_SCOPE and "vendored/pytrec_eval" in str(item.fspath).replace("\\", "/"):
            reason, raises = OUT_OF_SCOPE[item.name]
            item.add_marker(pytest.mark.xfail(reason=reason, raises=raises, strict=True))
