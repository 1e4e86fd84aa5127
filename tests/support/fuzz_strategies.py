"""Hypothesis strategies and the guard used by the fuzz suite (tests/properties/test_fuzz.py).

Every strategy draws an input that is either valid or malformed in one of the
ways a user's data goes wrong: wrong dtypes, NaN/inf grades and scores,
negative/huge/duplicate ids, empty and ragged inputs, mismatched lengths,
non-contiguous, read-only, big-endian and object arrays, unknown metric
strings and options.

:func:`guarded` runs one call of a public entry point and enforces the
contract of every public entry point: the outcome is a result or a ``ValueError``/``TypeError``
whose message names what was wrong; never another exception, a hang, or a
write into the caller's arrays.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import string
from typing import Any, Callable

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# --------------------------------------------------------------------------- run size
# CI runs the short mode; RANKMETER_FUZZ_EXAMPLES=N raises every fuzz test's
# example count (the long run: see tests/properties/test_fuzz.py's module docstring).
EXAMPLES = int(os.environ.get("RANKMETER_FUZZ_EXAMPLES", "40"))
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
CALL_TIMEOUT_S = 20.0  # one call taking longer than this counts as a hang

CALLS = {"total": 0, "ok": 0, "rejected": 0}
BY_ENTRY: dict = {}  # entry point -> [ok, rejected]

# Words a rejection message may use to name the argument it is about.
ARG_WORDS = (
    "`",
    "truth",
    "recs",
    "metric",
    "option",
    "cutoff",
    "threads",
    "empty",
    "duplicates",
    "ties",
    "min_relevance",
    "max_items",
    "preset",
    "path",
    "line",
    "data",
    "users",
    "items",
    "grades",
    "scores",
    "matrix",
    "indptr",
    "pad",
    "k",
    "exclude",
    "aggregate",
    "state",
)


class Hang(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise Hang(f"call exceeded {CALL_TIMEOUT_S:.0f} s")


# --------------------------------------------------------------------------- snapshots
def _arrays(obj: Any, out: list, depth: int = 0) -> None:
    if depth > 4:
        return
    if isinstance(obj, np.ndarray):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj[:64]:
            _arrays(x, out, depth + 1)
    elif isinstance(obj, dict):
        for x in list(obj.values())[:64]:
            _arrays(x, out, depth + 1)
    elif hasattr(obj, "__slots__") and type(obj).__module__.startswith("rankmeter"):
        for name in obj.__slots__:
            _arrays(getattr(obj, name, None), out, depth + 1)


def _snapshot(args: tuple, kwargs: dict) -> list:
    arrays: list = []
    _arrays(list(args) + list(kwargs.values()), arrays)
    return [(a, a.copy(), a.flags.writeable) for a in arrays]


def _unchanged(snap: list) -> bool:
    for a, copy, writeable in snap:
        if a.flags.writeable != writeable:
            return False
        if a.dtype == object:
            if a.shape != copy.shape or any(x is not y for x, y in zip(a.ravel().tolist(), copy.ravel().tolist())):
                return False
        elif a.shape != copy.shape or a.tobytes() != copy.tobytes():
            return False
    return True


# --------------------------------------------------------------------------- the guard
def guarded(fn: Callable, *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """Call ``fn``; return ``(True, result)`` or ``(False, exception)`` for a clean rejection.

    Fails the test (AssertionError) on any other exception, a hang, a message
    that names nothing, or a modified input array.
    """
    snap = _snapshot(args, kwargs)
    CALLS["total"] += 1
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_TIMEOUT_S)
    try:
        try:
            result = fn(*args, **kwargs)
            ok, out = True, result
        except (ValueError, TypeError) as e:
            ok, out = False, e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert _unchanged(snap), f"{getattr(fn, '__name__', fn)} modified a caller's array"
    tally = BY_ENTRY.setdefault(getattr(fn, "__qualname__", str(fn)), [0, 0])
    tally[0 if ok else 1] += 1
    if ok:
        CALLS["ok"] += 1
    else:
        CALLS["rejected"] += 1
        msg = str(out)
        assert msg.strip(), f"{type(out).__name__} with an empty message"
        low = msg.lower()
        named = re.search(r"`[^`]+`", msg) or any(
            (re.search(rf"\b{w}\b", low) if len(w) <= 2 else w in low) for w in ARG_WORDS[1:]
        )
        assert named, f"message names no argument: {msg!r}"
        assert "incompatible function arguments" not in msg, f"raw binding error leaked: {msg!r}"
    return ok, out


# --------------------------------------------------------------------------- ids
SMALL_INTS = st.integers(-3, 40)
HUGE_INTS = st.sampled_from([2**63 - 1, -(2**63), 2**62 + 7, 2**31, -(2**31) - 1, 10**18])
STR_IDS = st.text(alphabet=string.ascii_letters + string.digits + "é _-", min_size=0, max_size=4)

int_ids = st.one_of(SMALL_INTS, SMALL_INTS, HUGE_INTS)
any_ids = st.one_of(int_ids, STR_IDS)
bad_ids = st.sampled_from([None, 1.5, float("nan"), True, (1, 2), b"x", 2**64, -(2**63) - 1, [1]])

grades = st.one_of(
    st.sampled_from([0.0, 1.0, 2.0, 3.0, -1.0, 0.5]),
    st.floats(-4, 8, allow_nan=False, allow_infinity=False),
)
bad_grades = st.sampled_from([float("nan"), float("inf"), -float("inf"), "x", None])
scores = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@st.composite
def id_list(draw, ids=int_ids, max_size=8, unique=True):
    if unique:
        return draw(st.lists(ids, max_size=max_size, unique=True))
    return draw(st.lists(ids, max_size=max_size))


# --------------------------------------------------------------------------- python forms
@st.composite
def truth_python(draw, ids=int_ids, users=SMALL_INTS, malformed=False):
    """A truth dict ({u: {i: g}} or {u: [items]}) or a list of lists."""
    form = draw(st.sampled_from(["graded", "sets", "lists"]))
    n = draw(st.integers(0, 5))
    if form == "lists":
        rows = [draw(id_list(ids, unique=not malformed or draw(st.booleans()))) for _ in range(n)]
        return rows
    us = draw(st.lists(users, min_size=n, max_size=n, unique=True))
    out: dict = {}
    for u in us:
        items = draw(id_list(ids, unique=True))
        if form == "graded":
            row = {i: draw(grades) for i in items}
            if malformed and items and draw(st.booleans()):
                row[items[0]] = draw(bad_grades)
            out[u] = row
        else:
            if malformed and items and draw(st.booleans()):
                items = [*items, items[0]]
            out[u] = items
    if malformed and draw(st.booleans()):
        out[draw(users)] = draw(st.sampled_from([5, "abc", None, 1.5]))
    return out


@st.composite
def recs_python(draw, ids=int_ids, users=SMALL_INTS, malformed=False):
    """A recs dict ({u: [items]} or {u: {item: score}}) or a list of lists."""
    form = draw(st.sampled_from(["ranked", "scored", "lists"]))
    n = draw(st.integers(0, 5))
    if form == "lists":
        return [draw(id_list(ids, max_size=10, unique=not malformed)) for _ in range(n)]
    us = draw(st.lists(users, min_size=n, max_size=n, unique=True))
    out: dict = {}
    for u in us:
        items = draw(id_list(ids, max_size=10, unique=not malformed or draw(st.booleans())))
        if form == "scored":
            row = {i: draw(scores) for i in items}
            if malformed and items and draw(st.booleans()):
                row[items[0]] = draw(st.sampled_from([float("nan"), float("inf"), "s"]))
            out[u] = row
        else:
            out[u] = items
    if malformed and draw(st.booleans()):
        out[draw(users)] = draw(st.sampled_from([{1, 2}, 7, "ab", None]))
    return out


# --------------------------------------------------------------------------- arrays
INT_DTYPES = ["<i8", ">i8", "<i4", ">i4", "<i2", "u1", "<u2", "<u4", "<u8", ">u8"]
FLOAT_DTYPES = ["<f8", ">f8", "<f4", ">f4", "<f2"]
ODD_DTYPES = ["?", "O", "<U3", "<c16", "<M8[s]"]


@st.composite
def as_array(draw, values, kind="int", allow_odd=True):
    """``values`` as a numpy array of a drawn dtype and layout (maybe non-contiguous / read-only)."""
    pool = INT_DTYPES if kind == "int" else FLOAT_DTYPES
    if allow_odd and draw(st.integers(0, 9)) == 0:
        dtype = draw(st.sampled_from(pool + ODD_DTYPES))
    else:
        dtype = draw(st.sampled_from(pool))
    try:
        with np.errstate(all="ignore"):
            if dtype == "O":
                arr = np.empty(len(values), dtype=object)
                arr[:] = list(values)
            else:
                arr = np.array(values, dtype=dtype)
    except (ValueError, OverflowError, TypeError):
        arr = np.array(values, dtype=object) if len(values) else np.zeros(0, dtype=np.int64)
    layout = draw(st.sampled_from(["plain", "plain", "strided", "readonly", "fortran2d"]))
    if layout == "strided" and arr.ndim == 1:
        big = np.empty(arr.size * 2, dtype=arr.dtype)
        big[::2] = arr
        arr = big[::2]
    elif layout == "readonly":
        arr = arr.copy()
        arr.setflags(write=False)
    return arr


def _csr_rows(draw, max_len, malformed):
    """Up to 6 rows of up to max_len int ids (unique per row unless malformed): (n, items, indptr)."""
    n = draw(st.integers(0, 6))
    lens = [draw(st.integers(0, max_len)) for _ in range(n)]
    items: list = []
    for ln in lens:
        items += draw(
            st.lists(
                int_ids if draw(st.booleans()) else SMALL_INTS,
                min_size=ln,
                max_size=ln,
                unique=not malformed or draw(st.booleans()),
            )
        )
    return n, items, np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)


@st.composite
def csr_truth(draw, malformed=False):
    """(indptr, items[, grades]) arrays, maybe with a broken indptr or lengths."""
    n, items, indptr = _csr_rows(draw, 6, malformed)
    if malformed:
        what = draw(st.sampled_from(["none", "decreasing", "start", "end", "grades_len", "2d"]))
        if what == "decreasing" and n >= 2:
            indptr[1], indptr[2] = indptr[2], indptr[1] - 1
        elif what == "start":
            indptr = indptr + 1
        elif what == "end":
            indptr[-1] += draw(st.sampled_from([-1, 1, 2**40]))
        elif what == "2d":
            indptr = indptr.reshape(1, -1)
    g_vals = [draw(grades) for _ in items]
    if malformed and g_vals and draw(st.booleans()):
        g_vals[draw(st.integers(0, len(g_vals) - 1))] = draw(st.sampled_from([math.nan, math.inf]))
    if malformed and draw(st.integers(0, 4)) == 0:
        g_vals = [*g_vals, 1.0]
    parts = [
        draw(as_array(indptr.ravel().tolist(), "int")) if indptr.ndim == 1 else indptr,
        draw(as_array(items, "int")),
    ]
    if draw(st.booleans()):
        parts.append(draw(as_array(g_vals, "float")))
    return tuple(parts)


@st.composite
def csr_recs(draw, malformed=False):
    n, items, indptr = _csr_rows(draw, 8, malformed)
    if malformed and n >= 1 and draw(st.booleans()):
        indptr[-1] += draw(st.sampled_from([-1, 1, 7]))
    parts = [draw(as_array(indptr.tolist(), "int")), draw(as_array(items, "int"))]
    if draw(st.booleans()):
        s = [draw(scores) for _ in items]
        if malformed and s and draw(st.booleans()):
            s[0] = draw(st.sampled_from([math.nan, -math.inf]))
        parts.append(draw(as_array(s, "float")))
    return tuple(parts)


@st.composite
def padded_recs(draw, malformed=False):
    n = draw(st.integers(0, 6))
    width = draw(st.integers(0, 8))
    pad = draw(st.sampled_from([-1, -1, 0, 2**63 - 1]))
    rows = []
    for _ in range(n):
        ln = draw(st.integers(0, width))
        row = draw(
            st.lists(
                st.integers(0, 50).filter(lambda x: x != pad),
                min_size=ln,
                max_size=ln,
                unique=not malformed or draw(st.booleans()),
            )
        )
        row = row + [pad] * (width - ln)
        if malformed and width >= 2 and ln < width and draw(st.booleans()):
            row[-1] = 3 if pad != 3 else 4  # an item after the padding
        rows.append(row)
    arr = np.array(rows, dtype=np.int64).reshape(n, width)
    dtype = draw(st.sampled_from(["<i8", ">i8", "<i8", "<f8", "O", "<u8"] if malformed else ["<i8", ">i8", "<i4"]))
    with np.errstate(all="ignore"), contextlib.suppress(OverflowError, ValueError):
        arr = arr.astype(dtype)
    if draw(st.booleans()):
        arr = np.asfortranarray(arr)
    if draw(st.booleans()):
        arr.setflags(write=False)
    return arr, pad


METRIC_NAMES = [
    "precision",
    "recall",
    "recall(denominator=min_relevant_k)",
    "f1",
    "fbeta(beta=0.5)",
    "ap",
    "ap(denominator=hits)",
    "ap(denominator=k)",
    "ap(denominator=min_relevant_k)",
    "ar",
    "ar(denominator=hits)",
    "cg",
    "dcg(gain=exponential)",
    "dcg(log_base=10)",
    "ndcg",
    "ndcg(ideal=all)",
    "ndcg(gain=binary,ideal=k_slots)",
    "hit_rate",
    "rr",
    "arhr",
    "hits",
]
BAD_METRICS = [
    "ndcg@0",
    "ndcg@-1",
    "ndcg@1.5",
    "nope@3",
    "ndcg(gain=cubic)@3",
    "ndcg(log_base=2)@3",
    "ap(denominator=)@2",
    "dcg(log_base=1)",
    "dcg(log_base=-2)",
    "r_precision@3",
    "ndcg@",
    "@5",
    "ndcg(gain=linear,gain=binary)",
    "fbeta(beta=0)",
    "fbeta(beta=nan)",
    "ndcg@99999999999999999999999",
    "",
    "   ",
    "p@1e3",
    "ndcg((",
    "ndcg(gain=linear",
    5,
    None,
    1.5,
    b"ndcg",
]


@st.composite
def metric_lists(draw, malformed=False):
    names = draw(st.lists(st.sampled_from(METRIC_NAMES), min_size=1, max_size=4))
    out = [n + (draw(st.sampled_from(["", "@1", "@3", "@10", "@1000"]))) for n in names]
    if "r_precision" not in out and draw(st.integers(0, 5)) == 0:
        out.append("r_precision")
    if malformed and draw(st.booleans()):
        out.append(draw(st.sampled_from(BAD_METRICS)))
    if malformed and draw(st.integers(0, 6)) == 0:
        return draw(st.sampled_from([[], "ndcg@3", 3, None, {"ndcg": 1}]))
    return out


@st.composite
def eval_options(draw, malformed=False):
    opts: dict = {}
    if draw(st.booleans()):
        opts["empty"] = draw(st.sampled_from(["skip", "zero", "one", "error"]))
    if draw(st.booleans()):
        opts["duplicates"] = draw(st.sampled_from(["error", "first"]))
    if draw(st.booleans()):
        opts["ties"] = draw(st.sampled_from(["input", "trec", "item_desc"]))
    if draw(st.booleans()):
        opts["min_relevance"] = draw(st.sampled_from([0.5, 1.0, 2.0, -1.0]))
    if draw(st.booleans()):
        opts["max_items"] = draw(st.integers(1, 12))
    if draw(st.booleans()):
        opts["threads"] = draw(st.integers(1, 8))
    if draw(st.integers(0, 5)) == 0:
        opts["preset"] = "trec_eval"
    if malformed and draw(st.booleans()):
        key = draw(st.sampled_from(["empty", "duplicates", "ties", "min_relevance", "max_items", "threads", "preset"]))
        opts[key] = draw(
            st.sampled_from(
                [
                    "bogus",
                    0,
                    -1,
                    1.5,
                    math.nan,
                    math.inf,
                    True,
                    None,
                    2**40,
                    2**70,
                    [1],
                    "average",
                ]
            )
        )
    return opts
