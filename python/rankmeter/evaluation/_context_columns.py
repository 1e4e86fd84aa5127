"""The id and column checks shared by the context tables of evaluate() (``subtopics=``, ``costs=``): each names
the argument it checks in its errors."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np


def context_ids(a: Any, what: str, arg: str) -> np.ndarray:
    """A 1-D id column of the context table ``arg``: int64 for ints, object for strings."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"`{arg}`: the {what} column must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind in "USO":
        return arr.astype(object)
    raise TypeError(f"`{arg}`: {what} ids must be ints or strings, got dtype {arr.dtype}")


def pick_column(columns: Any, names: tuple, given: Optional[str], what: str, arg: str) -> str:
    """The ``what`` column of the context table ``arg``: ``given`` when present, else the first of ``names``."""
    if given is not None and given in columns:
        return given
    for n in names:
        if n in columns:
            return n
    wanted = ((given,) if given else ()) + names
    raise ValueError(
        f"`{arg}` has no {what} column: name it one of {', '.join(repr(n) for n in wanted)} "
        f"(got columns {', '.join(repr(str(c)) for c in columns)})"
    )
