"""Synthetic workloads, built in memory (no downloads).

:func:`w1` is the standard workload W1 of the performance contract: users with
100 ranked items each from a 100,000-item catalog with Zipf-like popularity
(p proportional to rank^-1.1), truth of Poisson(10)+1 items per user (about half
drawn from the user's own list), grades 1-3. Everything is vectorised; 1M users
take a few seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .inputs import Recs, Truth

__all__ = ["Workload", "w1"]


@dataclass
class Workload:
    """CSR buffers of a synthetic workload (int64 ids, float64 grades)."""

    truth_indptr: np.ndarray
    truth_items: np.ndarray
    truth_grades: np.ndarray
    recs_indptr: np.ndarray
    recs_items: np.ndarray
    n_items: int

    @property
    def n_users(self) -> int:
        return int(self.truth_indptr.size - 1)

    @property
    def truth(self) -> Truth:
        return Truth.from_csr(self.truth_indptr, self.truth_items, self.truth_grades)

    @property
    def recs(self) -> Recs:
        return Recs.from_csr(self.recs_indptr, self.recs_items)

    @property
    def nbytes(self) -> int:
        return sum(
            a.nbytes
            for a in (self.truth_indptr, self.truth_items, self.truth_grades, self.recs_indptr, self.recs_items)
        )

    def head(self, n: int) -> Workload:
        """The first ``n`` users (copies)."""
        n = min(n, self.n_users)
        t_end, r_end = int(self.truth_indptr[n]), int(self.recs_indptr[n])
        return Workload(
            self.truth_indptr[: n + 1].copy(),
            self.truth_items[:t_end].copy(),
            self.truth_grades[:t_end].copy(),
            self.recs_indptr[: n + 1].copy(),
            self.recs_items[:r_end].copy(),
            self.n_items,
        )


def _zipf_ranks(rng: np.random.Generator, shape, n_items: int, a: float = 1.1) -> np.ndarray:
    """Popularity ranks 0..n_items-1 with p(r) ~ (r+1)^-a.

    Inverse-CDF sampling through a table of 2^22 equal-probability bins (one
    gather per draw, no per-draw power or search); ranks rarer than one bin are
    pooled with their neighbours, which is immaterial for a benchmark workload.
    """
    bins = 1 << 22
    pop = np.arange(1, n_items + 1, dtype=np.float64) ** -a
    cdf = np.cumsum(pop / pop.sum())
    table = np.minimum(np.searchsorted(cdf, (np.arange(bins) + 0.5) / bins), n_items - 1).astype(np.int32)
    return table[rng.integers(0, bins, shape, dtype=np.int32)]


def w1(
    n_users: int = 1_000_000, n_items: int = 100_000, list_len: int = 100, mean_truth: float = 10.0, seed: int = 0
) -> Workload:
    """Build the standard benchmark workload W1 (see the module docstring) with ``n_users`` users."""
    if n_users < 0 or n_items < list_len or list_len < 1:
        raise ValueError("need n_users >= 0 and n_items >= list_len >= 1")
    rng = np.random.default_rng(seed)
    ids = rng.permutation(n_items).astype(np.int64)  # popularity rank -> item id

    # Lists: Zipf draws, duplicates within a row replaced by uniform draws until none remain.
    rows = _zipf_ranks(rng, (n_users, list_len), n_items)
    rows.sort(axis=1)
    todo = np.arange(n_users)
    while todo.size:
        # rows with a repeat are found before any row is copied (the first pass sees every row)
        view = rows if todo.size == n_users else rows[todo]
        has = (view[:, 1:] == view[:, :-1]).any(axis=1)
        todo = todo[has]
        if not todo.size:
            break
        sub = rows[todo]
        dup = np.zeros(sub.shape, dtype=bool)
        dup[:, 1:] = sub[:, 1:] == sub[:, :-1]
        sub[dup] = rng.integers(0, n_items, int(dup.sum()), dtype=np.int32)
        sub.sort(axis=1)
        rows[todo] = sub
    # each list: most popular first; gathered in blocks, so no int64 copy of the int32 index is made
    recs_items = np.empty(rows.size, dtype=np.int64)
    flat, block = rows.reshape(-1), 1 << 22
    for s in range(0, flat.size, block):
        np.take(ids, flat[s : s + block], out=recs_items[s : s + block])
    recs_indptr = np.arange(0, (n_users + 1) * list_len, list_len, dtype=np.int64)

    # Truth: Poisson(mean)+1 items, about half from the user's own list.
    m = rng.poisson(mean_truth, n_users) + 1
    a = np.minimum(rng.binomial(m, 0.5), list_len)
    b = m - a
    user_a = np.repeat(np.arange(n_users), a)
    j = np.arange(user_a.size) - np.repeat(np.cumsum(a) - a, a)
    steps = np.array([s for s in range(1, list_len + 1) if np.gcd(s, list_len) == 1])
    start = rng.integers(0, list_len, n_users)
    step = steps[rng.integers(0, steps.size, n_users)]
    pos = (start[user_a] + j * step[user_a]) % list_len
    from_list = rows[user_a, pos].astype(np.int64)
    del rows, flat, j, pos  # temporaries go as soon as they are read: the peak stays near the final buffers
    user_b = np.repeat(np.arange(n_users), b)
    from_cat = _zipf_ranks(rng, user_b.size, n_items).astype(np.int64)
    codes = np.sort(np.concatenate([user_a * n_items + from_list, user_b * n_items + from_cat]))
    del user_a, from_list, user_b, from_cat
    codes = codes[np.concatenate(([True], codes[1:] != codes[:-1]))]  # drop repeats
    truth_indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes // n_items, minlength=n_users), out=truth_indptr[1:])
    truth_items = ids[codes % n_items]
    del codes
    truth_grades = rng.integers(1, 4, truth_items.size).astype(np.float64)
    return Workload(truth_indptr, truth_items, truth_grades, recs_indptr, recs_items, n_items)
