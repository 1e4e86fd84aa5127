"""rankmeter eval, compare and report: one command-line core (the same options, defaults and metric names)."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from rankmeter.cli import build_parser, main, parse_measures
from rankmeter.evaluation import option_field


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _files(tmp_path, kind: str, *, drop_query: bool = False):
    """qrels + two runs of 12 queries with graded truth and tied scores, as TREC files or parquet tables."""
    rng = np.random.default_rng(3)
    truth = [(f"q{u}", f"d{i}", int(rng.integers(0, 3))) for u in range(12) for i in rng.choice(30, 6, replace=False)]
    runs = []
    for r in range(2):
        rows = []
        for u in range(12):
            if drop_query and r == 1 and u == 4:
                continue
            for i in rng.choice(30, 10, replace=False):
                rows.append((f"q{u}", f"d{i}", float(rng.integers(0, 4))))
        runs.append(rows)
    if kind == "trec":
        q = tmp_path / "qrels.txt"
        q.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth))
        paths = []
        for n, rows in enumerate(runs):
            p = tmp_path / f"run{n}.txt"
            p.write_text("".join(f"{u} Q0 {i} {j + 1} {s} run{n}\n" for j, (u, i, s) in enumerate(rows)))
            paths.append(str(p))
        return str(q), paths
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    q = tmp_path / "qrels.parquet"
    pq.write_table(
        pa.table(
            {"user_id": [t[0] for t in truth], "item_id": [t[1] for t in truth], "relevance": [t[2] for t in truth]}
        ),
        q,
    )
    paths = []
    for n, rows in enumerate(runs):
        p = tmp_path / f"run{n}.parquet"
        pq.write_table(
            pa.table({"user_id": [t[0] for t in rows], "item_id": [t[1] for t in rows], "score": [t[2] for t in rows]}),
            p,
        )
        paths.append(str(p))
    return str(q), paths


@pytest.mark.parametrize("kind", ["trec", "parquet"])
@pytest.mark.parametrize("extra", [[], ["--preset", "none"], ["--preset", "trec_eval", "-c"], ["--ties", "item_desc"]])
def test_eval_and_compare_print_the_same_means_for_the_same_files(tmp_path, capsys, kind, extra):
    """The same files and options give the same means in `eval` and `compare` (one default preset for both)."""
    q, paths = _files(tmp_path, kind)
    metrics = ["ndcg@10", "P.5", "map", "recip_rank"]
    code, out, err = _run(capsys, ["eval", q, *paths, "-m", *metrics, "--format", "json", *extra])
    assert code == 0, err
    ev = json.loads(out)
    code, out, err = _run(
        capsys, ["compare", q, *paths, "-m", *metrics, "--format", "json", "--n-resamples", "99", *extra]
    )
    assert code == 0, err
    cmp = json.loads(out)
    preset = "trec_eval" if kind == "trec" and "none" not in extra else None
    if "--preset" in extra:
        preset = None if "none" in extra else "trec_eval"
    assert cmp["meta"]["preset"] == preset
    for m in parse_measures(metrics, preset):
        for run in ["run0", "run1"]:
            assert ev[run]["all"][m.label] == cmp["means"][run][m.key], (m, run)
            assert ev[run]["conventions"] == cmp["meta"]["conventions"]


def test_default_conventions_follow_the_input_kind(tmp_path, capsys):
    """TREC qrels: trec_eval's conventions; tables: rankmeter's own; every output says which ran."""
    (tmp_path / "t").mkdir()
    q, paths = _files(tmp_path / "t", "trec")
    code, out, err = _run(capsys, ["eval", q, paths[0], "-m", "ndcg@10"])
    assert code == 0 and "ndcg_cut_10" in out
    assert "preset 'trec_eval'" in err and "ties='trec'" in err
    (tmp_path / "p").mkdir()
    q, paths = _files(tmp_path / "p", "parquet")
    code, out, err = _run(capsys, ["eval", q, paths[0], "-m", "ndcg@10", "--format", "table"])
    assert code == 0 and "no preset (rankmeter's conventions)" in out and "ties='item'" in out
    code, out, err = _run(capsys, ["compare", q, *paths, "-m", "ndcg@10", "--n-resamples", "99"])
    assert code == 0 and "Conventions: no preset (rankmeter's conventions)" in out


def test_compare_reads_trec_spellings_and_sets(tmp_path, capsys):
    q, paths = _files(tmp_path, "trec")
    code, out, err = _run(
        capsys, ["compare", q, *paths, "-m", "P.10", "ndcg_cut.5,10", "--format", "json", "--n-resamples", "99"]
    )
    assert code == 0, err
    assert json.loads(out)["metrics"] == ["precision@10", "ndcg@5", "ndcg@10"]
    code, out, err = _run(capsys, ["compare", q, *paths, "-m", "official", "--format", "json", "--n-resamples", "99"])
    assert code == 0, err  # the set's counts (runid, num_q, num_ret) are not per-query metrics: left out
    assert "ap" in json.loads(out)["metrics"]
    code, out, err = _run(capsys, ["compare", q, *paths, "-m", "num_ret"])
    assert code == 2 and "num_ret" in err and "rankmeter eval" in err


def test_compare_on_a_run_missing_a_query_names_the_fix(tmp_path, capsys):
    """trec_eval's default (no -c) leaves a query without results out of that run only: the error says so and
    names -c, and -c (or --missing zero) compares the runs."""
    q, paths = _files(tmp_path, "trec", drop_query=True)
    code, out, err = _run(capsys, ["compare", q, *paths, "-m", "map"])
    assert code == 2 and out == ""
    assert "q4" in err and "-c" in err and "missing='zero'" in err and "pass the same truth" not in err
    for flag in (["-c"], ["--missing", "zero"]):
        code, out, err = _run(capsys, ["compare", q, *paths, "-m", "map", "--n-resamples", "99", *flag])
        assert code == 0, err
    code, out, err = _run(capsys, ["compare", q, *paths, "-m", "map", "-c", "--missing", "skip"])
    assert code == 2 and "-c" in err


def test_eval_labels_the_block_of_each_run(tmp_path, capsys):
    q, paths = _files(tmp_path, "trec")
    code, out, err = _run(capsys, ["eval", q, *paths, "-m", "map"])
    assert code == 0, err
    lines = out.splitlines()
    assert [ln.split("\t")[2] for ln in lines if ln.startswith("runid")] == ["run0", "run1"]
    assert lines[0].startswith("runid") and lines[2].startswith("runid")
    code, out, err = _run(capsys, ["eval", q, paths[0], "-m", "map"])
    assert not out.startswith("runid")  # one run: trec_eval's layout, as asked


def test_eval_compare_and_report_take_the_same_flags():
    """Every option flag, -c, -m and the --ties values are the same in eval, compare and report."""
    sub = next(a.choices for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))

    def flags(name):
        return {s: a for a in sub[name]._actions for s in a.option_strings}

    e, c, r = flags("eval"), flags("compare"), flags("report")
    shared = {
        "-c",
        "-m",
        "-M",
        "-l",
        "-q",
        "--ties",
        "--missing",
        "--preset",
        "--empty",
        "--duplicates",
        "--min-relevance",
        "--max-items",
    }
    for f in shared:
        assert f in e and f in c and f in r, f
    assert list(e["--ties"].choices) == list(option_field("ties").metadata["allowed"])
    assert list(c["--ties"].choices) == list(e["--ties"].choices)
    assert e["--preset"].default is None and c["--preset"].default is None


def test_compare_per_query_prints_every_run_value(tmp_path, capsys):
    q, paths = _files(tmp_path, "trec")
    code, out, err = _run(capsys, ["compare", q, *paths, "-m", "map", "-q", "--n-resamples", "99"])
    assert code == 0, err
    table = out[out.index("query") :].splitlines()
    assert table[0].split() == ["query", "ap", "run0", "ap", "run1"]
    assert len(table) == 1 + 12
