"""The walker of Python objects (``_core.walk_py``) reads dicts and lists exactly as the Python readers do.

The reference is rankmeter's own Python readers (``Truth.from_dict``/``from_lists``,
``Recs.from_dict``/``from_lists`` and the user join of ``align``), run with the walker switched off.
Hypothesis draws the whole space of objects users pass: dicts of dicts, of lists, of tuples, of sets,
lists of lists, str, int, numpy and huge ids, a mix of kinds, empty rows, repeats, and the values a
grade or a score can be (float, int, bool, numpy numbers, NaN), as well as ids and containers the walker
leaves to the Python readers (floats, None, bools, tuples, dict subclasses, objects whose hash runs
Python code). Whatever the walker reads must equal the readers' containers field for field and give the
same evaluation; whatever it leaves must still be read (or refused with the same error) by the readers.
"""

from __future__ import annotations

import collections
from contextlib import contextmanager
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter import _core
from rankmeter.inputs._containers import Recs, Truth, walk_objects

METRICS = ["ndcg@3", "ap", "precision@2", "recall@5", "rr", "hits@4", "r_precision", "num_rel"]

str_ids = st.sampled_from(["a", "b", "c", "", "é", "日本", "😀", "\ud800", "x" * 300, "1", "01"])
small_ints = st.integers(-3, 12)
huge_ints = st.sampled_from([2**62, -(2**63), 2**63 - 1, 2**63, 2**64, -(2**63) - 1])
np_ids = st.one_of(
    st.integers(0, 12).map(np.int64),
    st.integers(0, 12).map(np.int32),
    st.integers(0, 12).map(np.uint64),
    st.sampled_from(["a", "b", "q"]).map(np.str_),
)
odd_ids = st.sampled_from([None, 1.5, True, False, (1, 2), b"x", float("nan")])
KINDS = ["str", "str", "str", "int", "int", "huge", "numpy", "mixed", "odd"]


def ids_of(kind: str) -> st.SearchStrategy:
    return {
        "str": str_ids,
        "int": small_ints,
        "huge": st.one_of(small_ints, huge_ints),
        "numpy": st.one_of(np_ids, small_ints),
        "mixed": st.one_of(str_ids, small_ints),
        "odd": st.one_of(str_ids, odd_ids),
    }[kind]


plain_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-5, 5),
    st.booleans(),
    st.floats(-4, 4, width=32).map(np.float32),
    st.integers(0, 3).map(np.int64),
)
odd_numbers = st.sampled_from([2**70, "1.5", None, 1 + 2j])


@st.composite
def row(draw, kind: str, recs: bool, form: str, odd_values: bool) -> Any:
    items = draw(st.lists(ids_of(kind), max_size=6))
    if form == "dict":
        values = st.one_of(plain_numbers, odd_numbers) if odd_values else plain_numbers
        return {i: draw(values) for i in items}
    if form == "tuple":
        return tuple(items)
    if form == "set" and not recs:
        return set(items)
    return items


@st.composite
def side(draw, recs: bool, kind: str) -> Any:
    forms = ["list", "list", "tuple", "dict", "dict"] + ([] if recs else ["set"])
    one_form = draw(st.integers(0, 3)) > 0
    odd_values = draw(st.integers(0, 5)) == 0
    form0 = draw(st.sampled_from(forms))
    n = draw(st.integers(0, 6))
    rows = [draw(row(kind, recs, form0 if one_form else draw(st.sampled_from(forms)), odd_values)) for _ in range(n)]
    outer = draw(st.sampled_from(["dict", "dict", "dict", "list", "defaultdict", "ordered"]))
    if outer == "list":
        return rows
    ukind = draw(st.sampled_from(["str", "str", "int", "numpy", "mixed", "huge"]))
    keys = list(dict.fromkeys(draw(st.lists(ids_of(ukind), min_size=n, max_size=n + 3))))[:n]
    d = dict(zip(keys, rows))
    if outer == "defaultdict":
        return collections.defaultdict(list, d)
    if outer == "ordered":
        return collections.OrderedDict(d)
    return d


@st.composite
def pairs(draw) -> tuple:
    kind = draw(st.sampled_from(KINDS))
    other = kind if draw(st.integers(0, 3)) > 0 else draw(st.sampled_from(KINDS))
    return draw(side(False, kind)), draw(side(True, other))


def read(truth: Any, recs: Any) -> tuple[Truth, Recs]:
    """Both sides as the walker reads them (it must read them)."""
    out = walk_objects(truth, recs)
    assert out is not None and out[0] is not None and out[1] is not None
    return out[0], out[1]


