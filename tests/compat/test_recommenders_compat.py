"""rankmeter.compat.recommenders: a drop-in for Microsoft Recommenders' python_evaluation.

Hand-made tables with the edges people hit (users on one side only, a user without rows in rating_pred, tied
predictions, repeated rows, string and int ids, k above every list) compared with the live Recommenders in its
venv; the preset path against the module's own join path; the rating functions against scikit-learn; the
argument errors; caller frames left unwritten.
"""

from __future__ import annotations

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from rankmeter.compat import recommenders as E  # noqa: E402
from tests.differential import recommenders_compat as peer  # noqa: E402
from tests.differential.harness import Report, compare_case, require_peer, run_worker  # noqa: E402


def _case(truth, recs, ks=(2,), train=None, features=None):
    """A case of tests/differential/cases.py from truth rows and {user: [(item, score), ...]}."""
    rows = [[u, i, r + 1, s] for u, lst in recs.items() for r, (i, s) in enumerate(lst)]
    case = {"truth": truth, "recs": rows, "k": ks[0], "ks": list(ks), "on": [], "empty_lists": []}
    if train is not None:
        case["train"] = train
    if features is not None:
        case["features"] = features
    return case


TRAIN = [[7, 10], [7, 11], [8, 10], [8, 12], [9, 11], [9, 12], [9, 12], [1, 12]]
FEATS = [[i, [float(i % 3), 1.0, float(i % 2)]] for i in range(10, 22)]
EDGES = {
    # u2 only in rating_true, u3 only in rating_pred; k=20 above every list
    "one_side_users": _case(
        [[1, 10, 1.0], [1, 11, 3.0], [2, 12, 1.0]], {1: [(11, 0.9), (14, 0.5), (10, 0.1)], 3: [(10, 1.0)]}, ks=(1, 20)
    ),
    # equal predictions: Recommenders keeps the row order
    "ties": _case([[1, 11, 1.0], [1, 13, 2.0]], {1: [(10, 0.5), (11, 0.5), (12, 0.5), (13, 0.5)]}, ks=(1, 2, 3)),
    # (1, 11) twice in rating_pred and (1, 10) twice in rating_true: every join row counts
    "duplicates": _case(
        [[1, 10, 1.0], [1, 10, 2.0], [1, 11, 1.0], [2, 10, 1.0]],
        {1: [(11, 0.9), (11, 0.8), (10, 0.7)], 2: [(10, 0.3), (12, 0.2)]},
        ks=(2, 5),
        train=TRAIN,
        features=FEATS,
    ),
    "string_ids": _case(
        [["a", "x", 1.0], ["a", "y", 0.0], ["b", "z", 2.0]],
        {"a": [("y", 0.9), ("x", 0.8)], "b": [("x", 0.4)], "c": [("z", 0.1)]},
        ks=(1, 3),
        train=[["a", "z"], ["b", "y"], ["d", "x"], ["d", "y"]],
    ),
    # string ids whose train rows are all recommended: train_df is empty, so catalog_coverage divides by 0
    # distinct train items (ZeroDivisionError in both) and the other beyond-accuracy functions see no history
    "empty_train_string_ids": _case(
        [["a", "x", 1.0]],
        {"a": [("x", 0.9), ("y", 0.8)], "b": [("x", 0.4)]},
        train=[["a", "x"], ["b", "x"]],
    ),
    # ratings 0 and negative with score_type 'raw'/'exp': gains as Recommenders takes them (0/0 users left out)
    "non_positive_ratings": _case([[1, 10, 0.0], [1, 11, -1.0], [2, 12, 2.0]], {1: [(10, 0.9)], 2: [(12, 0.5)]}),
    # no user in both tables: Recommenders' own behaviour (raises for some functions)
    "no_common_user": _case([[1, 10, 1.0]], {2: [(10, 0.9)]}),
    # an empty rating_true
    "empty_truth": _case([], {1: [(10, 0.9), (11, 0.2)]}, train=TRAIN),
    "coverage_and_diversity": _case(
        [[1, 10, 1.0]],
        {1: [(10, 0.9), (20, 0.5)], 4: [(21, 0.9), (11, 0.8), (12, 0.7)], 5: [(13, 0.1)]},
        train=TRAIN,
        features=FEATS,
    ),
}


