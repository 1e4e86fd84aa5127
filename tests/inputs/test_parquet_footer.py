"""The parquet footer check (rankmeter.inputs._parquet_footer): valid files pass, corrupt footers are a
ValueError naming the file before pyarrow allocates anything they declare (fuzz finding parquet-oom.bin)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.inputs._parquet_footer import check_footer, decode_footer
from tests.support import FUZZ_FINDINGS

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

DATA = FUZZ_FINDINGS


def _bytes(table, **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _check(data: bytes, name: str = "f.parquet") -> None:
    check_footer(lambda offset, n: data[offset : offset + n], len(data), name)


def _tables():
    rng = np.random.default_rng(0)
    n = 5000
    yield pa.table(
        {
            "user_id": np.repeat(np.arange(50), 100),
            "item_id": rng.integers(0, 10**12, n),
            "rank": np.tile(np.arange(1, 101), 50),
        }
    )
    yield pa.table(
        {
            "user_id": [f"u{i // 7}" for i in range(n)],
            "item_id": [f"i{i}" for i in range(n)],
            "relevance": rng.random(n),
        }
    )
    yield pa.table({"user_id": [1, 2, None], "item_id": [None, "b", "c"]})  # nulls
    yield pa.table({"user_id": pa.array([], pa.int64()), "item_id": pa.array([], pa.string())})  # no rows
    yield pa.table({"user_id": [1, 2], "items": [[1, 2, 3], []], "nested": [{"a": [1]}, {"a": None}]})  # nested
    yield pa.table({"user_id": np.zeros(n, dtype=np.int64), "item_id": np.zeros(n, dtype=np.int64)})  # one value


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"compression": "none"},
        {"compression": "zstd", "row_group_size": 333},
        {"use_dictionary": False, "write_statistics": False},
        {"data_page_version": "2.0", "row_group_size": 1000, "data_page_size": 512},
        {"store_schema": False, "write_page_index": True},
        {"write_page_checksum": True, "use_byte_stream_split": ["relevance"]},
    ],
)
def test_files_a_writer_produces_pass_and_read_the_same(tmp_path, kw):
    for i, table in enumerate(_tables()):
        if "use_byte_stream_split" in kw and "relevance" not in table.column_names:
            continue
        data = _bytes(table, **kw)
        _check(data)  # no error
        path = tmp_path / f"t{i}.parquet"
        path.write_bytes(data)
        assert rm.inputs._frame.read_parquet(path).equals(pq.read_table(path))
    meta = decode_footer(data[-8 - int.from_bytes(data[-8:-4], "little") : -8])
    assert meta[3] == table.num_rows  # FileMetaData.num_rows


def test_a_directory_of_files_is_checked_file_by_file(tmp_path):
    t = next(_tables())
    pq.write_table(t, tmp_path / "a.parquet")
    (tmp_path / "b.parquet").write_bytes((DATA / "parquet-oom.bin").read_bytes())
    with pytest.raises(ValueError, match=r"b\.parquet.*93,787,715,197 rows"):
        rm.inputs._frame.read_parquet(tmp_path)


_LIMITED = """
import os, resource, sys
# a 256 GiB allocation would fail under this limit; AddressSanitizer's shadow memory cannot live
# under it, so the sanitizer run (.ci/sanitize preloads ASan) checks the same calls without it
if "asan" not in os.environ.get("LD_PRELOAD", ""):
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, resource.RLIM_INFINITY))
import rankmeter as rm
path = sys.argv[1]
for call in (
    lambda: rm.evaluate({"1": {"a": 1}}, path, ["hits"]),
    lambda: rm.evaluate_stream({"1": {"a": 1}}, path, ["hits"], progress=False),
    lambda: rm.Recs.from_parquet(path),
):
    try:
        call()
        print("accepted")
    except ValueError as e:
        print("ValueError:", e)
