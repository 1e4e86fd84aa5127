"""Item and user ids: checked id arrays and dense codes shared by several arrays.

Ids are ints or strings (any hashable, for users and items alike). Integer ids
become int64 arrays and are used as they are; other ids stay object arrays and
are coded jointly (a hash pass: C++ for int64, pandas' or pyarrow's factorizer
for strings, no sort) when a kernel needs dense codes.

String columns of tables and TREC files are coded once where they are read
(:class:`Coded`: int64 codes into an array of the distinct ids, from Arrow's
hash kernel, a dictionary-encoded column's own codes, pandas' factorizer or the
C++ TREC parser), so no Python string is made per row: only the distinct ids
become Python objects, and checks on the kinds of ids look at those alone.
Truth and recs coded separately share one code space by coding the union of
their (small) label arrays (:func:`factorize_items`).
"""

from __future__ import annotations

import importlib
import numbers
import sys
from typing import Any, Optional, Union

import numpy as np

from .. import _core

__all__ = [
    "Coded",
    "StringTable",
    "code_arrow",
    "code_object_column",
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


class StringTable:
    """Distinct strings kept as UTF-8 bytes (one blob + int64 offsets), decoded only when asked.

    The TREC parser's docnos: a run's ~1M distinct docnos need not become Python
    strings for the metrics; ``table[i]`` decodes one (error messages), ``array()``
    all of them once (cached)."""

    __slots__ = ("blob", "offsets", "_array")

    def __init__(self, blob: bytes, offsets: np.ndarray):
        self.blob, self.offsets = blob, offsets
        self._array: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return int(self.offsets.size - 1)

    @property
    def size(self) -> int:
        return len(self)

    def __getitem__(self, i: Any) -> Any:
        if self._array is not None:
            return self._array[i]
        i = int(i)
        if i < 0:
            i += len(self)
        return self.blob[int(self.offsets[i]) : int(self.offsets[i + 1])].decode("utf-8")

    def array(self) -> np.ndarray:
        if self._array is None:
            self._array = _core.decode_strings(self.blob, self.offsets, None)
        return self._array


class Coded:
    """Ids as dense codes: ``labels[codes]`` are the ids (``labels`` distinct, an object array of str).

    ``in_order``: the labels are str in ascending code point order, so codes compare as
    the ids do. The labels may be held as a :class:`StringTable` (``table``) and decoded
    on first use of ``labels``."""

    __slots__ = ("codes", "_labels", "table", "in_order", "first_seen")

    def __init__(
        self,
        codes: np.ndarray,
        labels: Union[np.ndarray, StringTable],
        in_order: bool = False,
        first_seen: bool = False,
    ):
        self.codes = codes  # int64
        self.table: Optional[StringTable] = labels if isinstance(labels, StringTable) else None
        self._labels: Optional[np.ndarray] = None if isinstance(labels, StringTable) else labels
        self.in_order = in_order
        # codes 0, 1, 2, ... in order of first appearance in `codes` (every label used): a hash
        # kernel's output, so grouping by these codes needs no second factorization
        self.first_seen = first_seen

    @property
    def labels(self) -> np.ndarray:
        if self._labels is None:
            assert self.table is not None
            self._labels = self.table.array()
        return self._labels

    @property
    def n_labels(self) -> int:
        return len(self.table) if self._labels is None and self.table is not None else int(self.labels.size)

    def kind_sample(self) -> np.ndarray:
        """The labels, or one of them when they are a string table (all str: enough to tell the kind)."""
        if self._labels is None and self.table is not None:
            return np.array([self.table[0]] if len(self.table) else [], dtype=object)
        return self.labels

    def with_codes(self, codes: np.ndarray) -> Coded:
        """The same labels with other codes (e.g. a subset or a reordering of the rows)."""
        return Coded(
            codes, self.table if self._labels is None and self.table is not None else self.labels, self.in_order
        )

    def ids(self) -> np.ndarray:
        """The ids themselves (an object array; a gather of pointers, no new string)."""
        return self.labels[self.codes]


def _arrow_string_type(pa: Any, t: Any) -> bool:
    is_view = getattr(pa.types, "is_string_view", None)
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t) or (is_view is not None and is_view(t)))


