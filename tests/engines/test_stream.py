"""rankmeter.evaluate_stream: batches of whole users give rm.evaluate's numbers bit for bit."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import rankmeter as rm
from tests.support.same import COUNTS, assert_same_means

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pacsv = pytest.importorskip("pyarrow.csv")

METRICS = ["ndcg@5", "map@10", "precision@3", "recall@10", "mrr", "hits", "num_rel", "coverage@5", "gini@5"]
BATCHES = [1, 2, 3, 7, 50, 10**6]


def _data(seed=0, n_users=40, string_ids=False):
    """Truth and ranked recs as long tables; some truth users have no recs, some recs users no truth,
    some users no relevant item; list lengths 0..12 (0: no rows)."""
    rng = np.random.default_rng(seed)
    tu, ti, tg, ru, ri, rr, rs = [], [], [], [], [], [], []
    for u in range(n_users):
        if u % 9 != 4:  # users 4, 13, ...: recs only
            for item in rng.choice(30, size=rng.integers(1, 6), replace=False):
                tu.append(u)
                ti.append(int(item))
                tg.append(int(rng.integers(0, 3)))
        if u % 7 != 3:  # users 3, 10, ...: truth only
            n = int(rng.integers(1, 13))
            for j, item in enumerate(rng.choice(30, size=n, replace=False)):
                ru.append(u)
                ri.append(int(item))
                rr.append(j + 1)
                rs.append(float(n - j))
    conv = (lambda a: [f"u{x:03d}" for x in a]) if string_ids else (lambda a: a)
    iconv = (lambda a: [f"i{x}" for x in a]) if string_ids else (lambda a: a)
    truth = pa.table({"user_id": conv(tu), "item_id": iconv(ti), "relevance": tg})
    recs = pa.table({"user_id": conv(ru), "item_id": iconv(ri), "rank": rr, "score": rs})
    return truth, recs


def _cat(string_ids=False):
    return [f"i{x}" for x in range(30)] if string_ids else list(range(30))


@pytest.mark.parametrize("string_ids", [False, True])
@pytest.mark.parametrize("missing", ["zero", "skip"])
@pytest.mark.parametrize("batch_rows", BATCHES)
def test_parquet_directory_bit_identical(tmp_path, batch_rows, missing, string_ids):
    truth, recs = _data(seed=batch_rows, string_ids=string_ids)
    d = tmp_path / "recs"
    d.mkdir()
    # several files, small row groups: users are split across record batches AND files
    for i, (a, b) in enumerate([(0, 37), (37, 120), (120, recs.num_rows)]):
        pq.write_table(recs.slice(a, b - a), d / f"part-{i}.parquet", row_group_size=5)
    cat = _cat(string_ids)
    want = rm.evaluate(truth, recs, METRICS, missing=missing, catalog=cat)
    got = rm.evaluate_stream(
        truth, str(d), METRICS, batch_rows=batch_rows, missing=missing, progress=False, catalog=cat
    )
    assert_same_means(got, want, METRICS, meta=COUNTS)
    assert got.meta["n_rows"] == recs.num_rows


@pytest.mark.parametrize("batch_rows", [1, 4, 1000])
def test_csv_and_trec_files_bit_identical(tmp_path, batch_rows):
    truth, recs = _data(seed=3, string_ids=True)
    pacsv.write_csv(recs, tmp_path / "recs.csv")
    want = rm.evaluate(truth, recs, METRICS, catalog=_cat(True))
    got = rm.evaluate_stream(
        truth, str(tmp_path / "recs.csv"), METRICS, batch_rows=batch_rows, progress=False, catalog=_cat(True)
    )
    assert_same_means(got, want, METRICS, meta=COUNTS)
    # TREC: truth as qrels, run with scores (trec_eval preset)
    with open(tmp_path / "qrels", "w") as f:
        for u, i, g in zip(*(truth.column(c).to_pylist() for c in ("user_id", "item_id", "relevance"))):
            f.write(f"{u} 0 {i} {g}\n")
    with open(tmp_path / "run", "w") as f:
        for u, i, r, s in zip(*(recs.column(c).to_pylist() for c in ("user_id", "item_id", "rank", "score"))):
            f.write(f"{u}\tQ0\t{i}\t{r}\t{s}\tx\n")
    want = rm.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), METRICS[:7], preset="trec_eval")
    got = rm.evaluate_stream(str(tmp_path / "qrels"), str(tmp_path / "run"), METRICS[:7], preset="trec_eval")
    assert_same_means(got, want, METRICS[:7], meta=COUNTS)


def test_trec_chunks_split_inside_a_query(tmp_path, monkeypatch):
    import rankmeter.inputs._chunks as chunks

    truth, recs = _data(seed=5, string_ids=True)
    with open(tmp_path / "run", "w") as f:
        for u, i, s in zip(*(recs.column(c).to_pylist() for c in ("user_id", "item_id", "score"))):
            f.write(f"{u} Q0 {i} 0 {s} x\n")
    want = rm.evaluate(truth, str(tmp_path / "run"), METRICS[:7], ties="trec")
    for chunk in (1, 17, 64, 1000):
        monkeypatch.setattr(chunks, "TREC_CHUNK", chunk)  # chunk boundaries inside lines and inside queries
        got = rm.evaluate_stream(truth, str(tmp_path / "run"), METRICS[:7], ties="trec", progress=False)
        assert_same_means(got, want, METRICS[:7], meta=COUNTS)


def test_iterable_of_batches_with_a_user_split_across_them():
    truth = {1: {10: 1, 11: 1}, 2: {20: 1}, 3: {30: 1}}
    b1 = pa.record_batch({"user_id": [1, 1, 2], "item_id": [10, 12, 21], "rank": [1, 2, 1]})
    b2 = pa.record_batch({"user_id": [2, 2, 3], "item_id": [20, 22, 30], "rank": [2, 3, 1]})
    got = rm.evaluate_stream(truth, [b1, b2], ["precision@3", "hits"], batch_rows=1, progress=False)
    want = rm.evaluate(truth, pa.Table.from_batches([b1, b2]), ["precision@3", "hits"])
    assert_same_means(got, want, ["precision@3", "hits"], meta=COUNTS)
    assert got.meta["n_users"] == 3


def test_unsorted_input_is_a_clear_error(tmp_path):
    truth = {1: {10: 1}, 2: {20: 1}}
    t = pa.table({"user_id": [1, 2, 1], "item_id": [10, 20, 11], "rank": [1, 1, 2]})
    pq.write_table(t, tmp_path / "r.parquet")
    with pytest.raises(ValueError, match=r"not grouped by user.*user 1"):
        rm.evaluate_stream(truth, str(tmp_path / "r.parquet"), ["hits"], batch_rows=1, progress=False)
    # a batch big enough to hold everything groups it in memory: the right numbers
    got = rm.evaluate_stream(truth, str(tmp_path / "r.parquet"), ["hits"], batch_rows=100, progress=False)
    assert got["hits"] == rm.evaluate(truth, t, ["hits"])["hits"]


def test_unsorted_input_with_a_rank_column_says_sort_by_user(tmp_path):
    """A user split over batches holds part of its ranks in each: the error names the likely cause first."""
    truth = {1: {10: 1}, 2: {20: 1}}
    t = pa.table({"user_id": [1, 1, 2, 1], "item_id": [10, 11, 20, 12], "rank": [1, 3, 1, 2]})
    pq.write_table(t, tmp_path / "r.parquet")
    with pytest.raises(ValueError, match=r"ranks of user 1 .*sorted \(grouped\) by user.*Sort the input by user"):
        rm.evaluate_stream(truth, str(tmp_path / "r.parquet"), ["hits"], batch_rows=2, progress=False)
    got = rm.evaluate_stream(truth, str(tmp_path / "r.parquet"), ["hits"], batch_rows=100, progress=False)
    assert got["hits"] == rm.evaluate(truth, t, ["hits"])["hits"]


def test_empty_file(tmp_path):
    truth = {1: {10: 1}, 2: {20: 1}}
    (tmp_path / "empty.csv").write_text("user_id,item_id,rank\n")
    got = rm.evaluate_stream(truth, str(tmp_path / "empty.csv"), ["precision@1"], progress=False)
    assert got["precision@1"] == 0.0 and got.meta["n_users"] == 2 and got.meta["n_missing_recs"] == 2
    got = rm.evaluate_stream(truth, str(tmp_path / "empty.csv"), ["precision@1"], missing="skip", progress=False)
    assert math.isnan(got["precision@1"]) and got.meta["n_users"] == 0
    (tmp_path / "empty.run").write_text("")
    got = rm.evaluate_stream(truth, str(tmp_path / "empty.run"), ["precision@1"], progress=False)
    assert got.meta["n_users"] == 2


def test_truncated_parquet_is_a_clear_error(tmp_path):
    _, recs = _data(seed=1)
    pq.write_table(recs, tmp_path / "r.parquet", row_group_size=10)
    data = (tmp_path / "r.parquet").read_bytes()
    for cut in (len(data) // 2, len(data) - 3, 10):
        (tmp_path / "bad.parquet").write_bytes(data[:cut])
        with pytest.raises(ValueError, match=r"bad.parquet"):
            rm.evaluate_stream({0: {1: 1}}, str(tmp_path / "bad.parquet"), ["hits"], progress=False)


def test_csv_with_a_bad_row_is_a_clear_error(tmp_path):
    rows = "user_id,item_id,rank\n" + "".join(f"{u},{u * 10},1\n" for u in range(50)) + "7,oops,x,y\n"
    (tmp_path / "bad.csv").write_text(rows)
    with pytest.raises(ValueError, match=r"bad\.csv.*(column|Expected)"):
        rm.evaluate_stream({"1": {"10": 1}}, str(tmp_path / "bad.csv"), ["hits"], progress=False)
    (tmp_path / "bad2.csv").write_text("user_id,item_id,rank\n1,10,1\n2,20,zero\n")
    with pytest.raises(TypeError, match="'rank' must hold integer ranks"):  # inferred as text
        rm.evaluate_stream({"1": {"10": 1}}, str(tmp_path / "bad2.csv"), ["hits"], progress=False)


def test_per_user_parquet_written_as_it_goes(tmp_path):
    truth, recs = _data(seed=2)
    pq.write_table(recs, tmp_path / "r.parquet", row_group_size=7)
    out = tmp_path / "per_user.parquet"
    got = rm.evaluate_stream(
        truth, str(tmp_path / "r.parquet"), METRICS, batch_rows=10, per_user=str(out), progress=False, catalog=_cat()
    )
    want = rm.evaluate(truth, recs, METRICS, catalog=_cat())
    assert_same_means(got, want, METRICS, meta=COUNTS)
    table = pq.read_table(out)
    assert table.num_rows == want.meta["n_users"]
    order = np.argsort(table.column("user_id").to_numpy())
    ref_order = np.argsort(np.asarray(want.users))
    for name in ("ndcg@5", "hits"):
        np.testing.assert_array_equal(table.column(name).to_numpy()[order], np.asarray(want.per_user[name])[ref_order])
    assert "coverage@5" not in table.schema.names  # catalog-level: one value, no per-user column


def test_bad_arguments():
    with pytest.raises(ValueError, match="batch_rows"):
        rm.evaluate_stream({}, [], ["hits"], batch_rows=0)
    with pytest.raises(TypeError, match="recs"):
        rm.evaluate_stream({}, {1: [2]}, ["hits"])
    with pytest.raises(ValueError, match="no such file"):
        rm.evaluate_stream({}, "/nonexistent/x.parquet", ["hits"])


_PROGRESS_SCRIPT = """
import pyarrow as pa, rankmeter as rm, sys
batches = [pa.record_batch({"user_id": list(range(i * 10, i * 10 + 10)), "item_id": [1] * 10, "rank": [1] * 10})
           for i in range(5)]
