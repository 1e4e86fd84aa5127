"""The outcome of an evaluation: means, per-user values, users and counts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._aggregate import State
from ..metrics import Metric, parse

__all__ = ["Result"]


class Result:
    """The outcome of :func:`evaluate`.

    ``res[name]`` is the mean of a metric over the evaluated users, for the
    name as passed or its canonical form; ``res.per_user[name]`` the per-user
    values (float64, aligned with ``res.users``, NaN for skipped users);
    ``res.meta`` the user counts; ``res.state`` the mergeable exact state.
    """

    __slots__ = (
        "_values",
        "_key_to_col",
        "_canon_to_col",
        "_names",
        "_means",
        "_has_per_user",
        "users",
        "meta",
        "state",
        "_grouping",
    )

    def __init__(
        self,
        values,
        names: list[str],
        key_to_col: dict,
        canon_to_col: dict,
        state: State,
        users,
        meta: dict,
        means: list,
        per_user: bool = True,
    ):
        self._values = values
        self._has_per_user = per_user
        self._names = names
        self._key_to_col = key_to_col
        self._canon_to_col = canon_to_col
        self.state = state
        self._means = means
        self.users = users
        self.meta = meta
        self._grouping: Any = None  # user_groups=: (GroupedState, each user's group index or None)

    @property
    def per_user(self) -> Mapping:
        """Per-user values by metric name (float64 arrays aligned with ``users``; NaN for skipped users).

        A view made on access: the Result holds no reference to it, so a dropped Result frees
        its per-user columns at once (no reference cycle left for the cyclic collector)."""
        return _PerUser(self)

    def _col(self, key: Any) -> int:
        """A name as passed to evaluate(), else the canonical form of a name or Metric."""
        if isinstance(key, Metric):
            canon = str(key)
        else:
            if key in self._key_to_col:
                return self._key_to_col[key]
            try:
                canon = str(parse(key))
            except (ValueError, TypeError):
                canon = None
        if canon in self._canon_to_col:
            return self._canon_to_col[canon]
        raise KeyError(f"{key!r} was not evaluated; available: {', '.join(self._names)}")

    def __getitem__(self, key: Any) -> float:
        return self._means[self._col(key)]

    def _require_per_user(self, what: str) -> None:
        if not self._has_per_user:
            raise ValueError(
                f"{what} needs per-user values, and this result was computed with per_user=False (means only); "
                "call evaluate(..., per_user=True) (the default) to keep them"
            )

    def __contains__(self, key: Any) -> bool:
        try:
            self._col(key)
        except KeyError:
            return False
        return True

    def keys(self) -> list[str]:
        """Metric names in the order they were asked for."""
        return list(self._names)

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    @property
    def means(self) -> dict[str, float]:
        return {n: self[n] for n in self._names}

    def to_dict(self) -> dict[str, float]:
        return self.means

    def to_pandas(self):
        """One row per evaluated user (index: user id), one column per metric."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("Result.to_pandas() needs pandas: pip install pandas") from None
        self._require_per_user("to_pandas()")
        users = self.users
        return pd.DataFrame(
            {n: self._values[self._col(n)] for n in self._names if self._values[self._col(n)] is not None},
            index=pd.Index(
                users if not isinstance(users, np.ndarray) or users.dtype != object else list(users), name="user"
            ),
        )

    # ---- user_groups= (evaluation/_groups.py, docs/fairness.md)
    def _groups(self) -> Any:
        if self._grouping is None:
            raise ValueError("this result has no groups: call evaluate(..., user_groups=...) to get per-group means")
        return self._grouping

    def exposure(self, metric: Any) -> Any:
        """The per-item (``exposure_gini``) or per-group (``exposure_disparity``) exposures behind a catalog-level
        exposure metric, as a pandas DataFrame (:meth:`rankmeter.State.exposure`; docs/fairness.md)."""
        return self.state.exposure(self.state.names[self._col(metric)])

    @property
    def group_state(self) -> Any:
        """The mergeable exact state of every group (a ``GroupedState``; needs ``user_groups=``)."""
        return self._groups()[0]

    def by_group(self):
        """One row per group (index ``group``): ``n_users``, then each metric's exact mean over the group's users."""
        return self._groups()[0].by_group()

    def group_gaps(self, n_permutations: int = 999, seed: int = 0):
        """Per metric, the gaps between the group means: ``max_minus_min``, ``min_max_ratio``, ``mad`` (the mean
        absolute difference over pairs of groups, Elliot's MAD) and ``p_value``, a permutation test of the
        range (group labels shuffled, ``(c + 1) / (n_permutations + 1)``; ``n_permutations=0``: no test)."""
        from ._groups import check_permutation_args, gap_table, permutation_pvalues

        check_permutation_args(n_permutations, seed)
        gs, codes = self._groups()
        table = gs.by_group()
        if n_permutations == 0:
            return gap_table(table, None)
        self._require_per_user("group_gaps(n_permutations > 0)")
        cols = [self._values[self._col(n)] for n in self._names]
        x = np.column_stack(cols) if cols else np.zeros((len(codes), 0))
        return gap_table(table, permutation_pvalues(x, codes, len(gs.groups), n_permutations, seed))

    def __repr__(self) -> str:
        width = max([len(n) for n in self._names] + [6])
        lines = [f"rankmeter.Result ({self.meta['n_users']} users, {self.meta['n_skipped']} skipped)"]
        for n in self._names:
            lines.append(f"  {n:<{width}}  {self[n]:.6f}")
        return "\n".join(lines)


class _PerUser(Mapping):
    __slots__ = ("_res",)

    def __init__(self, res: Result):
        self._res = res

    def __getitem__(self, key: Any) -> np.ndarray:
        col = self._res._col(key)
        self._res._require_per_user(f"res.per_user[{key!r}]")
        v = self._res._values[col]
        if v is None:
            raise KeyError(f"{key!r} is a catalog-level metric: one value (res[{key!r}]), no per-user values")
        return v

    def __iter__(self):
        return iter(self._res._names)

    def __len__(self) -> int:
        return len(self._res._names)

    def __contains__(self, key: Any) -> bool:
        return key in self._res
