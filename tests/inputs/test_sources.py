"""One classifier of input paths (rankmeter.inputs._sources) for the in-memory readers, the streaming
readers and the ``rankmeter`` command: parquet (a directory or ``.parquet``), CSV (``.csv``/``.tsv``,
optionally ``.gz``, any case), else TREC text."""

from __future__ import annotations

import gzip
import json
import math
from typing import Any

import numpy as np
import pytest

import rankmeter as rm
import rankmeter.cli as cli
import rankmeter.inputs._dispatch as dispatch
import rankmeter.stream as stream
from rankmeter.inputs._sources import classify, csv_delimiter, is_compressed, open_binary, path_size

METRICS = ["ndcg@5", "map@10", "precision@3", "hits"]


@pytest.mark.parametrize(
    "name, kind",
    [
        ("recs.parquet", "parquet"),
        ("recs.csv", "csv"),
        ("recs.tsv", "csv"),
        ("recs.csv.gz", "csv"),
        ("recs.tsv.gz", "csv"),
        ("RECS.CSV", "csv"),  # CSV suffixes in any case
        ("Recs.Tsv.Gz", "csv"),
        ("qrels.txt", "trec"),
        ("qrels", "trec"),  # TREC files have no fixed suffix: anything else is TREC text
        ("run1.run", "trec"),
        ("run.gz", "trec"),
        ("recs.PARQUET", "trec"),  # the parquet suffix is matched as written (lower case)
        ("recs.parquet.gz", "trec"),
        ("recs.json", "trec"),
    ],
)
def test_every_file_name_has_one_kind(tmp_path, name, kind):
    path = tmp_path / name
    path.write_bytes(b"")
    assert classify(str(path)) == kind
    assert classify(path) == kind  # os.PathLike as well as str


def test_a_directory_is_a_parquet_dataset_whatever_its_name(tmp_path):
    for name in ("parts", "recs.csv", "qrels.txt"):
        (tmp_path / name).mkdir()
        assert classify(str(tmp_path / name)) == "parquet"


def test_a_path_that_does_not_exist_is_classified_by_its_name(tmp_path):
    assert classify(str(tmp_path / "missing.parquet")) == "parquet"
    assert classify(str(tmp_path / "missing.tsv")) == "csv"
    assert classify(str(tmp_path / "missing")) == "trec"


def test_something_that_is_not_a_path_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match=r"`recs` must be a path \(str or os.PathLike\), got int"):
        classify(3, "recs")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="`path` must be a path"):
        classify(b"run.csv")  # type: ignore[arg-type]


def test_tsv_names_are_tab_separated_and_csv_names_comma_separated():
    assert csv_delimiter("r.tsv") == "\t"
    assert csv_delimiter("r.TSV.GZ") == "\t"
    assert csv_delimiter("r.csv") == ","
    assert csv_delimiter("r.csv.gz") == ","


def test_a_trec_file_named_gz_is_read_gunzipped(tmp_path):
    text = b"1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n"
    with gzip.open(tmp_path / "run.gz", "wb") as f:
        f.write(text)
    (tmp_path / "run").write_bytes(text)
    assert is_compressed(str(tmp_path / "run.gz")) and not is_compressed(str(tmp_path / "run"))
    for name in ("run.gz", "run"):
        with open_binary(str(tmp_path / name)) as f:
            assert f.read() == text


def test_the_size_of_a_directory_counts_every_file_under_it(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "a.parquet").write_bytes(b"x" * 10)
    (tmp_path / "d" / "sub" / "b.parquet").write_bytes(b"y" * 25)
    assert path_size(str(tmp_path / "d")) == 35
    assert path_size(str(tmp_path / "d" / "a.parquet")) == 10


def test_stream_cli_and_the_in_memory_readers_use_the_one_classifier():
    assert stream.classify is classify
    assert cli.classify is classify
    assert dispatch.classify is classify
    # no copy of the rules is left behind
    assert not hasattr(stream, "_kind") and not hasattr(cli, "input_kind")
    assert not hasattr(rm.inputs._frame, "is_table_path") and not hasattr(rm.inputs._frame, "is_csv_path")


