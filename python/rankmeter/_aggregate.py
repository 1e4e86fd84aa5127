"""Exact aggregation and mergeable partial results.

The C++ pass sums each column's per-user values without rounding: every double
is an integer multiple of 2^-1074, and the core returns the exact integer
``S`` such that the sum is ``S * 2^-1074`` (as 32-bit digits, "limbs"). Python's
integers hold it exactly, so partial sums from different threads, batches or
processes merge by integer addition, and the mean is ``(S / 2^1074) / n``: the
exact sum rounded once to the nearest double (CPython's int/int division is
correctly rounded), then divided by the count, which is what
``math.fsum(values) / n`` gives. The means therefore do not depend on the
thread count, the order of users or how users were split.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

__all__ = ["State"]

EXACT_SHIFT = 1074  # sums are integers in units of 2^-1074
_ONE = 1 << EXACT_SHIFT
_MAGIC = b"RMST"
_VERSION = 1
META_KEYS = ("n_users", "n_skipped", "n_missing_recs", "n_ignored_recs")


def limbs_to_int(limbs: np.ndarray) -> int:
    """The exact integer held by one row of 32-bit-digit limbs (signed int64 each)."""
    total = 0
    for i, limb in enumerate(limbs.tolist()):
        if limb:
            total += limb << (32 * i)
    return total


def exact_mean(total: int, count: int) -> float:
    """Correctly rounded ``total * 2^-1074``, divided by ``count``; NaN when count is 0."""
    if count == 0:
        return math.nan
    try:
        s = total / _ONE
    except OverflowError:
        s = math.inf if total > 0 else -math.inf
    return s / count


class State:
    """Mergeable, exact partial result of an evaluation (see :func:`rankmeter.partial`).

    Holds, per metric column, the exact sum of the per-user values and their
    count, plus the user counters of ``Result.meta``. States of disjoint sets of
    users merge exactly (``a.merge(b)``), in any order, and ``finalize()`` gives
    the same means as one :func:`rankmeter.evaluate` call over all the users,
    bit for bit. ``to_bytes()`` / ``State.from_bytes()`` carry a state between
    processes in a compact, versioned binary form.
    """

    __slots__ = ("names", "sums", "counts", "meta")

    def __init__(self, names: Sequence[str], sums: Sequence[int], counts: Sequence[int], meta: Mapping[str, int]):
        if not (len(names) == len(sums) == len(counts)):
            raise ValueError("names, sums and counts must have the same length")
        self.names = tuple(names)
        self.sums = [int(s) for s in sums]
        self.counts = [int(c) for c in counts]
        self.meta = {k: int(meta.get(k, 0)) for k in META_KEYS}

    def merge(self, other: State) -> State:
        """A new state covering the users of both (they must be disjoint sets of users)."""
        if not isinstance(other, State):
            raise TypeError(f"`other` must be a rankmeter.State, got {type(other).__name__}")
        if other.names != self.names:
            raise ValueError(f"cannot merge states of different metrics: {list(self.names)} vs {list(other.names)}")
        return State(
            self.names,
            [a + b for a, b in zip(self.sums, other.sums)],
            [a + b for a, b in zip(self.counts, other.counts)],
            {k: self.meta[k] + other.meta[k] for k in META_KEYS},
        )

    @staticmethod
    def merge_all(states: Iterable[State]) -> State:
        """Merge any number of states (at least one)."""
        it = iter(states)
        try:
            acc = next(it)
        except StopIteration:
            raise ValueError("`states` is empty") from None
        for s in it:
            acc = acc.merge(s)
        return acc

    def finalize(self) -> dict[str, float]:
        """The means: ``{metric name: mean over the users with a value}`` (NaN when none)."""
        return {n: exact_mean(s, c) for n, s, c in zip(self.names, self.sums, self.counts)}

    def to_bytes(self) -> bytes:
        """Versioned little-endian binary form (see :meth:`from_bytes`)."""
        out = [_MAGIC, struct.pack("<HI", _VERSION, len(self.names))]
        for k in META_KEYS:
            out.append(struct.pack("<q", self.meta[k]))
        for name, s, c in zip(self.names, self.sums, self.counts):
            nb = name.encode("utf-8")
            sb = s.to_bytes((s.bit_length() + 8) // 8 or 1, "little", signed=True)
            out.append(struct.pack("<H", len(nb)) + nb + struct.pack("<qI", c, len(sb)) + sb)
        return b"".join(out)

    @classmethod
    def from_bytes(cls, data: bytes) -> State:
        """Rebuild a state written by :meth:`to_bytes`."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"`data` must be bytes, got {type(data).__name__}")
        data = bytes(data)
        try:
            if data[:4] != _MAGIC:
                raise ValueError("`data` is not a rankmeter state (bad magic)")
            version, n = struct.unpack_from("<HI", data, 4)
            if version != _VERSION:
                raise ValueError(
                    f"`data` is a rankmeter state of version {version}; this rankmeter reads version {_VERSION}"
                )
            off = 10
            meta = {}
            for k in META_KEYS:
                (meta[k],) = struct.unpack_from("<q", data, off)
                off += 8
            names, sums, counts = [], [], []
            for _ in range(n):
                (ln,) = struct.unpack_from("<H", data, off)
                off += 2
                names.append(data[off : off + ln].decode("utf-8"))
                off += ln
                c, sl = struct.unpack_from("<qI", data, off)
                off += 12
                if off + sl > len(data):
                    raise ValueError("`data` is truncated")
                sums.append(int.from_bytes(data[off : off + sl], "little", signed=True))
                counts.append(c)
                off += sl
            if off != len(data):
                raise ValueError("`data` has trailing bytes")
        except struct.error:
            raise ValueError("`data` is truncated or corrupt") from None
        except UnicodeDecodeError:
            raise ValueError("`data` is corrupt (a metric name is not UTF-8)") from None
        return cls(names, sums, counts, meta)

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, State)
            and self.names == other.names
            and self.sums == other.sums
            and self.counts == other.counts
            and self.meta == other.meta
        )

    def __repr__(self) -> str:
        means = ", ".join(f"{n}={v:.6g}" for n, v in self.finalize().items())
        return f"State(n_users={self.meta['n_users']}, {means})"
