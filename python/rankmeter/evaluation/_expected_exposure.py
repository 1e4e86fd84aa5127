"""Expected exposure of stochastic rankings: EE-L, EE-D and EE-R (docs/metrics.md 3.23.10, docs/fairness.md
"Expected exposure of stochastic rankings").

Diaz, Mitra, Ekstrand, Biega and Carterette, "Evaluating Stochastic Rankings with Expected Exposure", CIKM 2020,
as their published evaluator (github.com/diazf/expeval, ``expeval.py``) computes it. A ranking policy is given by
several sampled rankings per user; an item's expected exposure ``eps_i`` is the mean over the user's samples of the
attention of its position; the target ``eps*_i`` gives every relevant item of one grade the mean attention of the
positions that grade occupies in an ideal ranking (more relevant grades first). Per user:

* EE-D = ||eps||^2 (disparity, lower is better), EE-R = eps . eps* (relevance, higher is better),
  EE-L = ||eps - eps*||^2 (loss, lower is better);
* normalised (``normalize=True``, expeval's default output) by expeval's bounds for retrieval runs.

``evaluate``'s ``ee_l``, ``ee_d`` and ``ee_r`` (``ee_column``) read the call's lists as one sample.

Everything is numpy over all entries of all samples at once: no loop over users in Python. Item exposures are
summed from integer counts per (user, item, position, relevant items above), in the sorted order of those keys, so
the values do not depend on the row order, the order of the samples or the order of the users.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .._options import check_k
from ..inputs import code_ids, to_truth
from ._exposure import _entries, _relevant, column_sums, refuse_no_relevant
from ._tables import _columns_kw, _table, _top_items

__all__ = ["expected_exposure", "ExpectedExposureResult"]

EE_METRICS = ("ee_l", "ee_d", "ee_r")
_MODELS = ("gerr", "rbp")


class ExpectedExposureResult:
    """What :func:`expected_exposure` returns: ``values`` (the mean of ee_l, ee_d and ee_r over the evaluated
    users), ``per_user`` (a table: ``user, ee_l, ee_d, ee_r, n_samples``, one row per user with a relevant item,
    in the order of ``truth``) and ``meta`` (the options of the call)."""

    def __init__(self, values: dict, per_user: Any, meta: dict):
        self.values: dict[str, float] = values
        self.per_user = per_user
        self.meta: dict[str, Any] = meta

    def __getitem__(self, name: str) -> float:
        return self.values[name]

    def __repr__(self) -> str:
        return "\n".join(f"{m:<6}{v:>10.4f}" for m, v in self.values.items())


def _check_unit(x: Any, name: str, lo_open: bool, hi_open: bool) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"`{name}` must be a number, got {x!r}")
    v = float(x)
    bad = not math.isfinite(v) or (v <= 0.0 if lo_open else v < 0.0) or (v >= 1.0 if hi_open else v > 1.0)
    if bad:
        span = ("(" if lo_open else "[") + "0, 1" + (")" if hi_open else "]")
        raise ValueError(f"`{name}` must be in {span}, got {x!r}")
    return v


def _runs(runs: Any, sample_col: str, kw: dict) -> list:
    """The samples: a list/tuple of recs forms, a long table with a ``sample_col`` column (one run per distinct
    value, in sorted order), or one recs form (one sample: a deterministic ranking)."""
    if isinstance(runs, list) and not runs:
        raise ValueError("`runs` is an empty list: pass at least one sampled ranking (a recs form) or a list of them")
    if isinstance(runs, list) and not _is_row(runs[0]):
        return list(runs)
    if hasattr(runs, "columns") and hasattr(runs, "groupby") and sample_col in runs.columns:
        return [g.drop(columns=[sample_col]) for _, g in runs.groupby(sample_col, sort=True)]
    return [runs]


def _is_row(x: Any) -> bool:
    """Whether x is one user's list of items (a list of lists is one run, a list of runs is samples)."""
    if isinstance(x, (str, bytes, int, np.integer)):
        return True
    if isinstance(x, (list, tuple)):
        return all(isinstance(v, (str, bytes, int, np.integer)) for v in x)
    return False


def _segment_rank(group: np.ndarray) -> np.ndarray:
    """0-based position of every element within its run of equal ``group`` values (``group`` sorted)."""
    n = group.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    start = np.ones(n, dtype=bool)
    start[1:] = group[1:] != group[:-1]
    idx = np.arange(n, dtype=np.int64)
    first = np.maximum.accumulate(np.where(start, idx, 0))
    return idx - first


