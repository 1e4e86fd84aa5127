"""rankmeter eval streams a run by its size in memory (rows x bytes per row against a budget), not on disk."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import rankmeter.stream as stream_mod
from rankmeter import cli
from rankmeter.cli import estimated_rows, main, memory_budget


def _tables(tmp_path, *, grouped: bool = True):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rng = np.random.default_rng(4)
    users = np.repeat(np.arange(40), 6)
    items = np.concatenate([rng.choice(50, 6, replace=False) for _ in range(40)])
    run = pa.table({"user_id": users, "item_id": items, "score": rng.random(users.size)})
    if not grouped:  # the same rows, shuffled
        run = run.take(rng.permutation(users.size))
    truth = pa.table({"user_id": np.arange(40), "item_id": rng.integers(0, 50, 40), "relevance": np.ones(40)})
    pq.write_table(run, tmp_path / "run.parquet", row_group_size=50)
    pq.write_table(truth, tmp_path / "truth.parquet")
    return str(tmp_path / "truth.parquet"), str(tmp_path / "run.parquet"), run


def test_estimated_rows_reads_parquet_footers_and_samples_text(tmp_path):
    _, run_path, run = _tables(tmp_path)
    assert estimated_rows(run_path) == run.num_rows  # footers: exact
    lines = "".join(f"{u},{i},{s:.6f}\n" for u, i, s in zip(*(run.column(c).to_pylist() for c in run.column_names)))
    (tmp_path / "run.csv").write_text("user_id,item_id,score\n" + lines)
    est = estimated_rows(str(tmp_path / "run.csv"))
    assert abs(est - run.num_rows) <= 0.1 * run.num_rows
    with gzip.open(tmp_path / "run.csv.gz", "wt") as f:
        f.write("user_id,item_id,score\n" + lines)
    est = estimated_rows(str(tmp_path / "run.csv.gz"))
    assert abs(est - run.num_rows) <= 0.25 * run.num_rows


def test_memory_budget_reads_sizes_and_defaults_to_a_capped_share_of_memory():
    assert memory_budget("800M") == 800 << 20
    assert memory_budget("2.5GB") == int(2.5 * (1 << 30))
    assert memory_budget("4g") == 4 << 30 and memory_budget("1024") == 1024
    assert 0 < memory_budget(None) <= 1 << 30
    for bad in ("lots", "-1G", "0"):
        with pytest.raises(ValueError, match="--memory"):
            memory_budget(bad)


def _spy(monkeypatch):
    calls = []
    real = stream_mod.evaluate_stream

    def spy(*a, **kw):
        calls.append(a[1])
        return real(*a, **kw)

    monkeypatch.setattr(stream_mod, "evaluate_stream", spy)
    return calls


def test_a_run_is_streamed_when_its_rows_pass_the_budget_and_prints_the_same(tmp_path, capsys, monkeypatch):
    truth, run, table = _tables(tmp_path)
    base = ["eval", truth, run, "-m", "ndcg@5,map", "-q", "--no-progress", "--format", "csv"]
    calls = _spy(monkeypatch)
    assert main(base) == 0
    whole = capsys.readouterr().out
    assert calls == []  # 240 rows: far under the default budget
    budget = table.num_rows * cli.ROW_BYTES - 1
    assert main([*base, "--memory", str(budget), "--batch-rows", "7"]) == 0
    assert calls == [run] and capsys.readouterr().out == whole
    assert main([*base, "--memory", str(budget + 1)]) == 0  # exactly at the budget: read whole
    assert calls == [run] and capsys.readouterr().out == whole


def test_a_run_not_grouped_by_user_is_read_whole_when_streaming_was_not_asked(tmp_path, capsys, monkeypatch):
    truth, run, _ = _tables(tmp_path, grouped=False)
    base = ["eval", truth, run, "-m", "ndcg@5", "-q", "--no-progress", "--format", "csv"]
    assert main(base) == 0
    whole = capsys.readouterr().out
    assert main([*base, "--memory", "1K", "--batch-rows", "7"]) == 0
    out, err = capsys.readouterr()
    assert out == whole and "not grouped by user" in err and "sort it by user" in err
    assert main([*base, "--stream", "--batch-rows", "7"]) == 2  # asked for: the error, naming the fix
    assert "sort the input by user" in capsys.readouterr().err


def test_a_ranked_run_not_grouped_by_user_is_read_whole_too(tmp_path, capsys):
    """With a rank column the first sign of unsorted input is a batch whose user lacks some of its ranks:
    streaming chosen by the budget falls back to reading the run whole, as for a score column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    truth, _, _ = _tables(tmp_path)
    users = np.repeat(np.arange(40), 6)
    ranks = np.tile(np.arange(1, 7), 40)
    items = np.concatenate([np.random.default_rng(u).choice(50, 6, replace=False) for u in range(40)])
    order = np.random.default_rng(9).permutation(users.size)
    pq.write_table(
        pa.table({"user_id": users[order], "item_id": items[order], "rank": ranks[order]}),
        tmp_path / "ranked.parquet",
        row_group_size=50,
    )
    base = ["eval", truth, str(tmp_path / "ranked.parquet"), "-m", "ndcg@5", "-q", "--no-progress", "--format", "csv"]
    assert main(base) == 0
    whole = capsys.readouterr().out
    assert main([*base, "--memory", "1K", "--batch-rows", "7"]) == 0
    out, err = capsys.readouterr()
    assert out == whole and "not grouped by user" in err
    assert main([*base, "--stream", "--batch-rows", "7"]) == 2
    assert "Sort the input by user" in capsys.readouterr().err
