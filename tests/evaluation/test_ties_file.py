"""ties="file": a scored list is read in the order given, its scores ignored (cwl-eval reads a run in file order;
the default of preset="cwl")."""

from __future__ import annotations

import rankmeter as rm

TRUTH = {"q": {"a": 1, "b": 1}}
SCORED = {"q": {"x": 0.1, "a": 0.2, "y": 0.9, "b": 0.5}}  # dict order x, a, y, b; by score y, b, a, x
METRICS = ["precision@2", "rr", "ap", "ndcg@3"]


def test_file_order_ignores_scores_and_equals_the_lists_given():
    by_file = rm.evaluate(TRUTH, SCORED, METRICS, ties="file")
    as_lists = rm.evaluate(TRUTH, {"q": ["x", "a", "y", "b"]}, METRICS)
    by_score = rm.evaluate(TRUTH, SCORED, METRICS, ties="input")
    assert by_file.means == as_lists.means
    assert by_file["rr"] == 0.5 and by_score["rr"] == 0.5  # a at 2 (file), b at 2 (score)
    assert by_file["ap"] == (1 / 2 + 2 / 4) / 2 and by_score["ap"] == (1 / 2 + 2 / 3) / 2


def test_preset_cwl_reads_a_scored_run_in_file_order():
    metrics = ["cwl_p@2", "cwl_rr"]
    truth = {"q": {"a": 1}}  # a: second in file order, third by score
    scored = rm.evaluate(truth, SCORED, metrics, preset="cwl")
    lists = rm.evaluate(truth, {"q": ["x", "a", "y", "b"]}, metrics, preset="cwl")
    assert scored.means == lists.means and scored["cwl_rr"] == 0.5
    assert rm.evaluate(truth, SCORED, metrics, preset="cwl", ties="input")["cwl_rr"] == 1 / 3
