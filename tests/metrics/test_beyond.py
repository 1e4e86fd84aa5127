"""Beyond-accuracy and pairwise metrics against the naive quadratic references
(tests/support/reference_beyond.py), on hypothesis-generated data, plus thread-count
determinism, context errors and the FCP worked example."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter import _core
from tests.support import reference_beyond as rb
from tests.support.same import close

BEYOND_METRICS = [
    "fcp",
    "fcp(average=users)",
    "fcp@3",
    "diversity@3",
    "diversity(similarity=matrix)@3",
    "diversity(similarity=cooccurrence)@3",
    "novelty@3",
    "novelty(unseen=zero,divide_by=k)@3",
    "novelty(unseen=one_user)",
    "novelty(popularity=interactions,unseen=zero,divide_by=k)@4",
    "novelty(popularity=interaction_share,unseen=zero,average=items)",
    "novelty(popularity=interaction_share,average=items)@3",
    "novelty(popularity=interaction_share,unseen=one_user)@2",
    "serendipity@3",
    "serendipity(relevance=all)@4",
    "serendipity(relevance=none)@3",
    "serendipity(similarity=cooccurrence)@3",
    "serendipity(relevance=none,similarity=cooccurrence)",
    "personalization@3",
    "personalization(similarity=cosine)@3",
    "personalization",
    "coverage@3",
    "coverage",
    "coverage(outside=count)@3",
    "coverage(outside=count)",
    "diversity(one_item=zero)@3",
    "diversity(similarity=matrix,one_item=zero)@1",
    "diversity(similarity=cooccurrence,one_item=zero)",
    "arp@3",
    "arp(popularity=interactions,unseen=zero)@3",
    "arp(normalize=max)@2",
    "arp(normalize=total)",
    "gini@3",
    "gini(over=recommended)@3",
    "gini(divisor=n)@3",
    "score_entropy@3",
    "score_entropy",
    # the AUC family (docs/metrics.md 3.19.10-3.19.12)
    "auc",
    "auc@3",
    "auc(negatives=catalog)",
    "auc(negatives=catalog,seen=keep)@2",
    "auc(max_fpr=0.5)",
    "auc(max_fpr=0.3,negatives=catalog)@4",
    "auc(one_class=zero)@2",
    "auc(one_class=one,negatives=catalog,max_fpr=0.7)",
    "gauc",
    "gauc@3",
    "gauc(negatives=catalog)",
    "gauc(negatives=catalog,seen=keep)@4",
    "lauc@3",
    "lauc",
    "lauc(seen=keep,one_class=zero)@2",
]
SETTINGS = settings(
    max_examples=120,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


ITEMS = list(range(12))


@st.composite
def workload(draw, string_ids=False):
    conv = (lambda i: f"i{i}") if string_ids else (lambda i: i)
    n_users = draw(st.integers(0, 6))
    users = list(range(n_users))
    truth, lists, scores = {}, {}, {}
    for u in users:
        items = draw(st.lists(st.sampled_from(ITEMS), max_size=6, unique=True))
        truth[u] = {conv(i): draw(st.sampled_from([0.0, 1.0, 2.0, 3.0, -1.0])) for i in items}
        if draw(st.integers(0, 5)):
            lst = draw(st.lists(st.sampled_from(ITEMS), max_size=7, unique=True))
            lists[u] = [conv(i) for i in lst]
            scores[u] = [draw(st.floats(-5, 5, allow_nan=False)) for _ in lst]
    train = {}
    for u in draw(st.lists(st.integers(0, 8), max_size=7, unique=True)):
        train[u] = [conv(i) for i in draw(st.lists(st.sampled_from(ITEMS), max_size=6))]
    feats = {}
    listed = {i for lst in lists.values() for i in lst}
    for i in ITEMS:
        if conv(i) not in listed and draw(st.integers(0, 3)) == 0:
            continue  # an item only in train histories may lack a feature row (left out of H)
        v = draw(st.sampled_from(["rand", "rand", "rand", "zero"]))
        feats[conv(i)] = [0.0, 0.0, 0.0] if v == "zero" else [draw(st.floats(-3, 3, allow_nan=False)) for _ in range(3)]
    sim = {}
    for a in ITEMS:
        for b in ITEMS:
            if a < b:
                x = draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, -0.5]))
                sim[(conv(a), conv(b))] = sim[(conv(b), conv(a))] = x
    return truth, lists, scores, train, feats, sim, conv


def _call(truth, lists, scores, train, feats, sim, conv, metrics, recs_users=None, **kw):
    users = list(truth)
    r_users = [u for u in (users if recs_users is None else recs_users) if u in lists]
    indptr = np.concatenate([[0], np.cumsum([len(lists[u]) for u in r_users])]).astype(np.int64)
    items = [i for u in r_users for i in lists[u]]
    items_arr = (
        np.array(items, dtype=object) if items and isinstance(items[0], str) else np.array(items, dtype=np.int64)
    )
    recs = rm.Recs.from_csr(
        indptr,
        items_arr,
        np.array([s for u in r_users for s in scores[u]], dtype=np.float64),
        users=np.array(r_users, dtype=np.int64),
    )
    ids = [conv(i) for i in ITEMS]
    S = np.array([[sim.get((a, b), 1.0 if a == b else 0.0) for b in ids] for a in ids])
    return rm.evaluate(
        truth,
        recs,
        metrics,
        train=train,
        item_features={i: feats[i] for i in ids if i in feats},
        item_similarity=(np.array(ids, dtype=object) if isinstance(ids[0], str) else np.array(ids), S),
        **kw,
    )


def _reference(truth, lists, scores, train, feats, sim, metric, empty="skip"):
    m = rm.metrics.parse(metric)
    k, o = m.k, m.options
    users = list(truth)
    L = {u: lists.get(u, []) for u in users}
    no_rel = {u: not any(g > 0 for g in truth[u].values()) for u in users}
    # a user without a relevant truth item (fcp, serendipity): left out, 0 or 1 by `empty`
    empty_value = {"skip": rb.NAN, "zero": 0.0, "one": 1.0}[empty]
    if m.name == "fcp":
        per, cs, ts = [], 0, 0
        for u in users:
            if no_rel[u]:
                per.append(empty_value)
                continue
            c, d = rb.fcp_counts(truth[u], L[u], k)
            per.append(c / (c + d) if c + d else rb.NAN)
            cs, ts = cs + c, ts + c + d
        return per, (cs / ts if ts else rb.NAN) if o["average"] == "pairs" else rb.mean(per)
    if m.name == "diversity":
        if o["similarity"] == "features":
            per = [rb.diversity_features(L[u], k, feats, o["one_item"]) for u in users]
        elif o["similarity"] == "matrix":
            per = [rb.diversity_matrix(L[u], k, sim, o["one_item"]) for u in users]
        else:
            per = [rb.diversity_cooccurrence(L[u], k, train, o["one_item"]) for u in users]
        return per, rb.mean(per)
    if m.name == "novelty":
        per = [rb.novelty(L[u], k, train, o["unseen"], o["divide_by"], o["popularity"]) for u in users]
        if o["average"] == "items":
            return per, rb.novelty_pooled([L[u] for u in users], k, train, o["unseen"], o["popularity"])
        return per, rb.mean(per)
    if m.name == "arp":
        per = [rb.arp(L[u], k, train, o["popularity"], o["unseen"], o["normalize"]) for u in users]
        return per, rb.mean(per)
    if m.name == "serendipity":
        per = [
            empty_value
            if no_rel[u] and o["relevance"] != "none"  # relevance="none" reads no truth
            else rb.serendipity(
                truth[u], L[u], k, train.get(u, []), feats, o["relevance"], similarity=o["similarity"], train=train
            )
            for u in users
        ]
        return per, rb.mean(per)
    if m.name in ("auc", "gauc", "lauc"):
        cat = rb.default_catalog(train, None)
        neg = "catalog" if m.name == "lauc" else o["negatives"]
        seen = {u: (train.get(u, []) if neg == "catalog" and o["seen"] == "exclude" else []) for u in users}
        sc = {u: None if m.name == "lauc" else scores.get(u, []) for u in users}
        if m.name == "gauc":
            terms = [rb.gauc_terms(truth[u], L[u], sc[u], k, neg, cat, seen[u]) for u in users]
            return [a for a, _ in terms], rb.gauc(terms)
        per = [
            rb.auc(truth[u], L[u], sc[u], k, neg, cat, seen[u], o.get("max_fpr", 1.0), o["one_class"], empty)
            for u in users
        ]
        return per, rb.mean(per)
    lists_all = [L[u] for u in users]
    cat = rb.default_catalog(train, None)
    if m.name == "personalization":
        return None, rb.personalization(lists_all, k, o["similarity"])
    if m.name == "coverage":
        return None, rb.coverage(lists_all, k, cat, o["outside"])
    if m.name == "gini":
        return None, rb.gini(lists_all, k, cat, o["over"], o["divisor"])
    if m.name == "score_entropy":
        return None, rb.score_entropy([scores.get(u, []) for u in users], k)
    raise AssertionError(metric)


def _check(data, metrics, empty="skip", drop_truth=()):
    """rankmeter against the references; the users of ``drop_truth`` lose their truth (recs users absent from
    the truth), evaluated with recs_only="empty" as users with an empty truth after the truth users."""
    truth, lists, scores, train, feats, sim, conv = data
    kept = {u: g for u, g in truth.items() if u not in drop_truth}
    kw = {"recs_only": "empty", "recs_users": list(truth)} if drop_truth else {}
    res = _call(kept, lists, scores, train, feats, sim, conv, metrics, empty=empty, **kw)
    truth = {**kept, **{u: {} for u in truth if u in drop_truth}}
    for metric in metrics:
        per, mean = _reference(truth, lists, scores, train, feats, sim, metric, empty=empty)
        assert close(res[metric], mean), (metric, res[metric], mean)
        if per is not None:
            got = res.per_user[metric].tolist()
            assert len(got) == len(per)
            assert all(close(a, b) for a, b in zip(got, per)), (metric, got, per)


@SETTINGS
@given(workload())
def test_beyond_metrics_match_reference_int_ids(data):
    _check(data, BEYOND_METRICS)


@SETTINGS
@given(workload(string_ids=True))
def test_beyond_metrics_match_reference_string_ids(data):
    _check(data, BEYOND_METRICS)


COOC_METRICS = [m for m in BEYOND_METRICS if "cooccurrence" in m]


@contextlib.contextmanager
def _cooc_mode(mode):
    """The co-occurrence kernels' way to n_ab: -1 by cost, 0 merging user lists, 1 dense counts."""
    before = _core.set_cooc_dense(mode)
    try:
        yield
    finally:
        _core.set_cooc_dense(before)


