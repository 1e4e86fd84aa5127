"""preset="rectools" against the live RecTools: hand-made cases for each convention the preset reproduces, then
random cases over the whole data space (a short run; the long one:
``python -m tests.differential.run rectools --cases 20000 --seed 1``)."""

from __future__ import annotations

import math

import pytest

from . import rectools as peer
from .harness import SHORT_RUN, Report, check, compare_case, require_peer, run_worker


def _case(truth, recs, k=3, ks=None, **extra):
    """A case in the form of cases.py: recs rows [user, item, rank, score] from ordered lists."""
    rows = [[u, i, r + 1, 1.0 / (r + 1)] for u, lst in recs.items() for r, i in enumerate(lst)]
    return {"truth": truth, "recs": rows, "empty_lists": [], "k": k, "ks": ks or [k], "on": [], **extra}


CATALOG = list(range(10, 20))
FEATURES = [[i, [float(i % 2), float(i % 3), 1.0]] for i in range(10, 25)]
TRAIN = [[7, 10], [7, 11], [8, 10], [8, 12], [9, 13]]
CASES = {
    # u1's rows weigh 0 and -1: RecTools counts both as relevant (every interaction row)
    "weights": _case([[1, 10, 0], [1, 11, -1], [2, 12, 1]], {1: [11, 13], 2: [12]}, catalog=CATALOG),
    # u3 is only in reco: RecTools' novelty, popularity and diversity evaluate it; the ranking metrics do not
    "reco_users": _case(
        [[1, 10, 1], [2, 12, 1]],
        {1: [10, 11, 12], 2: [12, 13], 3: [14, 15, 10]},
        catalog=CATALOG,
        train=TRAIN,
        features=FEATURES,
    ),
    # items 21 and 22 are outside the catalog: CatalogCoverage counts them
    "outside_catalog": _case([[1, 10, 1]], {1: [10, 21], 2: [22, 11]}, ks=[2, 1], catalog=CATALOG),
    # u2's top k holds one item: IntraListDiversity scores it 0 and counts it
    "one_item": _case([[1, 10, 1], [2, 11, 1]], {1: [10, 11, 12], 2: [13]}, catalog=CATALOG, features=FEATURES),
}


@pytest.fixture(scope="module")
def peer_results():
    require_peer(peer.VENV)
    return dict(zip(CASES, run_worker(peer, list(CASES.values()))))


def _compare(name, peer_results) -> dict:
    rep = Report("rectools", 0)
    compare_case(peer, 0, CASES[name], peer_results[name], rep)
    assert not rep.mismatches, rep.mismatches
    assert rep.compared > 0 and not rep.known and not rep.peer_errors
    return peer_results[name]["ok"]


def test_every_interaction_row_is_relevant_whatever_its_weight(peer_results):
    out = _compare("weights", peer_results)
    assert dict(map(tuple, out["Recall@3"]["per_user"]))[1] == 0.5  # 1 of its 2 rows (weights 0 and -1) hit


def test_reco_users_absent_from_interactions_count_in_novelty_popularity_and_diversity(peer_results):
    out = _compare("reco_users", peer_results)
    assert 3 in dict(map(tuple, out["MeanInvUserFreq@3"]["per_user"]))
    assert 3 not in dict(map(tuple, out["Precision@3"]["per_user"]))


def test_catalog_coverage_counts_recommended_items_outside_the_catalog(peer_results):
    out = _compare("outside_catalog", peer_results)
    assert out["CatalogCoverage(normalize)@2"]["mean"] == 4 / len(CATALOG)


def test_intra_list_diversity_scores_a_one_item_list_zero_and_counts_it(peer_results):
    out = _compare("one_item", peer_results)
    per_user = dict(map(tuple, out["IntraListDiversity@3"]["per_user"]))
    assert per_user[2] == 0.0 and not math.isnan(out["IntraListDiversity@3"]["mean"])


def test_rectools_preset_gives_rectools_numbers_per_user_and_mean_on_random_cases():
    rep = check("rectools", SHORT_RUN)
    assert rep.compared > 0
