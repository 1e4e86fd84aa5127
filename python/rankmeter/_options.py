"""Option checks shared by every layer: thread counts, cutoffs, named choices.

The lowest layer of the package (it imports nothing of rankmeter): inputs,
evaluation and the uses above them all validate their options here, so an
option means the same thing and fails with the same message everywhere.
"""

from __future__ import annotations

import numbers
import os
from typing import Any, Optional, Sequence

__all__ = ["MAX_THREADS", "MAX_K", "resolve_threads", "check_k", "choice"]

MAX_THREADS = 4096
MAX_K = 2**62  # larger cutoffs behave like no cutoff on any list that fits in memory


def resolve_threads(threads: Optional[int]) -> int:
    """``threads=`` argument, else RANKMETER_NUM_THREADS, else 0 (all cores)."""
    if threads is None:
        env = os.environ.get("RANKMETER_NUM_THREADS", "").strip()
        if not env:
            return 0
        try:
            threads = int(env)
        except ValueError:
            raise ValueError(f"RANKMETER_NUM_THREADS must be a positive integer, got {env!r}") from None
        if threads < 1 or threads > MAX_THREADS:
            raise ValueError(f"RANKMETER_NUM_THREADS must be a positive integer of at most {MAX_THREADS}, got {env!r}")
        return threads
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise TypeError(f"`threads` must be a positive integer or None, got {threads!r}")
    if threads < 1:
        raise ValueError(f"`threads` must be a positive integer or None, got {threads}")
    if threads > MAX_THREADS:
        raise ValueError(f"`threads` must be at most {MAX_THREADS}, got {threads}")
    return int(threads)


def check_k(k: Any, where: str = "`k`") -> Optional[int]:
    """A cutoff: None, or a positive integer (an integral float is accepted) of at most 2**62."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        if isinstance(k, float) and k.is_integer() and k >= 1:
            return int(k)
        raise TypeError(f"{where} must be a positive integer, got {k!r}")
    k = int(k)
    if k < 1:
        raise ValueError(f"{where} must be a positive integer, got {k}")
    if k > MAX_K:
        raise ValueError(f"{where} must be at most 2**62, got {k}")
    return k


def choice(value: Any, allowed: Sequence[str], what: str) -> str:
    """``value`` when it is one of ``allowed``, else a ValueError naming the argument ``what``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"`{what}` must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value
