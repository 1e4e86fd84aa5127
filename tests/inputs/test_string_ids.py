"""String ids coded once (issue 16 item 4): tables and TREC files with string ids give exactly the
results of the same data with int ids, whatever the column's encoding, and TREC runs are ranked by
(score desc, docno desc) on codes that compare as the docnos.

The references are plain: the same data with int64 ids (every result bit-identical), and for TREC
ranking a Python ``sorted`` on (score, docno) fed as ready-ranked lists.
"""

from __future__ import annotations

import gzip
import math
from typing import Any, cast

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.inputs import Recs, Truth
from rankmeter.inputs._ids import Coded, code_arrow, factorize_items
from tests.support.same import COUNTS, assert_same_means

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

METRICS = ["ndcg@5", "map@10", "precision@3", "recall@10", "mrr", "hit_rate@2", "ndcg"]

# awkward ids: non-ASCII of 1-4 UTF-8 bytes, the empty string, a prefix of another, very long ids,
# ids sharing a long prefix (so an 8-byte chunk never decides), ids that look like ints
SPECIAL = ["", "é", "z", "日本", "😀", "a", "ab", "a b", "0", "1", "01", "x" * 5000, "x" * 5001, "x" * 4999 + "y"]


def _names(rng, n: int, prefix: str) -> list:
    """n distinct awkward string ids."""
    base = list(SPECIAL) + [f"{prefix}{i}" for i in range(n)] + [f"clueweb09-en{i:010d}-{prefix}" for i in range(n)]
    out = list(dict.fromkeys(base))
    rng.shuffle(out)
    return out[:n]


def _workload(seed: int, n_users: int = 40, n_items: int = 60):
    """(truth rows, recs rows) as int ids: truth (user, item, grade), recs (user, item, rank, score)."""
    rng = np.random.default_rng(seed)
    t_rows, r_rows = [], []
    for u in rng.permutation(n_users).tolist():
        k_t = int(rng.integers(0, 8))
        for it in rng.choice(n_items, k_t, replace=False).tolist():
            t_rows.append((u, it, float(rng.integers(0, 4))))
        k_r = int(rng.integers(0, 12))
        if u % 7 == 3:
            k_r = 0  # users without recs (missing)
        items = rng.choice(n_items + 10, k_r, replace=False).tolist()  # some items only in recs
        scores = np.round(rng.random(k_r) * 3, 1).tolist()  # ties
        for pos, (it, s) in enumerate(zip(items, scores)):
            r_rows.append((u, it, pos + 1, s))
    # extra recs users absent from the truth (ignored)
    r_rows += [(n_users + 1, 0, 1, 1.0), (n_users + 1, 5, 2, 0.5)]
    return t_rows, r_rows


def _int_tables(t_rows, r_rows):
    truth = pa.table(
        {
            "user_id": pa.array([r[0] for r in t_rows], pa.int64()),
            "item_id": pa.array([r[1] for r in t_rows], pa.int64()),
            "relevance": pa.array([r[2] for r in t_rows], pa.float64()),
        }
    )
    recs = pa.table(
        {
            "user_id": pa.array([r[0] for r in r_rows], pa.int64()),
            "item_id": pa.array([r[1] for r in r_rows], pa.int64()),
            "rank": pa.array([r[2] for r in r_rows], pa.int64()),
            "score": pa.array([r[3] for r in r_rows], pa.float64()),
        }
    )
    return truth, recs


def _encode(values: list, how: str):
    """A pyarrow column of the string ids in one of the encodings a reader meets."""
    if how == "string":
        return pa.array(values, pa.string())
    if how == "large_string":
        return pa.array(values, pa.large_string())
    if how == "chunked":
        h = len(values) // 2
        return pa.chunked_array([pa.array(values[:h], pa.string()), pa.array(values[h:], pa.string())])
    if how == "dictionary":
        return pc.dictionary_encode(pa.array(values, pa.string()))
    if how == "dictionary_messy":
        # a dictionary with repeats, unused entries and an order unrelated to the rows
        uniq = sorted(set(values), reverse=True)
        dictionary = [*uniq, "never-used", uniq[0] if uniq else "never-used"]
        index = {v: i for i, v in enumerate(uniq)}
        idx = [index[v] if j % 3 else (len(dictionary) - 1 if v == uniq[0] else index[v]) for j, v in enumerate(values)]
        return pa.DictionaryArray.from_arrays(pa.array(idx, pa.int32()), pa.array(dictionary, pa.string()))
    if how == "chunked_dictionaries":
        h = len(values) // 2
        a = pc.dictionary_encode(pa.array(values[:h], pa.string()))
        b = pc.dictionary_encode(pa.array(values[h:], pa.large_string()).cast(pa.string()))
        return pa.chunked_array([a, b])
    raise AssertionError(how)


