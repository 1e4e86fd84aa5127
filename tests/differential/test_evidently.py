"""preset="evidently" equals Evidently 0.7 (new and legacy API, ranks and scores, no_feedback_users, min_rel_score)
on random tables, and on the cases where it used to differ: every recsys metric Evidently offers, compared as means
(tests/differential/evidently.py)."""

from __future__ import annotations

import pytest

from tests.differential import evidently as E
from tests.differential.cases import rel_close
from tests.differential.harness import SHORT_RUN, check, require_peer, run_worker


def test_evidently_preset_equals_evidently_on_random_tables():
    check("evidently", SHORT_RUN)


def _case(truth, recs, ks, variant, **extra) -> dict:
    rows = []
    for u, lst in recs.items():
        for r, item in enumerate(lst):
            item, score = item if isinstance(item, tuple) else (item, 10.0 - r)
            rows.append([u, item, r + 1, score])
    case = {
        "truth": [[u, i, g] for u, gr in truth.items() for i, g in gr.items()],
        "recs": rows,
        "empty_lists": [],
        "k": ks[0],
        "ks": ks,
        "on": [],
        "catalog": [],
        "evidently": variant,
    }
    case.update(extra)
    return case


def _equal_to_evidently(case: dict, labels: list[str]) -> dict:
    require_peer(E.VENV)
    peer = run_worker(E, [case])[0]
    assert "ok" in peer, peer
    ours = E.ours(case)
    for label in labels:
        assert label in peer["ok"], (label, sorted(peer["ok"]))
    for label, want in peer["ok"].items():
        got = ours[label]["mean"]
        assert rel_close(got, want["mean"], E.REL), (label, got, want["mean"])
    return peer["ok"]


TOPK = ["PrecisionTopK", "RecallTopK", "FBetaTopK", "MAP", "NDCG", "MRR", "HitRate"]
NEW_RANK = {"api": "new", "mode": "rank", "no_feedback": False, "min_rel": None, "beta": 1.0, "normalize_arp": False}


@pytest.mark.parametrize("no_feedback", [False, True])
def test_users_without_recommended_rows_score_zero_and_unrecommended_rows_count_in_size(no_feedback):
    """A user whose rows were all not recommended scores 0 (it was left out); precision@k and MAP divide by
    min(rows, j) with the relevant items that were not recommended among the rows."""
    truth = {1: {10: 1, 11: 1, 12: 1}, 2: {13: 1}, 3: {14: 2, 15: 0}, 4: {16: 0}}
    recs = {1: [10, 20], 3: [21, 14, 22, 23, 24], 4: [16, 25]}
    case = _case(truth, recs, [3, 1, 5], {**NEW_RANK, "no_feedback": no_feedback})
    got = _equal_to_evidently(case, [f"{m}@{k}" for m in TOPK for k in (1, 3, 5)])
    assert got["PrecisionTopK@3"]["mean"] == pytest.approx((1 / 3 + 0 + 1 / 3 + 0 * no_feedback) / (3 + no_feedback))


def test_legacy_mar_and_map_on_short_lists_with_unrecommended_rows():
    truth = {1: {10: 1, 11: 1, 12: 2}, 2: {13: 1, 14: 1}}
    recs = {1: [10, 30, 12], 2: [14]}
    variant = {**NEW_RANK, "api": "legacy"}
    # user 1 has 4 rows (3 listed, item 11 not): k = 4 reads past its list; no user has 5 rows (Evidently raises)
    _equal_to_evidently(_case(truth, recs, [4, 2, 3], variant), [f"{m}@{k}" for m in ("MAP", "MAR") for k in (2, 3, 4)])


@pytest.mark.parametrize("min_rel", [None, 2])
def test_ndcg_gains_negative_targets_and_reads_min_rel_score(min_rel):
    truth = {1: {10: 3, 11: -2, 12: 1, 13: 0.5}, 2: {14: 2, 15: -1}, 3: {16: 1.5}}
    recs = {1: [11, 10, 12], 2: [15, 30, 14], 3: [31, 16]}
    case = _case(truth, recs, [3, 1, 2], {**NEW_RANK, "min_rel": min_rel})
    _equal_to_evidently(case, ["NDCG@1", "NDCG@2", "NDCG@3"])


@pytest.mark.parametrize("api", ["new", "legacy"])
def test_tied_scores_sit_at_the_floored_average_rank(api):
    truth = {1: {10: 1, 12: 1}, 2: {13: 1, 16: 2}, 3: {17: 1}}
    recs = {
        1: [(10, 0.5), (11, 0.5), (12, 0.1)],
        2: [(14, 0.9), (15, 0.7), (13, 0.7), (16, 0.7), (18, 0.2)],
        3: [(19, 0.3), (17, 0.3)],
    }
    case = _case(truth, recs, [2, 1, 3], {**NEW_RANK, "api": api, "mode": "score"})
    _equal_to_evidently(case, [f"{m}@{k}" for m in TOPK for k in (1, 2, 3)] + ["ScoreDistribution@2"])


def test_personalization_diversity_serendipity_and_popularity_bias():
    """Short lists (Personalization counts every top k as k items), a one-item list (Diversity 0), an item of the
    history with an all-zero feature vector recommended again (Serendipity: similar 1 to itself), Gini over the
    recommended items."""
    truth = {1: {10: 1, 11: 1}, 2: {12: 1}, 3: {13: 2, 14: 1}}
    recs = {1: [10, 11, 12], 2: [12], 3: [13, 10, 14, 15]}
    features = [[i, [0.0, 0.0] if i == 10 else [float(i % 3), float(i % 5)]] for i in range(10, 16)]
    train = [[1, 10], [1, 13], [2, 11], [3, 12], [3, 15], [4, 10]]
    for normalize in (False, True):
        case = _case(
            truth,
            recs,
            [3, 2],
            {**NEW_RANK, "normalize_arp": normalize},
            features=features,
            train=train,
        )
        names = ("Personalization", "Diversity", "Serendipity", "Novelty", "PopularityBias.arp")
        labels = [f"{m}@{k}" for m in (*names, "PopularityBias.coverage", "PopularityBias.gini") for k in (2, 3)]
        _equal_to_evidently(case, labels)
