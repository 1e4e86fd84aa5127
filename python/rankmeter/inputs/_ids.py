"""Item and user ids: checked id arrays and dense codes shared by several arrays.

Ids are ints or strings (any hashable, for users and items alike). Integer ids
become int64 arrays and are used as they are; other ids stay object arrays and
are coded jointly (a hash pass: C++ for int64, pandas' or pyarrow's factorizer
for strings, no sort) when a kernel needs dense codes.
"""

from __future__ import annotations

import importlib
import numbers
import sys
from typing import Any, Optional

import numpy as np

from .. import _core

__all__ = [
    "as_id_array",
    "factorize",
    "factorize_items",
    "code_ids",
    "id_label",
    "id_kind",
    "check_id_kinds",
    "INT64_MAX",
]

INT64_MAX = np.iinfo(np.int64).max
_ID_LIMIT = 1 << 22


def as_id_array(values: Any, what: str) -> np.ndarray:
    """Turn a sequence of ids into an int64 array (ints) or an object array (anything else).

    Ints stay ints (no factorisation needed); strings and other hashables are
    kept as objects and factorised jointly with the other side later. Floats,
    bools and None are rejected: ids must be ints or strings.
    """
    arr = values if isinstance(values, np.ndarray) else None
    if arr is None:
        if not isinstance(values, (list, tuple)):
            values = list(values)
        if len(values) == 0:
            return np.zeros(0, dtype=np.int64)
        try:
            arr = np.asarray(values)
        except (ValueError, OverflowError):
            arr = None
        if arr is None or arr.ndim != 1:  # e.g. tuple ids: keep each id whole
            arr = np.empty(len(values), dtype=object)
            for i, v in enumerate(values):
                arr[i] = v
    if arr.ndim != 1:
        raise ValueError(f"`{what}` must be one-dimensional, got shape {arr.shape}")
    kind = arr.dtype.kind
    if kind == "i":
        return arr.astype(np.int64, copy=False)
    if kind == "u":
        if arr.size and int(arr.max()) > INT64_MAX:
            out = np.empty(arr.size, dtype=object)
            out[:] = arr.tolist()
            return out
        return arr.astype(np.int64, copy=False)
    if kind in "US":
        if isinstance(values, (list, tuple)) and not all(isinstance(x, str) for x in values):
            # numpy turned a mix of ints and strings into strings: keep the originals apart.
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return _check_object_ids(out, what)
        return arr.astype(object)
    if kind == "O":
        return _check_object_ids(arr, what)
    raise TypeError(
        f"`{what}` must hold integer or string ids, got dtype {arr.dtype}"
        + (" (float ids are ambiguous: convert them to int)" if kind == "f" else "")
    )


def _check_object_ids(arr: np.ndarray, what: str) -> np.ndarray:
    # An all-str column (the common case: string ids from a table or dicts) is recognised by
    # pandas' C type inference in one pass when pandas is importable, instead of one
    # isinstance() per element here (5M ids: 0.02 s instead of 1.4 s).
    kind = _infer_kind(arr)
    if kind == "string":
        return arr
    for i, x in enumerate(arr.tolist()):
        if x is None or isinstance(x, (bool, float, np.floating)) or not _hashable(x):
            raise TypeError(f"`{what}` must hold integer or string ids, got {x!r} at position {i}")
    ints = [isinstance(x, numbers.Integral) for x in arr.tolist()]
    if all(ints) and arr.size and all(-(2**63) <= int(x) <= INT64_MAX for x in arr.tolist()):
        return arr.astype(np.int64)
    return arr


def _infer_kind(arr: np.ndarray) -> Optional[str]:
    """pandas' inferred kind of an object array ('string', 'integer', 'mixed', ...), None without pandas."""
    if arr.size < 1024:
        return None  # not worth an import
    pd: Any = sys.modules.get("pandas")
    if pd is None:
        try:
            pd = importlib.import_module("pandas")
        except ImportError:
            return None
    return str(pd.api.types.infer_dtype(arr, skipna=False))


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def factorize_items(*arrays: np.ndarray) -> tuple[list[np.ndarray], Optional[np.ndarray]]:
    """Give every array a shared int64 item code.

    When all arrays are int64 the ids are their own codes (returned unchanged,
    labels None). Otherwise all ids are coded jointly and ``labels[code]`` is
    the original id.
    """
    if all(a.dtype == np.int64 for a in arrays):
        return list(arrays), None
    # one hash pass over all arrays together (pandas or pyarrow when present): no sort
    objs = [a.astype(object) if a.dtype != object else a for a in arrays]
    allv = np.concatenate(objs) if objs else np.zeros(0, dtype=object)
    inv, labels = factorize(allv)
    inv = inv.astype(np.int64, copy=False)
    out, start = [], 0
    for a in arrays:
        out.append(inv[start : start + a.size])
        start += a.size
    return out, labels