def _string_tables(t_rows, r_rows, users, items, how):
    truth = pa.table(
        {
            "user_id": _encode([users[r[0]] for r in t_rows], how),
            "item_id": _encode([items[r[1]] for r in t_rows], how),
            "relevance": pa.array([r[2] for r in t_rows], pa.float64()),
        }
    )
    recs = pa.table(
        {
            "user_id": _encode([users[r[0]] for r in r_rows], how),
            "item_id": _encode([items[r[1]] for r in r_rows], how),
            "rank": pa.array([r[2] for r in r_rows], pa.int64()),
            "score": pa.array([r[3] for r in r_rows], pa.float64()),
        }
    )
    return truth, recs


ENCODINGS = ["string", "large_string", "chunked", "dictionary", "dictionary_messy", "chunked_dictionaries"]


@pytest.mark.parametrize("how", ENCODINGS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_arrow_string_ids_equal_int_ids(how, seed):
    t_rows, r_rows = _workload(seed)
    rng = np.random.default_rng(100 + seed)
    users = _names(rng, 50, "u")
    items = _names(rng, 80, "i")
    ti, ri = _int_tables(t_rows, r_rows)
    ts, rs = _string_tables(t_rows, r_rows, users, items, how)
    options: list[dict[str, Any]] = [{}, {"missing": "skip"}, {"preset": "trec_eval"}]
    for kw in options:
        want = rm.evaluate(ti, ri, METRICS, **kw)
        got = rm.evaluate(ts, rs, METRICS, **kw)
        assert_same_means(got, want, meta=COUNTS)
        # per-user values in the same user order, users mapped to their names
        assert [users[u] for u in want.users.tolist()] == list(got.users)
        for m in METRICS:
            np.testing.assert_array_equal(want.per_user[m], got.per_user[m])
    # ranked by score (no rank column): ties by docno order
    for ties in ("input", "trec", "item_desc"):
        want = rm.evaluate(ti, ri.drop_columns(["rank"]), METRICS, ties="input")
        got = rm.evaluate(ts, rs.drop_columns(["rank"]), METRICS, ties="input")
        assert_same_means(got, want, meta=COUNTS)
        # the reference for the string order: dicts of str -> score (the object-id path)
        d_truth: dict = {users[u]: {} for u, _, _ in t_rows}
        for u, i, g in t_rows:
            d_truth[users[u]][items[i]] = g
        d_recs: dict = {}
        for u, i, _, s in r_rows:
            d_recs.setdefault(users[u], {})[items[i]] = s
        assert_same_means(
            rm.evaluate(ts, rs.drop_columns(["rank"]), METRICS, ties=ties),
            rm.evaluate(d_truth, d_recs, METRICS, ties=ties),
            meta=COUNTS,
        )


def test_string_ids_are_coded_once_not_per_row():
    """A table's string column reaches the containers as codes: the id array itself is only made on demand."""
    t_rows, r_rows = _workload(3)
    rng = np.random.default_rng(3)
    users, items = _names(rng, 50, "u"), _names(rng, 80, "i")
    ts, rs = _string_tables(t_rows, r_rows, users, items, "string")
    t = Truth.from_frame(ts)
    r = Recs.from_frame(rs)
    assert isinstance(t.coded, Coded) and isinstance(r.coded, Coded)
    assert t._items is None and r._items is None  # not materialized yet
    assert len(set(r.coded.labels.tolist())) == r.coded.labels.size  # distinct labels
    # the ids, on demand: the table's ids grouped by user
    want = [items[i] for u in dict.fromkeys(x[0] for x in r_rows) for (uu, i, _, _) in r_rows if uu == u]
    assert r.items.tolist() == want
    rm.evaluate(t, r, METRICS)
    assert t.n_entries == len(t_rows) and r.n_entries == len(r_rows)


def test_pandas_and_polars_string_columns():
    pytest.importorskip("pandas")
    t_rows, r_rows = _workload(4)
    rng = np.random.default_rng(4)
    users, items = _names(rng, 50, "u"), _names(rng, 80, "i")
    ti, ri = _int_tables(t_rows, r_rows)
    want = rm.evaluate(ti, ri, METRICS)
    ts, rs = _string_tables(t_rows, r_rows, users, items, "string")
    frames = []
    t_obj, r_obj = ts.to_pandas(), rs.to_pandas()
    for col in ("user_id", "item_id"):
        t_obj[col] = t_obj[col].astype(object)
        r_obj[col] = r_obj[col].astype(object)
    frames.append((t_obj, r_obj))
    frames.append(
        (
            t_obj.astype({"user_id": "string", "item_id": "string"}),
            r_obj.astype({"user_id": "string", "item_id": "string"}),
        )
    )
    frames.append(
        (
            t_obj.astype({"user_id": "category", "item_id": "category"}),
            r_obj.astype({"user_id": "category", "item_id": "category"}),
        )
    )
    try:
        import polars as pl

        frames.append((pl.from_arrow(ts), pl.from_arrow(rs)))
        frames.append(
            (
                cast(Any, pl.from_arrow(ts)).with_columns(pl.col("item_id").cast(pl.Categorical)),
                cast(Any, pl.from_arrow(rs)).with_columns(pl.col("item_id").cast(pl.Categorical)),
            )
        )
    except ImportError:
        pass
    for t, r in frames:
        assert_same_means(rm.evaluate(t, r, METRICS), want, meta=COUNTS)
    # mixing forms: a pandas truth against an arrow recs, a dict truth against a table
    assert_same_means(rm.evaluate(frames[0][0], rs, METRICS), want, meta=COUNTS)
    d_truth: dict = {}
    for u, i, g in t_rows:
        d_truth.setdefault(users[u], {})[items[i]] = g
    assert_same_means(rm.evaluate(d_truth, rs, METRICS), want, meta=COUNTS)


def test_object_column_of_mixed_ids_is_checked_per_id():
    pd = pytest.importorskip("pandas")
    n = 3000  # above the size where pandas' type inference is used
    good = pd.DataFrame({"user_id": ["u"] * n, "item_id": [f"i{j}" for j in range(n)], "relevance": 1.0})
    assert rm.Truth.from_frame(good).n_entries == n
    bad = good.copy()
    bad["item_id"] = bad["item_id"].astype(object)
    bad.loc[5, "item_id"] = 1.5
    with pytest.raises(TypeError, match="item_id"):
        rm.Truth.from_frame(bad)
    ints = good.copy()
    ints["item_id"] = pd.Series(range(n), dtype=object)
    t = rm.Truth.from_frame(ints)
    assert t.items.dtype == np.int64  # an object column of ints stays ints


def test_string_errors_name_users_and_items():
    truth = pa.table({"user_id": ["ü", "ü"], "item_id": ["a", "a"], "relevance": [1.0, 2.0]})
    recs = pa.table({"user_id": ["ü"], "item_id": ["a"], "rank": [1]})
    with pytest.raises(ValueError, match=r"'a'.*'ü'|'ü'.*'a'"):
        rm.evaluate(truth, recs, ["ndcg@5"])
    recs = pa.table({"user_id": ["ü", "ü"], "item_id": ["a", "b"], "rank": [1, 3]})
    with pytest.raises(ValueError, match=r"ranks of user 'ü'.*n = 2"):
        rm.evaluate(truth.slice(0, 1), recs, ["ndcg@5"])
    recs = pa.table({"user_id": ["ü"], "item_id": ["b"], "score": [math.inf]})
    with pytest.raises(ValueError, match="user 'ü', item 'b'"):
        rm.evaluate(truth.slice(0, 1), recs, ["ndcg@5"])
    recs = pa.table({"user_id": ["ü"], "item_id": pa.array([7], pa.int64()), "rank": [1]})
    with pytest.raises(ValueError, match="different kinds"):
        rm.evaluate(truth.slice(0, 1), recs, ["ndcg@5"])


def test_factorize_items_shares_one_code_space():
    a = Coded(np.array([0, 1, 0, 2]), np.array(["x", "", "é"], dtype=object))
    b = Coded(np.array([1, 1, 0]), np.array(["zz", "é"], dtype=object))
    c = np.array(["x", "new", "zz"], dtype=object)
    (ca, cb, cc), labels = factorize_items(a, b, c)
    assert labels[ca].tolist() == ["x", "", "x", "é"]
    assert labels[cb].tolist() == ["é", "é", "zz"]
    assert labels[cc].tolist() == ["x", "new", "zz"]
    assert len(set(labels.tolist())) == labels.size
    empty = Coded(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object))
    (ce, ca2), labels2 = factorize_items(empty, a)
    assert ce.size == 0 and labels2[ca2].tolist() == ["x", "", "x", "é"]


