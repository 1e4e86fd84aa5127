"""evaluate_stream(stream_truth=...): the truth streamed alongside the recs (a merge join of both sorted by
user) gives rm.evaluate's in-memory numbers bit for bit, or a clear error naming the user."""

from __future__ import annotations

import gzip
import math
import sys

import numpy as np
import pytest

import rankmeter as rm
import rankmeter.inputs._chunks as chunks
import rankmeter.stream as st
from tests.support.same import COUNTS, assert_same_means

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pacsv = pytest.importorskip("pyarrow.csv")

METRICS = ["ndcg@5", "map@10", "precision@3", "recall@10", "mrr", "hits", "num_rel", "coverage@5", "gini@5"]
SIZES = [1, 2, 3, 7, 50, 10**6]


def _data(seed=0, n_users=40, string_ids=False, lead_truth=0, tail_recs=0):
    """Truth and ranked recs, both sorted by user: users 3, 10, 17, ... only in the truth, users 4, 13, ...
    only in the recs; ``lead_truth`` more truth-only users first, ``tail_recs`` more recs-only users last."""
    rng = np.random.default_rng(seed)
    tu, ti, tg, ru, ri, rr, rs = [], [], [], [], [], [], []
    for u in range(-lead_truth, n_users + tail_recs):
        if u < n_users and (u < 0 or u % 9 != 4):
            for item in rng.choice(30, size=rng.integers(1, 6), replace=False):
                tu.append(u)
                ti.append(int(item))
                tg.append(int(rng.integers(0, 3)))
        if u >= 0 and u % 7 != 3:
            n = int(rng.integers(1, 13))
            for j, item in enumerate(rng.choice(30, size=n, replace=False)):
                ru.append(u)
                ri.append(int(item))
                rr.append(j + 1)
                rs.append(float(n - j))
    # string ids sort as text: the offset keeps text order and numeric order the same
    conv = (lambda a: [f"u{x + 1000:05d}" for x in a]) if string_ids else (lambda a: [x * 1000003 for x in a])
    iconv = (lambda a: [f"i{x}" for x in a]) if string_ids else (lambda a: a)
    truth = pa.table({"user_id": conv(tu), "item_id": iconv(ti), "relevance": tg})
    recs = pa.table({"user_id": conv(ru), "item_id": iconv(ri), "rank": rr, "score": rs})
    return truth, recs


def _cat(string_ids):
    return [f"i{x}" for x in range(30)] if string_ids else list(range(30))


@pytest.mark.parametrize("string_ids", [False, True])
@pytest.mark.parametrize("missing", ["zero", "skip"])
@pytest.mark.parametrize("truth_rows", SIZES)
def test_parquet_both_streamed_bit_identical(tmp_path, truth_rows, missing, string_ids):
    truth, recs = _data(seed=truth_rows, string_ids=string_ids, lead_truth=3, tail_recs=2)
    for name, table, cuts in (("truth", truth, (0, 11, 40)), ("recs", recs, (0, 37, 120))):
        d = tmp_path / name
        d.mkdir()
        # several files, small row groups: users split across record batches and files on both sides
        bounds = [*cuts, table.num_rows]
        for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            pq.write_table(table.slice(a, b - a), d / f"part-{i}.parquet", row_group_size=4)
    cat = _cat(string_ids)
    want = rm.evaluate(truth, recs, METRICS, missing=missing, catalog=cat)
    for recs_rows in SIZES:
        got = rm.evaluate_stream(
            str(tmp_path / "truth"),
            str(tmp_path / "recs"),
            METRICS,
            batch_rows=recs_rows,
            truth_batch_rows=truth_rows,
            missing=missing,
            stream_truth=True,
            progress=False,
            catalog=cat,
        )
        assert_same_means(got, want, METRICS, meta=COUNTS)
        assert got.meta["truth_streamed"] and got.meta["n_rows"] == recs.num_rows