@SETTINGS
@given(workload(), st.sampled_from([0, 1]))
def test_cooccurrence_metrics_match_reference_by_merges_and_by_dense_counts(data, mode):
    # small inputs choose the merges by cost; both ways are forced here
    with _cooc_mode(mode):
        _check(data, COOC_METRICS)


def test_dense_cooccurrence_counts_give_the_merges_bits_on_every_thread_count():
    # whole 100-item lists over 300 items: the cost rule (-1) takes the dense counts
    w = rm.datasets.w1(800, n_items=300, seed=9)
    train = (w.truth_indptr, (w.truth_items + 11) % 300)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items, np.random.default_rng(9).random(w.recs_items.size))
    metrics = [
        *COOC_METRICS,
        "diversity(similarity=cooccurrence)",
        "serendipity(relevance=none,similarity=cooccurrence)",
    ]
    got = {}
    for mode in (0, 1, -1):
        with _cooc_mode(mode):
            for threads in (1, 3):
                res = rm.evaluate(w.truth, recs, metrics, train=train, threads=threads)
                got[(mode, threads)] = {m: res.per_user[m].tobytes() for m in metrics}
    assert all(v == got[(0, 1)] for v in got.values())


@SETTINGS
@given(workload(), st.data())
def test_recs_only_users_are_evaluated_with_an_empty_truth_by_every_beyond_metric(data, draw):
    """recs_only="empty": the lists of recs users absent from the truth count in every beyond-accuracy metric
    (fcp and serendipity: no relevant item, so `empty=` decides)."""
    lists = data[1]
    # the first user with a list keeps its truth: no recs user matching a truth user is an error (mismatched ids)
    gone = draw.draw(st.sets(st.sampled_from(sorted(lists)[1:]))) if len(lists) > 1 else set()
    _check(data, BEYOND_METRICS, drop_truth=gone)


