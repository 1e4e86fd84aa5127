"""Calibration (Steck 2018): the ``item_categories`` argument and the column of ``miscalibration``.

The divergence runs in C++ (``rankmeter/calibration.hpp``); this module reads ``item_categories`` of
:func:`rankmeter.evaluate` (a mapping item -> category or categories, a pandas Series, a two-column table
item/category, a dict of those two columns or an ``(items, categories)`` pair), checks it before any work,
and builds the item -> category CSR over the item code of the lists and the users' train histories.
Conventions: docs/metrics.md, "3.19.20 miscalibration".
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int
from ._context_columns import context_ids, pick_column

__all__ = ["ItemCategories", "read_item_categories", "check_item_categories", "calibration_column", "RANK_WEIGHTS"]

# the kernel's codes (RankWeight in calibration.hpp)
RANK_WEIGHTS = {"none": 0, "reciprocal": 1, "log2": 2}

_ITEM = ("item_id", "item", "doc_id", "docno")
_CATEGORY = ("category", "categories", "genre", "genres", "category_id", "genre_id")
_ARG = "item_categories"


class ItemCategories:
    """``item_categories`` in long form: one row per (item, category), no repeated pair; ``cats`` holds the
    category codes in the categories' sorted order, ``labels`` the categories; ``empty`` the items given with
    an empty list of categories (items without a category, like items not given)."""

    __slots__ = ("items", "cats", "labels", "empty")

    def __init__(self, items: np.ndarray, cats: np.ndarray, labels: np.ndarray, empty: np.ndarray):
        self.items, self.cats, self.labels, self.empty = items, cats, labels, empty


def _is_listlike(v: Any) -> bool:
    return isinstance(v, (list, tuple, set, frozenset, np.ndarray))


def _bad_category(v: Any) -> bool:
    """A category value that is no id: None, NaN, a float, a bool, a dict..."""
    if isinstance(v, (bool, np.bool_)):
        return True
    if isinstance(v, (str, np.str_)):
        return False
    return not isinstance(v, (int, np.integer))


def _pairs_of_mapping(keys: list, values: list) -> tuple[list, list, list]:
    """(items, categories, items with an empty list) of item -> category or item -> categories."""
    items: list = []
    cats: list = []
    empty: list = []
    for key, v in zip(keys, values):
        if _is_listlike(v):
            vs = list(v.tolist() if isinstance(v, np.ndarray) else v)
            if not vs:
                empty.append(key)
                continue
            if isinstance(v, (set, frozenset)):
                vs = sorted(vs, key=repr)
            for c in vs:
                if _bad_category(c):
                    raise TypeError(
                        f"`{_ARG}`: item {key!r} has category {c!r}; categories must be strings or ints "
                        "(an item without a category: leave it out or give it an empty list)"
                    )
                items.append(key)
                cats.append(c)
        else:
            if _bad_category(v):
                raise TypeError(
                    f"`{_ARG}`: item {key!r} has category {v!r}; categories must be strings or ints, or lists of "
                    "them (an item without a category: leave it out or give it an empty list)"
                )
            items.append(key)
            cats.append(v)
    return items, cats, empty


def read_item_categories(
    x: Any, table_kw: dict, arg: str = _ARG, names: tuple = _CATEGORY, what: str = "category"
) -> ItemCategories:
    """The ``item_categories`` argument as checked long-form arrays (before any work). ``item_groups`` (exposure
    fairness, docs/fairness.md) is read by the same code: ``arg`` names it in the messages, ``names`` are its
    accepted group column names."""
    if arg == _ARG:
        return _read_item_categories(x, table_kw, names)
    try:
        return _read_item_categories(x, table_kw, names)
    except (TypeError, ValueError) as e:
        msg = str(e).replace(f"`{_ARG}`", f"`{arg}`").replace("category", what).replace("categories", what + "s")
        raise type(e)(msg) from None


def _read_item_categories(x: Any, table_kw: dict, names: tuple) -> ItemCategories:
    if isinstance(x, ItemCategories):
        return x
    if hasattr(x, "to_pandas") and not hasattr(x, "iloc"):  # pyarrow, polars
        x = x.to_pandas()
    if isinstance(x, dict) and x and set(map(str, x)) <= set(_ITEM + names) | {table_kw.get("item_col")}:
        x = {k: list(v) if _is_listlike(v) else v for k, v in x.items()}
        if not all(isinstance(v, list) for v in x.values()):
            raise TypeError(
                f"`{_ARG}` dict of columns ({', '.join(map(repr, x))}) must hold one list or array per column"
            )
    if hasattr(x, "columns") or (isinstance(x, dict) and x and all(isinstance(v, list) for v in x.values())):
        keys = list(x.columns) if hasattr(x, "columns") else list(x)
        if isinstance(x, dict) and not set(map(str, keys)) <= set(_ITEM + names) | {table_kw.get("item_col")}:
            keys = []  # a mapping item -> list of categories, read below
        if keys:
            i = pick_column(keys, _ITEM, table_kw.get("item_col"), "item", _ARG)
            g = pick_column(keys, names, None, "category", _ARG)
            fast = _columns(np.asarray(x[i]), np.asarray(x[g]))
            if fast is not None:
                return fast
            it, cs = list(np.asarray(x[i], dtype=object)), list(np.asarray(x[g], dtype=object))
            if len(it) != len(cs):
                raise ValueError(f"`{_ARG}`: the item and category columns must have the same length")
            items, cats, empty = _pairs_of_mapping(it, cs)
            return _finish(items, cats, empty)
    if isinstance(x, dict):
        items, cats, empty = _pairs_of_mapping(list(x.keys()), list(x.values()))
    elif hasattr(x, "index") and hasattr(x, "to_numpy") and getattr(x, "ndim", 2) == 1:  # pandas Series
        items, cats, empty = _pairs_of_mapping(list(x.index), list(x.to_numpy(dtype=object)))
    elif isinstance(x, tuple) and len(x) == 2:
        fast = _columns(x[0], x[1])
        if fast is not None:
            return fast
        a, b = list(np.asarray(x[0], dtype=object)), list(np.asarray(x[1], dtype=object))
        if len(a) != len(b):
            raise ValueError(f"`{_ARG}` has {len(a)} items but {len(b)} categories")
        items, cats, empty = _pairs_of_mapping(a, b)
    else:
        raise TypeError(
            f"`{_ARG}` must be a dict item -> category (or list of categories), a pandas Series, a table or dict "
            f"with item and category columns, or an (items, categories) pair; got {type(x).__name__}"
        )
    return _finish(items, cats, empty)


def _columns(a: Any, b: Any) -> Optional[ItemCategories]:
    """Two columns read without a per-row loop when the categories are plain ints or strings (a numpy int or
    fixed-width string dtype: no None, NaN or list can hide there); None otherwise (read row by row)."""
    if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray) or b.ndim != 1:
        return None
    if b.dtype.kind not in "iuU" or a.dtype.kind not in "iuU":
        return None
    if a.size != b.size:
        raise ValueError(f"`{_ARG}` has {a.size} items but {b.size} categories")
    cs = b.astype(np.int64) if b.dtype.kind in "iu" else b.astype(object)
    return _finish_arrays(context_ids(a, "item", _ARG), cs, np.zeros(0, dtype=np.int64))


def _finish(items: list, cats: list, empty: list) -> ItemCategories:
    return _finish_arrays(
        context_ids(_homogeneous(items, "item"), "item", _ARG),
        _homogeneous(cats, "category"),
        context_ids(_homogeneous(empty, "item"), "item", _ARG),
    )


def _finish_arrays(it: np.ndarray, cs: np.ndarray, em: np.ndarray) -> ItemCategories:
    labels, codes = np.unique(cs, return_inverse=True) if cs.size else (cs, np.zeros(0, dtype=np.int64))
    codes = np.asarray(codes, dtype=np.int64).ravel()
    if it.size > 1:
        import pandas as pd

        item_codes = pd.factorize(it)[0].astype(np.int64)
        dup = pd.Index(item_codes * max(labels.size, 1) + codes).duplicated()
        if dup.any():
            r = int(np.argmax(dup))
            raise ValueError(
                f"`{_ARG}` gives item {it[r]!r} category {cs[r]!r} more than once: keep one row per (item, category)"
            )
    return ItemCategories(it, codes, labels, em)


def _homogeneous(values: list, what: str) -> np.ndarray:
    """An int64 array of ints or an object array of strings; a mix is an error."""
    if not values:
        return np.zeros(0, dtype=np.int64)
    ints = [isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values]
    if all(ints):
        return np.asarray([int(v) for v in values], dtype=np.int64)
    strs = [isinstance(v, (str, np.str_)) for v in values]
    if all(strs):
        out = np.empty(len(values), dtype=object)
        out[:] = [str(v) for v in values]
        return out
    bad = [v for v, a, b in zip(values, ints, strs) if not (a or b)]
    if bad:
        raise TypeError(f"`{_ARG}`: {what} ids must be ints or strings, got {bad[0]!r}")
    raise TypeError(f"`{_ARG}`: {what} ids mix ints and strings: use one type")


def check_item_categories(cats: Any, metrics: list) -> None:
    """``item_categories`` is read by miscalibration only: given without it, the call is refused (no keyword is
    silently ignored)."""
    if cats is not None and not any(m.name == "miscalibration" for m in metrics):
        raise ValueError(
            "`item_categories` is read by miscalibration only (alias calibration), and it is not asked for: "
            "ask for it (e.g. 'miscalibration@10'), or drop `item_categories`"
        )


def _tables(prep: Any) -> tuple:
    """The item -> category CSR over the call's item codes and the users' histories (built once per call)."""
    cached = getattr(prep, "_calibration_tables", None)
    if cached is not None:
        return cached
    ic: ItemCategories = prep.ctx.item_categories
    codes = np.asarray(prep.code["categories"], dtype=np.int64)
    n_items = int(prep.n_items)
    key = codes * max(int(ic.labels.size), 1) + ic.cats
    if key.size > 1 and not (key[1:] > key[:-1]).all():  # rows not already by item, then category: sort them
        c_cat = np.ascontiguousarray(ic.cats[np.lexsort((ic.cats, codes))])
    else:
        c_cat = np.ascontiguousarray(ic.cats, dtype=np.int64)
    c_indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=n_items), out=c_indptr[1:])
    h_ip, h_items = prep.history()
    out = (c_indptr, c_cat, int(ic.labels.size), h_ip, h_items)
    prep._calibration_tables = out
    return out


def calibration_column(prep: Any, m: Any) -> tuple:
    """miscalibration: (per-user values, exact sum, count); NaN (left out of the mean) for a user without a
    categorized train item or with an empty top k."""
    c_indptr, c_cat, n_cats, h_ip, h_items = _tables(prep)
    vals = _core.calibration_values(
        np.ascontiguousarray(prep.li, dtype=np.int64),
        np.ascontiguousarray(prep.lt, dtype=np.int64),
        h_ip,
        h_items,
        c_indptr,
        c_cat,
        n_cats,
        int(m.k or 0),
        float(m.options["alpha"]),
        RANK_WEIGHTS[m.options["rank_weight"]],
        prep.threads,
    )
    left_out = getattr(prep.p, "left_out", None)
    if left_out is not None:
        vals[left_out] = np.nan
    limbs, count = _core.exact_sum(vals, prep.threads)
    return vals, limbs_to_int(limbs), int(count)
