"""Naive pure-Python reference of torch's order of equal scores (``ties="torch"``, ``"torch_topk"``).

Written from the behaviour of the algorithms torch's CPU kernels call (GNU libstdc++'s ``std::sort``,
``std::nth_element``, ``std::partial_sort`` on (value, index) pairs compared by value; docs/metrics.md 6.3),
step by step with plain lists, never from rankmeter's implementation. tests/conformance/test_torch_ties.py checks
this reference and rankmeter against the real torch.

- ``stl_sort(a, less)``: introsort: while a range holds more than 16 entries, partition it around the median
  of (second, middle, last) moved to its front (an unguarded partition: entries equal to the pivot stop both
  scans and are swapped), recurse on the right part, loop on the left; past 2 floor(log2 n) levels, heap sort;
  then one insertion sort (the first 16 entries guarded, the rest unguarded).
- ``stl_nth_element(a, nth, less)``: the same partition, keeping the part holding ``nth``, until 3 entries or
  fewer remain (insertion sort) or the depth runs out (heap select of nth + 1, then the nth swapped to the front).
- ``stl_partial_sort(a, middle, less)``: a heap of the first ``middle`` entries, every later entry that beats
  its top replaces it, then the heap sorted.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

Less = Callable[[Any, Any], bool]


def greater(x: float, y: float) -> bool:
    """torch's descending comparator: NaN first, then larger values."""
    return (math.isnan(x) and not math.isnan(y)) or x > y


def ascending(x: Any, y: Any) -> bool:
    return x < y


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _swap(a: list, i: int, j: int) -> None:
    a[i], a[j] = a[j], a[i]


def _insertion(a: list, first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        v = a[i]
        if less(v[0], a[first][0]):
            a[first + 1 : i + 1] = a[first:i]
            a[first] = v
        else:
            j = i - 1
            while less(v[0], a[j][0]):
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = v


def _partition(a: list, first: int, last: int, less: Less) -> int:
    x, y, z = first + 1, first + (last - first) // 2, last - 1
    if less(a[x][0], a[y][0]):
        m = y if less(a[y][0], a[z][0]) else (z if less(a[x][0], a[z][0]) else x)
    else:
        m = x if less(a[x][0], a[z][0]) else (z if less(a[y][0], a[z][0]) else y)
    _swap(a, first, m)
    lo, hi = first + 1, last
    while True:
        while less(a[lo][0], a[first][0]):
            lo += 1
        hi -= 1
        while less(a[first][0], a[hi][0]):
            hi -= 1
        if not lo < hi:
            return lo
        _swap(a, lo, hi)
        lo += 1


def _sift(a: list, first: int, hole: int, n: int, v: Any, less: Less) -> None:
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child][0], a[first + child - 1][0]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent][0], v[0]):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = v


def _pop(a: list, first: int, last: int, result: int, less: Less) -> None:
    v = a[result]
    a[result] = a[first]
    _sift(a, first, 0, last - first, v, less)


def _heap_select(a: list, first: int, middle: int, last: int, less: Less) -> None:
    n = middle - first
    if n >= 2:
        for parent in range((n - 2) // 2, -1, -1):
            _sift(a, first, parent, n, a[first + parent], less)
    for i in range(middle, last):
        if less(a[i][0], a[first][0]):
            _pop(a, first, middle, i, less)


def _sort_heap(a: list, first: int, last: int, less: Less) -> None:
    while last - first > 1:
        last -= 1
        _pop(a, first, last, last, less)


def stl_partial_sort(a: list, middle: int, less: Less, first: int = 0, last: Optional[int] = None) -> None:
    last = len(a) if last is None else last
    _heap_select(a, first, middle, last, less)
    _sort_heap(a, first, middle, less)


def stl_sort(a: list, less: Less, first: int = 0, last: Optional[int] = None) -> None:
    """Sort a[first:last] of (key, payload) pairs in place by key, as libstdc++'s std::sort."""
    last = len(a) if last is None else last
    if last - first < 2:
        return

    def loop(lo: int, hi: int, depth: int) -> None:
        while hi - lo > 16:
            if depth == 0:
                stl_partial_sort(a, hi, less, lo, hi)
                return
            depth -= 1
            cut = _partition(a, lo, hi, less)
            loop(cut, hi, depth)
            hi = cut

    loop(first, last, 2 * _log2(last - first))
    _insertion(a, first, last, less)


def stl_nth_element(a: list, nth: int, less: Less) -> None:
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * _log2(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            _swap(a, first, nth)
            return
        depth -= 1
        cut = _partition(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion(a, first, last, less)


def torch_argsort_desc(values: list) -> list:
    """torch.argsort(values, descending=True) on CPU."""
    a = [(float(v), i) for i, v in enumerate(values)]
    stl_sort(a, greater)
    return [i for _, i in a]


def torch_topk(values: list, k: int) -> list:
    """values.topk(k)[1] (sorted=True) on CPU."""
    n = len(values)
    a = [(float(v), i) for i, v in enumerate(values)]
    if k * 64 <= n:
        stl_partial_sort(a, k, greater)
    else:
        stl_nth_element(a, k - 1, greater)
        stl_sort(a, greater, 0, k - 1)
    return [i for _, i in a[:k]]


def torch_sort_rows(keys: list) -> list:
    """torch.sort(keys)[1] of an int64 tensor on CPU: std::sort below 32768 entries, a stable sort from there."""
    if 32768 <= len(keys) <= 2**31 - 1:
        return sorted(range(len(keys)), key=lambda j: keys[j])
    a = [(k, j) for j, k in enumerate(keys)]
    stl_sort(a, ascending)
    return [j for _, j in a]


def float32(x: float) -> float:
    import numpy as np

    with np.errstate(over="ignore"):
        return float(np.float32(x))


def torch_orders(recs: dict, ties: str, k: Optional[int] = None) -> dict:
    """{user: {item: score}} (one tensor: the users' rows one after the other, in dict order; the query index is
    the user id when every id is an int, else the user's position) -> {user: [items as torch ranks them]}:
    ``"torch"`` the argsort order, ``"torch_topk"`` the topk(min(k, n)) order (k None: n) followed by the other
    items in any order. Scores are compared as float32."""
    users = list(recs)
    ints = all(isinstance(u, int) and not isinstance(u, bool) for u in users)
    keys, rows = [], []
    for pos, u in enumerate(users):
        for item, s in recs[u].items():
            keys.append(u if ints else pos)
            rows.append((u, item, float32(s)))
    per_user: dict = {u: [] for u in users}
    for j in torch_sort_rows(keys):
        u, item, s = rows[j]
        per_user[u].append((item, s))
    out = {}
    for u, entries in per_user.items():
        values = [s for _, s in entries]
        if ties == "torch":
            order = torch_argsort_desc(values)
        else:
            kk = len(values) if k is None or k > len(values) else k
            order = torch_topk(values, kk) if values else []
            order += [j for j in range(len(values)) if j not in set(order)]
        out[u] = [entries[j][0] for j in order]
    return out