@SETTINGS
@given(workload())
def test_users_left_out_by_missing_stay_out_of_the_beyond_metrics_when_ndcg_keeps_them(data):
    """missing="skip_empty" with ndcg(missing_recs=zero) in the call: the users without a list (or with an empty
    one) stay users of the result for ndcg, and every beyond metric leaves them out as if they were not there
    (pooled aggregates, fcp's pairs and novelty's items, included)."""
    truth, lists, scores, train, feats, sim, conv = data
    if not any(lists.get(u) for u in truth):
        return  # no user keeps a list: nothing but the left-out users
    metrics = [*BEYOND_METRICS, "ndcg(missing_recs=zero)@3"]
    res = _call(truth, lists, scores, train, feats, sim, conv, metrics, missing="skip_empty")
    users = list(truth)
    assert res.users.tolist() == users
    out = [not lists.get(u) for u in users]
    kept = {u: g for u, g in truth.items() if lists.get(u)}
    for metric in BEYOND_METRICS:
        per, mean = _reference(kept, lists, scores, train, feats, sim, metric)
        assert close(res[metric], mean), (metric, res[metric], mean)
        if per is not None:
            got = [v for v, o in zip(res.per_user[metric].tolist(), out) if not o]
            assert all(close(a, b) for a, b in zip(got, per)), (metric, got, per)
            assert all(math.isnan(v) for v, o in zip(res.per_user[metric].tolist(), out) if o), metric