def expected_exposure(
    truth: Any,
    runs: Any,
    *,
    model: str = "gerr",
    patience: float = 0.5,
    utility: float = 0.5,
    normalize: bool = True,
    binary: bool = False,
    k: Optional[int] = None,
    sample_col: str = "sample",
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
) -> ExpectedExposureResult:
    """EE-L, EE-D and EE-R of a stochastic ranking policy (docs/fairness.md, "Expected exposure of stochastic
    rankings"; formulas in docs/metrics.md 3.23.10).

    Parameters
    ----------
    truth : any truth form of :func:`rankmeter.evaluate`
        Items with grade > 0 are relevant; grade <= 0 and unjudged items have target exposure 0.
    runs : a list of recs forms (one per sample), a long table with a ``sample`` column, or one recs form
        Each sample is a ranking of every user it lists. One recs form is one sample (a deterministic ranking).
        A user's exposure is averaged over the samples that list the user.
    model : "gerr" (default, expeval's) or "rbp"
        Attention at 0-based position i: rbp ``patience**i``; gerr ``patience**i * (1 - utility)**h``, h the
        relevant items above.
    patience : float in (0, 1), default 0.5;  utility : float in [0, 1], default 0.5 (gerr only)
    normalize : bool, default True
        expeval's normalised output (its bounds, docs/metrics.md 3.23.10); False: the raw values.
    binary : bool, default False
        Every relevant grade counts as 1 (expeval ``-B``).
    k : int or None, default None
        Cutoff of every sampled list (expeval has none).
    """
    if model not in _MODELS:
        raise ValueError(f"`model` must be 'gerr' or 'rbp', got {model!r}")
    p = _check_unit(patience, "patience", True, True)
    u = _check_unit(utility, "utility", False, False)
    if model == "rbp" and utility != 0.5:
        raise ValueError("`utility` is read by model='gerr' only: drop it, or pass model='gerr'")
    if not isinstance(normalize, bool) or not isinstance(binary, bool):
        raise TypeError("`normalize` and `binary` must be True or False")
    k = check_k(k, "`k`")
    kw = _columns_kw(user_col, item_col, relevance_col, rank_col, score_col)
    samples = _runs(runs, sample_col, kw)
    if not samples:
        raise ValueError("`runs` holds no sample: pass at least one ranking")

    t = to_truth(truth, **kw)
    t_users = t.users if t.users is not None else np.arange(t.n_users, dtype=np.int64)
    t_lens = np.diff(t.indptr)
    t_items = np.asarray(t.items)
    g = np.ones(t_items.size) if t.grades is None else np.asarray(t.grades, dtype=np.float64)

    lists = [_top_items(r, k, kw) for r in samples]
    r_users = [np.repeat(us, np.diff(ip)) for ip, _, us in lists]
    r_items = [np.asarray(it) for _, it, _ in lists]
    r_pos = [np.arange(ip[-1], dtype=np.int64) - np.repeat(ip[:-1], np.diff(ip)) for ip, _, _ in lists]
    r_samp = [np.full(ip[-1], s, dtype=np.int64) for s, (ip, _, _) in enumerate(lists)]

    _same_ids(np.asarray(t_users), r_users, "user")
    _same_ids(t_items, r_items, "item")
    (tu, *ru), n_u, u_labels = code_ids(_same_kind([np.repeat(t_users, t_lens), *r_users]))
    (ti, *ri), n_i, i_labels = code_ids(_same_kind([t_items, *r_items]))
    ru_all = np.concatenate(ru) if ru else np.zeros(0, dtype=np.int64)
    ri_all = np.concatenate(ri) if ri else np.zeros(0, dtype=np.int64)
    pos = np.concatenate(r_pos)
    samp = np.concatenate(r_samp)

    # duplicates: an item twice in one truth user, or twice in one sampled list
    tkey = tu * n_i + ti
    if np.unique(tkey).size != tkey.size:
        raise ValueError("`truth` lists an item twice for one user: keep one grade per (user, item)")
    lkey = (samp * n_u + ru_all) * n_i + ri_all
    lk = np.sort(lkey)
    repeated = lk[1:] == lk[:-1]
    if repeated.any():
        bad = int(lk[1:][np.argmax(repeated)])
        s_bad, rest = divmod(bad, n_u * n_i)
        raise ValueError(
            f"`runs`: sample {s_bad} lists an item twice for user {_label(u_labels, rest // n_i)!r}: "
            "a sampled ranking is a permutation; drop the repeats"
        )

    # relevant truth entries and their grades
    rel = g > 0
    g = np.where(binary & rel, 1.0, g)
    # int ids in range are their own codes: sums in code order are then in id order, whatever the input order
    ids_are_codes = u_labels is None and i_labels is None
    ee_l, ee_d, ee_r, n_samples, evaluated = ee_per_user(
        tu, ti, g, rel, ru_all, ri_all, pos, samp, n_u, n_i, model, p, u, normalize, ids_are_codes
    )
    rows = np.flatnonzero(evaluated)
    # per-user rows in the order of truth's users
    _, fi = np.unique(tu, return_index=True)
    t_order = tu[np.sort(fi)]
    keep = t_order[evaluated[t_order]]
    user_out = keep if u_labels is None else u_labels[keep]
    per_user = _table(
        {
            "user": np.asarray(user_out),
            "ee_l": ee_l[keep],
            "ee_d": ee_d[keep],
            "ee_r": ee_r[keep],
            "n_samples": n_samples[keep],
        }
    )
    n = rows.size
    values = {
        "ee_l": float(np.sum(np.sort(ee_l[rows])) / n) if n else float("nan"),
        "ee_d": float(np.sum(np.sort(ee_d[rows])) / n) if n else float("nan"),
        "ee_r": float(np.sum(np.sort(ee_r[rows])) / n) if n else float("nan"),
    }
    meta = dict(
        model=model,
        patience=p,
        utility=u if model == "gerr" else None,
        normalize=normalize,
        binary=binary,
        k=k,
        n_samples=len(samples),
        n_users=int(n),
    )
    return ExpectedExposureResult(values, per_user, meta)


