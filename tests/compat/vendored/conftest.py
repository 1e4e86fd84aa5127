"""The originals' own test suites (deliverable: every test that passes on the original passes on compat), run
unchanged against rankmeter.compat.<peer>; each directory's README.md names the origin, the version and the one
line changed (the import). Tests of functions the compat module does not replace, or that fail on the original
itself, are skipped here with the reason (the table below), never edited."""

from __future__ import annotations

import pytest

OUT_OF_SCOPE = {
    "ml_metrics/test_average_precision.py::TestAveragePrecision::test_apk": (
        "fails on ml_metrics itself under Python 3: the test extends a range() object (Python 2 code); "
        "test_mapk covers apk through mapk"
    ),
    "recmetrics/test_metrics.py::TestMetrics::test_mse": "mse is not a ranking metric: rankmeter.compat.recmetrics "
    "does not replace it",
    "recmetrics/test_metrics.py::TestMetrics::test_rmse": "rmse is not a ranking metric: rankmeter.compat.recmetrics "
    "does not replace it",
    "recmetrics/test_metrics.py::TestMetrics::test_make_confusion_matrix": "a matplotlib plot: "
    "rankmeter.compat.recmetrics does not replace it",
}

# warnings the originals' suites expect (pytest runs this project's tests with warnings as errors)
EXPECTED_WARNINGS = {
    "recmetrics/test_metrics.py::TestMetrics::test_prediction_coverage": (
        "ignore:There are items in predictions but unseen in catalog:UserWarning"
    ),
    # the test itself calls DataFrame.drop(..., inplace=True), deprecated by pandas 3.1
    "recommenders/test_python_evaluation.py::test_column_dtypes_match": (
        "ignore:The inplace keyword in DataFrame.drop is deprecated"
    ),
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        nodeid = item.nodeid.split("tests/compat/vendored/", 1)[-1]
        if nodeid in OUT_OF_SCOPE:
            item.add_marker(pytest.mark.skip(reason=f"out of scope: {OUT_OF_SCOPE[nodeid]}"))
        if nodeid in EXPECTED_WARNINGS:
            item.add_marker(pytest.mark.filterwarnings(EXPECTED_WARNINGS[nodeid]))
