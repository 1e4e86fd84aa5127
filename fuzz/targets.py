"""Coverage-guided fuzz targets (atheris) for the readers of untrusted bytes (fuzz/README.md).

    python fuzz/targets.py trec   [libFuzzer flags, e.g. -runs=10000000 or -max_total_time=60]
    python fuzz/targets.py csv    ...
    python fuzz/targets.py parquet ...
    python fuzz/targets.py state  ...

Each target feeds the fuzzer's bytes to one reader and, when the bytes are accepted, on to an
evaluation (``trec``: the C++ TREC parser on the bytes as qrels and as a run chunk, the streaming
reader's query-boundary search, then ``rankmeter.evaluate``; ``csv``: pyarrow's CSV reader with
rankmeter's options, then the table readers and ``evaluate``; ``parquet``: pyarrow's parquet reader,
then the same; ``state``: ``State.from_bytes``, then ``finalize`` and a ``to_bytes`` round trip).
Malformed input must raise ValueError or TypeError (a clear error); any other exception, a crash
(segfault, abort) or a hang is a finding. Python code of rankmeter is instrumented for coverage;
the C++ core is exercised but not instrumented (atheris' libFuzzer drives Python coverage).
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import sys
from typing import Any, ClassVar

import atheris
import numpy as np

import rankmeter as rm
from rankmeter.inputs._chunks import trec_last_query_start as _trec_last_query_start
from rankmeter.inputs._frame import csv_options as _csv_options
from rankmeter.inputs._parquet_footer import check_footer
from rankmeter.inputs._trec import _parse_data, parse_run_bytes

OK = (ValueError, TypeError)
METRICS = ["ndcg@10", "ap", "precision@5", "rr", "hits", "num_rel", "coverage@5", "r_precision"]
_QRELS = "a qrels line has 4 fields (query iter docno grade)"


def _evaluate(truth, recs, **kw) -> None:
    res = rm.evaluate(truth, recs, METRICS, catalog=["a", "b", "c", "0", "1"], duplicates="first", **kw)
    for name in METRICS:
        v = res[name]
        assert isinstance(v, float)


def trec(data: bytes) -> None:
    try:
        users, indptr, docs, scores = parse_run_bytes(data, "fuzz")
        recs = rm.Recs(indptr, docs, scores, users, by_score=True)
    except OK:
        recs = None
    try:
        q_users, q_indptr, q_docs, grades = _parse_data(data, "fuzz", 4, 4, 3, _QRELS, "grade")
        truth = rm.Truth(q_indptr, q_docs, grades, q_users)
    except OK:
        truth = rm.Truth(
            np.array([0, 1]), np.array(["a"], dtype=object), np.array([1.0]), np.array(["1"], dtype=object)
        )
    end = data.rfind(b"\n") + 1
    if end:
        cut = _trec_last_query_start(data, end)
        assert 0 <= cut < end
    if recs is not None:
        try:
            _evaluate(truth, recs, preset="trec_eval")
            _evaluate(truth, recs, missing="zero", ties="trec")
        except OK:
            pass


def _table_then_evaluate(table) -> None:
    try:
        truth: Any = rm.Truth.from_frame(table)
    except OK:
        truth = {"1": {"a": 1}}
    with contextlib.suppress(*OK):
        _evaluate(truth, table)


def csv(data: bytes) -> None:
    import pyarrow.csv as pacsv

    read, parse, convert = _csv_options("fuzz.csv", 1000)
    try:
        table = pacsv.read_csv(io.BytesIO(data), read_options=read, parse_options=parse, convert_options=convert)
    except OK:
        return
    _table_then_evaluate(table)


_PARQUET = f"/dev/shm/rankmeter-fuzz-{os.getpid()}.parquet" if os.path.isdir("/dev/shm") else None


def parquet(data: bytes) -> None:
    """rankmeter's parquet readers (in memory and streaming) on the bytes as a file."""
    import tempfile

    path = _PARQUET or os.path.join(tempfile.gettempdir(), f"rankmeter-fuzz-{os.getpid()}.parquet")
    with open(path, "wb") as f:
        f.write(data)
    try:
        table = rm.inputs._frame.read_parquet(path)
    except OK:
        table = None
    if table is not None:
        _table_then_evaluate(table)
    with contextlib.suppress(*OK):
        rm.evaluate_stream({"1": {"a": 1}}, path, ["ndcg@5", "hits"], batch_rows=2, progress=False)