@SETTINGS
@given(workload(), st.sampled_from(["zero", "one"]))
def test_users_without_a_relevant_item_score_the_empty_value_in_fcp_and_serendipity(data, empty):
    _check(data, ["fcp", "fcp(average=users)@3", "serendipity@3", "serendipity(relevance=all)@4"], empty=empty)


def test_fcp_worked_example():
    """Preference A>B>C, system order B, A, C: FCP = 2/3 (two of the three pairs in order)."""
    res = rm.evaluate({"u": {"A": 3, "B": 2, "C": 1}}, {"u": ["B", "A", "C"]}, ["fcp"])
    assert res["fcp"] == 2 / 3


def test_fcp_pairs_aggregation_is_koren():
    truth = {1: {"a": 2, "b": 1}, 2: {"a": 3, "b": 2, "c": 1}}
    recs = {1: ["b", "a"], 2: ["a", "b", "c"]}
    res = rm.evaluate(truth, recs, ["fcp", "fcp(average=users)"])
    assert res["fcp"] == 3 / 4  # (0 + 3) / (1 + 3)
    assert res["fcp(average=users)"] == 0.5  # (0 + 1) / 2


def test_missing_context_is_a_clear_error():
    with pytest.raises(ValueError, match=r"novelty@10.*needs `train`"):
        rm.evaluate({1: [1]}, {1: [1]}, ["novelty@10"])
    with pytest.raises(ValueError, match=r"needs `item_features`"):
        rm.evaluate({1: [1]}, {1: [1]}, ["diversity@10"], train={1: [1]})
    with pytest.raises(ValueError, match=r"needs `item_similarity`"):
        rm.evaluate({1: [1]}, {1: [1]}, ["diversity(similarity=matrix)@10"])
    with pytest.raises(ValueError, match=r"coverage@10.*needs `catalog`"):
        rm.evaluate({1: [1]}, {1: [1]}, ["coverage@10"])
    with pytest.raises(ValueError, match=r"needs scores"):
        rm.evaluate({1: [1]}, {1: [1, 2]}, ["score_entropy@10"])


