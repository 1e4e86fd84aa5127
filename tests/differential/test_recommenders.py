"""preset="recommenders" against the live Microsoft Recommenders: hand-made cases for each convention the preset
reproduces, then random cases over the whole data space (a short run; the long one:
``python -m tests.differential.run recommenders --cases 20000 --seed 1``)."""

from __future__ import annotations

import math

import pytest

from . import recommenders as peer
from .harness import SHORT_RUN, Report, check, compare_case, require_peer, run_worker


def _case(truth, recs, k=2, ks=None, **extra):
    """A case in the form of cases.py: recs rows [user, item, rank, score] from (item, score) lists."""
    rows = [[u, i, r + 1, s] for u, lst in recs.items() for r, (i, s) in enumerate(lst)]
    return {"truth": truth, "recs": rows, "k": k, "ks": ks or [k], "on": [], "empty_lists": [], **extra}


TRAIN = [[7, 10], [7, 11], [8, 10], [8, 12], [9, 11], [9, 12]]
CASES = {
    # u1's ratings are 0: every rating_true row is relevant; u2 has no predictions (left out but by ndcg_at_k)
    "users": _case(
        [[1, 10, 0.0], [1, 11, 0.0], [2, 12, 1.0], [3, 13, 1.0]], {1: [(10, 0.9), (14, 0.5)], 3: [(15, 1.0)]}
    ),
    # u1 has an empty list: no row in rating_pred, so not one of the users of both tables
    "empty_list": {
        **_case([[1, 10, 1.0], [2, 12, 1.0]], {2: [(12, 0.9), (13, 0.1)]}),
        "empty_lists": [1],
    },
    # equal predictions: Recommenders keeps the order of the rows (a stable sort), i.e. ties="input"
    "ties": _case([[1, 11, 1.0], [1, 13, 1.0]], {1: [(10, 0.5), (11, 0.5), (12, 0.5), (13, 0.5)]}, ks=[1, 2, 3]),
    # items 20 and 21 are not in train: catalog_coverage counts them; u4 is only in rating_pred (diversity)
    "coverage": _case(
        [[1, 10, 1.0]],
        {1: [(10, 0.9), (20, 0.5)], 4: [(21, 0.9), (11, 0.8), (12, 0.7)]},
        train=TRAIN,
    ),
}


@pytest.fixture(scope="module")
def peer_results():
    require_peer(peer.VENV)
    return dict(zip(CASES, run_worker(peer, list(CASES.values()))))


def _compare(name, peer_results) -> dict:
    rep = Report("recommenders", 0)
    compare_case(peer, 0, CASES[name], peer_results[name], rep)
    assert not rep.mismatches, rep.mismatches
    assert rep.compared > 0 and not rep.peer_errors
    return peer_results[name]["ok"]


def test_every_rating_true_row_is_relevant_and_ndcg_alone_scores_users_without_predictions(peer_results):
    out = _compare("users", peer_results)
    assert out["precision_at_k@2"]["mean"] == (1 / 2 + 0) / 2  # users 1 and 3; u1's rating-0 row hits
    # ndcg_at_k: u1 hits at rank 1 of an ideal of two rows; u2 (no predictions) and u3 score 0, all three count
    assert out["ndcg_at_k@2"]["mean"] == pytest.approx(1 / (1 + math.log(2) / math.log(3)) / 3, rel=1e-12)


def test_a_user_whose_list_is_empty_is_not_evaluated(peer_results):
    out = _compare("empty_list", peer_results)
    assert out["precision_at_k@2"]["mean"] == 1 / 2  # only u2


def test_equal_predictions_keep_the_order_of_the_rows(peer_results):
    _compare("ties", peer_results)


def test_catalog_coverage_counts_items_outside_train_and_diversity_reads_every_reco_user(peer_results):
    out = _compare("coverage", peer_results)
    assert out["catalog_coverage"]["mean"] == 5 / 3
    assert 4 in dict(map(tuple, out["user_diversity"]["per_user"]))


def test_recommenders_preset_gives_recommenders_numbers_per_user_and_mean_on_random_cases():
    rep = check("recommenders", SHORT_RUN // 3)  # Recommenders' pandas joins take ~0.4 s a case
    assert rep.compared > 0