@pytest.fixture(scope="module")
def peer_results():
    require_peer(peer.VENV)
    return dict(zip(EDGES, run_worker(peer, list(EDGES.values()))))


@pytest.mark.parametrize("name", list(EDGES))
def test_every_function_equals_the_original_on_edge_tables(name, peer_results):
    rep = Report("recommenders_compat", 0)
    compare_case(peer, 0, EDGES[name], peer_results[name], rep)
    assert not rep.peer_errors, rep.peer_errors
    assert rep.compared > 20
    assert not rep.mismatches, rep.mismatches[:10]


def _random_tables(seed: int, string_ids: bool):
    g = np.random.default_rng(seed)
    n_users, n_items = 40, 30
    ident = (lambda p, x: f"{p}{x}") if string_ids else (lambda p, x: int(x))
    truth, pred = [], []
    for u in range(n_users):
        for i in g.choice(n_items, int(g.integers(1, 6)), replace=False):
            truth.append([ident("u", u), ident("i", i), float(g.integers(1, 5))])
        if g.random() < 0.8:
            for i in g.choice(n_items, int(g.integers(1, 12)), replace=False):
                pred.append([ident("u", u), ident("i", i), float(np.round(g.random() * 4) / 4)])  # ties
    for u in range(n_users, n_users + 5):  # users only in rating_pred
        pred.append([ident("u", u), ident("i", 0), 0.5])
    rt = pd.DataFrame(truth, columns=["userID", "itemID", "rating"])
    rp = pd.DataFrame(pred, columns=["userID", "itemID", "prediction"])
    return rt, rp.sample(frac=1.0, random_state=seed).reset_index(drop=True)


RANKING = ["precision_at_k", "recall_at_k", "map_at_k", "map", "r_precision_at_k", "ndcg_at_k"]