@contextmanager
def python_readers():
    """The walker off: every dict and list goes to the Python readers."""
    saved = _core.walk_py
    _core.walk_py = lambda *args, **kwargs: None
    try:
        yield
    finally:
        _core.walk_py = saved


def outcome(fn):
    try:
        return "ok", fn()
    except (ValueError, TypeError) as e:
        return type(e).__name__, str(e)


def ids_equal(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        return a.shape == b.shape and bool((a.astype(np.int64) == b.astype(np.int64)).all())
    al, bl = a.tolist(), b.tolist()
    return (
        len(al) == len(bl)
        and all(type(x) is type(y) or isinstance(x, str) == isinstance(y, str) for x, y in zip(al, bl))
        and al == bl
    )


def same_container(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    assert np.array_equal(a.indptr, b.indptr)
    assert ids_equal(np.asarray(a.items), np.asarray(b.items))
    assert (a.users is None) == (b.users is None)
    if a.users is not None:
        assert ids_equal(a.users, b.users)
    va = a.grades if isinstance(a, Truth) else a.scores
    vb = b.grades if isinstance(b, Truth) else b.scores
    assert (va is None) == (vb is None)
    if va is not None:
        np.testing.assert_array_equal(va, vb)
    if isinstance(a, Recs):
        assert a.by_score == b.by_score


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs())
def test_walker_reads_every_object_as_the_python_readers_do(data):
    truth, recs = data
    assert outcome(lambda: _core.walk_py(truth, recs))[0] == "ok"  # it reads, or leaves them to the readers
    walked = outcome(lambda: walk_objects(truth, recs))
    if walked[0] != "ok":  # what the walker read, checked as the readers check it (e.g. a NaN score)
        with python_readers():
            ref = outcome(lambda: Recs.from_dict(recs) if isinstance(recs, dict) else Recs.from_lists(recs))
        assert ref == walked
        return
    pair = walked[1]
    event("read by the walker" if pair is not None else "left to the Python readers")
    if pair is not None:
        with python_readers():
            t_ref = outcome(lambda: Truth.from_dict(truth) if isinstance(truth, dict) else Truth.from_lists(truth))
            r_ref = outcome(lambda: Recs.from_dict(recs) if isinstance(recs, dict) else Recs.from_lists(recs))
        assert t_ref[0] == "ok" and r_ref[0] == "ok", (t_ref, r_ref)
        same_container(pair[0], t_ref[1])
        same_container(pair[1], r_ref[1])
    # the whole evaluation: the same numbers, or the same error
    ours = outcome(lambda: rm.evaluate(truth, recs, METRICS, per_user=True, duplicates="first"))
    with python_readers():
        ref = outcome(lambda: rm.evaluate(truth, recs, METRICS, per_user=True, duplicates="first"))
    assert ours[0] == ref[0], (ours, ref)
    if ours[0] != "ok":
        assert ours[1] == ref[1]
        return
    for m in METRICS:
        assert ours[1][m] == ref[1][m] or (np.isnan(ours[1][m]) and np.isnan(ref[1][m]))
        np.testing.assert_array_equal(ours[1].per_user[m], ref[1].per_user[m])
    assert ours[1].meta == ref[1].meta
    assert ids_equal(np.asarray(ours[1].users), np.asarray(ref[1].users))


def _same_walk(a: Any, b: Any) -> None:
    """Two answers of walk_py: None both, or the same arrays, the same label objects, kinds and row map."""
    assert (a is None) == (b is None)
    if a is None:
        return
    for side_a, side_b in zip(a[:2], b[:2]):
        assert (side_a is None) == (side_b is None)
        if side_a is None:
            continue
        for x, y in zip(side_a, side_b):
            assert (x is None) == (y is None)
            if x is not None:
                assert x.dtype == y.dtype and x.shape == y.shape
                if x.dtype == object:
                    assert all(p is q for p, q in zip(x.tolist(), y.tolist()))
                else:
                    np.testing.assert_array_equal(x, y)  # NaN scores equal where both hold one
    assert (a[2] is None) == (b[2] is None)
    if a[2] is not None:
        assert all(p is q for p, q in zip(a[2].tolist(), b[2].tolist())) and len(a[2]) == len(b[2])
    assert a[3] == b[3]
    assert (a[4] is None) == (b[4] is None)
    if a[4] is not None:
        np.testing.assert_array_equal(a[4], b[4])


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), threads=st.integers(2, 5), dict_rows=st.booleans())
def test_a_walk_in_chunks_by_several_threads_answers_as_one_thread(data, threads, dict_rows):
    truth, recs = data
    serial = outcome(lambda: _core.walk_py(truth, recs, dict_rows, threads=1))
    parallel = outcome(lambda: _core.walk_py(truth, recs, dict_rows, threads=threads, parallel_min=0))
    assert serial[0] == parallel[0] == "ok"
    _same_walk(serial[1], parallel[1])