# ----------------------------------------------------------------- every reader reads what the classifier says
def _data():
    """Truth as a dict and ranked recs as a long table (string ids, grouped by user; scores fall with rank)."""
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(3)
    truth: dict = {}
    ru, ri, rr, rs = [], [], [], []
    for u in range(25):
        user = f"u{u:02d}"
        if u % 6 != 2:  # users 2, 8, ...: recs only
            truth[user] = {f"i{int(i)}": int(rng.integers(0, 3)) for i in rng.choice(20, 4, replace=False)}
        if u % 5 != 1:  # users 1, 6, ...: truth only
            n = int(rng.integers(1, 9))
            for j, item in enumerate(rng.choice(20, n, replace=False)):
                ru.append(user)
                ri.append(f"i{int(item)}")
                rr.append(j + 1)
                rs.append(float(n - j))
    return truth, pa.table({"user_id": ru, "item_id": ri, "rank": rr, "score": rs})


def _write_sources(tmp_path, truth, recs):
    """The recs as a directory of parquet parts named like a CSV file, a gzipped TSV in capitals and a
    gzipped TREC run; the truth as a TREC qrels file without a suffix."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    with open(tmp_path / "qrels", "w") as f:
        for user, grades in truth.items():
            for item, g in grades.items():
                f.write(f"{user} 0 {item} {g}\n")
    parts = tmp_path / "recs.csv"
    parts.mkdir()
    half = recs.num_rows // 2
    while recs.column("user_id")[half - 1] == recs.column("user_id")[half]:
        half += 1  # parts split between users
    pq.write_table(recs.slice(0, half), parts / "part-0.parquet")
    pq.write_table(recs.slice(half), parts / "part-1.parquet")
    with gzip.open(tmp_path / "recs.TSV.gz", "wb") as f:
        pacsv.write_csv(recs, f, pacsv.WriteOptions(delimiter="\t"))
    with gzip.open(tmp_path / "run.gz", "wt") as f:
        for u, i, r, s in zip(*(recs.column(c).to_pylist() for c in ("user_id", "item_id", "rank", "score"))):
            f.write(f"{u} Q0 {i} {r} {s} x\n")
    return {"parquet": parts, "csv": tmp_path / "recs.TSV.gz", "trec": tmp_path / "run.gz"}


def test_in_memory_streaming_and_the_command_read_every_kind_of_path_alike(tmp_path, capsys):
    truth, recs = _data()
    want = rm.evaluate(truth, recs, METRICS)
    n_ret = int(np.isin(np.asarray(recs.column("user_id").to_pylist()), list(want.users)).sum())
    paths = _write_sources(tmp_path, truth, recs)
    qrels = str(tmp_path / "qrels")
    assert classify(qrels) == "trec"
    for kind, path in paths.items():
        assert classify(str(path)) == kind
        got: dict[str, Any] = {
            "evaluate": rm.evaluate(qrels, str(path), METRICS),
            "evaluate_stream": rm.evaluate_stream(qrels, str(path), METRICS, batch_rows=7, progress=False),
        }
        for how, res in got.items():
            for name in METRICS:
                assert res[name] == want[name] or (math.isnan(res[name]) and math.isnan(want[name])), (kind, how, name)
        for extra in ([], ["--stream", "--batch-rows", "5", "--no-progress"]):
            code = cli.main(["eval", qrels, str(path), "-m", *METRICS, "--preset", "none", "--format", "json", *extra])
            out, err = capsys.readouterr()
            assert code == 0, (kind, extra, err)
            (doc,) = json.loads(out).values()
            for name in METRICS:
                assert doc["all"][name] == want[name], (kind, extra, name)
        # num_ret (in memory only): the lengths of the lists as read, whatever the kind of file
        code = cli.main(["eval", qrels, str(path), "-m", "num_ret", "--preset", "none", "--format", "json"])
        out, err = capsys.readouterr()
        assert code == 0, (kind, err)
        (doc,) = json.loads(out).values()
        assert doc["all"]["num_ret"] == n_ret, kind