res = rm.evaluate_stream({1: {1: 1}}, batches, ["hits"], batch_rows=10, progress=None if sys.argv[1] == "auto" else False)
print("done", res.meta["n_users"])
"""


def _run_on_pty(mode):
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", _PROGRESS_SCRIPT, mode], stdout=subprocess.PIPE, stderr=slave, close_fds=True
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    out, _ = proc.communicate(timeout=60)
    os.close(master)
    return out.decode(), b"".join(chunks).decode("utf-8", "replace")


def test_progress_on_a_terminal_and_not_on_a_pipe():
    out, err = _run_on_pty("auto")
    assert "done 1" in out
    assert "rows/s" in err and "users/s" in err
    out, err = _run_on_pty("off")  # progress=False: silent even on a terminal
    assert "done 1" in out and err == ""
    proc = subprocess.run([sys.executable, "-c", _PROGRESS_SCRIPT, "auto"], capture_output=True, text=True)
    assert proc.returncode == 0 and "done 1" in proc.stdout and proc.stderr == ""  # a pipe: silent


def test_csv_paths_in_the_in_memory_api(tmp_path):
    truth, recs = _data(seed=8, string_ids=True)
    pacsv.write_csv(truth.rename_columns(["u", "i", "relevance"]), tmp_path / "t.csv")
    pacsv.write_csv(
        recs.rename_columns(["u", "i", "rank", "score"]), tmp_path / "r.tsv", pacsv.WriteOptions(delimiter="\t")
    )
    want = rm.evaluate(truth, recs.rename_columns(["user_id", "item_id", "rank", "score"]), METRICS[:6])
    got = rm.evaluate(str(tmp_path / "t.csv"), str(tmp_path / "r.tsv"), METRICS[:6], user_col="u", item_col="i")
    assert all(got[m] == want[m] for m in METRICS[:6])
    streamed = rm.evaluate_stream(
        str(tmp_path / "t.csv"), str(tmp_path / "r.tsv"), METRICS[:6], user_col="u", item_col="i", batch_rows=3
    )
    assert_same_means(streamed, want, METRICS[:6], meta=COUNTS)


def test_id_kinds_that_cannot_match_are_an_error_and_a_metric_object_works(tmp_path):
    t = pa.table({"user_id": [1, 2], "item_id": [10, 20], "rank": [1, 1]})
    with pytest.raises(ValueError, match="different kinds"):
        rm.evaluate_stream({"1": {10: 1}}, [t], ["hits"], progress=False)
    got = rm.evaluate_stream({1: {10: 1}}, [t], rm.metrics.NDCG(k=1), progress=False)
    assert got["ndcg@1"] == 1.0


def test_ranked_fast_path_and_its_fallbacks():
    """Batches grouped and ordered by rank go to CSR directly; anything else takes the table reader."""
    from rankmeter.inputs._chunks import ranked_csr as _ranked_csr

    names = {"user_col": "user_id", "item_col": "item_id", "rank_col": "rank", "score_col": "score"}
    t = pa.table({"user_id": [5, 5, 2, 2, 2], "item_id": [1, 2, 3, 4, 5], "rank": [1, 2, 1, 2, 3]})
    r = _ranked_csr(t, names)
    assert r is not None and r.indptr.tolist() == [0, 2, 5] and r.users.tolist() == [5, 2]
    for bad in (
        {"user_id": [5, 5, 2, 2, 5], "item_id": [1, 2, 3, 4, 5], "rank": [1, 2, 1, 2, 3]},  # 5 in two runs
        {"user_id": [5, 5, 2, 2, 2], "item_id": [1, 2, 3, 4, 5], "rank": [2, 1, 1, 2, 3]},  # not in rank order
        {"user_id": [5, 5, 2, 2, 2], "item_id": [1, 2, 3, 4, 5], "rank": [1, 2, 1, 3, 4]},  # a gap
    ):
        assert _ranked_csr(pa.table(bad), names) is None
    truth = {5: {2: 1}, 2: {3: 1, 5: 2}}
    for table in [t] + [
        pa.table(b)
        for b in (
            {"user_id": [5, 5, 2, 2, 2], "item_id": [1, 2, 3, 4, 5], "rank": [2, 1, 1, 2, 3]},
            {"user_id": [2, 5, 2, 5, 2], "item_id": [3, 1, 4, 2, 5], "rank": [1, 1, 2, 2, 3]},
        )
    ]:
        want = rm.evaluate(truth, table, ["ndcg@3", "ap"])
        got = rm.evaluate_stream(truth, [table], ["ndcg@3", "ap"], progress=False)
        assert_same_means(got, want, ["ndcg@3", "ap"], meta=COUNTS)
