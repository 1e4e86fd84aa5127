"""rm.read_trec_qrels / rm.read_trec_run: plain and gzip files, trec_eval's tie order, ids kept as strings,
malformed lines named by number."""

from __future__ import annotations

import gzip

import pytest

import rankmeter as rm

QRELS = """\
q1 0 d1 1
q1 0 d2 0
q1 0 d10 2
q2 0 d5 1

q2 0 d9 1
q3 0 dx 0
"""
# q1: equal scores for d10 and d9 (relevant d10); trec_eval order by docno descending as strings: d9 > d10
RUN = """\
q1 Q0 d10 1 0.5 runA
q1 Q0 d9 2 0.5 runA
q1 Q0 d1 3 0.9 runA extra junk
q2 Q0 d9 1 0.2 runA
q2 Q0 d7 2 0.3 runA
q4 Q0 d1 1 1.0 runA
"""


def _write(path, text, compress=False):
    if compress:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize(
    "compress, suffix", [(False, ".txt"), (True, ".gz"), (True, ".txt")], ids=["plain", "gzip", "gzip-without-suffix"]
)
def test_read_trec_files(tmp_path, compress, suffix):
    q = _write(tmp_path / f"qrels{suffix}", QRELS, compress)
    r = _write(tmp_path / f"run{suffix}", RUN, compress)
    truth = rm.read_trec_qrels(q)
    run = rm.read_trec_run(str(r))
    assert isinstance(truth, rm.Truth) and isinstance(run, rm.Recs)
    assert truth.users is not None and run.users is not None and truth.items is not None
    assert truth.users.tolist() == ["q1", "q2", "q3"]
    assert run.users.tolist() == ["q1", "q2", "q4"]
    assert all(isinstance(x, str) for x in truth.items.tolist())
    res = rm.evaluate(
        truth, run, ["rr", "hits", "num_rel", "precision@2", "ap"], preset="trec_eval", missing="zero"
    )  # trec_eval -c: q3 (no results) counts as an empty list
    assert res.users.tolist() == ["q1", "q2", "q3"]
    assert res.meta == {
        "n_users": 3,
        "n_skipped": 0,
        "n_missing_recs": 1,
        "n_ignored_recs": 1,
        "n_tied_users": 1,  # q1: d10 and d9 at 0.5, both read (ap reads the whole list)
    }
    # q1 ranked: d1 (0.9), then d9, d10 (tie, docno descending as strings): relevant d1, d10
    # q2 ranked: d7 (0.3), d9 (0.2): relevant d5, d9
    assert res.per_user["rr"].tolist() == [1.0, 0.5, 0.0]
    assert res.per_user["hits"].tolist() == [2.0, 1.0, 0.0]
    assert res.per_user["num_rel"].tolist() == [2.0, 2.0, 0.0]
    assert res.per_user["precision@2"].tolist() == [0.5, 0.5, 0.0]
    assert res.per_user["ap"].tolist() == pytest.approx([(1 + 2 / 3) / 2, (1 / 2) / 2, 0.0], abs=1e-15)
    # with input order for ties (the file's order: d10 before d9)
    res = rm.evaluate(truth, run, ["ap"], ties="input", empty="zero")
    assert res.per_user["ap"].tolist() == pytest.approx([(1 + 1) / 2, (1 / 2) / 2, 0.0], abs=1e-15)


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_read_trec_malformed_lines_name_the_line(tmp_path, compress):
    q = _write(tmp_path / ("q.gz" if compress else "q"), "q1 0 d1 1\n\nq1 0 d2 1 extra\n", compress)
    with pytest.raises(ValueError, match=r"line 3"):
        rm.read_trec_qrels(q)
    q = _write(tmp_path / ("q2.gz" if compress else "q2"), "q1 0 d1 1\nq1 0 d2 high\n", compress)
    with pytest.raises(ValueError, match=r"line 2.*'high'"):
        rm.read_trec_qrels(q)
    r = _write(tmp_path / ("r.gz" if compress else "r"), "q1 Q0 d1 1 2.0 run\nq1 Q0 d2 2 1.0 run\nq1 Q0 d3\n", compress)
    with pytest.raises(ValueError, match=r"line 3"):
        rm.read_trec_run(r)
    r = _write(tmp_path / ("r2.gz" if compress else "r2"), "q1 Q0 d1 1 x run\n", compress)
    with pytest.raises(ValueError, match=r"line 1.*'x'"):
        rm.read_trec_run(r)


def test_read_trec_grades_and_numeric_looking_ids_stay_strings(tmp_path):
    q = _write(tmp_path / "q", "301 0 10 2\n301 0 9 -1\n301 0 011 1\n")
    truth = rm.read_trec_qrels(q)
    assert truth.users is not None and truth.grades is not None
    assert truth.users.tolist() == ["301"]
    assert truth.items.tolist() == ["10", "9", "011"]
    assert truth.grades.tolist() == [2.0, -1.0, 1.0]
    # "011" and "11" are different documents
    res = rm.evaluate(truth, {"301": ["11", "011"]}, ["rr"])
    assert res["rr"] == 0.5