def test_code_arrow_kinds():
    assert code_arrow(pa.array([1, 2])) is None
    c = code_arrow(pa.array(["b", "a", "b", ""], pa.large_string()))
    assert c is not None and c.labels[c.codes].tolist() == ["b", "a", "b", ""]
    c = code_arrow(pa.chunked_array([], pa.string()))
    assert c is not None and c.codes.size == 0


# --------------------------------------------------------------------------- TREC
def _trec_reference_order(run_rows):
    """trec_eval's order by plain Python: per query, score descending, then docno descending (strcmp order)."""
    by_q: dict = {}
    for q, d, s in run_rows:
        by_q.setdefault(q, []).append((s, d))
    return {q: [d for s, d in sorted(v, reverse=True)] for q, v in by_q.items()}


def _docnos(rng, n):
    pool = [*SPECIAL[1:], "D1", "D10", "D100", "D2", "d1", "Z", "É", "é"]
    pool += [f"clueweb09-en{int(x):04d}-{int(y):02d}-{int(z):05d}" for x, y, z in rng.integers(0, 30, (n, 3))]
    pool += ["".join(chr(int(c)) for c in rng.integers(33, 0x2FFF, int(rng.integers(1, 20)))) for _ in range(n)]
    pool = [p for p in dict.fromkeys(pool) if p and not any(ch.isspace() for ch in p)]
    return pool