"""


def _in_child(path) -> list:
    # a child process: should the check regress, pyarrow's allocation (or abort) must not take pytest down
    proc = subprocess.run([sys.executable, "-c", _LIMITED, str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.splitlines()


@pytest.mark.parametrize(
    "finding, expected",
    [
        # was: pyarrow tried to allocate 256 GiB for this 1 KB file (ArrowMemoryError under a limit, else OOM)
        ("parquet-oom.bin", "row group 0 declares 93,787,715,197 rows but its columns hold at most 3 values"),
        # a valid footer, but one column's dictionary page header declares 149,221,631,747,835,017 values in
        # 16 bytes; pyarrow allocated 2.3 GB for it (fuzz target parquet_read, after 3.5 million executions)
        ("parquet-dict-values.bin", "page 0 (dictionary) declares 149,221,631,747,835,017 values (16 bytes)"),
    ],
)
def test_parquet_findings_are_refused_before_pyarrow_allocates(tmp_path, finding, expected):
    path = tmp_path / "finding.parquet"
    path.write_bytes((DATA / finding).read_bytes())
    lines = _in_child(path)
    assert len(lines) == 3
    for line in lines:
        assert line.startswith("ValueError:") and "finding.parquet" in line, line
        assert expected in line
        assert "malloc" not in line and "memory" not in line.lower()


def _pages(data: bytes) -> list:
    """(offset, header end, header dict) of every page of every column chunk of a file from pq."""
    from rankmeter.inputs._parquet_footer import _struct

    meta = decode_footer(data[-8 - int.from_bytes(data[-8:-4], "little") : -8])
    out = []
    for rg in meta[4]:
        for ch in rg[1]:
            cm = ch[3]
            first = cm[11] if isinstance(cm.get(11), int) and 0 < cm[11] < cm[9] else cm[9]
            pos = first
            while pos < first + cm[7]:
                h, hend = _struct(data, pos, 0)  # the header and the position after it
                out.append((pos, hend, h))
                pos = hend + h[3]
    return out


def _varint(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)  # zigzag
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _replace_i32(data: bytes, start: int, end: int, old: int, new: int) -> bytes:
    """``data`` with the first zigzag varint ``old`` in [start, end) replaced by ``new`` (the caller
    then checks the header it edited; lengths may differ, so only the page header is meaningful)."""
    seg = data[start:end]
    i = seg.index(_varint(old))
    return data[:start] + seg[:i] + _varint(new) + seg[i + len(_varint(old)) :] + data[end:]


@pytest.mark.parametrize(
    "case",
    ["dictionary values", "data values", "uncompressed size", "negative size"],
)
def test_page_headers_that_declare_what_no_page_holds_are_refused(case):
    n = 3000
    t = pa.table({"item_id": [f"i{i % 40}" for i in range(n)], "x": np.arange(n)})
    data = _bytes(t, compression="snappy", row_group_size=n)
    pages = _pages(data)
    _check(data)  # the unedited file passes
    if case == "dictionary values":
        pos, hend, h = next(p for p in pages if 7 in p[2])
        bad = _replace_i32(data, pos, hend, h[7][1], 10**9)
        match = r"\(dictionary\) declares 1,000,000,000 values"
    elif case == "data values":
        pos, hend, h = next(p for p in pages if 5 in p[2])
        bad = _replace_i32(data, pos, hend, h[5][1], 10**7)
        match = r"\(data\) declares 10,000,000 values \(3,000 values in the column chunk\)"
    elif case == "uncompressed size":
        pos, hend, h = pages[0]
        bad = _replace_i32(data, pos, hend, h[2], 2**31 - 1)
        match = "declares 2,147,483,647 bytes uncompressed"
    else:
        pos, hend, h = pages[0]
        bad = _replace_i32(data, pos, hend, h[2], -5)
        match = "declares sizes -5"
    with pytest.raises(ValueError, match=match):
        _check(bad)


def test_a_footer_pyarrow_aborts_on_is_a_value_error(tmp_path):
    # pyarrow's RowGroupMetaData.column() aborts the process on this footer (a C++ exception through
    # Cython: "Repetition level histogram size mismatch"): the check must not use pyarrow's metadata objects
    path = tmp_path / "abort.parquet"
    path.write_bytes((DATA / "parquet-histogram-abort.bin").read_bytes())
    for line in _in_child(path):
        assert line.startswith("ValueError:") and "abort.parquet" in line, line


def test_footer_sizes_that_do_not_fit_the_file():
    data = _bytes(next(_tables()))
    n = int.from_bytes(data[-8:-4], "little")
    too_long = data[:-8] + (len(data)).to_bytes(4, "little") + b"PAR1"
    with pytest.raises(ValueError, match=r"f\.parquet.*footer of"):
        _check(too_long)
    with pytest.raises(ValueError, match="too short"):
        _check(b"PAR1PAR1")
    # a column chunk declared past the end: the file cut before its footer, footer kept
    cut = data[: len(data) // 2] + data[-8 - n :]
    with pytest.raises(ValueError, match=r"declares [\d,]+ bytes at offset"):
        _check(cut)
    _check(data[:-4] + b"PARE")  # not a plain footer (encrypted): left to pyarrow


def test_random_footer_corruption_is_only_ever_a_value_error():
    rng = np.random.default_rng(7)
    data = _bytes(next(_tables()), row_group_size=1000)
    n = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - n
    outcomes = {"ok": 0, "ValueError": 0}
    for _ in range(3000):
        b = bytearray(data)
        for _ in range(int(rng.integers(1, 6))):
            b[start + int(rng.integers(0, n))] = int(rng.integers(0, 256))
        try:
            _check(bytes(b))
            outcomes["ok"] += 1
        except ValueError as e:
            assert "f.parquet" in str(e)
            outcomes["ValueError"] += 1
    assert outcomes["ValueError"] > 100 and outcomes["ok"] > 100, outcomes
    for blob in (b"", b"\x19", b"\x1c" * 200, b"\x19\xfc" + b"\xff" * 20, bytes(range(256))):
        with contextlib.suppress(ValueError):
            decode_footer(blob)