def test_missing_feature_row_names_user_and_item():
    with pytest.raises(ValueError, match=r"no row for item 'x'.*user 'u'"):
        rm.evaluate({"u": ["a"]}, {"u": ["a", "x"]}, ["diversity@5"], item_features={"a": [1.0, 0.0]})


def test_catalog_argument_and_catalog_level_values():
    res = rm.evaluate(
        {1: [1], 2: [2]}, {1: [1, 2], 2: [2, 3]}, ["coverage@2", "gini@2", "personalization@2"], catalog=[1, 2, 3, 4]
    )
    assert res["coverage@2"] == 3 / 4
    # counts over the catalog (1, 2, 3, 4) -> sorted (0, 1, 1, 2): sum (2j - 5) c_j / (3 * 4)
    assert res["gini@2"] == ((-1) * 1 + 1 * 1 + 3 * 2) / (3 * 4)
    assert res["personalization@2"] == 1 - 1 / 2
    with pytest.raises(KeyError, match="catalog-level"):
        res.per_user["coverage@2"]
    # catalog-level metrics merge through the state's item-count histograms
    st = rm.partial({1: [1]}, {1: [1]}, ["coverage@2"], catalog=[1])
    assert st.finalize()["coverage@2"] == 1.0


@pytest.fixture(scope="module")
def medium():
    w = rm.datasets.w1(6000, n_items=500, seed=4)
    rng = np.random.default_rng(4)
    feats = rng.normal(size=(500, 8))
    feats[::37] = 0.0
    train = (w.truth_indptr, (w.truth_items + 7) % 500)
    scores = rng.random(w.recs_items.size)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items, scores)
    return w, feats, train, recs


def test_beyond_bit_identical_across_threads(medium):
    w, feats, train, recs = medium
    sim = np.tanh(feats @ feats.T)
    base = None
    for threads in (1, 2, 3, 8):
        res = rm.evaluate(
            (w.truth_indptr, w.truth_items, w.truth_grades),
            recs,
            BEYOND_METRICS,
            train=train,
            item_features=feats,
            item_similarity=sim,
            threads=threads,
        )
        got = {
            m: (res[m], res.per_user[m].tobytes() if rm.metrics.parse(m).family == "user" else None)
            for m in BEYOND_METRICS
        }
        if base is None:
            base = got
        else:
            for m in BEYOND_METRICS:
                assert got[m][1] == base[m][1], m
                assert got[m][0] == base[m][0] or (math.isnan(got[m][0]) and math.isnan(base[m][0])), m


def test_beyond_fused_with_accuracy_in_one_call(medium):
    w, _feats, train, recs = medium
    both = rm.evaluate(w.truth, recs, ["ndcg@10", "novelty@10", "coverage@10"], train=train)
    alone = rm.evaluate(w.truth, recs, ["ndcg@10"])
    assert both["ndcg@10"] == alone["ndcg@10"]
    assert both.state.names == ("ndcg@10", "novelty@10", "coverage@10")  # catalog-level values merge too


# --------------------------------------------------------------------------- CAPRI conventions
# CAPRI's beyond-accuracy functions, restated from their definitions (CAPRI evaluation module):
#   novelty:          sum over the list of -log2(occurrences(i) / train users), 0 for unseen items, / k
#   catalogCoverage:  |distinct recommended items| / |catalog| * 100, rounded to 2 decimals (items outside the
#                     catalog count too: the value can exceed 100)
#   personalization:  1 - mean over user pairs of the cosine of their binary item vectors
#   listDiversity:    1 - mean over item pairs (a before b) of similarity[a, b]
def _capri_novelty(lst, occurrences, n_users, k):
    return sum(-math.log2(occurrences[i] / n_users) if i in occurrences else 0.0 for i in lst) / k


