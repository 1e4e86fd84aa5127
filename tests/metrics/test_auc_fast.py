"""The AUC family's fast paths (docs/metrics.md 3.19.10-3.19.12) against the pairwise references of
tests/support/reference_auc.py:

- int64 lists read in place (no copy): repeats under duplicates="first" closed up, "error"/"miss" raising,
  max_items, list ids far outside the truth and catalog codes, recs rows in another order than the truth
  users, padded 2-D recs;
- rankmeter.auc_scores on a dense score matrix (float32 and float64, ties, users without positives or without
  negatives, relevant items that are no column, one_class, max_fpr, empty), identical for 1 and 2 threads."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_auc as ra

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
LIST_METRICS = [
    "auc",
    "auc@3",
    "auc(max_fpr=0.5)",
    "auc(negatives=catalog)",
    "auc(one_class=zero,negatives=catalog)@2",
    "gauc",
    "gauc(negatives=catalog)@4",
    "lauc",
    "lauc(one_class=one)@2",
    "auc(ties=strict)",
    "auc(ties=optimistic,max_fpr=0.5)@3",
    "gauc(ties=strict,negatives=catalog)",
    "lauc(ties=strict)@2",
]
FAR = 10**9  # a list id far beyond the truth and catalog ids


def _close(a, b):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12 * max(1.0, abs(b))


@st.composite
def int_lists(draw):
    """Truth as a dict, recs as CSR over int64 ids (repeats, far ids, scores best first with ties), the recs
    rows in a shuffled order with extra users, a catalog."""
    n_items = draw(st.integers(1, 8))
    items = st.sampled_from([*range(n_items), FAR, FAR + 1])
    n_users = draw(st.integers(1, 5))
    truth, lists = {}, {}
    for u in range(n_users):
        truth[u] = {i: draw(st.sampled_from([0.0, 1.0])) for i in draw(st.lists(items, max_size=4, unique=True))}
        lst = draw(st.lists(items, max_size=9))
        sc = sorted((draw(st.sampled_from([0.0, 0.5, 1.0, 2.0])) for _ in lst), reverse=True)
        lists[u] = (lst, sc)
    extra = draw(st.integers(0, 2))
    for v in range(extra):
        lists[100 + v] = ([0], [1.0])
    order = draw(st.permutations(sorted(lists)))
    catalog = draw(st.lists(st.integers(0, n_items - 1), min_size=1, unique=True))
    max_items = draw(st.sampled_from([None, 2, 5]))
    return truth, lists, order, catalog, max_items


def _recs(lists, order):
    lens = [len(lists[u][0]) for u in order]
    ip = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(lens, out=ip[1:])
    items = np.array([i for u in order for i in lists[u][0]], dtype=np.int64)
    scores = np.array([s for u in order for s in lists[u][1]], dtype=np.float64)
    return rm.Recs.from_csr(ip, items, scores, users=np.array(order, dtype=np.int64))


def _first(lst, sc, max_items):
    """duplicates="first" as docs/metrics.md section 6: max_items cuts the list as given, then each item's first
    occurrence (with its score) is kept."""
    if max_items is not None:
        lst, sc = lst[:max_items], sc[:max_items]
    seen, out_l, out_s = set(), [], []
    for i, s in zip(lst, sc):
        if i not in seen:
            seen.add(i)
            out_l.append(i)
            out_s.append(s)
    return out_l, out_s


def _expected(truth, lists, catalog, metric, max_items):
    m = rm.metrics.parse(metric)
    o, k = m.options, m.k
    neg = "catalog" if m.name == "lauc" else o["negatives"]
    per, terms = [], []
    for u in truth:
        lst, sc = _first(lists[u][0], lists[u][1], max_items)
        if m.name == "gauc":
            a, w = ra.gauc_terms(truth[u], lst, sc, k, neg, catalog, ties=o["ties"])
            per.append(a)
            terms.append((a, w))
        elif m.name == "lauc":
            per.append(ra.lauc(truth[u], lst, k, catalog, (), o["one_class"], ties=o["ties"]))
        else:
            per.append(ra.auc(truth[u], lst, sc, k, neg, catalog, (), o["max_fpr"], o["one_class"], ties=o["ties"]))
    if m.name == "gauc":
        return per, ra.gauc(terms)
    vals = [v for v in per if not math.isnan(v)]
    return per, math.fsum(vals) / len(vals) if vals else math.nan


@SETTINGS
@given(int_lists(), st.sampled_from([1, 2]))
def test_int_lists_read_in_place_match_the_pairwise_reference(case, threads):
    truth, lists, order, catalog, max_items = case
    res = rm.evaluate(
        truth,
        _recs(lists, order),
        LIST_METRICS,
        catalog=catalog,
        duplicates="first",
        max_items=max_items,
        threads=threads,
        ties="input",
    )
    for metric in LIST_METRICS:
        per, mean = _expected(truth, lists, catalog, metric, max_items)
        got = res.per_user[metric].tolist()
        assert all(_close(a, b) for a, b in zip(got, per)), (metric, got, per)
        assert _close(res[metric], mean), (metric, res[metric], mean)


@pytest.mark.parametrize("duplicates", ["error", "miss"])
def test_a_repeat_in_an_int_list_is_an_error_naming_the_user(duplicates):
    truth = {7: {1: 1.0}, 8: {2: 1.0}}
    recs = rm.Recs.from_csr(
        np.array([0, 2, 5]), np.array([1, 3, 2, 4, 2], dtype=np.int64), np.array([3.0, 2.0, 3.0, 2.0, 1.0]), [7, 8]
    )
    with pytest.raises(ValueError, match="item 2 more than once for user 8"):
        rm.evaluate(truth, recs, ["auc"], duplicates=duplicates)


def test_padded_int_recs_give_the_csr_values():
    truth = {0: {1: 1.0, 5: 1.0}, 1: {2: 1.0}, 2: {9: 1.0}}
    padded = np.array([[1, 2, 3, -1], [4, 2, -1, -1], [-1, -1, -1, -1]], dtype=np.int64)
    got = rm.evaluate(truth, rm.Recs.from_array(padded, pad=-1), ["lauc@2", "lauc"], catalog=list(range(10)))
    # user 0, top 2 [1, 2]: 1 beats the 8 negatives; 5 loses to 2 and ties the 7 unlisted: (8 + 3.5) / 16;
    # user 1, [4, 2]: 2 loses to 4, beats the 8 unlisted: 8 / 9; user 2, no list: 9 ties all 9 negatives: 1/2
    assert got.per_user["lauc@2"].tolist() == [11.5 / 16, 8 / 9, 0.5]
    # the whole list: user 0 ranks 3 too (a negative above the unlisted): 1 beats 8, 5 ties 6 -> 11 / 16
    assert got.per_user["lauc"].tolist() == [11 / 16, 8 / 9, 0.5]


# --------------------------------------------------------------------------- dense score matrix
@st.composite
def matrix_case(draw):
    n_users = draw(st.integers(1, 5))
    n_cols = draw(st.integers(1, 7))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    vals = st.sampled_from([-1.0, 0.0, 0.25, 0.5, 3.0])  # few distinct scores: ties
    S = np.array([[draw(vals) for _ in range(n_cols)] for _ in range(n_users)], dtype=dtype)
    truth = {}
    for u in range(n_users):
        ids = draw(st.lists(st.integers(0, n_cols + 1), max_size=n_cols + 2, unique=True))  # n_cols..: no column
        truth[u] = {i: draw(st.sampled_from([0.0, 1.0, 2.0])) for i in ids}
    return S, truth


MATRIX_METRICS = [
    "auc",
    "gauc",
    "auc(max_fpr=0.3)",
    "auc(one_class=zero)",
    "auc(one_class=one,max_fpr=0.6)",
    "auc(ties=strict)",
    "auc(ties=optimistic)",
    "auc(ties=strict,max_fpr=0.3)",
    "auc(ties=optimistic,max_fpr=0.6,one_class=zero)",
    "gauc(ties=strict)",
    "gauc(ties=optimistic)",
]


@SETTINGS
@given(matrix_case(), st.sampled_from(["skip", "zero", "one"]))
def test_auc_scores_on_a_matrix_match_the_pairwise_reference(case, empty):
    S, truth = case
    means, per, users = rm.auc_scores(truth, S, MATRIX_METRICS, empty=empty, per_user=True, threads=1)
    again = rm.auc_scores(truth, S, MATRIX_METRICS, empty=empty, threads=2)
    n_cols = S.shape[1]
    for metric in MATRIX_METRICS:
        m = rm.metrics.parse(metric)
        exp, terms = [], []
        for u in users.tolist():
            row = [float(x) for x in S[u]]
            if m.name == "gauc":
                a, w = ra.gauc_terms(truth[u], list(range(n_cols)), row, None, ties=m.options["ties"])
                exp.append(a)
                terms.append((a, w))
            else:
                o = m.options
                exp.append(ra.auc(truth[u], list(range(n_cols)), row, None, "scored", None, (), o["max_fpr"],
                                  o["one_class"], empty, ties=o["ties"]))  # fmt: skip
        vals = [v for v in exp if not math.isnan(v)]
        mean = ra.gauc(terms) if m.name == "gauc" else (math.fsum(vals) / len(vals) if vals else math.nan)
        assert all(_close(a, b) for a, b in zip(per[metric].tolist(), exp)), (metric, per[metric], exp)
        assert _close(means[metric], mean), (metric, means[metric], mean)
        assert again[metric] == means[metric] or (math.isnan(again[metric]) and math.isnan(means[metric]))


def test_auc_scores_equal_evaluate_on_the_ranked_rows():
    rng = np.random.default_rng(3)
    S = rng.integers(0, 6, (40, 25)).astype(np.float32)
    ip = np.r_[0, np.cumsum(rng.integers(0, 5, 40))]
    truth = rm.Truth.from_csr(ip, rng.integers(0, 30, int(ip[-1])))
    metrics = ["auc", "gauc", "auc(max_fpr=0.2)"]
    got = rm.auc_scores(truth, S, metrics)
    ref = rm.evaluate(truth, rm.Recs.from_scores(S, k=25), metrics, truth_duplicates="first")
    assert got == {m: ref[m] for m in metrics}


def test_auc_scores_maps_users_and_items_by_id():
    S = np.array([[0.1, 0.9, 0.5], [0.7, 0.2, 0.4]])
    truth = {"bob": {"y": 1}, "ann": {"z": 1, "q": 1}}
    per = rm.auc_scores(truth, S, ["auc"], users=["ann", "bob"], items=["x", "y", "z"], per_user=True)[1]["auc"]
    # bob (row 1): y 0.2 below x 0.7 and z 0.4 -> 0; ann (row 0): z 0.5 beats x 0.1, loses to y 0.9 -> 1/2
    assert dict(zip(truth, per.tolist())) == {"bob": 0.0, "ann": 0.5}


def test_auc_scores_rejects_bad_input_before_work():
    S = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(ValueError, match="no cutoff"):
        rm.auc_scores({0: {1: 1}}, S, ["auc@2"])
    with pytest.raises(ValueError, match="'auc' and 'gauc' only"):
        rm.auc_scores({0: {1: 1}}, S, ["ndcg"])
    with pytest.raises(ValueError, match="truth user 5 has no row"):
        rm.auc_scores({5: {1: 1}}, S, ["auc"], users=[0, 1])
    S[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"non-finite score .* user 1 at column 2"):
        rm.auc_scores({0: {1: 1}, 1: {0: 1}}, S, ["auc"])
    with pytest.raises(ValueError, match="must be 2-D"):
        rm.auc_scores({0: {1: 1}}, np.zeros(3), ["auc"])


@st.composite
def long_matrix_case(draw):
    """Rows long enough for the vector body, its chunks and a tail (16..2,200 columns), 0-40 positives (so 1-15
    score levels take the one-search path over one register, 16-31 over two, 32+ the counting path), scores with
    many ties (levels holding several positives) or none (one positive per level)."""
    n_users = draw(st.integers(1, 3))
    n_cols = draw(st.sampled_from([16, 17, 47, 64, 129, 2048, 2063, 2200]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if draw(st.booleans()):
        S = rng.integers(-3, 4, (n_users, n_cols)).astype(dtype)  # ties everywhere
    else:
        S = rng.standard_normal((n_users, n_cols)).astype(dtype)
    truth = {}
    for u in range(n_users):
        n_pos = draw(st.integers(0, 40))
        ids = rng.choice(n_cols + 2, size=min(n_pos, n_cols + 2), replace=False)  # n_cols..: no column
        truth[u] = {int(i): float(draw(st.sampled_from([0.0, 1.0, 2.0]))) for i in ids}
    return S, truth


@settings(max_examples=100, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_matrix_case())
def test_auc_scores_on_long_rows_match_the_reference_on_every_kernel_path(case):
    S, truth = case
    metrics = ["auc", "gauc", "auc(max_fpr=0.4)", "auc(ties=strict)", "auc(ties=optimistic)", "gauc(ties=strict)"]
    got = {}
    for simd in ["", "avx2", "0"]:  # AVX-512 one-search path where the CPU has it, counting paths otherwise
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("RANKMETER_SIMD", simd)
            got[simd] = rm.auc_scores(truth, S, metrics, per_user=True, threads=2)
    means, per, users = got[""]
    for simd in ["avx2", "0"]:
        assert got[simd][0] == means or all(
            (math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(got[simd][0].values(), means.values())
        )
        for metric in metrics:  # the same bits whatever the path
            assert got[simd][1][metric].tobytes() == per[metric].tobytes(), (simd, metric)
    n_cols = S.shape[1]
    for u_pos, u in enumerate(users.tolist()):
        row = [float(x) for x in S[u]]
        for ties in ("half", "strict", "optimistic"):  # a tied pair counts 1/2, 0, 1: the tie term of each path
            exp = ra.auc(truth[u], list(range(n_cols)), row, None, "scored", None, (), 1.0, "skip", "skip", ties=ties)
            got_u = per["auc" if ties == "half" else f"auc(ties={ties})"][u_pos]
            assert _close(got_u, exp), (u, ties, got_u, exp)


def test_a_non_finite_score_deep_in_a_long_row_is_found_on_every_kernel_path(monkeypatch):
    S = np.zeros((2, 2100), dtype=np.float32)
    S[1, 2070] = np.inf  # past the first chunk, in the vector body
    for simd in ["", "avx2", "0"]:
        monkeypatch.setenv("RANKMETER_SIMD", simd)
        with pytest.raises(ValueError, match="2070"):
            rm.auc_scores({0: {1: 1.0}, 1: {3: 1.0}}, S, ["auc"])