@pytest.mark.parametrize("seed", range(4))
def test_trec_run_ranked_by_score_then_docno_on_codes(tmp_path, seed):
    rng = np.random.default_rng(seed)
    docs = _docnos(rng, 200)
    run_rows, qrels_rows = [], []
    for n in range(30):
        qid = f"q{n}" if n % 5 else f"é{n}"
        chosen = rng.choice(len(docs), int(rng.integers(1, 40)), replace=False)
        for j in chosen.tolist():
            run_rows.append((qid, docs[j], float(rng.integers(0, 4)) / 2))  # many ties
        for j in rng.choice(len(docs), int(rng.integers(0, 15)), replace=False).tolist():
            qrels_rows.append((qid, docs[j], int(rng.integers(0, 3))))
    order = rng.permutation(len(run_rows))  # file order unrelated to the score
    run = tmp_path / "run.txt"
    run.write_text(
        "".join(f"{run_rows[i][0]} Q0 {run_rows[i][1]} 1 {run_rows[i][2]} r\n" for i in order.tolist()),
        encoding="utf-8",
    )
    qrels = tmp_path / "qrels.txt.gz"
    qrels.write_bytes(gzip.compress("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels_rows).encode("utf-8")))

    r = rm.read_trec_run(run)
    assert r.coded is not None and r.coded.in_order
    labels = r.coded.labels.tolist()
    assert labels == sorted({d for _, d, _ in run_rows})  # distinct docnos in Python's str order
    ref = _trec_reference_order(run_rows)
    truth: dict = {}
    for q, d, g in qrels_rows:
        truth.setdefault(q, {})[d] = g
    ranked = dict(ref.items())
    metrics = ["map", "ndcg", "P@5", "recall@10", "mrr", "ndcg@3"]
    want = rm.evaluate(truth, ranked, metrics, preset="trec_eval")
    got = rm.evaluate(str(qrels), str(run), metrics, preset="trec_eval")
    assert want.means == got.means
    assert list(want.users) == list(got.users)
    for m in metrics:
        np.testing.assert_array_equal(want.per_user[m], got.per_user[m])
    # the dict-of-scores path (object ids, label_rank) agrees for every docno-order policy
    scored: dict = {}
    for q, d, s in run_rows:
        scored.setdefault(q, {})[d] = s
    for ties in ("trec", "item_desc"):
        a = rm.evaluate(truth, scored, metrics, ties=ties, missing="skip")
        b = rm.evaluate(str(qrels), str(run), metrics, ties=ties, missing="skip")
        assert a.means == b.means, ties


def test_trec_parse_codes_and_stream(tmp_path):
    from rankmeter.inputs._trec import parse_run

    text = "q1 Q0 b 1 1.0 r\nq1 Q0 a 2 1.0 r\nq1 Q0 ab 3 2 r\nq2 Q0 b 1 0.5 r\n"
    p = tmp_path / "run"
    p.write_text(text)
    users, indptr, docs, scores = parse_run(p)
    assert users.tolist() == ["q1", "q2"] and indptr.tolist() == [0, 3, 4]
    assert docs.labels.tolist() == ["a", "ab", "b"]
    assert docs.ids().tolist() == ["b", "a", "ab", "b"]
    assert scores.tolist() == [1.0, 1.0, 2.0, 0.5]
    r = rm.read_trec_run(p)
    assert r.items.tolist() == ["b", "a", "ab", "b"]
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 b 1\nq2 0 a 1\n")
    res = rm.evaluate(str(qrels), str(p), ["P@1", "mrr"], preset="trec_eval")
    # q1: ab (2.0), then b > a (docno descending) -> b at 2; q2: b only, irrelevant
    assert res.per_user["mrr"].tolist() == [0.5, 0.0]
    streamed = rm.evaluate_stream(str(qrels), str(p), ["P@1", "mrr"], preset="trec_eval")
    assert streamed.means == res.means


def test_parquet_paths_read_ids_dictionary_encoded(tmp_path):
    """Parquet id columns are read as dictionaries (one per row group here); results equal the int64 ids'."""
    pq = pytest.importorskip("pyarrow.parquet")
    from rankmeter.inputs import _frame

    t_rows, r_rows = _workload(5, n_users=60)
    rng = np.random.default_rng(5)
    users, items = _names(rng, 70, "u"), _names(rng, 80, "i")
    ti, ri = _int_tables(t_rows, r_rows)
    ts, rs = _string_tables(t_rows, r_rows, users, items, "large_string")
    paths = {}
    for name, table in (("ti", ti), ("ri", ri), ("ts", ts), ("rs", rs)):
        paths[name] = str(tmp_path / f"{name}.parquet")
        pq.write_table(table, paths[name], row_group_size=37)  # many row groups, many dictionaries
    read = _frame.read_parquet(paths["rs"], ("user_id", "item_id"))
    assert pa.types.is_dictionary(read.schema.field("item_id").type)
    assert read.column("item_id").num_chunks > 1
    options: list[dict[str, Any]] = [{}, {"missing": "skip"}, {"preset": "trec_eval"}]
    for kw in options:
        want = rm.evaluate(paths["ti"], paths["ri"], METRICS, **kw)
        got = rm.evaluate(paths["ts"], paths["rs"], METRICS, **kw)
        assert_same_means(got, want, meta=COUNTS)
        for m in METRICS:
            np.testing.assert_array_equal(want.per_user[m], got.per_user[m])
    assert_same_means(
        rm.evaluate(rm.Truth.from_parquet(paths["ts"]), rm.Recs.from_parquet(paths["rs"]), METRICS),
        rm.evaluate(paths["ti"], paths["ri"], METRICS),
        meta=COUNTS,
    )


def test_trec_docnos_stay_bytes_through_evaluate(tmp_path):
    """A run and qrels read from files are evaluated without making a Python str per docno."""
    run = tmp_path / "run"
    run.write_text("".join(f"q{q} Q0 d{(q * 7 + j) % 50} 1 {j % 3} r\n" for q in range(5) for j in range(20)))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{(q * 3 + j) % 60} {j % 2}\n" for q in range(5) for j in range(8)))
    t, r = rm.read_trec_qrels(qrels), rm.read_trec_run(run)
    res = rm.evaluate(t, r, ["map", "ndcg@5"], preset="trec_eval")
    assert r.coded is not None and t.coded is not None and t.grades is not None and t.users is not None
    assert r.coded._labels is None and t.coded._labels is None  # never decoded
    assert r._items is None and t._items is None
    want = rm.evaluate(
        {
            u: dict(zip(t.items[t.indptr[i] : t.indptr[i + 1]].tolist(), t.grades[t.indptr[i] : t.indptr[i + 1]]))
            for i, u in enumerate(t.users.tolist())
        },
        {
            u: dict(zip(r.items[r.indptr[i] : r.indptr[i + 1]].tolist(), r.scores[r.indptr[i] : r.indptr[i + 1]]))
            for i, u in enumerate(r.users.tolist())
        },
        ["map", "ndcg@5"],
        preset="trec_eval",
    )
    assert res.means == want.means