@pytest.mark.parametrize("sizes", [(1, 1), (3, 5), (1000, 2)])
def test_iterables_of_batches_and_users_missing_from_either_side(sizes):
    truth, recs = _data(seed=11, lead_truth=5, tail_recs=4)
    for missing in ("zero", "skip"):
        want = rm.evaluate(truth, recs, METRICS, missing=missing, catalog=_cat(False))
        got = rm.evaluate_stream(
            truth.to_batches(max_chunksize=3),
            recs.to_batches(max_chunksize=4),
            METRICS,
            batch_rows=sizes[0],
            truth_batch_rows=sizes[1],
            missing=missing,
            stream_truth=True,
            progress=False,
            catalog=_cat(False),
        )
        assert_same_means(got, want, METRICS, meta=COUNTS)


def test_disjoint_and_empty_sides():
    t = pa.table({"user_id": [1, 1, 2, 50], "item_id": [1, 2, 3, 4], "relevance": [1, 1, 1, 1]})
    r = pa.table({"user_id": [60, 60, 70], "item_id": [1, 2, 3], "rank": [1, 2, 1]})
    empty_t, empty_r = t.slice(0, 0), r.slice(0, 0)
    with pytest.raises(ValueError, match="no `recs` user matches a `truth` user"):
        rm.evaluate(t, r, ["hits"])
    for b in (1, 100):  # as in memory: no user in common is surely a mistake
        with pytest.raises(ValueError, match="no `recs` user matches a `truth` user"):
            rm.evaluate_stream([t], [r], ["hits"], batch_rows=b, stream_truth=True, progress=False)
    for tt, rr in ((empty_t, r), (t, empty_r)):
        for missing in ("zero", "skip"):
            want = rm.evaluate(tt, rr, ["hits", "precision@2"], missing=missing)
            for b in (1, 2, 100):
                got = rm.evaluate_stream(
                    [tt],
                    [rr],
                    ["hits", "precision@2"],
                    batch_rows=b,
                    missing=missing,
                    stream_truth=True,
                    progress=False,
                )
                assert_same_means(got, want, ["hits", "precision@2"], meta=COUNTS)
    got = rm.evaluate_stream([empty_t], [empty_r], ["hits"], stream_truth=True, progress=False)
    assert got.meta["n_users"] == 0 and math.isnan(got["hits"])


@pytest.mark.parametrize("chunk", [1, 13, 64, 10**6])
def test_trec_qrels_and_run_streamed(tmp_path, monkeypatch, chunk):
    truth, recs = _data(seed=4, string_ids=True, lead_truth=2, tail_recs=2)
    with gzip.open(tmp_path / "qrels.gz", "wt") as f:
        for u, i, g in zip(*(truth.column(c).to_pylist() for c in ("user_id", "item_id", "relevance"))):
            f.write(f"{u} 0 {i} {g}\n")
    with open(tmp_path / "run", "w") as f:
        for u, i, r, s in zip(*(recs.column(c).to_pylist() for c in ("user_id", "item_id", "rank", "score"))):
            f.write(f"{u}\tQ0\t{i}\t{r}\t{s}\tx\n")
    names = METRICS[:7]
    want = rm.evaluate(str(tmp_path / "qrels.gz"), str(tmp_path / "run"), names, preset="trec_eval", missing="zero")
    monkeypatch.setattr(chunks, "TREC_CHUNK", chunk)  # chunk boundaries inside lines and queries, on both files
    got = rm.evaluate_stream(
        str(tmp_path / "qrels.gz"),
        str(tmp_path / "run"),
        names,
        preset="trec_eval",
        missing="zero",
        stream_truth=True,
        progress=False,
    )
    assert_same_means(got, want, names, meta=COUNTS)


def test_csv_truth_streamed_with_parquet_recs(tmp_path):
    truth, recs = _data(seed=6, string_ids=True)
    pacsv.write_csv(truth.rename_columns(["u", "i", "relevance"]), tmp_path / "t.csv")
    pq.write_table(recs.rename_columns(["u", "i", "rank", "score"]), tmp_path / "r.parquet", row_group_size=5)
    want = rm.evaluate(truth, recs, METRICS[:7])
    got = rm.evaluate_stream(
        str(tmp_path / "t.csv"),
        str(tmp_path / "r.parquet"),
        METRICS[:7],
        user_col="u",
        item_col="i",
        batch_rows=3,
        truth_batch_rows=2,
        stream_truth=True,
        progress=False,
    )
    assert_same_means(got, want, METRICS[:7], meta=COUNTS)