@pytest.mark.parametrize("string_ids", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_the_preset_path_and_the_join_path_give_the_same_ranking_values(seed, string_ids, monkeypatch):
    rt, rp = _random_tables(seed, string_ids)
    kw_list: list[dict] = [{"k": k} for k in (1, 3, 10, 50)]
    kw_list += [{"k": 5, "score_type": "raw"}, {"k": 5, "score_type": "exp"}]
    calls = [(name, kw) for name in RANKING for kw in kw_list if name == "ndcg_at_k" or "score_type" not in kw]
    fast = [getattr(E, name)(rt, rp, **kw) for name, kw in calls]
    monkeypatch.setattr(E, "_fast_ok", lambda *a, **k: False)
    for (name, kw), value in zip(calls, fast):
        assert getattr(E, name)(rt, rp, **kw) == pytest.approx(value, rel=1e-12, abs=1e-15), (name, kw)


def test_top_k_ranking_values_come_from_one_rankmeter_evaluate_call_with_the_recommenders_preset(monkeypatch):
    import rankmeter

    rt, rp = _random_tables(0, True)
    seen = []
    real = rankmeter.evaluate

    def spy(*args, **kwargs):
        seen.append(kwargs.get("preset"))
        return real(*args, **kwargs)

    monkeypatch.setattr(rankmeter, "evaluate", spy)
    for name in RANKING:
        getattr(E, name)(rt, rp, k=5)
    assert seen == ["recommenders"] * len(RANKING)


def test_by_threshold_cuts_each_list_at_threshold_rows_and_precision_still_divides_by_k():
    rt = pd.DataFrame({"userID": [1, 1], "itemID": [10, 11], "rating": [1.0, 1.0]})
    rp = pd.DataFrame({"userID": [1, 1, 1], "itemID": [12, 10, 11], "prediction": [0.9, 0.8, 0.7]})
    # the first 2 predictions hold one hit; divided by k=4
    assert E.precision_at_k(rt, rp, relevancy_method="by_threshold", threshold=2, k=4) == 1 / 4
    # relevancy_method=None ranks every row in row order: both hits count
    assert E.precision_at_k(rt, rp, relevancy_method=None, k=4) == 2 / 4
    with pytest.raises(NotImplementedError):
        E.precision_at_k(rt, rp, relevancy_method="by_rank")


def test_a_user_only_in_rating_pred_is_not_averaged_and_one_only_in_rating_true_scores_zero_in_ndcg():
    rt = pd.DataFrame({"userID": [1, 2], "itemID": [10, 10], "rating": [1.0, 1.0]})
    rp = pd.DataFrame({"userID": [1, 3], "itemID": [10, 10], "prediction": [0.9, 0.9]})
    assert E.precision_at_k(rt, rp, k=1) == 1.0  # user 1 only: users 2 and 3 are on one side
    assert E.ndcg_at_k(rt, rp, k=1) == 0.5  # users 1 (1.0) and 2 (no predictions: 0)


def test_rating_functions_equal_scikit_learn_on_the_joined_pairs():
    metrics = pytest.importorskip("sklearn.metrics")
    g = np.random.default_rng(3)
    n = 300
    rt = pd.DataFrame({"userID": g.integers(0, 30, n), "itemID": g.integers(0, 40, n), "rating": g.integers(1, 6, n)})
    rt = rt.drop_duplicates(["userID", "itemID"])
    rp = rt[["userID", "itemID"]].sample(frac=0.7, random_state=1).assign(prediction=lambda d: g.random(len(d)) * 5)
    y_true, y_pred = E.merge_rating_true_pred(rt, rp)
    assert E.rmse(rt, rp) == pytest.approx(np.sqrt(metrics.mean_squared_error(y_true, y_pred)), rel=1e-12)
    assert E.mae(rt, rp) == pytest.approx(metrics.mean_absolute_error(y_true, y_pred), rel=1e-12)
    assert E.rsquared(rt, rp) == pytest.approx(metrics.r2_score(y_true, y_pred), rel=1e-12)
    assert E.exp_var(rt, rp) == pytest.approx(metrics.explained_variance_score(y_true, y_pred), rel=1e-12)
    rt01 = rt.assign(rating=(rt["rating"] > 3).astype(float))
    rp01 = rp.assign(prediction=np.round(rp["prediction"] / 5, 1))  # ties
    t01, p01 = E.merge_rating_true_pred(rt01, rp01)
    assert E.auc(rt01, rp01) == pytest.approx(metrics.roc_auc_score(t01, p01), rel=1e-12)
    assert E.logloss(rt01, rp01) == pytest.approx(metrics.log_loss(t01, p01), rel=1e-12)


def test_a_column_named_in_both_tables_is_read_from_its_own_side_in_the_rating_join():
    rt = pd.DataFrame({"userID": [1, 2], "itemID": [1, 2], "rating": [4.0, 2.0], "prediction": [0.0, 0.0]})
    rp = pd.DataFrame({"userID": [1, 2], "itemID": [1, 2], "rating": [9.0, 9.0], "prediction": [3.0, 2.0]})
    assert E.mae(rt, rp) == 0.5


def test_missing_columns_and_mismatched_id_types_raise_recommenders_exceptions():
    rt = pd.DataFrame({"userID": [1], "itemID": [1], "rating": [1.0]})
    rp = pd.DataFrame({"userID": [1], "itemID": [1], "prediction": [1.0]})
    with pytest.raises(E.ColumnMismatchError):
        E.precision_at_k(rt, rp, col_prediction="score")
    with pytest.raises(E.ColumnTypeMismatchError):
        E.recall_at_k(rt.astype({"userID": str}), rp)
    with pytest.raises(ValueError, match="score_type"):
        E.ndcg_at_k(rt, rp, score_type="linear")
    with pytest.raises(Exception, match="already shown in train_df"):
        E.novelty(rt[["userID", "itemID"]], rp)


def test_caller_frames_are_not_written():
    rt, rp = _random_tables(1, False)
    train = pd.DataFrame({"userID": [100, 100, 101], "itemID": [1, 2, 2]})
    before = (rt.copy(), rp.copy(), train.copy())
    E.get_top_k_items(rp, col_rating="prediction", k=None)
    for name in RANKING:
        getattr(E, name)(rt, rp, k=3)
    E.user_item_serendipity(train, rp[["userID", "itemID"]])
    E.user_diversity(train, rp)
    for df, old in zip((rt, rp, train), before):
        pd.testing.assert_frame_equal(df, old)


def test_user_diversity_returns_recommenders_columns_sorted_by_user():
    train = pd.DataFrame({"userID": ["x", "x", "y"], "itemID": [1, 2, 1]})
    reco = pd.DataFrame({"userID": ["b", "b", "a", "a"], "itemID": [3, 4, 2, 3]})
    out = E.user_diversity(train, reco)
    assert list(out.columns) == ["userID", "user_diversity"]
    assert out["userID"].tolist() == ["a", "b"]
    # a: items 2 and 3 never together in train (similarity 0); b: items 3 and 4 not in train (0)
    assert out["user_diversity"].tolist() == [1.0, 1.0]
    reco2 = pd.DataFrame({"userID": ["a", "a"], "itemID": [2, 1]}).assign(userID=["z", "z"])
    # items 1 and 2: together for one of the two train users of item 1: cosine 1 / sqrt(2 * 1)
    assert E.user_diversity(train, reco2)["user_diversity"].tolist() == pytest.approx([1 - 1 / np.sqrt(2)])


@pytest.mark.parametrize("overlap", [False, True])
def test_beyond_metrics_on_arrow_strings_answer_alike_with_the_items_coded_on_another_thread(overlap, monkeypatch):
    # 120,000 rows of Arrow string ids: the item codes are made on a worker thread while the users are coded
    pytest.importorskip("pyarrow")
    g = np.random.default_rng(5)
    n = 12_000
    reco = pd.DataFrame(
        {
            "userID": pd.array([f"u{u}" for u in np.repeat(np.arange(n), 5)], dtype="string[pyarrow]"),
            "itemID": pd.array([f"i{i}" for i in g.integers(0, 3000, 5 * n)], dtype="string[pyarrow]"),
        }
    )
    train = pd.DataFrame(
        {
            "userID": pd.array([f"u{u}" for u in np.repeat(np.arange(n), 5)], dtype="string[pyarrow]"),
            "itemID": pd.array([f"i{i}" for i in g.integers(3000, 6000, 5 * n)], dtype="string[pyarrow]"),
        }
    )
    if overlap:  # one (user, item) of reco_df also in train_df: the original's exception
        train.loc[17, "itemID"] = reco.loc[reco["userID"] == train.loc[17, "userID"], "itemID"].iloc[0]
    assert E._codes_later(train["itemID"], reco["itemID"]) is not None

    def answers() -> list:
        out: list = []
        for f in (E.catalog_coverage, E.distributional_coverage, E.novelty):
            try:
                out.append(f(train, reco))
            except Exception as e:  # the original raises a bare Exception
                out.append(str(e))
        return out

    threaded = answers()
    monkeypatch.setenv("RANKMETER_NUM_THREADS", "1")
    assert E._codes_later(train["itemID"], reco["itemID"]) is None
    assert answers() == threaded
    if overlap:
        assert all("user_item pairs" in str(x) for x in threaded)
    else:
        assert all(isinstance(x, float) for x in threaded)
