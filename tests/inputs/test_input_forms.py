"""The same data in every accepted form gives identical results, and
malformed tables raise errors naming the column and the first offending row."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import rankmeter as rm

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
sp = pytest.importorskip("scipy.sparse")

METRICS = [
    "precision@5",
    "recall@5",
    "fbeta@5",
    "ap@10",
    "ar@10",
    "cg@5",
    "dcg@5",
    "ndcg@5",
    "ndcg",
    "hit_rate@3",
    "rr",
    "arhr@10",
    "r_precision",
    "hits@10",
]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(33)
    n_users, n_items, k = 40, 60, 10
    scores = rng.random((n_users, n_items))
    scores[rng.random(scores.shape) < 0.1] = 0.5  # ties, broken by column order
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    truth = {}
    for u in range(n_users):
        items = rng.choice(n_items, int(rng.integers(0, 8)), replace=False)
        truth[u] = {int(i): float(rng.integers(0, 4)) for i in items}
    return truth, order, scores


def _forms(data, tmp_path):
    truth, order, scores = data
    n_users, k = order.shape
    t_rows = [(u, i, g) for u, row in truth.items() for i, g in row.items()]
    r_rows = [(u, int(i), j + 1, float(scores[u, i])) for u in range(n_users) for j, i in enumerate(order[u])]
    tdf = pd.DataFrame(t_rows, columns=["user_id", "item_id", "relevance"]).sample(frac=1.0, random_state=1)
    rdf = pd.DataFrame(r_rows, columns=["user_id", "item_id", "rank", "score"]).sample(frac=1.0, random_state=2)
    t_indptr = np.concatenate([[0], np.cumsum([len(truth[u]) for u in range(n_users)])]).astype(np.int64)
    t_items = np.array([i for u in range(n_users) for i in truth[u]], dtype=np.int64)
    t_grades = np.array([g for u in range(n_users) for g in truth[u].values()])
    csr_truth = (t_indptr, t_items, t_grades)
    dense = np.zeros((n_users, scores.shape[1]))
    mask = np.zeros_like(dense, dtype=bool)
    for u, row in truth.items():
        for i, g in row.items():
            dense[u, i] = g
            mask[u, i] = True
    coo = sp.coo_matrix((t_grades, (np.repeat(np.arange(n_users), np.diff(t_indptr)), t_items)), shape=dense.shape)
    tdf.to_parquet(tmp_path / "truth.parquet")
    rdf.to_parquet(tmp_path / "recs.parquet")
    qrels = tmp_path / "qrels.gz"
    with gzip.open(qrels, "wt") as f:
        for u, i, g in t_rows:
            f.write(f"{u} 0 {i} {int(g)}\n")
    truth_forms = {
        "dict": truth,
        "lists": ([list(truth[u]) for u in range(n_users)], None),
        "csr": csr_truth,
        "pandas": tdf,
        "polars": pl.from_pandas(tdf),
        "pyarrow": pa.Table.from_pandas(tdf, preserve_index=False),
        "parquet": str(tmp_path / "truth.parquet"),
        "scipy": coo.tocsr(),
        "trec": str(qrels),
    }
    recs_forms = {
        "dict": {u: order[u].tolist() for u in range(n_users)},
        "lists": [order[u].tolist() for u in range(n_users)],
        "padded": order.astype(np.int64),
        "csr": (np.arange(0, n_users * k + 1, k, dtype=np.int64), order.ravel().astype(np.int64)),
        "pandas": rdf,
        "pandas_score": rdf.drop(columns=["rank"]),
        "polars": pl.from_pandas(rdf),
        "pyarrow": pa.Table.from_pandas(rdf, preserve_index=False),
        "parquet": str(tmp_path / "recs.parquet"),
        "scores_matrix": rm.Recs.from_scores(scores, k),
        "scored_dict": {u: {int(i): float(scores[u, i]) for i in order[u]} for u in range(n_users)},
    }
    return truth_forms, recs_forms


def _key_by_int_user(res):
    users = [int(u) for u in res.users.tolist()]
    return {m: dict(zip(users, res.per_user[m].tolist())) for m in METRICS}


def test_every_form_gives_identical_results(data, tmp_path):
    truth_forms, recs_forms = _forms(data, tmp_path)
    base = rm.evaluate(truth_forms["dict"], recs_forms["dict"], METRICS)
    expected = _key_by_int_user(base)
    for tname, t in truth_forms.items():
        for rname, r in recs_forms.items():
            if tname == "lists":
                t_arg = rm.Truth.from_lists(t[0], [[data[0][u][i] for i in t[0][u]] for u in range(len(t[0]))])
            else:
                t_arg = t
            if tname == "trec" and rname in (
                "dict",
                "scored_dict",
                "pandas",
                "pandas_score",
                "polars",
                "pyarrow",
                "parquet",
            ):
                continue  # TREC query ids are strings; keyed recs here use int users
            if tname == "trec" and rname in ("lists", "padded", "csr", "scores_matrix"):
                continue  # positional recs against keyed string users: no join
            res = rm.evaluate(t_arg, r, METRICS)
            got = _key_by_int_user(res)
            for m in METRICS:
                users = [u for u in expected[m] if not np.isnan(expected[m][u])]
                assert all(got[m][u] == expected[m][u] for u in users), (tname, rname, m)
                assert res[m] == base[m], (tname, rname, m)


def test_trec_files_match_with_string_users(data, tmp_path):
    truth_forms, _ = _forms(data, tmp_path)
    _, order, _scores = data
    run = tmp_path / "run"
    with open(run, "w") as f:
        for u in range(order.shape[0]):
            for j, i in enumerate(order[u]):
                f.write(f"{u} Q0 {i} {j + 1} {100 - j} r\n")  # strictly decreasing scores keep the order
    a = rm.evaluate(truth_forms["trec"], str(run), METRICS)
    b = rm.evaluate(
        {str(u): {str(i): g for i, g in row.items()} for u, row in data[0].items()},
        {str(u): [str(i) for i in order[u]] for u in range(order.shape[0])},
        METRICS,
    )
    for m in METRICS:
        assert a[m] == b[m], m


@pytest.mark.parametrize("lib", ["pandas", "polars", "pyarrow"])
def test_malformed_tables_name_column_and_row(lib):
    def conv(df):
        return {
            "pandas": lambda: df,
            "polars": lambda: pl.from_pandas(df),
            "pyarrow": lambda: pa.Table.from_pandas(df, preserve_index=False),
        }[lib]()

    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [5, 6, 7], "relevance": [1.0, 2.0, 1.0]})
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [5, 9, 7], "rank": [1, 2, 1]})
    with pytest.raises(ValueError, match=r"no column 'item_id'.*item_col="):
        rm.evaluate(conv(truth.rename(columns={"item_id": "item"})), conv(recs), ["ndcg@3"])
    rm.evaluate(
        conv(truth.rename(columns={"item_id": "item"})),
        conv(recs.rename(columns={"item_id": "item"})),
        ["ndcg@3"],
        item_col="item",
    )
    with pytest.raises(ValueError, match=r"column 'user_id' has a null at row 1"):
        rm.evaluate(conv(truth.astype({"user_id": "float"}).assign(user_id=[1.0, None, 2.0])), conv(recs), ["ndcg@3"])
    with pytest.raises(TypeError, match=r"column 'relevance' must be numeric"):
        rm.evaluate(conv(truth.assign(relevance=["a", "b", "c"])), conv(recs), ["ndcg@3"])
    with pytest.raises(
        ValueError, match=r"column 'item_id': item 5 appears more than once for user 1 \(rows 0 and 1\)"
    ):
        rm.evaluate(conv(truth.assign(item_id=[5, 5, 7])), conv(recs), ["ndcg@3"])
    with pytest.raises(ValueError, match=r"column 'rank'.*user 1.*\(n = 2 rows\); row 1 has rank 3, outside 1..2"):
        rm.evaluate(conv(truth), conv(recs.assign(rank=[1, 3, 1])), ["ndcg@3"])
    with pytest.raises(ValueError, match=r"column 'rank'.*user 1.*row 1 has rank 1, a repeat"):
        rm.evaluate(conv(truth), conv(recs.assign(rank=[1, 1, 1])), ["ndcg@3"])
    with pytest.raises(ValueError, match=r"needs a rank column 'rank' or a score column 'score'"):
        rm.evaluate(conv(truth), conv(recs.drop(columns=["rank"])), ["ndcg@3"])


def test_tables_as_train_context():
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [5, 7]})
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [5, 9, 7], "score": [0.9, 0.1, 0.5]})
    train = pd.DataFrame({"user_id": [3, 4, 4], "item_id": [5, 5, 9]})
    res = rm.evaluate(truth, recs, ["novelty@2", "coverage@2"], train=train)
    assert res["coverage@2"] == 1.0  # catalog {5, 9} fully recommended
    # novelty of user 1: items 5 (2 of 2 train users) and 9 (1 of 2): (0 + 1) / 2; user 2: item 7 unseen -> NaN
    assert res["novelty@2"] == 0.5


@pytest.mark.parametrize("bad", [None, 1.5, True, ["x"]])
def test_large_string_id_columns_are_checked_in_one_pass(bad):
    """Above 1,024 ids the all-str check runs in pandas' C type inference; anything else still
    goes through the element check and is rejected naming the position."""
    items = [f"i{j}" for j in range(5000)]
    res = rm.evaluate({"u": {"i1": 1}}, {"u": items}, ["hits"])
    assert res["hits"] == 1.0
    items[3000] = bad
    with pytest.raises(TypeError, match="position 3000"):
        rm.evaluate({"u": {"i1": 1}}, {"u": items}, ["hits"])


@pytest.mark.parametrize("with_key", [False, True])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_order_by_score_is_the_stable_lexsort(with_key, threads):
    """The C++ per-list score order equals numpy's lexsort (score desc, key desc, input order)."""
    rng = np.random.default_rng(threads)
    lens = rng.integers(0, 40, size=300)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    scores = rng.integers(0, 5, size=int(indptr[-1])).astype(np.float64) / 4  # many ties
    key = rng.integers(0, 6, size=scores.size).astype(np.int64) if with_key else None
    row = np.repeat(np.arange(lens.size), lens)
    expect = np.lexsort((-key, -scores, row)) if key is not None else np.lexsort((-scores, row))
    got = rm._core.order_by_score(indptr, scores, key, threads)
    assert np.array_equal(got, expect)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_from_scores_block_scan_equals_a_plain_sort(dtype):
    """Rows longer than the 64-score blocks of the top-k scan, many ties, exclusions and k
    beyond the row: the same lists as sorting each row by (score desc, column)."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(5)
    for trial in range(25):
        n, m, k = int(rng.integers(1, 30)), int(rng.integers(1, 400)), int(rng.integers(1, 450))
        S = (rng.integers(0, 6, size=(n, m)) / 5).astype(dtype)
        ex = sp.random(n, m, density=0.1, random_state=trial, format="csr")
        r = rm.Recs.from_scores(S, k, exclude=ex)
        dense_ex = ex.toarray() != 0
        for u in range(n):
            allowed = [c for c in range(m) if not dense_ex[u, c]]
            expect = sorted(allowed, key=lambda c: (-S[u, c], c))[:k]
            assert r.items[r.indptr[u] : r.indptr[u + 1]].tolist() == expect, (trial, u)
    bad = rng.random((3, 200)).astype(dtype)
    bad[2, 150] = np.nan
    bad[1, 199] = np.inf
    with pytest.raises(ValueError, match="user 1 has inf for item column 199"):
        rm.Recs.from_scores(bad, 10)


@pytest.mark.parametrize("threads", [1, 3])
def test_from_scores_avx2_and_scalar_block_maxima_agree(monkeypatch, threads):
    """float32 rows scanned with the AVX2 block maxima (the default where the CPU has AVX2)
    and with the scalar loop (RANKMETER_SIMD=0): the same lists and scores, and the same
    error for a non-finite score anywhere in a full 64-score block or in the row's tail."""
    rng = np.random.default_rng(9)
    for _trial in range(20):
        n, m, k = int(rng.integers(1, 25)), int(rng.integers(60, 700)), int(rng.integers(1, 120))
        S = (rng.integers(-3, 4, size=(n, m)) / 3).astype(np.float32)
        S[rng.random((n, m)) < 0.05] = -0.0
        S[rng.random((n, m)) < 0.02] = np.float32(3.4e38)  # the largest floats
        out = {}
        for path in ("1", "0"):
            monkeypatch.setenv("RANKMETER_SIMD", path)
            r = rm.Recs.from_scores(S, k, threads=threads)
            out[path] = (r.indptr.copy(), r.items.copy(), r.scores.copy())
        for a, b in zip(out["1"], out["0"]):
            np.testing.assert_array_equal(a, b)
        for bad_value in (np.nan, np.inf, -np.inf):
            B = S.copy()
            u, c = int(rng.integers(0, n)), int(rng.integers(0, m))
            B[u, c] = bad_value
            msgs = []
            for path in ("1", "0"):
                monkeypatch.setenv("RANKMETER_SIMD", path)
                with pytest.raises(ValueError) as e:
                    rm.Recs.from_scores(B, k, threads=threads)
                msgs.append(str(e.value))
            assert msgs[0] == msgs[1] and f"item column {c}" in msgs[0], msgs