def test_per_user_values_with_a_streamed_truth(tmp_path):
    truth, recs = _data(seed=2)
    out = tmp_path / "per_user.parquet"
    want = rm.evaluate(truth, recs, ["ndcg@5", "hits"])
    got = rm.evaluate_stream(
        [truth], [recs], ["ndcg@5", "hits"], batch_rows=5, stream_truth=True, per_user=str(out), progress=False
    )
    assert_same_means(got, want, ["ndcg@5", "hits"], meta=COUNTS)
    table = pq.read_table(out)
    assert table.num_rows == want.meta["n_users"]
    order, ref = np.argsort(table.column("user_id").to_numpy()), np.argsort(np.asarray(want.users))
    np.testing.assert_array_equal(table.column("ndcg@5").to_numpy()[order], np.asarray(want.per_user["ndcg@5"])[ref])


@pytest.mark.parametrize("batch", [1, 2, 100])
def test_unsorted_truth_is_an_error_naming_the_user(batch):
    r = pa.table({"user_id": [1, 2, 3], "item_id": [1, 2, 3], "rank": [1, 1, 1]})
    for users, bad, before in (
        ([1, 3, 2], 2, 3),  # out of order
        (["b", "a"], "a", "b"),
        ([1, 2, 1], 1, 2),  # user 1 again after user 2: not even grouped
    ):
        t = pa.table({"user_id": users, "item_id": list(range(len(users)))})
        rr = r if isinstance(users[0], int) else r.set_column(0, "user_id", pa.array(["a", "b", "c"]))
        if users == [1, 2, 1] and batch >= 3:
            # rows of one user apart inside one batch are grouped, as in memory: the same numbers
            got = rm.evaluate_stream([t], [rr], ["hits"], batch_rows=batch, stream_truth=True, progress=False)
            assert_same_means(got, rm.evaluate(t, rr, ["hits"]), ["hits"], meta=COUNTS)
            continue
        with pytest.raises(
            ValueError, match=rf"`truth` is not sorted by user: user {bad!r} comes after user {before!r}"
        ):
            rm.evaluate_stream([t], [rr], ["hits"], batch_rows=batch, stream_truth=True, progress=False)


def test_unsorted_recs_is_an_error_when_the_truth_is_streamed(tmp_path):
    t = pa.table({"user_id": [1, 2, 3], "item_id": [1, 2, 3]})
    r = pa.table({"user_id": [3, 3, 1, 2], "item_id": [1, 2, 3, 4], "rank": [1, 2, 1, 1]})  # grouped, not sorted
    with pytest.raises(ValueError, match=r"`recs` is not sorted by user: user 1 comes after user 3"):
        rm.evaluate_stream([t], [r], ["hits"], batch_rows=1, stream_truth=True, progress=False)
    # the truth loaded in memory: grouped recs are enough
    got = rm.evaluate_stream(t, [r], ["hits"], batch_rows=1, stream_truth=False, progress=False)
    assert got["hits"] == rm.evaluate(t, r, ["hits"])["hits"]
    with open(tmp_path / "run", "w") as f:  # a TREC run: text order, "10" before "9"
        f.write("9 Q0 a 1 1 x\n10 Q0 b 1 1 x\n")
    with open(tmp_path / "qrels", "w") as f:
        f.write("10 0 b 1\n9 0 a 1\n")
    with pytest.raises(ValueError, match=r"`recs` is not sorted by user: user '10' comes after user '9'.*LC_ALL=C"):
        rm.evaluate_stream(str(tmp_path / "qrels"), str(tmp_path / "run"), ["hits"], stream_truth=True, progress=False)


