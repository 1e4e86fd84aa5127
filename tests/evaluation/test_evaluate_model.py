"""rm.evaluate_model: every value, per user and mean, and every exact rank equal those of evaluate on
Recs.from_scores of the materialised matrix (rm.factor_scores), bit for bit, for any block and thread count
(docs/model.md)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm

LIST_METRICS = ["ndcg@3", "recall@2", "precision@3", "ap@3", "hit_rate@1", "rr@3", "auc@3"]
FULL_METRICS = ["auc", "gauc", "mrr", "auc(one_class=one)"]


def _same(a, b) -> bool:
    return np.array_equal(np.asarray(a, np.float64).view(np.uint64), np.asarray(b, np.float64).view(np.uint64))


def _reference(truth, M, ex, k, metrics_k, metrics_full, **kw):
    """evaluate on the lists of the materialised matrix: the top k, and every eligible item."""
    top = rm.evaluate(truth, rm.Recs.from_scores(M, k, exclude=ex), metrics_k, **kw) if metrics_k else None
    full = rm.evaluate(truth, rm.Recs.from_scores(M, M.shape[1], exclude=ex), metrics_full, **kw)
    return top, full


def _full_ranks(truth: rm.Truth, M, ex) -> np.ndarray:
    """Each truth entry's position in the user's full eligible list of from_scores (0: not listed)."""
    full = rm.Recs.from_scores(M, M.shape[1], exclude=ex)
    out = np.zeros(truth.n_entries, dtype=np.int64)
    users = truth.users if truth.users is not None else np.arange(truth.n_users)
    for u in range(truth.n_users):
        row = int(users[u])
        lst = full.items[full.indptr[row] : full.indptr[row + 1]]
        pos = {int(c): j + 1 for j, c in enumerate(lst)}
        for p in range(truth.indptr[u], truth.indptr[u + 1]):
            out[p] = pos.get(int(truth.items[p]), 0)
    return out


def _with_ties(metric: str, ties) -> str:
    """An auc-family metric with its `ties` option (None: as it is); other metrics as they are."""
    if ties is None or "auc" not in metric:
        return metric
    name, _, opts = metric.partition("(")
    return f"{name}(ties={ties}" + ("," + opts if opts else ")")


@st.composite
def _problem(draw):
    n = draw(st.integers(1, 8))
    m = draw(st.integers(2, 30))
    d = draw(st.integers(1, 5))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if draw(st.booleans()):  # small integers: many tied scores
        U = r.integers(-2, 3, (n, d)).astype(np.float32)
        V = r.integers(-2, 3, (m, d)).astype(np.float32)
    else:
        U = r.standard_normal((n, d)).astype(np.float32)
        V = r.standard_normal((m, d)).astype(np.float32)
    if draw(st.booleans()):
        U[0] = 0  # a zero vector (cosine: every score 0)
    mask = r.random((n, m)) < draw(st.sampled_from([0.0, 0.3]))
    if n > 1 and draw(st.booleans()):
        mask[1] = True  # every item excluded
    ex = sp.csr_matrix(mask.astype(np.float32))
    truth = {}
    for u in range(n):
        if r.random() < 0.2:
            continue  # a user without truth
        size = int(r.integers(0, 6))
        items = r.choice(m + 3, size=min(size, m + 3), replace=False)  # some ids are no item row
        truth[u] = {int(i): float(r.integers(0, 3)) for i in items}  # grade 0: not relevant
    if not truth:
        truth = {0: {0: 1.0}}
    k = draw(st.integers(3, m + 2))
    block = draw(st.one_of(st.integers(1, n + 1), st.tuples(st.integers(1, n + 1), st.integers(1, m + 17))))
    return U, V, ex, truth, k, block, draw(st.sampled_from([1, 2, 3])), draw(st.sampled_from(["dot", "cosine"]))


@given(_problem(), st.sampled_from(["skip", "zero", "one"]), st.sampled_from([None, "half", "strict", "optimistic"]))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_value_and_rank_equals_evaluate_on_the_materialised_matrix(problem, empty, ties):
    U, V, ex, truth, k, block, threads, score = problem
    M = rm.factor_scores(U, V, score=score)
    # auc and gauc of one call with one `ties` rule (a tied positive/negative pair: 1/2, 0 or 1)
    full_metrics = [_with_ties(m, ties) for m in FULL_METRICS]
    res, ranks = rm.evaluate_model(
        truth, U, V, LIST_METRICS + full_metrics, exclude=ex, k=k, score=score, block=block, threads=threads,
        empty=empty, ranks=True,
    )  # fmt: skip
    top, full = _reference(truth, M, ex, k, LIST_METRICS, full_metrics, empty=empty)
    assert isinstance(res, rm.Result)
    assert np.array_equal(res.users, top.users)
    for name in LIST_METRICS:
        assert _same(res[name], top[name]), name
        assert _same(res.per_user[name], top.per_user[name]), name
    for name in full_metrics:
        assert _same(res[name], full[name]), name
        assert _same(res.per_user[name], full.per_user[name]), name
    t = rm.Truth.from_dict(truth)
    assert np.array_equal(ranks, _full_ranks(t, M, ex))


@pytest.mark.parametrize("block", [1, 2, 5, (3, 1), (4, 33), None])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_results_do_not_depend_on_block_or_threads(rng, block, threads):
    U = rng.standard_normal((23, 6)).astype(np.float32)
    V = rng.standard_normal((150, 6)).astype(np.float32)
    ex = sp.random(23, 150, density=0.1, random_state=3, format="csr")
    truth = {u: {int(i): 1.0 for i in rng.choice(150, 7, replace=False)} for u in range(23)}
    metrics = ["ndcg@10", "map@10", "auc", "gauc", "mrr", "coverage@10"]
    base, r0 = rm.evaluate_model(truth, U, V, metrics, exclude=ex, k=20, block=1, threads=1, ranks=True)
    res, r1 = rm.evaluate_model(truth, U, V, metrics, exclude=ex, k=20, block=block, threads=threads, ranks=True)
    assert np.array_equal(r0, r1)
    for m in metrics:
        assert _same(res[m], base[m])


def test_auc_without_exclusions_equals_auc_scores_on_the_matrix(rng):
    U = rng.standard_normal((30, 8)).astype(np.float32)
    V = rng.standard_normal((200, 8)).astype(np.float32)
    truth = {u: {int(i): float(g) for i, g in zip(rng.choice(200, 9, replace=False), rng.integers(1, 4, 9))}
             for u in range(0, 30, 2)}  # fmt: skip
    res = rm.evaluate_model(truth, U, V, ["auc", "gauc"])
    means, per, _ = rm.auc_scores(truth, rm.factor_scores(U, V), ["auc", "gauc"], per_user=True)
    for m in ("auc", "gauc"):
        assert _same(res[m], means[m])
        assert _same(res.per_user[m], per[m])


def test_the_state_merges_and_round_trips(rng):
    U = rng.standard_normal((10, 4)).astype(np.float32)
    V = rng.standard_normal((40, 4)).astype(np.float32)
    truth = {u: [int(i) for i in rng.choice(40, 4, replace=False)] for u in range(10)}
    res = rm.evaluate_model(truth, U, V, ["ndcg@5", "auc", "mrr"])
    back = rm.State.from_bytes(res.state.to_bytes()).finalize()
    for m in ("ndcg@5", "auc", "mrr"):
        assert _same(back[m], res[m])


def test_user_and_item_ids_match_truth_ids(rng):
    U = rng.standard_normal((4, 3)).astype(np.float32)
    V = rng.standard_normal((6, 3)).astype(np.float32)
    users, items = ["a", "b", "c", "d"], [100, 101, 102, 103, 104, 105]
    truth = {"c": [101, 104], "a": [100, 999]}  # 999: no item row
    res, ranks = rm.evaluate_model(truth, U, V, ["hit_rate@2", "mrr"], user_ids=users, item_ids=items, ranks=True)
    M = rm.factor_scores(U, V)
    recs = rm.Recs.from_scores(M, 6, items=items, users=users)
    want = rm.evaluate(truth, recs, ["mrr"])
    assert _same(res["mrr"], want["mrr"])
    assert ranks[-1] == 0 and ranks.min() >= 0


def test_the_default_k_is_the_largest_cutoff(rng):
    U = rng.standard_normal((5, 3)).astype(np.float32)
    V = rng.standard_normal((30, 3)).astype(np.float32)
    truth = {u: [u, u + 1] for u in range(5)}
    res = rm.evaluate_model(truth, U, V, ["precision@4", "recall@7"])
    want = rm.evaluate(truth, rm.Recs.from_scores(rm.factor_scores(U, V), 7), ["precision@4", "recall@7"])
    assert _same(res["recall@7"], want["recall@7"])


@pytest.mark.parametrize(
    "metrics, kw, words",
    [
        (["ndcg"], {}, "needs a cutoff"),
        (["ndcg@20"], {"k": 10}, "raise `k`"),
        (["auc(negatives=catalog)"], {}, "negatives"),
        (["auc(max_fpr=0.5)"], {}, "max_fpr"),
        (["auc(ties=strict)", "gauc"], {}, "one `ties` rule"),
        ([], {}, "empty"),
        (["auc"], {"empty": "never"}, "`empty`"),
        (["auc"], {"ranks": 1}, "`ranks`"),
    ],
)
def test_bad_requests_say_what_to_change(rng, metrics, kw, words):
    U = rng.standard_normal((3, 2)).astype(np.float32)
    with pytest.raises((ValueError, TypeError), match=words.replace("(", r"\(")):
        rm.evaluate_model({0: [1]}, U, U, metrics, **kw)


def test_a_truth_user_without_a_row_is_named(rng):
    U = rng.standard_normal((2, 2)).astype(np.float32)
    with pytest.raises(ValueError, match="truth user 'z' has no row"):
        rm.evaluate_model({"z": [0]}, U, U, ["auc"], user_ids=["a", "b"])


def test_empty_error_names_the_user(rng):
    U = rng.standard_normal((2, 2)).astype(np.float32)
    with pytest.raises(ValueError, match="user 1 has no relevant item"):
        rm.evaluate_model({0: {0: 1.0}, 1: {1: 0.0}}, U, U, ["mrr"], empty="error")


@pytest.mark.parametrize("path", ["0", "avx2", "avx512", None])
@pytest.mark.parametrize("ints", [False, True])
def test_every_kernel_path_gives_the_reference_ranks_and_values(rng, monkeypatch, path, ints):
    """Rows long enough for the vector loops of every path (float16 counts included), with and without ties."""
    if path is not None:
        monkeypatch.setenv("RANKMETER_SIMD", path)
    if ints:
        U = rng.integers(-2, 3, (17, 4)).astype(np.float32)
        V = rng.integers(-2, 3, (1100, 4)).astype(np.float32)
    else:
        U = rng.standard_normal((17, 16)).astype(np.float32)
        V = (rng.standard_normal((1100, 16)) * 1e3).astype(np.float32)
    ex = sp.random(17, 1100, density=0.05, random_state=5, format="csr")
    truth = {u: {int(i): float(g) for i, g in zip(rng.choice(1100, 12, replace=False), rng.integers(0, 3, 12))}
             for u in range(17)}  # fmt: skip
    M = rm.factor_scores(U, V)
    res, ranks = rm.evaluate_model(truth, U, V, ["ndcg@20", "auc", "gauc", "mrr"], exclude=ex, block=(5, 300),
                                   threads=2, ranks=True)  # fmt: skip
    top, full = _reference(truth, M, ex, 20, ["ndcg@20"], ["auc", "gauc", "mrr"])
    assert _same(res.per_user["ndcg@20"], top.per_user["ndcg@20"])
    for m in ("auc", "gauc", "mrr"):
        assert _same(res[m], full[m]) and _same(res.per_user[m], full.per_user[m]), m
    assert np.array_equal(ranks, _full_ranks(rm.Truth.from_dict(truth), M, ex))


@st.composite
def _long_rows(draw):
    """Rows of 32 to 700 items (the 32-wide float16 blocks and their tails), up to 20 truth items per user (more
    than one pass of 8 levels), ties, scores beyond float16's range (65504: every block's float16 infinite), and
    exclusions among the candidates."""
    n = draw(st.integers(1, 6))
    m = draw(st.integers(32, 700))
    d = draw(st.integers(1, 8))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["ints", "normal", "huge", "mixed"]))
    if kind == "ints":
        U = r.integers(-2, 3, (n, d)).astype(np.float32)
        V = r.integers(-2, 3, (m, d)).astype(np.float32)
    else:
        U = r.standard_normal((n, d)).astype(np.float32)
        V = r.standard_normal((m, d)).astype(np.float32)
        if kind == "huge":
            V *= np.float32(1e5)
        elif kind == "mixed":
            V[r.random(m) < 0.3] *= np.float32(1e5)
    ex = sp.csr_matrix((r.random((n, m)) < draw(st.sampled_from([0.0, 0.1, 0.5]))).astype(np.float32))
    truth = {
        u: {int(i): float(r.integers(0, 3)) for i in r.choice(m, size=int(r.integers(1, 21)), replace=False)}
        for u in range(n)
    }
    k = draw(st.integers(1, m))
    block = (draw(st.integers(1, n)), draw(st.integers(1, m + 40)))
    return U, V, ex, truth, k, block, draw(st.sampled_from([1, 2]))


@given(_long_rows())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_long_rows_with_many_levels_ties_and_float16_overflow_give_the_reference(problem):
    U, V, ex, truth, k, block, threads = problem
    M = rm.factor_scores(U, V)
    res, ranks = rm.evaluate_model(truth, U, V, [f"ndcg@{k}", "auc", "gauc"], exclude=ex, k=k, block=block,
                                   threads=threads, ranks=True)  # fmt: skip
    top, full = _reference(truth, M, ex, k, [f"ndcg@{k}"], ["auc", "gauc"])
    assert _same(res.per_user[f"ndcg@{k}"], top.per_user[f"ndcg@{k}"])
    for m in ("auc", "gauc"):
        assert _same(res.per_user[m], full.per_user[m]), m
    assert np.array_equal(ranks, _full_ranks(rm.Truth.from_dict(truth), M, ex))
    lists = rm.Recs.from_factors(U, V, k, exclude=ex, block=block, threads=threads)
    want = rm.Recs.from_scores(M, k, exclude=ex)
    assert np.array_equal(lists.indptr, want.indptr) and np.array_equal(lists.items, want.items)