def code_arrow(col: Any) -> Optional[Coded]:
    """A pyarrow string column (string, large_string, string_view, or dictionary-encoded strings;
    an Array or a ChunkedArray, without nulls) as :class:`Coded`; None for any other type.

    A dictionary-encoded column gives its own codes (its dictionary's repeats and unused
    entries are harmless: the distinct values are re-coded, a pass over the dictionary
    only); other string columns go through Arrow's hash kernel (``dictionary_encode``,
    codes in order of first appearance). Only the distinct strings become Python objects.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    t = col.type
    if pa.types.is_dictionary(t):
        if not _arrow_string_type(pa, t.value_type):
            return None
        enc = col
    elif _arrow_string_type(pa, t):
        if getattr(pa.types, "is_string_view", lambda _: False)(t):
            col = pc.cast(col, pa.large_string())
        enc = pc.dictionary_encode(col)
    else:
        return None
    chunks = enc.chunks if isinstance(enc, pa.ChunkedArray) else [enc]
    if not chunks:
        return Coded(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object))
    if pa.types.is_dictionary(t):
        return _code_dictionary_chunks(pa, pc, chunks)
    # one hash kernel pass: every chunk shares the final dictionary
    dictionary = chunks[0].dictionary
    if len(chunks) == 1:
        codes = chunks[0].indices.to_numpy(zero_copy_only=False).astype(np.int64)
    else:
        codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks]).astype(np.int64)
    labels = dictionary.to_numpy(zero_copy_only=False)
    if labels.dtype != object:
        labels = labels.astype(object)
    return Coded(codes, labels, first_seen=True)  # the hash kernel numbers values as it meets them


def _code_dictionary_chunks(pa: Any, pc: Any, chunks: list) -> Coded:
    """Codes of dictionary-encoded chunks whose dictionaries may differ, repeat values or hold unused ones.

    Chunks read from one parquet row group share its dictionary: the distinct dictionaries
    (by identity of their buffers) are coded together by Arrow's hash kernel (a pass over
    the dictionaries, not the rows), then each chunk's indices are mapped by a gather."""
    key_of = []
    distinct: dict = {}
    for c in chunks:
        d = c.dictionary
        key = (d.offset, len(d), tuple(b.address if b is not None else 0 for b in d.buffers()))
        key_of.append(distinct.setdefault(key, (len(distinct), d))[0])
    dicts = [d for _, d in sorted(distinct.values(), key=lambda x: x[0])]
    value_type = dicts[0].type
    if any(d.type != value_type for d in dicts):
        dicts = [d.cast(pa.large_string()) for d in dicts]
    enc = pc.dictionary_encode(pa.chunked_array(dicts))
    maps = [c.indices.to_numpy(zero_copy_only=False).astype(np.int64) for c in enc.chunks]
    labels = enc.chunks[0].dictionary.to_numpy(zero_copy_only=False) if enc.num_chunks else np.zeros(0)
    if labels.dtype != object:
        labels = labels.astype(object)
    n = sum(len(c) for c in chunks)
    codes = np.empty(n, dtype=np.int64)
    start = 0
    for c, k in zip(chunks, key_of):
        idx = c.indices.to_numpy(zero_copy_only=False)
        np.take(maps[k], idx, out=codes[start : start + idx.size])
        start += idx.size
    return Coded(codes, labels)


def code_object_column(arr: np.ndarray, what: str) -> Union[np.ndarray, Coded]:
    """An object column (e.g. pandas' ``object`` dtype) of ids: coded by pandas' hash factorizer
    when pandas is importable, its distinct values checked as :func:`as_id_array` checks ids;
    an int64 array when every id is an int. Without pandas: :func:`as_id_array` on the whole column."""
    pd: Any = sys.modules.get("pandas")
    if pd is None or _infer_kind(arr) != "string":  # small, or not all str: every id checked
        return as_id_array(arr, what)
    try:
        codes, uniques = pd.factorize(arr, sort=False, use_na_sentinel=False)
    except TypeError:  # unhashable ids: as_id_array names them
        return as_id_array(arr, what)
    labels = np.empty(len(uniques), dtype=object)
    labels[:] = list(uniques)
    checked = as_id_array(labels, what)
    codes = np.asarray(codes, dtype=np.int64)
    if checked.dtype == np.int64:
        return checked[codes]
    return Coded(codes, checked)


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
        if isinstance(values, (list, tuple)):
            # the original objects: numpy's fixed-width strings drop trailing NULs ("a\x00" would become
            # "a"), and a mix of ints and strings became strings
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out if all(isinstance(x, str) for x in values) else _check_object_ids(out, what)
        return arr.astype(object)
    if kind == "O":
        return _check_object_ids(arr, what)
    if kind == "f" and isinstance(values, (list, tuple)) and all(_integer(x) for x in values):
        # numpy made floats of a mix of integer scalars (np.int64 with np.uint64): they are still ints
        out = np.empty(len(values), dtype=object)
        out[:] = [int(x) for x in values]
        return _check_object_ids(out, what)
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