def test_id_kinds_that_cannot_match():
    t = pa.table({"user_id": ["1"], "item_id": [1]})
    r = pa.table({"user_id": [1], "item_id": [1], "rank": [1]})
    with pytest.raises(ValueError, match="different kinds"):
        rm.evaluate_stream([t], [r], ["hits"], stream_truth=True, progress=False)


def test_auto_streams_a_large_truth_file_only(tmp_path, monkeypatch):
    truth, recs = _data(seed=9)
    pq.write_table(truth, tmp_path / "t.parquet")
    pq.write_table(recs, tmp_path / "r.parquet")
    want = rm.evaluate(truth, recs, METRICS[:6])
    got = rm.evaluate_stream(str(tmp_path / "t.parquet"), str(tmp_path / "r.parquet"), METRICS[:6], progress=False)
    assert not got.meta["truth_streamed"]  # small: loaded once
    assert_same_means(got, want, METRICS[:6], meta=COUNTS)
    monkeypatch.setattr(st, "TRUTH_IN_MEMORY_MAX", 100)
    got = rm.evaluate_stream(
        str(tmp_path / "t.parquet"), str(tmp_path / "r.parquet"), METRICS[:6], batch_rows=4, progress=False
    )
    assert got.meta["truth_streamed"]
    assert_same_means(got, want, METRICS[:6], meta=COUNTS)
    shuffled = truth.take(np.random.default_rng(0).permutation(truth.num_rows))
    pq.write_table(shuffled, tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=r"not sorted by user.*stream_truth=False loads it in memory"):
        rm.evaluate_stream(str(tmp_path / "t.parquet"), str(tmp_path / "r.parquet"), ["hits"], progress=False)
    got = rm.evaluate_stream(
        str(tmp_path / "t.parquet"), str(tmp_path / "r.parquet"), METRICS[:6], stream_truth=False, progress=False
    )
    assert_same_means(got, want, METRICS[:6], meta=COUNTS)


def test_bad_arguments():
    with pytest.raises(ValueError, match="stream_truth"):
        rm.evaluate_stream({}, [], ["hits"], stream_truth="yes")
    with pytest.raises(TypeError, match="stream_truth=True"):
        rm.evaluate_stream({1: {1: 1}}, [], ["hits"], stream_truth=True)
    with pytest.raises(ValueError, match="truth_batch_rows"):
        rm.evaluate_stream([], [], ["hits"], stream_truth=True, truth_batch_rows=0)
    with pytest.raises(ValueError, match="no such file"):
        rm.evaluate_stream("/nonexistent/t.parquet", [], ["hits"], stream_truth=True)
    with pytest.raises(TypeError, match="`truth` iterable"):
        rm.evaluate_stream([1, 2], [], ["hits"], stream_truth=True, progress=False)


def test_the_truth_is_read_in_step_with_the_recs():
    """Memory bound: the truth reader never runs ahead of the recs by more than one batch of users."""
    n_users, per = 400, 5
    log = []

    def truth_batches():
        for start in range(0, n_users, 10):  # 10 users x 5 rows a batch
            log.append(("truth", start))
            users = np.repeat(np.arange(start, start + 10), per)
            yield pa.record_batch({"user_id": users, "item_id": np.tile(np.arange(per), 10)})

    def recs_batches():
        for start in range(0, n_users, 10):
            log.append(("recs", start))
            users = np.repeat(np.arange(start, start + 10), per)
            yield pa.record_batch(
                {"user_id": users, "item_id": np.tile(np.arange(per), 10), "rank": np.tile(np.arange(1, per + 1), 10)}
            )

    got = rm.evaluate_stream(
        truth_batches(), recs_batches(), ["hits"], batch_rows=50, truth_batch_rows=50, stream_truth=True, progress=False
    )
    assert got["hits"] == per and got.meta["n_users"] == n_users
    last_recs = -1
    for side, start in log:
        if side == "recs":
            last_recs = start
        else:
            assert start <= last_recs + 30, (start, last_recs)  # a batch or two of lookahead, never the whole file