def test_a_walk_in_chunks_leaves_int_and_str_ids_of_one_chunk_to_the_python_readers():
    # found by the fuzz target: a chunk holding both kinds once had its int values read as codes of its table
    truth = [(7685189, "a"), [], [], []]
    for threads in (1, 2, 4):
        assert _core.walk_py(truth, [], threads=threads, parallel_min=0) is None
    assert _core.walk_py([["a"], [], [3]], [], threads=3, parallel_min=0) is None  # the kinds in two chunks


def test_a_large_walk_in_chunks_codes_str_ids_in_order_of_first_appearance():
    rng = np.random.default_rng(3)
    ids = [f"i{j}" for j in range(5000)]
    recs = {f"u{u}": {ids[j]: float(rng.random()) for j in rng.integers(0, 5000, 40).tolist()} for u in range(3000)}
    truth = {f"u{u}": [ids[j] for j in rng.integers(0, 5000, 5).tolist()] for u in range(0, 3000, 2)}
    for threads in (2, 3, 7):
        _same_walk(_core.walk_py(truth, recs, threads=1), _core.walk_py(truth, recs, threads=threads, parallel_min=0))


def test_walker_joins_users_of_both_dicts():
    truth = {"u1": ["a"], "u2": ["b", "c"], 7: ["a"]}
    recs = {"u2": ["c", "b"], "u9": ["a"], "u1": []}
    assert walk_objects(truth, recs) is None  # int and str user keys in one dict: the readers decide
    truth.pop(7)
    t, r = read(truth, recs)
    assert t.paired is not None and t.paired[0] is r
    np.testing.assert_array_equal(t.paired[1], [2, 0])
    res = rm.evaluate(truth, recs, ["ndcg@2"], per_user=True)
    assert list(res.users) == ["u1", "u2"] and res.per_user["ndcg@2"].tolist() == [0.0, 1.0]
    assert res.meta["n_ignored_recs"] == 1


class Sneaky(str):
    """A str id whose hash runs Python code that mutates the dict being read."""

    target: ClassVar[dict] = {}

    def __hash__(self) -> int:
        Sneaky.target.pop(next(iter(Sneaky.target)), None)
        return str.__hash__(self)


def test_objects_whose_hash_runs_python_code_go_to_the_python_readers():
    recs = {"u1": [Sneaky("a"), "b"], "u2": ["a"]}
    Sneaky.target = recs
    assert _core.walk_py(None, recs) is None  # a str subclass is not read by the walker
    assert recs == {"u1": ["a", "b"], "u2": ["a"]}  # and the walker ran none of its code


def test_walker_refuses_nothing_it_cannot_read_and_never_crashes():
    # huge ints, floats, None, bytes, tuples as ids; a dict subclass with its own order; an ndarray row
    for obj in (
        {"u": [2**64]},
        {"u": [1.5]},
        {"u": [None]},
        {"u": [b"x"]},
        {"u": [(1, 2)]},
        collections.OrderedDict(u=["a"]),
        {"u": np.array([1, 2])},
        {"u": "abc"},
        {1.5: ["a"]},
        [["a"], "ab"],
        {"u": {"a": "1.5"}},
    ):
        assert _core.walk_py(obj, None) is None
        assert _core.walk_py(None, obj) is None


def test_walker_keeps_the_first_object_of_each_distinct_str_as_its_label():
    a1, a2 = "".join(["it", "em"]), "".join(["ite", "m"])
    assert a1 == a2 and a1 is not a2
    t, r = read({"u": [a1]}, {"u": [a2, "other"]})
    assert t.coded is not None and r.coded is not None
    assert t.coded.labels is r.coded.labels  # one label array: no second coding
    assert t.coded.codes.tolist() == [0] and r.coded.codes.tolist() == [0, 1]
    assert t.coded.labels[0] is a1


@pytest.mark.parametrize("rows", [[], [[]], [["a"], []], [[1, 2], [2]]])
def test_positional_lists_are_read_without_user_ids(rows):
    t, r = read(rows, rows)
    assert t.users is None and r.users is None and t.paired is None