def _integer(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def factorize_items(*arrays: Union[np.ndarray, Coded]) -> tuple[list[np.ndarray], Any]:
    """Give every array a shared int64 item code.

    When all arrays are int64 the ids are their own codes (returned unchanged,
    labels None). Otherwise all ids are coded jointly and ``labels[code]`` is
    the original id. Sides already :class:`Coded` keep their codes: the union of
    the label arrays is coded (a hash pass over the distinct ids only, or a merge
    of two sorted string tables, whose union ``labels`` is then a
    :class:`StringTable`) and each side's codes are mapped to it; other sides are
    coded first.
    """
    plain = [a for a in arrays if isinstance(a, np.ndarray)]
    if len(plain) != len(arrays):
        return _union(list(arrays))
    if all(a.dtype == np.int64 for a in plain):
        return plain, None
    # one hash pass over all arrays together (pandas or pyarrow when present): no sort
    objs = [a.astype(object) if a.dtype != object else a for a in plain]
    allv = np.concatenate(objs) if objs else np.zeros(0, dtype=object)
    inv, labels = factorize(allv)
    inv = inv.astype(np.int64, copy=False)
    out, start = [], 0
    for a in plain:
        out.append(inv[start : start + a.size])
        start += a.size
    return out, labels


def _union(sides: list) -> tuple[list[np.ndarray], Any]:
    """Shared codes for sides of which at least one is :class:`Coded`: (codes per side, labels).

    Sides that are all sorted string tables (TREC files) are merged in C++ (their union
    is sorted too: the labels stay a StringTable, nothing is decoded); otherwise the union
    of the label arrays is coded by a hash pass over the distinct ids."""
    if all(isinstance(a, Coded) and a.in_order and a.table is not None and a._labels is None for a in sides):
        codes = [sides[0].codes]
        table = sides[0].table
        for a in sides[1:]:
            map_a, map_b, blob, offsets = _core.merge_sorted_strings(
                table.blob, table.offsets, a.table.blob, a.table.offsets
            )
            codes = [map_a[c] if c.size else c for c in codes] + [map_b[a.codes] if a.codes.size else a.codes]
            table = StringTable(blob, offsets)
        return codes, table
    coded: list[Coded] = []
    for a in sides:
        if isinstance(a, Coded):
            coded.append(a)
        else:
            c, lab = factorize(np.asarray(a))
            coded.append(Coded(c, lab if lab.dtype == object else lab.astype(object)))
    first = coded[0].labels
    if all(side.labels is first for side in coded) and first.size:
        return [side.codes for side in coded], first
    inv, labels = factorize(np.concatenate([side.labels for side in coded]))
    out, start = [], 0
    for side in coded:
        n = side.labels.size
        out.append(inv[start : start + n][side.codes] if n else np.zeros(side.codes.size, dtype=np.int64))
        start += n
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
        # one C++ pass per array for both bounds, on every core
        bounds = [_core.int_range(np.ascontiguousarray(a), 0) for a in arrays if a.size]
        lo = min((b[0] for b in bounds), default=0)
        hi = max((b[1] for b in bounds), default=-1)
        if lo >= 0 and hi < max(_ID_LIMIT, 4 * total):
            return [np.ascontiguousarray(a) for a in arrays], max(hi + 1, 1), None
        # huge or negative ids: hash codes in order of first appearance (no sort)
        allv = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
        inv, first = _core.factorize_int64(allv)
        labels = allv[first]
    else:
        coded, labels = factorize_items(*arrays)
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