def ee_per_user(
    tu: np.ndarray,
    ti: np.ndarray,
    g: np.ndarray,
    rel: np.ndarray,
    ru_all: np.ndarray,
    ri_all: np.ndarray,
    pos: np.ndarray,
    samp: np.ndarray,
    n_u: int,
    n_i: int,
    model: str,
    p: float,
    u: float,
    normalize: bool,
    ids_are_codes: bool = False,
) -> tuple:
    """(ee_l, ee_d, ee_r, samples, evaluated) per user code 0 .. n_u - 1 from the truth entries (user code, item
    code, grade, relevant) and the sampled entries (user code, item code, 0-based position, sample), the entries of
    one (sample, user) list contiguous and by position. ``ids_are_codes``: the codes do not depend on the order of
    the input (per-user sums may then follow the code order instead of being sorted by value)."""
    rg = g[rel]
    ru_t, ri_t = tu[rel], ti[rel]
    # target exposure: per user, relevant items by grade descending; a grade level of m items starting at
    # position b gets the mean attention of positions b .. b+m-1
    order = np.lexsort((-rg, ru_t))
    su, sg = ru_t[order], rg[order]
    b_pos = _segment_rank(su)
    lvl_start = np.ones(su.size, dtype=bool)
    lvl_start[1:] = (su[1:] != su[:-1]) | (sg[1:] != sg[:-1])
    lvl_id = np.cumsum(lvl_start) - 1
    m = np.bincount(lvl_id)[lvl_id].astype(np.float64)
    b = b_pos[lvl_start][lvl_id].astype(np.float64)
    pp = p * (1.0 - u) if model == "gerr" else p
    target_sorted = (pp**b - pp ** (b + m)) / (m * (1.0 - pp))
    t_key = su * n_i + ri_t[order]
    korder = np.argsort(t_key, kind="stable")
    t_key, t_val, t_user = t_key[korder], target_sorted[korder], su[korder]
    levels = np.bincount(su[lvl_start], minlength=n_u)
    evaluated = np.bincount(su, minlength=n_u) > 0

    # attention of every sampled entry: position i and relevant items above h
    ekey = ru_all * n_i + ri_all
    at = np.searchsorted(t_key, ekey)
    is_rel = (
        (at < t_key.size) & (t_key[np.minimum(at, max(t_key.size - 1, 0))] == ekey)
        if t_key.size
        else (np.zeros(ekey.size, dtype=bool))
    )
    # entries in list order: (sample, user) lists are contiguous and by position
    lid = samp * n_u + ru_all
    c = np.cumsum(is_rel.astype(np.int64)) - is_rel
    start = np.ones(lid.size, dtype=bool)
    start[1:] = lid[1:] != lid[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(lid.size), 0)) if lid.size else lid
    h = c - c[first] if model == "gerr" else np.zeros(lid.size, dtype=np.int64)

    # samples per user: the samples that list the user
    n_samples = np.bincount(ru_all[start], minlength=n_u)  # a (sample, user) list starts once

    # expected exposure per (user, item): every entry's attention added in the sorted order of (key, position, h),
    # an order that does not depend on the order of the entries (equal sort keys have equal attention)
    span_p = int(pos.max()) + 1 if pos.size else 1
    span_h = int(h.max()) + 1 if h.size else 1
    if n_u * n_i * span_p * span_h < 2**62:
        comb = (ekey * span_p + pos) * span_h + h
        comb.sort()
        ek, rem = np.divmod(comb, span_p * span_h)
        hp, hh = np.divmod(rem, span_h)
    else:
        hord = np.lexsort((h, pos, ekey))
        ek, hp, hh = ekey[hord], pos[hord], h[hord]
    w = (p ** np.arange(span_p, dtype=np.float64))[hp]
    if model == "gerr":
        w = w * ((1.0 - u) ** np.arange(span_h, dtype=np.float64))[hh]
    new_key = np.ones(ek.size, dtype=bool)
    new_key[1:] = ek[1:] != ek[:-1]
    ukey = ek[new_key]
    inv = np.cumsum(new_key) - 1
    eps = np.bincount(inv, weights=w, minlength=ukey.size)
    e_user = ukey // n_i
    eps = eps / n_samples[e_user]
    # target of every exposed key, and targets of unexposed relevant keys
    at2 = np.searchsorted(t_key, ukey)
    hit = (
        (at2 < t_key.size) & (t_key[np.minimum(at2, max(t_key.size - 1, 0))] == ukey)
        if t_key.size
        else (np.zeros(ukey.size, dtype=bool))
    )
    tgt = np.where(hit, t_val[np.minimum(at2, max(t_key.size - 1, 0))] if t_key.size else 0.0, 0.0)
    exposed_rel = np.zeros(t_key.size, dtype=bool)
    exposed_rel[at2[hit]] = True
    ee_d = _user_sum(e_user, eps * eps, n_u, ids_are_codes)
    ee_r = _user_sum(e_user, eps * tgt, n_u, ids_are_codes)
    diff = eps - tgt
    ee_l = _user_sum(
        np.concatenate([e_user, t_user[~exposed_rel]]),
        np.concatenate([diff * diff, t_val[~exposed_rel] ** 2]),
        n_u,
        ids_are_codes,
    )
    t_norm = _user_sum(t_user, t_val * t_val, n_u, ids_are_codes)

    listed = n_samples > 0
    # a user with relevant items and no sampled list: expeval's defaults (disparity at its upper bound,
    # relevance at its lower bound 0, loss at ||eps*||^2, the loss of an all-zero exposure)
    d_ub = 1.0 / (1.0 - p * p)
    ee_d = np.where(listed, ee_d, d_ub)
    ee_r = np.where(listed, ee_r, 0.0)
    ee_l = np.where(listed, ee_l, t_norm)
    if normalize:
        pl = p * u if model == "gerr" else p  # expeval's loss bound reads p * utility for gerr
        ee_d = ee_d / d_ub
        r_ub = np.where(levels > 1, t_norm, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ee_r = np.where(r_ub > 0, ee_r / np.where(r_ub > 0, r_ub, 1.0), 1.0)
        ee_l = ee_l / (t_norm + 1.0 / (1.0 - pl))

    return ee_l, ee_d, ee_r, n_samples, evaluated


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _id_kind(a: np.ndarray) -> str:
    if a.dtype.kind in "iu":
        return "int"
    first = a[0]
    return "int" if isinstance(first, (int, np.integer)) and not isinstance(first, bool) else "str"


def _same_ids(truth_ids: np.ndarray, run_ids: list, what: str) -> None:
    """Refuse ids of another kind on the two sides (no id could match), and runs none of whose users is in truth."""
    runs = [np.asarray(a) for a in run_ids if np.asarray(a).size]
    if not truth_ids.size or not runs:
        return
    tk = _id_kind(np.asarray(truth_ids))
    for r in runs:
        if _id_kind(r) != tk:
            raise ValueError(
                f"`runs` has {_id_kind(r)} {what} ids (e.g. {_plain(r[0])!r}) but `truth` has {tk} ones "
                f"(e.g. {_plain(truth_ids[0])!r}): no {what} can match; give both sides the same ids"
            )
    if what == "user":
        both = code_ids(_same_kind([np.unique(truth_ids), np.unique(np.concatenate(_same_kind(runs)))]))
        (a, b), _, _ = both
        if not np.intersect1d(a, b).size:
            raise ValueError(
                f"no `runs` user is a `truth` user (e.g. truth {_plain(truth_ids[0])!r}, runs {_plain(runs[0][0])!r}): "
                "check that "
                "both sides use the same user ids"
            )


def _user_sum(user: np.ndarray, terms: np.ndarray, n_u: int, in_order: bool = False) -> np.ndarray:
    """Per user the sum of its terms, added in ascending order of value (the same bits whatever the item codes,
    which follow the order ids first appear in), or in the given order (``in_order``: codes that are the ids)."""
    if in_order:
        return np.bincount(user, weights=terms, minlength=n_u)
    order = np.lexsort((terms, user))
    return np.bincount(user[order], weights=terms[order], minlength=n_u)


def _same_kind(arrays: list) -> list:
    """Id arrays coded together: all int64, or all object (a mix of int and string ids codes as objects)."""
    arrays = [np.asarray(a) for a in arrays]
    if all(a.dtype == np.int64 for a in arrays):
        return arrays
    if all(a.dtype.kind in "iu" for a in arrays):
        return [a.astype(np.int64) for a in arrays]
    return [a.astype(object) for a in arrays]


def _label(labels: Optional[np.ndarray], code: int) -> Any:
    return code if labels is None else labels[code]


# --------------------------------------------------------------------------- evaluate(): the lists as one sample
EE_COLUMNS = {"ee_l": 0, "ee_d": 1, "ee_r": 2}


def ee_column(prep: Any, m: Any) -> tuple:
    """ee_l / ee_d / ee_r in ``evaluate``: the lists are one sample (a deterministic ranking), relevance is the
    call's rule (grade > 0, or >= min_relevance). A user without a relevant item follows ``empty``; a user without
    a list gets the values of 3.23.10 for a user no sample lists. Returns (per-user values, exact sum, count)."""
    k, o = m.k or 0, m.options
    if o["model"] == "rbp" and o["utility"] != 0.5:
        raise ValueError(f"metric {str(m)!r}: `utility` is read by model=gerr only: drop it, or use model=gerr")
    cache = prep.__dict__.setdefault("_ee_values", {})
    key = (k, o["model"], o["patience"], o["utility"], o["normalize"])
    if key not in cache:
        t = prep.p.truth
        n_u = int(t.n_users)
        user, codes, pos, _, _, _ = _entries(prep, k, False, need_user=True)
        tu = np.repeat(np.arange(n_u, dtype=np.int64), np.diff(t.indptr))
        ti = np.asarray(prep.code["truth"], dtype=np.int64)
        g = np.ones(ti.size) if t.grades is None else np.asarray(t.grades, dtype=np.float64)
        n_i = max(int(prep.n_items), 1)
        lkey = user * n_i + codes
        if np.unique(lkey).size != lkey.size:
            raise ValueError(
                f"metric {str(m)!r}: a list holds an item twice (a ranking is a permutation): "
                "drop the repeats or pass duplicates='first' (docs/metrics.md 6.1)"
            )
        cache[key] = ee_per_user(
            tu,
            ti,
            g,
            _relevant(prep, g),
            user,
            codes,
            pos - 1,
            np.zeros(user.size, dtype=np.int64),
            n_u,
            n_i,
            o["model"],
            float(o["patience"]),
            float(o["utility"]),
            o["normalize"] == "expeval",
        )
    ee_l, ee_d, ee_r, _, evaluated = cache[key]
    vals = np.array((ee_l, ee_d, ee_r)[EE_COLUMNS[m.name]], dtype=np.float64)
    no_rel = ~evaluated
    vals[no_rel] = np.nan
    policy = prep.p.empty
    if policy in ("zero", "one"):
        vals[no_rel] = 0.0 if policy == "zero" else 1.0
    elif policy == "error":
        refuse_no_relevant(prep, m, no_rel)
    return column_sums(prep, vals)
