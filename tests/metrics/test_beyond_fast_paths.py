"""Issue 16 item 5: the fast paths of the beyond-accuracy kernels and of Recs.from_scores give
exactly the answers of the general paths and of plain references.

* coverage, gini, personalization, arp and novelty read the lists in place when every id is
  its own code (``topk_pass``); the same data with ids shifted past the code limit takes the
  general path (lists copied, ids coded): every value must be bit-identical, per user too,
  under duplicates, missing users, max_items, cold items, several cutoffs and 1-8 threads;
* FCP counts against a Fenwick tree over top-k positions: short top-k (position scan) and long
  ones (item map), many truth items (sorted, not insertion-sorted), against the pair reference;
* Recs.from_scores: a streaming pass guided by the previous row's bound, with the block-maximum
  selection as the fallback: rows whose scale jumps (the guess fails both ways), many ties,
  -0.0 against 0.0, whole blocks excluded, float32 and float64, 1-8 threads, against a sort.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from rankmeter import _core
from tests.support import reference_beyond as rb
from tests.support.same import same_bits

SHIFT = 1 << 40  # ids this large are never their own codes

IN_PLACE = [
    "coverage@5",
    "coverage",
    "gini@5",
    "gini(over=catalog)@3",
    "personalization@5",
    "arp@5",
    "arp(normalize=max)@3",
    "arp(popularity=interactions, unseen=skip)",
    "novelty@5",
    "novelty(divide_by=k)@4",
    "novelty(unseen=skip, popularity=interactions)",
]


def _data(seed: int, n_users: int = 300, n_items: int = 80):
    rng = np.random.default_rng(seed)
    lens = rng.integers(0, 12, size=n_users)
    lens[:3] = 0  # users with empty lists
    # items past the train codes (cold) and repeated items inside lists
    items = rng.integers(0, n_items + 20, size=int(lens.sum())).astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    t_lens = rng.integers(0, 6, size=n_users)
    t_items = np.concatenate([rng.choice(n_items, size=n, replace=False) for n in t_lens]).astype(np.int64)
    t_indptr = np.concatenate([[0], np.cumsum(t_lens)]).astype(np.int64)
    tr_lens = rng.integers(0, 15, size=n_users + 40)
    tr_items = rng.integers(0, n_items, size=int(tr_lens.sum())).astype(np.int64)  # repeats allowed
    tr_indptr = np.concatenate([[0], np.cumsum(tr_lens)]).astype(np.int64)
    return (t_indptr, t_items), (indptr, items), (tr_indptr, tr_items)


def _evaluate(truth, recs, train, shift, metrics, **kw):
    t_ip, t_it = truth
    r_ip, r_it = recs
    tr_ip, tr_it = train
    users = np.arange(t_ip.size - 1, dtype=np.int64)
    r_users = users.copy()
    if kw.pop("drop_users", False):  # some truth users without recs (a row map)
        keep = users % 7 != 3
        sel = np.flatnonzero(keep)
        lens = np.diff(r_ip)[sel]
        r_it = np.concatenate([r_it[r_ip[u] : r_ip[u + 1]] for u in sel]) if sel.size else r_it[:0]
        r_ip = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        r_users = r_users[sel][::-1].copy()  # another user order too
        r_ip, r_it = _reverse_rows(r_ip, r_it)
    t = rm.Truth.from_csr(t_ip, t_it + shift, users=users)
    r = rm.Recs.from_csr(r_ip, r_it + shift, users=r_users)
    tr = rm.Truth.from_csr(tr_ip, tr_it + shift)
    if "catalog" in kw and kw["catalog"] is not None:
        kw["catalog"] = np.asarray(kw["catalog"], dtype=np.int64) + shift
    return rm.evaluate(t, r, metrics, train=tr, **kw)


def _reverse_rows(indptr, items):
    lens = np.diff(indptr)[::-1]
    rows = [items[indptr[u] : indptr[u + 1]] for u in range(indptr.size - 1)][::-1]
    return np.concatenate([[0], np.cumsum(lens)]).astype(np.int64), (
        np.concatenate(rows) if rows else items[:0]
    ).astype(np.int64)


@pytest.fixture
def spy(monkeypatch):
    """Counts the calls of the in-place kernel and how many of them took it (returned a result)."""
    calls = {"n": 0, "taken": 0}
    real = _core.topk_pass

    def wrapped(*a, **k):
        out = real(*a, **k)
        calls["n"] += 1
        calls["taken"] += out is not None
        return out

    monkeypatch.setattr(_core, "topk_pass", wrapped)
    return calls


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "kw",
    [
        dict(duplicates="first"),
        dict(duplicates="first", drop_users=True),
        dict(duplicates="first", max_items=6, missing="skip", drop_users=True),
        dict(duplicates="first", catalog=list(range(0, 120, 3))),
    ],
)
def test_in_place_path_equals_the_coded_path(seed, kw, spy):
    truth, recs, train = _data(seed)
    ref = _evaluate(truth, recs, train, SHIFT, IN_PLACE, **dict(kw))
    assert spy["taken"] == 0  # huge ids: the general path
    for threads in (1, 2, 3, 8):
        got = _evaluate(truth, recs, train, 0, IN_PLACE, threads=threads, **dict(kw))
        for m in IN_PLACE:
            assert same_bits(got[m], ref[m]), (m, threads, got[m], ref[m])
            if m.split("(")[0].split("@")[0] in ("arp", "novelty"):
                assert same_bits(got.per_user[m], ref.per_user[m]), (m, threads)
        assert got.meta == ref.meta
    assert spy["taken"] == 4


def test_in_place_path_reports_duplicates_like_the_coded_path(spy):
    truth, recs, train = _data(3)
    msgs = []
    for shift in (0, SHIFT):
        with pytest.raises(ValueError, match="more than once") as e:
            _evaluate(truth, recs, train, shift, ["coverage@10", "novelty@10"])
        msgs.append(str(e.value).replace(str(SHIFT), "").replace(str(SHIFT), ""))
    user = [int(s.split("user ")[1].split(";")[0]) for s in msgs]
    assert user[0] == user[1]


def test_in_place_path_falls_back_on_ids_past_the_code_limit(spy):
    """A list id that is not a code (negative, or huge while train ids are small) sends the call
    down the general path with the same answers."""
    truth, recs, train = _data(4)
    r_ip, r_it = recs
    r_it = r_it.copy()
    r_it[r_ip[10]] = -5
    r_it[r_ip[20]] = 1 << 45
    ms = ["coverage@10", "gini@10", "arp@10", "novelty@10"]
    got = _evaluate(truth, (r_ip, r_it), train, 0, ms, duplicates="first")
    assert spy["n"] >= 1 and spy["taken"] == 0
    lists = [list(dict.fromkeys(r_it[r_ip[u] : r_ip[u + 1]].tolist()))[:10] for u in range(r_ip.size - 1)]
    train_lists = {u: train[1][train[0][u] : train[0][u + 1]].tolist() for u in range(train[0].size - 1)}
    assert got["coverage@10"] == pytest.approx(rb.coverage(lists, 10, rb.default_catalog(train_lists, None)), rel=1e-15)
    assert got["gini@10"] == pytest.approx(rb.gini(lists, 10, rb.default_catalog(train_lists, None)), rel=1e-12)


def test_in_place_novelty_and_arp_match_the_reference(spy):
    truth, recs, train = _data(5)
    r_ip, r_it = recs
    lists = [list(dict.fromkeys(r_it[r_ip[u] : r_ip[u + 1]].tolist())) for u in range(r_ip.size - 1)]
    tr_ip, tr_it = train
    train_lists = {u: tr_it[tr_ip[u] : tr_ip[u + 1]].tolist() for u in range(tr_ip.size - 1)}
    res = _evaluate(truth, recs, train, 0, ["novelty@5", "arp@5", "novelty(divide_by=k)@5"], duplicates="first")
    assert spy["taken"] == 1
    cases = (
        ("novelty@5", lambda lst: rb.novelty(lst, 5, train_lists)),
        ("novelty(divide_by=k)@5", lambda lst: rb.novelty(lst, 5, train_lists, divide_by="k")),
        ("arp@5", lambda lst: rb.arp(lst, 5, train_lists)),
    )
    for name, fn in cases:
        ref = np.array([fn(lst) for lst in lists], dtype=np.float64)
        assert np.allclose(res.per_user[name], ref, equal_nan=True, rtol=1e-12, atol=0), name


def test_count_no_relevant_kernel():
    indptr = np.array([0, 0, 2, 3, 5], dtype=np.int64)
    grades = np.array([0.0, -1.0, 2.0, 0.5, 0.0])
    assert _core.count_no_relevant(indptr, grades, None, 2) == (2, 0)
    assert _core.count_no_relevant(indptr, grades, 1.0, 3) == (3, 0)
    assert _core.count_no_relevant(indptr, None, None, 1) == (1, 0)
    with pytest.raises(ValueError):
        _core.count_no_relevant(indptr, grades[:4], None, 1)


# --------------------------------------------------------------------------- FCP
@pytest.mark.parametrize("k", [3, 40, None])
def test_fcp_short_and_long_top_k_and_many_truth_items(k):
    rng = np.random.default_rng(11)
    n_users, n_items = 60, 400
    lists = {u: rng.choice(n_items, size=int(rng.integers(0, 90)), replace=False).tolist() for u in range(n_users)}
    truth = {}
    for u in range(n_users):
        m = int(rng.integers(0, 70))  # past 32 truth items: the general sort
        items = rng.choice(n_items, size=m, replace=False).tolist()
        # half of the truth items from the list, so many have a finite position
        items = list(dict.fromkeys(lists[u][: m // 2] + items))[:m]
        truth[u] = {i: float(rng.integers(0, 4)) for i in items}
    name = "fcp" if k is None else f"fcp@{k}"
    for threads in (1, 2, 3, 8):
        res = rm.evaluate(truth, lists, [name], threads=threads)
        got = dict(zip(res.users.tolist(), res.per_user[name].tolist()))
        for u in truth:
            if not any(g > 0 for g in truth[u].values()):
                assert np.isnan(got[u])
                continue
            c, d = rb.fcp_counts(truth[u], lists[u], k)
            ref = c / (c + d) if c + d else float("nan")
            assert (np.isnan(ref) and np.isnan(got[u])) or got[u] == ref, (u, threads)


# --------------------------------------------------------------------------- from_scores
def _plain_topk(S, k, ex=None):
    out = []
    for u in range(S.shape[0]):
        cols = [c for c in range(S.shape[1]) if ex is None or not ex[u, c]]
        out.append(sorted(cols, key=lambda c: (-float(S[u, c]), c))[:k])
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_from_scores_rows_whose_scale_jumps(dtype):
    """The bound carried from the previous row is too high (next row smaller), too low (next row
    larger), or useless (all equal): every row still gets its exact top k, for any thread count."""
    rng = np.random.default_rng(3)
    n, m = 40, 3000
    S = rng.random((n, m))
    scale = np.where(np.arange(n) % 3 == 0, 1e6, np.where(np.arange(n) % 3 == 1, 1e-6, 1.0))
    S = (S * scale[:, None]).astype(dtype)
    S[5] = 0.25  # all tied
    S[6, ::2] = -0.0  # -0.0 against 0.0: ties on the column
    S[6, 1::2] = 0.0
    S[7] = np.round(S[7] * 4) / 4  # few distinct values
    S[8, 100:] = -1.0  # the best are all in the first blocks
    for k in (1, 7, 64, 150, 2999, 3500):
        ref = _plain_topk(S, k)
        outs = []
        for threads in (1, 2, 3, 8):
            r = rm.Recs.from_scores(S, k, threads=threads)
            got = [r.items[r.indptr[u] : r.indptr[u + 1]].tolist() for u in range(n)]
            assert got == ref, (k, threads)
            outs.append(r.scores.copy())
        assert all(np.array_equal(outs[0], o) for o in outs)
        assert np.array_equal(np.signbit(outs[0]), np.signbit(np.concatenate([S[u, ref[u]] for u in range(n)])))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_from_scores_with_whole_blocks_excluded(dtype):
    rng = np.random.default_rng(9)
    n, m, k = 12, 700, 40
    S = rng.random((n, m)).astype(dtype)
    ex = np.zeros((n, m), dtype=bool)
    ex[:, :128] = True  # the first two blocks of every row
    ex[3] = True  # nothing left
    ex[4, :] = True
    ex[4, [5, 600, 699]] = False  # three left
    ex[5, rng.choice(m, size=600, replace=False)] = True
    indptr = np.concatenate([[0], np.cumsum(ex.sum(1))]).astype(np.int64)
    cols = np.concatenate([np.flatnonzero(ex[u]) for u in range(n)]).astype(np.int64)
    S[:, :64] += 10  # excluded columns hold the best scores
    ref = _plain_topk(S, k, ex)
    for threads in (1, 2, 8):
        r = rm.Recs.from_scores(S, k, exclude=(indptr, cols), threads=threads)
        got = [r.items[r.indptr[u] : r.indptr[u + 1]].tolist() for u in range(n)]
        assert got == ref
