"""compare(agreement=...): for each compared pair of runs, the mean of each agreement metric, equal to
rm.agreement on that pair (the run as run_a, its baseline as run_b), in to_dict, to_json and the text table."""

from __future__ import annotations

import json

import pytest

import rankmeter as rm

TRUTH = {u: {u % 7: 1} for u in range(40)}
RUNS = {
    "good": {u: [u % 7, 100, 50] for u in range(40)},
    "bad": {u: [100, 101, u % 7] for u in range(40)},
    "other": {u: [50, u % 7] for u in range(35)},  # lacks 5 users: compared with empty lists
}
AGREE = ["rbo@3", "jaccard@3", "unexpectedness@3"]


@pytest.mark.parametrize("baseline", [None, "good"])
def test_the_agreement_table_holds_each_pairs_agreement_means(baseline):
    cmp = rm.compare(TRUTH, RUNS, ["hit_rate@2"], n_resamples=99, agreement=AGREE, baseline=baseline)
    pairs = {(r["run"], r["baseline"]) for r in cmp.rows}
    assert cmp.agreement is not None
    assert {(r["run"], r["baseline"]) for r in cmp.agreement} == pairs
    for row in cmp.agreement:
        want = rm.agreement(RUNS[row["run"]], RUNS[row["baseline"]], AGREE)
        assert row["mean"] == want[row["metric"]]
        assert row["n_users"] == want.counts[row["metric"]] == 40
    assert cmp.to_dict()["agreement"] == cmp.agreement
    assert json.loads(cmp.to_json())["agreement"][0]["metric"] == "rbo@3"
    assert "Agreement between the runs" in cmp.to_text() and "unexpectedness@3" in cmp.to_text()


def test_without_agreement_the_comparison_has_no_agreement_table():
    cmp = rm.compare(TRUTH, RUNS, ["hit_rate@2"], n_resamples=99)
    assert cmp.agreement is None and "agreement" not in cmp.to_dict()
    assert "Agreement between the runs" not in cmp.to_text()


def test_a_bad_agreement_name_is_an_error_before_any_run_is_evaluated():
    with pytest.raises(ValueError, match="did you mean 'jaccard'"):
        rm.compare(TRUTH, {"a": {0: [1]}, "b": {1: "not a list"}}, ["hit_rate@2"], agreement=["jacard@3"])