# ----------------------------------------------------------------- reader-only targets (fast)
# The targets above run an evaluation after every accepted input, a few hundred to a few thousand
# executions per second; these stop after the reader (where the untrusted bytes are handled), so
# that each reaches 10 million executions in hours, not days.
_CSV_OPTIONS = None


def trec_read(data: bytes) -> None:
    """The C++ TREC parser on the bytes as a run and as qrels, the containers, the chunk-boundary search."""
    try:
        users, indptr, docs, scores = parse_run_bytes(data, "fuzz")
        rm.Recs(indptr, docs, scores, users, by_score=True)
    except OK:
        pass
    try:
        q_users, q_indptr, q_docs, grades = _parse_data(data, "fuzz", 4, 4, 3, _QRELS, "grade")
        rm.Truth(q_indptr, q_docs, grades, q_users)
    except OK:
        pass
    end = data.rfind(b"\n") + 1
    if end:
        cut = _trec_last_query_start(data, end)
        assert 0 <= cut < end


def _table_readers(table) -> None:
    for reader in (rm.Truth.from_frame, rm.Recs.from_frame):
        with contextlib.suppress(*OK):
            reader(table)


def csv_read(data: bytes) -> None:
    """pyarrow's CSV reader with rankmeter's options, then rankmeter's table readers (Truth, Recs).

    Single-threaded from a buffer: the fuzzer's inputs (at most 4096 bytes) are one block of
    rankmeter's block size (64 KiB at least), which threads would not split anyway."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    global _CSV_OPTIONS
    if _CSV_OPTIONS is None:
        read, parse, convert = _csv_options("fuzz.csv", 1000)
        read.use_threads = False
        _CSV_OPTIONS = read, parse, convert
    read, parse, convert = _CSV_OPTIONS
    try:
        table = pacsv.read_csv(pa.BufferReader(data), read_options=read, parse_options=parse, convert_options=convert)
    except OK:
        return
    _table_readers(table)


def parquet_read(data: bytes) -> None:
    """rankmeter's parquet footer check on the bytes, then pyarrow's parquet reader (the one under
    ``pyarrow.dataset``, here on a buffer, single-threaded).

    The ``parquet`` target above goes the whole way through files, ``pyarrow.dataset``, the table
    readers, the streaming reader and an evaluation; this one is the untrusted-bytes part of that
    path without the file system and the dataset layer, about thirty times as many executions per
    second. (The tables it decodes go through the same table readers as ``csv_read``'s.)"""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        check_footer(lambda offset, n: data[offset : offset + n], len(data), "fuzz.parquet")
        table = pq.ParquetFile(pa.BufferReader(data)).read(use_threads=False)
    except OK:
        return
    except MemoryError:  # pyarrow.ArrowMemoryError is an ArrowException too: a finding (see main)
        raise
    except (pa.ArrowException, OSError):  # what rankmeter's readers turn into a ValueError naming the file
        return
    assert table.num_rows >= 0


def state(data: bytes) -> None:
    try:
        s = rm.State.from_bytes(data)
    except OK:
        return
    try:
        s.finalize()
    except OK:
        return
    again = rm.State.from_bytes(s.to_bytes())
    assert again == s


class _SneakyStr(str):
    """A str id whose hash runs Python code that empties the dict being read (the walker must leave it)."""

    victim: ClassVar[Any] = None

    def __hash__(self) -> int:
        if isinstance(_SneakyStr.victim, dict):
            _SneakyStr.victim.clear()
        return str.__hash__(self)


class _Provider:
    """The fuzzer's bytes read as small numbers and strings (what atheris.FuzzedDataProvider offers, here
    in plain Python so the target also runs without atheris, in the test suite); past the end: zeros."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def _byte(self) -> int:
        b = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return b

    def ConsumeIntInRange(self, lo: int, hi: int) -> int:
        span = hi - lo + 1
        x = 0
        for _ in range(max(1, (span.bit_length() + 7) // 8)):
            x = (x << 8) | self._byte()
        return lo + x % span

    def ConsumeInt(self, n_bytes: int) -> int:
        x = int.from_bytes(bytes(self._byte() for _ in range(n_bytes)), "little", signed=True)
        return x

    def ConsumeBool(self) -> bool:
        return bool(self._byte() & 1)

    def ConsumeFloat(self) -> float:
        c = self._byte() % 8
        specials = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 5e-324, 1.7976931348623157e308]
        return specials[c] if c < len(specials) else self.ConsumeRegularFloat()

    def ConsumeRegularFloat(self) -> float:
        return self.ConsumeInt(2) / 16.0

    def ConsumeUnicode(self, n: int) -> str:
        return "".join(chr(self.ConsumeIntInRange(0, 0x10FFFF)) for _ in range(self.ConsumeIntInRange(0, n)))


_POOL = ["a", "b", "", "é", "日本", "\ud800", "x" * 70, "0", "1"]


def _walk_id(fdp: Any) -> Any:
    c = fdp.ConsumeIntInRange(0, 13)
    if c <= 2:
        return _POOL[fdp.ConsumeIntInRange(0, len(_POOL) - 1)]
    if c == 3:
        return fdp.ConsumeUnicode(6)  # any code points, lone surrogates included
    if c <= 6:
        return fdp.ConsumeIntInRange(-3, 9)
    if c == 7:
        return fdp.ConsumeInt(10)  # up to 80 bits: beyond int64 too
    if c == 8:
        return np.int64(fdp.ConsumeIntInRange(0, 9))
    if c == 9:
        return np.uint64(fdp.ConsumeIntInRange(0, 2**64 - 1))
    if c == 10:
        return np.str_(_POOL[fdp.ConsumeIntInRange(0, len(_POOL) - 1)])
    if c == 11:
        return _SneakyStr("a")
    return [None, 1.5, True, b"x", (1, 2), float("nan"), np.float64(2.0)][fdp.ConsumeIntInRange(0, 6)]


def _walk_value(fdp: Any) -> Any:
    c = fdp.ConsumeIntInRange(0, 7)
    if c <= 2:
        return fdp.ConsumeRegularFloat() if c else fdp.ConsumeFloat()
    if c == 3:
        return fdp.ConsumeIntInRange(-3, 3)
    if c == 4:
        return fdp.ConsumeBool()
    if c == 5:
        return np.float32(fdp.ConsumeIntInRange(-3, 3))
    return [None, "1.5", 2**70, 1j][fdp.ConsumeIntInRange(0, 3)]


def _walk_side(fdp: Any, recs: bool) -> Any:
    rows: list[Any] = []
    for _ in range(fdp.ConsumeIntInRange(0, 4)):
        form = fdp.ConsumeIntInRange(0, 5)
        items = [_walk_id(fdp) for _ in range(fdp.ConsumeIntInRange(0, 4))]
        try:
            if form <= 1:
                rows.append(items)
            elif form == 2:
                rows.append(tuple(items))
            elif form == 3:
                rows.append({i: _walk_value(fdp) for i in items})
            elif form == 4:
                rows.append(set(items))
            else:
                rows.append(np.array(items) if items else "ab")
        except (TypeError, ValueError):  # unhashable ids in a set or a dict, ragged arrays
            rows.append(items)
    outer = fdp.ConsumeIntInRange(0, 4)
    if outer == 0:
        return rows
    if outer == 1:
        return tuple(rows)
    d: dict = {}
    for r in rows:
        with contextlib.suppress(TypeError):  # an unhashable key
            d[_walk_id(fdp)] = r
    if outer == 3:
        return collections.defaultdict(list, d)
    if outer == 4:
        return collections.OrderedDict(d)
    return d


def _same_side(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    assert a.indptr.tolist() == b.indptr.tolist()
    ia, ib = np.asarray(a.items).tolist(), np.asarray(b.items).tolist()
    assert ia == ib and [isinstance(x, str) for x in ia] == [isinstance(x, str) for x in ib]
    assert (a.users is None) == (b.users is None)
    if a.users is not None:
        assert a.users.tolist() == b.users.tolist()
    va, vb = (a.grades, b.grades) if isinstance(a, rm.Truth) else (a.scores, b.scores)
    assert (va is None) == (vb is None)
    if va is not None:
        assert np.array_equal(va, vb, equal_nan=True)


def _same_walk(a: Any, b: Any) -> None:
    """Two answers of ``_core.walk_py``: both None, or equal arrays, the same label objects, kinds, row map."""
    assert (a is None) == (b is None)
    if a is None:
        return

    def same(x: Any, y: Any) -> None:
        assert (x is None) == (y is None)
        if x is None:
            return
        if isinstance(x, tuple):
            assert len(x) == len(y)
            for p, q in zip(x, y):
                same(p, q)
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape
            if x.dtype == object:
                assert all(p is q for p, q in zip(x.tolist(), y.tolist()))
            else:
                np.testing.assert_array_equal(x, y)
        else:
            assert x == y

    same(a, b)


def walk(data: bytes) -> None:
    """The walker of Python objects on dicts and lists built from the bytes: it reads them exactly as the
    Python readers do, or leaves them to those readers, and never raises or crashes."""
    from rankmeter import _core
    from rankmeter.inputs._containers import Recs, Truth, walk_objects

    fdp = _Provider(data)
    truth, recs = _walk_side(fdp, False), _walk_side(fdp, True)
    _SneakyStr.victim = recs
    out = _core.walk_py(truth, recs, threads=1)  # never raises
    # read in chunks by several threads: the same answer as one thread
    _same_walk(out, _core.walk_py(truth, recs, threads=2 + fdp.ConsumeIntInRange(0, 3), parallel_min=0))
    if out is None:
        return
    try:
        pair = walk_objects(truth, recs)
    except OK:
        return
    assert pair is not None
    saved = _core.walk_py
    _core.walk_py = lambda *args, **kwargs: None
    try:
        t_ref = Truth.from_dict(truth) if isinstance(truth, dict) else Truth.from_lists(truth)
        r_ref = Recs.from_dict(recs) if isinstance(recs, dict) else Recs.from_lists(recs)
    finally:
        _core.walk_py = saved
    _same_side(pair[0], t_ref)
    _same_side(pair[1], r_ref)


def _nested(fdp: Any, grades: bool) -> Any:
    """{query: {document: grade or score}} from the bytes: str and int query ids, str documents mostly (some
    shared objects, some fresh equal ones, some of other kinds), values of every kind, now and then something
    else than a dict."""
    out: Any = {} if fdp.ConsumeIntInRange(0, 15) else collections.OrderedDict()
    for _ in range(fdp.ConsumeIntInRange(0, 5)):
        c = fdp.ConsumeIntInRange(0, 31)
        q: Any = _walk_id(fdp) if c == 0 else fdp.ConsumeIntInRange(0, 2) if c == 1 else f"q{c % 3}"
        inner: Any = {}
        for _ in range(fdp.ConsumeIntInRange(0, 6)):
            c = fdp.ConsumeIntInRange(0, 63)
            doc = _walk_id(fdp) if c == 0 else _POOL[c % len(_POOL)] if c < 16 else "".join(["d", str(c % 6)])
            c = fdp.ConsumeIntInRange(0, 31)
            value = (
                _walk_value(fdp)
                if c == 0
                else fdp.ConsumeFloat()
                if c == 1
                else fdp.ConsumeIntInRange(-1, 3)
                if grades or c < 6
                else fdp.ConsumeRegularFloat()
            )
            with contextlib.suppress(TypeError):  # an unhashable document
                inner[doc] = value
        if fdp.ConsumeIntInRange(0, 31) == 0:
            inner = [list(inner), collections.defaultdict(int, inner), None][fdp.ConsumeIntInRange(0, 2)]
        with contextlib.suppress(TypeError):  # an unhashable query id
            out[q] = inner
    return out


def trec_nested(data: bytes) -> None:
    """pytrec_eval's one-call path (``_core.trec_nested``: each query's dicts read on its own, else the walker
    of the objects) on dicts of dicts built from the bytes: the same answer on every thread count and, where it
    answers, the numbers of the general path (the Python readers); it never raises or crashes."""
    from rankmeter import _core
    from rankmeter.compat import pytrec_eval as pe

    fdp = _Provider(data)
    qrels, run = _nested(fdp, True), _nested(fdp, False)
    _SneakyStr.victim = run
    try:
        ev = pe.RelevanceEvaluator(qrels, {"map", "ndcg_cut_5", "P_3", "recip_rank", "bpref", "num_rel_ret"})
    except OK:
        return
    cols, col_of, names = ev._fast_columns()

    def call(threads: int) -> Any:
        args = (qrels, run, cols, col_of, names, 1.0, pe._EMPTY_ZERO, pe._DUP_ERROR, threads)
        return _core.trec_nested(*args), _core.trec_nested(*args, nested=False, by_input=True)

    out, by_input = call(1)
    for t in (2, 3):
        got, got_by_input = call(t)
        assert got == out
        assert (got_by_input is None) == (by_input is None)
        if by_input is not None:
            np.testing.assert_array_equal(got_by_input[0], by_input[0])
            np.testing.assert_array_equal(got_by_input[1], by_input[1])
    if out is None:
        return
    pe._ONE_CALL = False
    try:
        slow = ev.evaluate(run)
    finally:
        pe._ONE_CALL = True
    assert list(slow) == list(out)
    for q, row in slow.items():
        assert list(row) == list(out[q]) and all(v == out[q][m] for m, v in row.items()), (q, row, out[q])


def seeds() -> dict:
    """A valid input of each target (written to fuzz/corpus/<target>/ by ``python fuzz/targets.py seeds``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {"user_id": ["1", "1", "2"], "item_id": ["a", "b", "c"], "rank": [1, 2, 1], "relevance": [1, 0, 2]}
    )
    buf = io.BytesIO()
    pq.write_table(table, buf)
    st = rm.partial({"1": {"a": 1}, "2": {"c": 2}}, {"1": ["a", "b"], "2": ["c"]}, METRICS, catalog=["a", "b", "c"])
    return {
        "trec": b"1 Q0 a 1 2.5 run\n1 Q0 b 2 1.5 run\n2 0 c 1\n2 Q0 c 1 0.5 run extra\n",
        "csv": b"user_id,item_id,rank,relevance\n1,a,1,1\n1,b,2,0\n2,c,1,2\n",
        "parquet": buf.getvalue(),
        "state": st.to_bytes(),
        "trec_read": b"1 Q0 a 1 2.5 run\n1 Q0 b 2 1.5 run\n2 0 c 1\n2 Q0 c 1 0.5 run extra\n",
        "csv_read": b"user_id,item_id,rank,relevance\n1,a,1,1\n1,b,2,0\n2,c,1,2\n",
        "parquet_read": buf.getvalue(),
        "walk": bytes(range(256)) * 4,
        "trec_nested": bytes(range(256)) * 4,
    }


