"""Inputs the atheris fuzz targets (fuzz/targets.py) found: each now gives a clear ValueError."""

from __future__ import annotations

import shutil

import pytest

import rankmeter as rm
from tests.support import FUZZ_FINDINGS

DATA = FUZZ_FINDINGS


def test_state_naming_a_catalog_metric_without_its_histogram():
    # was: from_bytes accepted it and finalize() raised KeyError: 5
    with pytest.raises(ValueError, match="corrupt"):
        rm.State.from_bytes((DATA / "state-missing-histogram.bin").read_bytes())


def test_state_with_an_impossible_string_id_count():
    # was: OverflowError (Python int too large to convert to C long) in the id decoder
    with pytest.raises(ValueError, match="corrupt"):
        rm.State.from_bytes((DATA / "state-huge-string-count.bin").read_bytes())


@pytest.mark.parametrize(
    "name", ["parquet-int-over-64-bits.bin", "parquet-2.bin", "parquet-bad-schema.bin", "parquet-bad-utf8.bin"]
)
def test_corrupt_parquet_is_a_value_error_naming_the_file(tmp_path, name):
    pytest.importorskip("pyarrow")
    # was: pyarrow's ArrowNotImplementedError ("Integers with more than 64 bits") escaped
    path = tmp_path / "bad.parquet"
    shutil.copy(DATA / name, path)
    for call in (
        lambda: rm.evaluate({"1": {"a": 1}}, str(path), ["hits"]),
        lambda: rm.evaluate_stream({"1": {"a": 1}}, str(path), ["hits"], progress=False),
    ):
        try:
            call()
        except ValueError as e:  # anything else (OSError, ArrowNotImplementedError, ...) fails the test
            assert "bad.parquet" in str(e) or "column" in str(e)  # the file, or the unreadable column


def test_csv_with_a_duplicated_column_name(tmp_path):
    pytest.importorskip("pyarrow")
    # was: KeyError 'Field "item_id" exists 2 times in schema'
    path = tmp_path / "dup.csv"
    path.write_text("user_id,item_id,rank,item_id\n1,a,1,b\n")
    with pytest.raises(ValueError, match="2 columns named 'item_id'"):
        rm.evaluate({"1": {"a": 1}}, str(path), ["hits"])
    with pytest.raises(ValueError, match="2 columns named 'item_id'"):
        rm.evaluate_stream({"1": {"a": 1}}, str(path), ["hits"], progress=False)
    shutil.copy(DATA / "csv-duplicate-column.bin", path)
    with pytest.raises(ValueError):
        rm.evaluate({"1": {"a": 1}}, str(path), ["hits"])