def test_ints_at_every_digit_boundary_are_read_exactly_as_ids_and_as_values():
    # CPython stores ints in 30-bit digits; the walker reads ints of up to two digits from the object itself
    edges = [0, 1, -1, 255, 256, 2**30 - 1, 2**30, 2**31, 2**53 + 1, 2**60 - 1, 2**60, 2**62, 2**63 - 1]
    ids = sorted({s * x for x in edges for s in (1, -1)})
    rows = [ids[i:] + ids[:i] for i in range(len(ids))]  # every id in every position, enough rows for the threads
    truth = {f"u{u}": {x: x for x in row} for u, row in enumerate(rows)}
    for threads, parallel_min in ((1, 1 << 40), (2, 0)):
        got = _core.walk_py(truth, rows, dict_rows=False, threads=threads, parallel_min=parallel_min)
        assert got is not None
        (_, t_ip, t_items, t_vals), (_, r_ip, r_items, _), _, kind, _ = got
        assert kind == 1
        assert t_ip.tolist() == r_ip.tolist() == [len(ids) * u for u in range(len(rows) + 1)]
        assert t_items.tolist() == [x for row in rows for x in row]
        assert t_vals.tolist() == [float(x) for row in rows for x in row]  # grades as PyLong_AsDouble rounds them
        assert r_items.tolist() == [x for row in rows for x in row]


# equal strings that are distinct objects, around the 8 bytes the walker's table keeps in its slots: lengths
# 0-12, the three kinds of str, trailing NUL characters, strings equal up to their last byte
_TEXTS = [
    *("abcdefghijkl"[:n] for n in range(13)),
    "abcdefgx",
    "abcdefghx",
    "ab\x00",
    "ab\x00\x00",
    "é",
    "éé",
    "éééé",
    "ééééé",
    "\u0100",
    "\u0100\u0100\u0100\u0100",
    "\u0100\u0100\u0100\u0101",
    "\u0100\u0100\u0100\u0100\u0100",
    "😀",
    "😀😀",
    "😀😀😀",
    "a😀",
]


def _fresh(s: str) -> str:
    return "".join(list(s))  # a new object (for two characters or more) equal to s


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(st.sampled_from(_TEXTS), max_size=8), max_size=12), threads=st.integers(1, 3))
def test_equal_str_ids_that_are_distinct_objects_share_one_code(rows, threads):
    lists = [[_fresh(s) for s in row] for row in rows]
    out = _core.walk_py(None, lists, False, threads=threads, parallel_min=0)
    assert out is not None
    _, (_, indptr, items, _), labels, _, _ = out
    values = [s for row in lists for s in row]
    assert indptr.tolist() == np.cumsum([0] + [len(r) for r in lists]).tolist()
    codes = items.tolist()
    assert [labels[c] for c in codes] == values if labels is not None else not values
    first: dict = {}
    for v, c in zip(values, codes):
        assert first.setdefault(v, c) == c  # one code per value, whatever the object
    assert len(set(codes)) == len(set(values)) == (0 if labels is None else len(labels))


def _force_hash(s: str, h: int) -> bool:
    """Overwrite the hash CPython caches in a str object (PyASCIIObject.hash, after the refcount, the type and
    the length); False where that field is not where expected (the test then skips)."""
    import ctypes
    import sys

    if sys.implementation.name != "cpython":
        return False
    hash(s)  # computed and cached
    field = ctypes.c_ssize_t.from_address(id(s) + 3 * ctypes.sizeof(ctypes.c_ssize_t))
    if field.value != hash(s):
        return False
    field.value = h
    return True


@pytest.mark.parametrize("threads", [1, 3])
def test_str_ids_of_one_hash_get_codes_by_value(threads):
    # every id made to carry the same cached hash: the table's slots then decide by the bytes they keep (8 or
    # fewer) or by the objects (longer), never by the hash alone
    rng = np.random.default_rng(11)
    rows = [[_fresh(_TEXTS[i]) for i in rng.integers(0, len(_TEXTS), 6)] for _ in range(40)]
    for row in rows:
        for s in row:
            if len(s) > 1 and not _force_hash(s, 424242):
                pytest.skip("this Python keeps a str's hash elsewhere")
    out = _core.walk_py(None, rows, False, threads=threads, parallel_min=0)
    assert out is not None
    _, (_, _, items, _), labels, _, _ = out
    values = [s for row in rows for s in row]
    codes = items.tolist()
    assert labels is not None and [labels[c] for c in codes] == values
    by_value: dict = {}
    for v, c in zip(values, codes):
        by_value.setdefault(v, set()).add(c)
    assert all(len(cs) == 1 for cs in by_value.values())
    assert len(set(codes)) == len(by_value)