def _capri_coverage(lists, catalog):
    return round(len({i for lst in lists for i in lst}) / len(catalog) * 100, 2)


def _capri_personalization(lists):
    sims = []
    for a in range(len(lists)):
        for b in range(a + 1, len(lists)):
            sims.append(len(set(lists[a]) & set(lists[b])) / math.sqrt(len(lists[a]) * len(lists[b])))
    return 1 - sum(sims) / len(sims)


def _capri_list_diversity(lst, S):
    pairs = [(lst[a], lst[b]) for a in range(len(lst)) for b in range(a + 1, len(lst))]
    return 1 - sum(S[x, y] for x, y in pairs) / len(pairs)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(2, 6))
def test_capri_conventions_reproduce_capri(seed, k):
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(2, 8)), 15
    catalog = list(range(n_items - 3))  # items 12..14 are predicted but outside the catalog
    lists = [rng.choice(n_items, k, replace=False).tolist() for _ in range(n_users)]
    train = {100 + u: rng.choice(n_items, int(rng.integers(1, 9))).tolist() for u in range(int(rng.integers(1, 6)))}
    occurrences: dict = {}
    for items in train.values():
        for i in items:
            occurrences[i] = occurrences.get(i, 0) + 1
    S = rng.random((n_items, n_items))
    truth = {u: [lists[u][0]] for u in range(n_users)}
    recs = {u: lists[u] for u in range(n_users)}
    res = rm.evaluate(
        truth,
        recs,
        [
            f"novelty(unseen=zero,divide_by=k,popularity=interactions)@{k}",
            f"coverage(outside=count)@{k}",
            f"personalization(similarity=cosine)@{k}",
            f"diversity(similarity=matrix)@{k}",
        ],
        train=train,
        catalog=catalog,
        item_similarity=S,
    )
    nov = [_capri_novelty(lst, occurrences, len(train), k) for lst in lists]
    assert np.allclose(
        res.per_user[f"novelty(unseen=zero,divide_by=k,popularity=interactions)@{k}"], nov, rtol=1e-12, atol=0
    )
    assert round(res[f"coverage(outside=count)@{k}"] * 100, 2) == _capri_coverage(lists, catalog)
    capri = rm.evaluate(truth, recs, [f"coverage@{k}"], preset="capri", catalog=catalog)
    assert capri[f"coverage@{k}"] == res[f"coverage(outside=count)@{k}"]
    assert math.isclose(
        res[f"personalization(similarity=cosine)@{k}"], _capri_personalization(lists), rel_tol=1e-12, abs_tol=1e-12
    )
    div = [_capri_list_diversity(lst, S) for lst in lists]
    assert np.allclose(res.per_user[f"diversity(similarity=matrix)@{k}"], div, rtol=1e-12, atol=0)


def test_novelty_divide_by_k_empty_list_is_zero():
    train = {"x": [1, 2], "y": [1], "z": [3]}
    truth = {"u": [1], "v": [2], "w": [3]}
    recs = {"u": [1, 2, 9], "v": [], "w": [9]}
    for name, k in (("novelty(unseen=zero,divide_by=k)@2", 2), ("novelty(divide_by=k)", None)):
        res = rm.evaluate(truth, recs, [name], train=train)
        per = res.per_user[name]
        assert per[1] == 0.0  # empty list: sum 0 / k
        assert per[0] == pytest.approx(rb.novelty(recs["u"], k, train, divide_by="k", unseen="zero" if k else "skip"))
        assert rb.novelty([], k, train, divide_by="k") == 0.0
    # the default (mean over counted items) still skips an empty list
    assert math.isnan(rm.evaluate(truth, recs, ["novelty@2"], train=train).per_user["novelty@2"][1])