TARGETS = {
    "trec": trec,
    "csv": csv,
    "parquet": parquet,
    "state": state,
    "trec_read": trec_read,
    "csv_read": csv_read,
    "parquet_read": parquet_read,
    "walk": walk,
    "trec_nested": trec_nested,
}


_PRELOAD = {
    "csv": ("pyarrow.csv",),
    "csv_read": ("pyarrow.csv",),
    "parquet": ("pyarrow.parquet", "pyarrow.dataset"),
    "parquet_read": ("pyarrow.parquet",),
}


def _no_failed_allocation(target):
    """The target, failing (a finding) when an input made an allocation fail: a clear error is not
    enough there, the input must be refused before anything allocates what it declares."""

    def run(data: bytes) -> None:
        try:
            target(data)
        except MemoryError as e:
            raise AssertionError(f"an allocation failed: {e}") from None
        except OK as e:
            if "malloc" in str(e) or "allocat" in str(e) or "Out of memory" in str(e):
                raise AssertionError(f"an allocation failed: {e}") from None
            raise

    return run


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in (*TARGETS, "seeds"):
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TARGETS)}|seeds}} [libFuzzer flags] [corpus dirs]")
    name = sys.argv.pop(1)
    if name == "seeds":
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
        for target, blob in seeds().items():
            os.makedirs(os.path.join(root, target), exist_ok=True)
            with open(os.path.join(root, target, "seed"), "wb") as f:
                f.write(blob)
        return
    # A 3 GiB address-space limit: should a file make pyarrow allocate what it declares (as
    # fuzz/findings/parquet-oom.bin did before the footer check), the allocation fails at once instead
    # of the process growing until libFuzzer's -rss_limit_mb stops it; rankmeter reports such a failed
    # allocation as a ValueError, and _no_failed_allocation turns it back into a finding.
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY))
    # what the target runs is imported before atheris.instrument_all(), which instruments only the modules
    # loaded by then (a module first imported inside a target gives the fuzzer no coverage of it); only
    # what it needs: instrumenting all of pyarrow's Python modules takes minutes on a loaded machine
    import importlib

    for module in _PRELOAD.get(name, ()):
        importlib.import_module(module)
    if os.environ.get("RANKMETER_FUZZ_INSTRUMENT", "rankmeter") == "rankmeter":
        # rankmeter's own functions (every function object of a rankmeter module, class methods included): the
        # target starts in about 3 s. RANKMETER_FUZZ_INSTRUMENT=all: atheris.instrument_all() over every loaded
        # module (numpy, pandas, pyarrow too), about 20 s per start, and on trec_nested 71 coverage edges at start
        # against 446 this way
        import gc
        import types

        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType) and str(getattr(obj, "__module__", "")).startswith("rankmeter"):
                atheris.instrument_func(obj)
    else:
        atheris.instrument_all()
    atheris.Setup(sys.argv, _no_failed_allocation(TARGETS[name]))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