def factorize(users: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, labels): dense int64 codes in order of first appearance, by hashing (no sort).

    int64 ids go to the C++ hash table; other ids (strings, mixed) to pandas' hash
    factorizer when pandas is installed, else to a dict.
    """
    if users.dtype == np.int64:
        codes, first_row = _core.factorize_int64(np.ascontiguousarray(users))
        return codes, users[first_row]
    pd: Any = sys.modules.get("pandas")
    pa: Any = sys.modules.get("pyarrow")
    if pd is None and pa is None:
        try:
            pd = importlib.import_module("pandas")
        except ImportError:
            pd = None
    if pd is not None:
        try:
            codes, uniques = pd.factorize(users, sort=False, use_na_sentinel=False)
        except TypeError:  # unhashable ids
            codes = None  # type: ignore[assignment]
        if codes is not None:
            labels = np.empty(len(uniques), dtype=object)
            labels[:] = list(uniques)
            return np.asarray(codes, dtype=np.int64), labels
    elif pa is not None:
        try:
            enc = pa.array(users).dictionary_encode()
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):  # mixed kinds: the dict below
            enc = None
        if enc is not None:
            labels = np.empty(len(enc.dictionary), dtype=object)
            labels[:] = enc.dictionary.to_pylist()
            return enc.indices.to_numpy(zero_copy_only=False).astype(np.int64), labels
    table: dict = {}
    codes = np.fromiter((table.setdefault(x, len(table)) for x in users.tolist()), dtype=np.int64, count=users.size)
    labels = np.empty(len(table), dtype=object)
    labels[:] = list(table.keys())
    return codes, labels


def code_ids(arrays: list[np.ndarray]) -> tuple[list[np.ndarray], int, Optional[np.ndarray]]:
    """Dense codes 0..n-1 shared by every array; labels[code] is the original id (None: ids are codes)."""
    total = sum(a.size for a in arrays)
    if all(a.dtype == np.int64 for a in arrays):
        lo = min((int(a.min()) for a in arrays if a.size), default=0)
        hi = max((int(a.max()) for a in arrays if a.size), default=-1)
        if lo >= 0 and hi < max(_ID_LIMIT, 4 * total):
            return [np.ascontiguousarray(a) for a in arrays], max(hi + 1, 1), None
        # huge or negative ids: hash codes in order of first appearance (no sort)
        allv = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
        inv, first = _core.factorize_int64(allv)
        labels = allv[first]
    else:
        coded, labels = factorize_items(*arrays)  # type: ignore[assignment]
        if labels is None:  # pragma: no cover - all int64 handled above
            return code_ids(coded)
        return [np.ascontiguousarray(c) for c in coded], max(len(labels), 1), labels
    out, start = [], 0
    inv = inv.astype(np.int64, copy=False)
    for a in arrays:
        out.append(inv[start : start + a.size])
        start += a.size
    return out, max(labels.size, 1), labels.astype(object) if labels.dtype != np.int64 else labels


def id_label(labels: Optional[np.ndarray], code: int):
    v = labels[code] if labels is not None and 0 <= code < len(labels) else code
    return v.item() if isinstance(v, np.generic) else v


def id_kind(ids: np.ndarray) -> str:
    """``"int"``, ``"str"`` or ``"mixed"`` (anything else: a mix of ints and strings, tuples...).

    One pass over an object array (pandas' C type inference when pandas is loaded);
    free for int64 arrays.
    """
    kind = ids.dtype.kind
    if kind in "iu":
        return "int"
    if kind in "US":
        return "str"
    pd = sys.modules.get("pandas")
    if pd is not None:
        inferred = pd.api.types.infer_dtype(ids, skipna=False)
        return {"string": "str", "integer": "int"}.get(inferred, "mixed")
    vals = ids.tolist()
    if all(isinstance(x, str) for x in vals):
        return "str"
    if all(isinstance(x, numbers.Integral) for x in vals):
        return "int"
    return "mixed"


def _example(ids: np.ndarray):
    v = ids.reshape(-1)[0]
    return v.item() if isinstance(v, np.generic) else v


def check_id_kinds(a: np.ndarray, b: np.ndarray, sides: tuple[str, str], noun: str, positional=(False, False)) -> None:
    """A ``ValueError`` when one side's ids are all ints and the other's all strings (no id could match).

    Empty sides pass. Only an int64 side against an object side is inspected (two int64
    sides, the usual case, cost nothing). ``positional`` marks sides whose ids are the
    positions 0..n-1 (lists, arrays), for the message.
    """
    if a.size == 0 or b.size == 0 or (a.dtype.kind in "iu") == (b.dtype.kind in "iu"):
        return
    ka, kb = id_kind(a), id_kind(b)
    if {ka, kb} != {"int", "str"}:
        return
    desc = []
    for side, ids, k, pos in zip(sides, (a, b), (ka, kb), positional):
        where = " (a positional form: its users are the positions 0..n-1)" if pos else ""
        desc.append(f"`{side}` has {k} {noun} ids{where}, e.g. {_example(ids)!r}")
    raise ValueError(
        f"`{sides[0]}` and `{sides[1]}` {noun} ids are of different kinds, so none can match: "
        f"{desc[0]}, but {desc[1]}; convert one side (e.g. with int() or str()) so that the ids agree"
    )
