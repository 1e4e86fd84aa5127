"""The intent-aware (subtopic) diversity measures (ndeval's) against the plain-Python reference
(tests/support/reference_subtopic.py) on hypothesis-generated data: empty truth, all-zero grades, users
missing on either side, empty and short lists, duplicates, ties, items without a subtopic judgment, users
with one subtopic, int and str ids, every thread count; plus the input forms and errors of ``subtopics=``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_subtopic as rs
from tests.support.same import close

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CUTOFF = ("alpha_dcg", "alpha_ndcg", "err_ia", "nerr_ia", "p_ia", "strec")
WHOLE = ("nrbp", "nnrbp", "map_ia")
# every measure at ndeval's cutoffs, at 1 (ndeval leaves alpha-DCG@1 and ERR-IA@1 undivided), and whole lists
SUBTOPIC_DETERMINISM = [f"{n}@{k}" for n in CUTOFF for k in (1, 2, 5, 20)] + [*CUTOFF, *WHOLE]


@st.composite
def subtopic_case(draw):
    as_str = draw(st.booleans())
    uid = (lambda u: f"q{u}") if as_str else (lambda u: u)
    iid = (lambda i: f"d{i}") if as_str else (lambda i: i)
    n_items = draw(st.integers(1, 9))
    users = draw(st.lists(st.integers(0, 6), max_size=5, unique=True))
    rows = []
    for u in users:
        for _ in range(draw(st.integers(0, 7))):
            rows.append(
                (
                    uid(u),
                    draw(st.sampled_from([0, 1, 2, 7])),
                    iid(draw(st.integers(0, n_items - 1))),
                    draw(st.sampled_from([0, 1, 1, 2, -1])),
                )
            )
    # one judgment per (user, subtopic, item)
    rows = list({(r[0], r[1], r[2]): r for r in rows}.values())
    truth_users = draw(st.lists(st.integers(0, 6), max_size=5, unique=True))
    truth = {
        uid(u): {
            iid(i): draw(st.sampled_from([0.0, 1.0]))
            for i in draw(st.lists(st.integers(0, n_items - 1), max_size=3, unique=True))
        }
        for u in truth_users
    }
    recs: dict = {}
    scored = draw(st.booleans())
    for u in draw(st.lists(st.integers(0, 6), max_size=6, unique=True)):
        items = draw(st.lists(st.integers(0, n_items + 2), max_size=8, unique=True))
        if scored:
            recs[uid(u)] = {iid(i): float(draw(st.integers(0, 3))) for i in items}
        else:
            recs[uid(u)] = [iid(i) for i in items]
    alpha = draw(st.sampled_from([0.5, 0.5, 0.0, 0.3, 1.0]))
    beta = draw(st.sampled_from([0.5, 0.0, 0.8, 1.0]))
    return rows, truth, recs, alpha, beta


def _ranked(lst) -> list:
    if isinstance(lst, dict):  # ties="item": equal scores by ascending item id
        return [i for i, _ in sorted(lst.items(), key=lambda kv: (-kv[1], kv[0]))]
    return list(lst)


def _judged(rows, user, min_relevance=None) -> dict:
    out: dict = {}
    for u, s, i, g in rows:
        if u == user and (g >= min_relevance if min_relevance is not None else g > 0):
            out.setdefault(i, set()).add(s)
    return out


def _metrics(alpha, beta):
    names = []
    for n in CUTOFF:
        opt = f"(alpha={alpha})" if n not in ("p_ia", "strec") else ""
        names += [f"{n}{opt}@{k}" for k in (1, 2, 3, 5, 10)] + [f"{n}{opt}"]
    names += [f"nrbp(alpha={alpha},beta={beta})", f"nnrbp(alpha={alpha},beta={beta})", "map_ia"]
    return names


def _check(rows, truth, recs, alpha, beta, **kw):
    table = pd.DataFrame(rows, columns=["user_id", "subtopic", "item_id", "relevance"]) if rows else None
    if table is None:
        table = {"user_id": [], "subtopic": [], "item_id": [], "relevance": []}
    names = _metrics(alpha, beta)
    try:
        res = rm.evaluate(truth, recs, [*names, "ndcg@3"], subtopics=table, **kw)
    except ValueError as e:
        # str user ids against int ones never happen here; an empty recs side is refused by evaluate itself
        assert "recs" in str(e), e
        return
    base: dict = {n: [] for n in names}
    for idx, user in enumerate(res.users.tolist()):
        ranked = _ranked(recs.get(user, []))
        judged = _judged(rows, user, kw.get("min_relevance"))
        for n in names:
            m = rm.metrics.parse(n)
            want = rs.subtopic_value(m.name, ranked, judged, m.k, m.options)
            got = float(res.per_user[n][idx])
            assert close(got, want), (n, user, got, want, ranked, judged)
            base[n].append(want)
    for n in names:
        vals = [v for v in base[n] if not math.isnan(v)]
        want = math.fsum(vals) / len(vals) if vals else math.nan
        assert close(res[n], want), (n, res[n], want)
    # every thread count: bit-identical
    for threads in (1, 2, 3):
        again = rm.evaluate(truth, recs, names, subtopics=table, threads=threads, **kw)
        for n in names:
            assert np.array_equal(again.per_user[n], res.per_user[n], equal_nan=True)


@SETTINGS
@given(subtopic_case())
def test_subtopic_measures_match_the_reference(case):
    _check(*case)


@SETTINGS
@given(subtopic_case())
def test_subtopic_measures_match_the_reference_with_a_relevance_threshold(case):
    _check(*case, min_relevance=2)


@SETTINGS
@given(subtopic_case(), st.data())
def test_duplicates_first_closes_the_list_up_for_the_subtopic_measures(case, data):
    rows, truth, recs, alpha, beta = case
    lists = {u: _ranked(v) for u, v in recs.items()}
    dup = {u: (v + v[:1] + v) for u, v in lists.items()}  # every item repeated
    names = _metrics(alpha, beta)
    if not truth or not rows:
        return
    table = pd.DataFrame(rows, columns=["user_id", "subtopic", "item_id", "relevance"])
    try:
        a = rm.evaluate(truth, lists, names, subtopics=table)
    except ValueError:
        return
    b = rm.evaluate(truth, dup, names, subtopics=table, duplicates="first")
    for n in names:
        assert np.array_equal(a.per_user[n], b.per_user[n], equal_nan=True)
    if any(lists.get(u) for u in truth):
        with pytest.raises(ValueError, match="more than once"):
            rm.evaluate(truth, dup, names, subtopics=table)


def test_subtopic_measures_are_bit_identical_for_every_thread_count():
    rng = np.random.default_rng(7)
    n_users = 3000
    rows = [
        (u, int(s), int(i), int(g))
        for u in range(n_users)
        for s, i, g in {(s, i): (s, i, g) for s, i, g in rng.integers(0, [4, 40, 3], size=(12, 3))}.values()
    ]
    truth = {u: {int(i): 1.0 for i in rng.integers(0, 40, 3)} for u in range(n_users)}
    recs = {u: [int(i) for i in rng.permutation(45)[: rng.integers(0, 25)]] for u in range(n_users)}
    base = rm.evaluate(truth, recs, SUBTOPIC_DETERMINISM, subtopics=rows, threads=1)
    for threads in (2, 3, 4):
        res = rm.evaluate(truth, recs, SUBTOPIC_DETERMINISM, subtopics=rows, threads=threads)
        for n in SUBTOPIC_DETERMINISM:
            assert np.array_equal(res.per_user[n], base.per_user[n], equal_nan=True), n
            assert res[n] == base[n] or (math.isnan(res[n]) and math.isnan(base[n]))


# ----------------------------------------------------------------------------- worked example and forms
ROWS = [
    ("q1", "1", "a", 1),
    ("q1", "1", "b", 1),
    ("q1", "2", "b", 1),
    ("q1", "3", "c", 1),
    ("q1", "2", "d", 0),
    ("q2", "1", "x", 1),
    ("q2", "2", "y", 1),
]
TRUTH = {"q1": {"a": 1, "b": 1, "c": 1}, "q2": {"x": 1, "y": 1}}
RECS = {"q1": ["b", "a", "z", "c"], "q2": ["y", "q"]}


def test_worked_example_by_hand():
    """q1: b covers subtopics 1 and 2 (gain 2), a covers 1 again (0.5), z nothing, c covers 3 (1)."""
    res = rm.evaluate(TRUTH, RECS, ["alpha_dcg@1", "strec@2", "p_ia@2", "map_ia", "nrbp"], subtopics=ROWS_FRAME())
    q1 = list(res.users).index("q1")
    assert res.per_user["alpha_dcg@1"][q1] == 2.0  # undivided at depth 1, as ndeval
    assert res.per_user["strec@2"][q1] == 2 / 3
    assert res.per_user["p_ia@2"][q1] == 3 / (2 * 3)
    # subtopic 1: a at 2 and b at 1 -> (1 + 1) / 2; subtopic 2: b at 1 of 1 relevant -> 1; subtopic 3: c at 4 -> 1/4
    assert math.isclose(res.per_user["map_ia"][q1], (1.0 + 1.0 + 0.25) / 3)
    # gains 2, 0.5, 0, 1 discounted by 0.5^(j-1), times (1 - 0.5 * 0.5) / 3
    assert math.isclose(res.per_user["nrbp"][q1], (2 + 0.25 + 0 + 0.125) * 0.75 / 3)


def ROWS_FRAME() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=["query_id", "subtopic", "doc_id", "relevance"])


def test_every_form_of_subtopics_gives_the_same_values(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{u} {s} {i} {g}\n" for u, s, i, g in ROWS))
    cols = list(zip(*ROWS))
    forms = [
        ROWS_FRAME(),
        {"user_id": cols[0], "subtopic": cols[1], "item_id": cols[2], "grade": cols[3]},
        tuple(np.asarray(c) for c in cols),
        list(ROWS),
        str(path),
        path,
    ]
    names = _metrics(0.5, 0.5)
    first = rm.evaluate(TRUTH, RECS, names, subtopics=forms[0])
    for f in forms[1:]:
        got = rm.evaluate(TRUTH, RECS, names, subtopics=f)
        for n in names:
            assert np.array_equal(got.per_user[n], first.per_user[n], equal_nan=True), (type(f), n)


def test_a_user_without_a_relevant_subtopic_scores_zero_and_nnrbp_nan():
    res = rm.evaluate({"q3": {"a": 1}}, {"q3": ["a"]}, ["alpha_ndcg@5", "nnrbp", "strec@5"], subtopics=ROWS_FRAME())
    assert res.per_user["alpha_ndcg@5"][0] == 0.0 and res.per_user["strec@5"][0] == 0.0
    assert math.isnan(res.per_user["nnrbp"][0])


def test_subtopic_measures_mix_with_other_metrics_in_one_call():
    res = rm.evaluate(TRUTH, RECS, ["ndcg@3", "alpha_ndcg@3", "personalization@3"], subtopics=ROWS_FRAME())
    alone = rm.evaluate(TRUTH, RECS, ["ndcg@3"])
    assert res["ndcg@3"] == alone["ndcg@3"]
    assert res["alpha_ndcg@3"] == rm.evaluate(TRUTH, RECS, ["alpha_ndcg@3"], subtopics=ROWS_FRAME())["alpha_ndcg@3"]


@pytest.mark.parametrize(
    "subtopics, exc, words",
    [
        (None, ValueError, "needs `subtopics`"),
        ({"user_id": ["q1"], "item_id": ["a"], "grade": [1]}, ValueError, "no subtopic column"),
        (
            pd.DataFrame({"user_id": ["q1", "q1"], "subtopic": [1, 1], "item_id": ["a", "a"], "grade": [1, 0]}),
            ValueError,
            "more than once",
        ),
        (
            pd.DataFrame({"user_id": ["q1"], "subtopic": [1], "item_id": ["a"], "grade": [math.nan]}),
            ValueError,
            "finite",
        ),
        (pd.DataFrame({"user_id": [1], "subtopic": [1], "item_id": ["a"], "grade": [1]}), ValueError, "kinds"),
        (42, TypeError, "subtopics"),
    ],
)
def test_bad_subtopics_are_refused_by_name(subtopics, exc, words):
    with pytest.raises(exc, match=words):
        rm.evaluate(TRUTH, RECS, ["alpha_ndcg@5"], subtopics=subtopics)


def test_alpha_and_beta_are_checked_by_the_registry():
    with pytest.raises(ValueError, match="alpha"):
        rm.evaluate(TRUTH, RECS, ["alpha_ndcg(alpha=1.5)@5"], subtopics=ROWS_FRAME())
    with pytest.raises(ValueError, match="beta"):
        rm.evaluate(TRUTH, RECS, ["nrbp(beta=-1)"], subtopics=ROWS_FRAME())