_RSS_SCRIPT = """
import sys
import numpy as np, pyarrow as pa, rankmeter as rm
n_users, stream = int(sys.argv[1]), sys.argv[2] == "stream"
per, chunk = 10, 20_000  # rows per user; users per generated batch

def batches(kind):
    for start in range(0, n_users, chunk):
        users = np.repeat(np.arange(start, min(start + chunk, n_users), dtype=np.int64), per)
        items = (users * 7 + np.tile(np.arange(per), users.size // per)) % 100_003
        cols = {"user_id": users, "item_id": items}
        if kind == "recs":
            cols["rank"] = np.tile(np.arange(1, per + 1, dtype=np.int64), users.size // per)
            items[::3] += 200_000  # not every item relevant
        yield pa.record_batch(cols)

truth = batches("truth") if stream else pa.Table.from_batches(list(batches("truth")))
res = rm.evaluate_stream(truth, batches("recs"), ["ndcg@10", "hits"], batch_rows=200_000,
                         stream_truth=stream, progress=False)
assert res.meta["n_users"] == n_users
# VmHWM, not ru_maxrss: that one keeps the RSS the process had before exec, i.e. pytest's
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")) // 1024)
"""


def _peak_mib(n_users: int, mode: str) -> int:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT, str(n_users), mode], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads VmHWM from /proc/self/status (Linux)")
def test_peak_memory_does_not_grow_with_a_streamed_truth():
    """Both inputs generated batch by batch: with the truth streamed, 4x the data (2M -> 8M rows a side)
    leaves peak RSS where it was; with the truth held in memory it grows with the truth."""
    small, big = _peak_mib(200_000, "stream"), _peak_mib(800_000, "stream")
    held = _peak_mib(800_000, "memory")
    assert big <= small * 1.15 + 40, (small, big)
    assert held > big + 60, (held, big)  # the contrast: the same data with the truth loaded


def test_seeded_random_merge_joins():
    """Random users on either side or both, random list lengths (0 rows too), random batch sizes on both
    streams, int and str ids: always rm.evaluate's numbers."""
    rng = np.random.default_rng(2026)
    names = ["ndcg@3", "ap", "precision@2", "recall@5", "rr", "hits", "coverage@3"]
    checked = 0
    for trial in range(30):
        n = int(rng.integers(1, 25))
        ids = np.sort(rng.choice(10**6, size=n, replace=False))
        in_truth, in_recs = rng.random(n) < 0.8, rng.random(n) < 0.8
        tu, ti, tg, ru, ri, rk = [], [], [], [], [], []
        for u, t_here, r_here in zip(ids.tolist(), in_truth, in_recs):
            if t_here:
                for item in rng.choice(12, size=int(rng.integers(1, 5)), replace=False).tolist():
                    tu.append(u)
                    ti.append(item)
                    tg.append(int(rng.integers(0, 3)))
            if r_here:
                for j, item in enumerate(rng.choice(12, size=int(rng.integers(1, 7)), replace=False).tolist()):
                    ru.append(u)
                    ri.append(item)
                    rk.append(j + 1)
        if not tu or not ru or not set(tu) & set(ru):
            continue
        conv = (lambda a: [f"{x:07d}" for x in a]) if trial % 2 else (lambda a: a)
        truth = pa.table({"user_id": conv(tu), "item_id": ti, "relevance": tg})
        recs = pa.table({"user_id": conv(ru), "item_id": ri, "rank": rk})
        missing = ("zero", "skip")[trial % 3 == 0]
        want = rm.evaluate(truth, recs, names, missing=missing, catalog=list(range(12)))
        got = rm.evaluate_stream(
            truth.to_batches(max_chunksize=int(rng.integers(1, 6))),
            recs.to_batches(max_chunksize=int(rng.integers(1, 6))),
            names,
            batch_rows=int(rng.integers(1, 12)),
            truth_batch_rows=int(rng.integers(1, 12)),
            missing=missing,
            stream_truth=True,
            progress=False,
            catalog=list(range(12)),
        )
        assert_same_means(got, want, names, meta=COUNTS)
        checked += 1
    assert checked >= 20
