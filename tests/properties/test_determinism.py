"""Bit-for-bit determinism and exact aggregation (docs/metrics.md §7).

Every metric kind and option, at cutoffs 1, 5, 10 and none, on a seeded random
workload with ragged lists (empty lists included), graded truth with
non-relevant and negative grades, and users without relevant items:

* per-user arrays and means are identical bit for bit for threads=1, 2, 3, 8
  and with RANKMETER_NUM_THREADS instead of threads=;
* repeated calls give the same bits;
* every mean is exactly math.fsum(non-NaN per-user values) / count;
* shuffling the users permutes the per-user values and leaves the means alone;
* a random split into 3 keyed batches, merged with State.merge in every order,
  finalizes to the one-call means bit for bit, with the meta counters summed;
* State.to_bytes / State.from_bytes round-trip exactly; bad bytes raise.
"""

from __future__ import annotations

import itertools
import math
import struct

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.metrics import SPECS, Metric
from tests.support.same import bits, same_bits

N_USERS = 12_000
N_ITEMS = 2_000
CUTOFFS = ("@1", "@5", "@10", "")

_BASES = [
    "precision",
    "recall",
    "recall(denominator=min_relevant_k)",
    "f1",
    "fbeta(beta=0.5)",
    "ap",
    "ap(denominator=min_relevant_k)",
    "ap(denominator=hits)",
    "ap(denominator=k)",
    "ar",
    "ar(denominator=hits)",
    "cg",
    "cg(gain=exponential)",
    "cg(gain=binary)",
    "dcg",
    "dcg(gain=exponential)",
    "dcg(gain=binary)",
    "dcg(log_base=10)",
    "dcg(gain=exponential,log_base=3)",
    "ndcg",
    "ndcg(ideal=all)",
    "ndcg(ideal=k_slots)",
    "ndcg(gain=exponential)",
    "ndcg(gain=exponential,ideal=all)",
    "ndcg(gain=exponential,ideal=k_slots)",
    "ndcg(gain=binary)",
    "ndcg(gain=binary,ideal=all)",
    "ndcg(gain=binary,ideal=k_slots)",
    "hit_rate",
    "rr",
    "arhr",
    "hits",
    "bpref",
    "rbp",
    "rbp(p=0.95,gain=linear,below_min=zero)",
    "err",
    "judged",
    "ndcg(below_min=zero)",
]
# canonical spellings, so that State.finalize() keys are the same strings
# Every accuracy metric of the registry is in, with its default options, whether or not a variant above
# names it: a metric added to the registry is checked here without another edit.
_REGISTRY = [name for name, spec in SPECS.items() if spec.family == "accuracy"]
_BASES += [name for name in _REGISTRY if SPECS[name].cutoff and str(Metric(name)) not in _BASES]
METRICS = [b + c for c in CUTOFFS for b in _BASES] + [name for name in _REGISTRY if not SPECS[name].cutoff]


# --------------------------------------------------------------------------- workload
def _take_rows(indptr: np.ndarray, rows: np.ndarray, *arrays: np.ndarray):
    """Gather ragged rows `rows` (in that order) of CSR arrays sharing `indptr`."""
    lens = np.diff(indptr)[rows]
    new_indptr = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(lens, out=new_indptr[1:])
    starts = indptr[:-1][rows]
    idx = np.repeat(starts - new_indptr[:-1], lens) + np.arange(int(new_indptr[-1]))
    return (new_indptr, *tuple(a[idx] for a in arrays))


def _make_workload(seed: int = 20240521):
    rng = np.random.default_rng(seed)
    lens = rng.integers(0, 41, N_USERS)
    lens[rng.random(N_USERS) < 0.05] = 0
    rec_rows = [rng.choice(N_ITEMS, int(n), replace=False) for n in lens]
    t_rows, g_rows = [], []
    grade_values = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.25])
    grade_p = np.array([0.05, 0.15, 0.1, 0.3, 0.2, 0.15, 0.05])
    for row in rec_rows:
        m = int(rng.integers(0, 16))
        from_list = rng.choice(row, min(row.size, int(rng.integers(0, m + 1))), replace=False) if row.size else row
        from_cat = rng.integers(0, N_ITEMS, m)
        items = np.array(list(dict.fromkeys(np.concatenate([from_list, from_cat]).tolist())), dtype=np.int64)[:m]
        t_rows.append(items)
        g_rows.append(rng.choice(grade_values, items.size, p=grade_p))
    r_indptr = np.zeros(N_USERS + 1, dtype=np.int64)
    np.cumsum([r.size for r in rec_rows], out=r_indptr[1:])
    t_indptr = np.zeros(N_USERS + 1, dtype=np.int64)
    np.cumsum([t.size for t in t_rows], out=t_indptr[1:])
    return {
        "t_indptr": t_indptr,
        "t_items": np.concatenate(t_rows).astype(np.int64),
        "t_grades": np.concatenate(g_rows).astype(np.float64),
        "r_indptr": r_indptr,
        "r_items": np.concatenate(rec_rows).astype(np.int64),
        "user_ids": rng.choice(10**12, N_USERS, replace=False).astype(np.int64) - 5 * 10**11,
    }


@pytest.fixture(scope="module")
def work():
    return _make_workload()


def _truth(w):
    return (w["t_indptr"], w["t_items"], w["t_grades"])


def _recs(w):
    return (w["r_indptr"], w["r_items"])


@pytest.fixture(scope="module")
def baseline(work):
    return rm.evaluate(_truth(work), _recs(work), METRICS, threads=1)


# --------------------------------------------------------------------------- sanity of the workload
def test_workload_exercises_edge_cases(work, baseline):
    lens = np.diff(work["r_indptr"])
    assert (lens == 0).sum() > 100  # empty lists
    assert (lens < 10).sum() > 1000  # lists shorter than the cutoff
    assert baseline.meta["n_users"] == N_USERS
    assert 100 < baseline.meta["n_skipped"] < N_USERS // 2  # users without relevant items
    assert np.isnan(baseline.per_user["ap@10"]).sum() == baseline.meta["n_skipped"]
    assert (work["t_grades"] < 0).any() and (work["t_grades"] == 0).any()
    for m in METRICS:
        assert np.isfinite(baseline[m]), m


# --------------------------------------------------------------------------- threads
@pytest.mark.parametrize("threads", [2, 3, 8])
def test_threads_bit_identical(work, baseline, threads):
    res = rm.evaluate(_truth(work), _recs(work), METRICS, threads=threads)
    assert res.meta == baseline.meta
    for m in METRICS:
        assert same_bits(res.per_user[m], baseline.per_user[m]), m
        assert bits(res[m]) == bits(baseline[m]), m


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_env_var_same_as_threads_argument(work, baseline, threads, monkeypatch):
    monkeypatch.setenv("RANKMETER_NUM_THREADS", str(threads))
    via_env = rm.evaluate(_truth(work), _recs(work), METRICS)
    monkeypatch.delenv("RANKMETER_NUM_THREADS")
    via_arg = rm.evaluate(_truth(work), _recs(work), METRICS, threads=threads)
    default = rm.evaluate(_truth(work), _recs(work), METRICS)
    for m in METRICS:
        for res in (via_env, via_arg, default):
            assert same_bits(res.per_user[m], baseline.per_user[m]), m
            assert bits(res[m]) == bits(baseline[m]), m


def test_threads_argument_wins_over_env_var(work, baseline, monkeypatch):
    monkeypatch.setenv("RANKMETER_NUM_THREADS", "3")
    res = rm.evaluate(_truth(work), _recs(work), METRICS, threads=2)
    for m in METRICS:
        assert same_bits(res.per_user[m], baseline.per_user[m]), m


@pytest.mark.parametrize("empty", ["zero", "one"])
def test_threads_bit_identical_other_empty_policies(work, empty):
    a = rm.evaluate(_truth(work), _recs(work), METRICS, threads=1, empty=empty)
    b = rm.evaluate(_truth(work), _recs(work), METRICS, threads=3, empty=empty)
    assert a.meta["n_skipped"] == 0
    for m in METRICS:
        assert not np.isnan(a.per_user[m]).any(), m
        assert same_bits(a.per_user[m], b.per_user[m]), m
        assert bits(a[m]) == bits(b[m]), m


def test_repeated_calls_identical(work, baseline):
    for _ in range(3):
        res = rm.evaluate(_truth(work), _recs(work), METRICS, threads=2)
        for m in METRICS:
            assert same_bits(res.per_user[m], baseline.per_user[m]), m
            assert bits(res[m]) == bits(baseline[m]), m


# --------------------------------------------------------------------------- exact means
@pytest.mark.parametrize("empty", ["skip", "zero"])
def test_means_are_fsum_over_count(work, empty):
    res = rm.evaluate(_truth(work), _recs(work), METRICS, empty=empty)
    n_valid = res.meta["n_users"] - res.meta["n_skipped"]
    for m in METRICS:
        v = res.per_user[m]
        assert v.dtype == np.float64 and v.shape == (N_USERS,)
        ok = v[~np.isnan(v)]
        assert ok.size == n_valid, m
        expected = math.fsum(ok.tolist()) / ok.size
        assert res[m] == expected, (m, res[m], expected)


def test_user_order_permutes_values_and_keeps_means(work, baseline):
    rng = np.random.default_rng(7)
    perm = rng.permutation(N_USERS)
    ids = work["user_ids"]
    t_indptr, t_items, t_grades = _take_rows(work["t_indptr"], perm, work["t_items"], work["t_grades"])
    truth = rm.Truth.from_csr(t_indptr, t_items, t_grades, users=ids[perm])
    perm2 = rng.permutation(N_USERS)
    r_indptr, r_items = _take_rows(work["r_indptr"], perm2, work["r_items"])
    recs = rm.Recs.from_csr(r_indptr, r_items, users=ids[perm2])
    res = rm.evaluate(truth, recs, METRICS, threads=3)
    assert np.array_equal(res.users, ids[perm])
    assert res.meta == baseline.meta
    for m in METRICS:
        assert same_bits(res.per_user[m], baseline.per_user[m][perm]), m
        assert bits(res[m]) == bits(baseline[m]), m


# --------------------------------------------------------------------------- batches and states
def _keyed_split(work, seed: int):
    """Keyed truth/recs with missing and extra recs users, and a random 3-way split."""
    rng = np.random.default_rng(seed)
    ids = work["user_ids"]
    n = N_USERS
    # recs: 93% of the truth users, plus 300 users that are not in the truth
    has_recs = rng.random(n) < 0.93
    rec_rows = np.flatnonzero(has_recs)
    extra_ids = np.arange(300, dtype=np.int64) + 10**13  # disjoint from `ids`
    extra_rows = rng.integers(0, n, extra_ids.size)  # borrow some lists

    # one-call inputs (in a shuffled order of users)
    order_t = rng.permutation(n)
    full_truth = _truth_rows(work, order_t)
    all_rec_rows = np.concatenate([rec_rows, extra_rows])
    all_rec_ids = np.concatenate([ids[rec_rows], extra_ids])
    order_r = rng.permutation(all_rec_rows.size)
    full_recs = _recs_rows(work, all_rec_rows[order_r], all_rec_ids[order_r])

    # random batch sizes (each at least 1), users shuffled across batches
    cuts = np.sort(rng.choice(np.arange(1, n), 2, replace=False))
    perm = rng.permutation(n)
    t_batches = np.split(perm, cuts)
    batch_of_user = np.empty(n, dtype=np.int64)
    for b, rows in enumerate(t_batches):
        batch_of_user[rows] = b
    extra_batch = rng.integers(0, 3, extra_ids.size)
    batches = []
    for b, rows in enumerate(t_batches):
        r_sel = rec_rows[batch_of_user[rec_rows] == b]
        e_sel = np.flatnonzero(extra_batch == b)
        r_rows = np.concatenate([r_sel, extra_rows[e_sel]])
        r_ids = np.concatenate([ids[r_sel], extra_ids[e_sel]])
        o = rng.permutation(r_rows.size)
        batches.append((_truth_rows(work, rows), _recs_rows(work, r_rows[o], r_ids[o])))
    expected_meta = {
        "n_users": n,
        "n_missing_recs": int((~has_recs).sum()),
        "n_ignored_recs": int(extra_ids.size),
    }
    return full_truth, full_recs, batches, expected_meta


def _truth_rows(work, rows):
    indptr, items, grades = _take_rows(work["t_indptr"], rows, work["t_items"], work["t_grades"])
    return rm.Truth.from_csr(indptr, items, grades, users=work["user_ids"][rows])


def _recs_rows(work, rows, ids):
    indptr, items = _take_rows(work["r_indptr"], rows, work["r_items"])
    return rm.Recs.from_csr(indptr, items, users=ids)


@pytest.fixture(scope="module")
def split(work):
    return _keyed_split(work, seed=99)


@pytest.fixture(scope="module")
def one_call(split):
    full_truth, full_recs, _, _ = split
    return rm.evaluate(full_truth, full_recs, METRICS, threads=2)


@pytest.fixture(scope="module")
def states(split):
    _, _, batches, _ = split
    return [rm.partial(t, r, METRICS, threads=1 + i) for i, (t, r) in enumerate(batches)]


def test_one_call_meta(split, one_call):
    *_, expected_meta = split
    for key, val in expected_meta.items():
        assert one_call.meta[key] == val, key
    assert one_call.meta["n_skipped"] > 0


def test_one_call_means_fsum(one_call):
    for m in METRICS:
        v = one_call.per_user[m]
        ok = v[~np.isnan(v)].tolist()
        assert one_call[m] == math.fsum(ok) / len(ok), m


def _check_merged(merged: rm.State, one_call: rm.Result):
    fin = merged.finalize()
    assert list(fin) == METRICS  # canonical names, in the order asked
    for m in METRICS:
        assert bits(fin[m]) == bits(one_call[m]), (m, fin[m], one_call[m])
    assert merged.meta == one_call.meta


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_batches_merge_any_order_left_fold(states, one_call, order):
    a, b, c = (states[i] for i in order)
    _check_merged(a.merge(b).merge(c), one_call)


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_batches_merge_any_order_right_fold(states, one_call, order):
    a, b, c = (states[i] for i in order)
    _check_merged(a.merge(b.merge(c)), one_call)


def test_batches_merge_all(states, one_call):
    _check_merged(rm.State.merge_all(states[::-1]), one_call)


def test_batch_meta_counters_add_up(split, states, one_call):
    _, _, batches, _ = split
    for key in ("n_users", "n_skipped", "n_missing_recs", "n_ignored_recs"):
        assert sum(s.meta[key] for s in states) == one_call.meta[key], key
    for (t, _), s in zip(batches, states):
        assert s.meta["n_users"] == t.n_users


def test_batch_state_equals_evaluate_state_of_batch(split, states):
    # partial == the state behind evaluate's means for the same batch
    _, _, batches, _ = split
    t, r = batches[1]
    res = rm.evaluate(t, r, METRICS, threads=3)
    fin = states[1].finalize()
    for m in METRICS:
        assert bits(fin[m]) == bits(res[m]), m
        v = res.per_user[m]
        ok = v[~np.isnan(v)].tolist()
        if ok:
            assert fin[m] == math.fsum(ok) / len(ok), m


def test_many_batches_of_one_user(work):
    # the extreme split: every user alone, merged in a random order
    rows = np.arange(400)
    res = rm.evaluate(_truth_rows(work, rows), _recs_rows(work, rows, work["user_ids"][rows]), METRICS)
    rng = np.random.default_rng(3)
    parts = [
        rm.partial(
            _truth_rows(work, rows[i : i + 1]),
            _recs_rows(work, rows[i : i + 1], work["user_ids"][rows[i : i + 1]]),
            METRICS,
        )
        for i in rng.permutation(rows.size)
    ]
    merged = rm.State.merge_all(parts)
    fin = merged.finalize()
    for m in METRICS:
        assert bits(fin[m]) == bits(res[m]), m
    assert merged.meta == res.meta


def test_state_bytes_round_trip(states):
    merged = rm.State.merge_all(states)
    for st in [*list(states), merged]:
        blob = st.to_bytes()
        assert isinstance(blob, bytes)
        back = rm.State.from_bytes(blob)
        assert back == st
        assert back.names == st.names and back.sums == st.sums and back.counts == st.counts
        assert back.meta == st.meta
        assert back.to_bytes() == blob
        fa, fb = back.finalize(), st.finalize()
        assert [bits(v) for v in fa.values()] == [bits(v) for v in fb.values()]
        assert rm.State.from_bytes(bytearray(blob)) == st
        assert rm.State.from_bytes(memoryview(blob)) == st
    # merging after a round trip is the same as merging the originals
    via_bytes = rm.State.merge_all(rm.State.from_bytes(s.to_bytes()) for s in states)
    assert via_bytes == merged


def test_state_bytes_round_trip_negative_and_empty():
    # negative sums cannot come from metrics, but zero-user states and NaN means can
    st = rm.partial({}, {}, ["ndcg@3", "ap"])
    assert all(math.isnan(v) for v in st.finalize().values())
    back = rm.State.from_bytes(st.to_bytes())
    assert back == st
    assert list(back.finalize()) == ["ndcg@3", "ap"]


def test_merge_different_metrics_raises(split):
    _, _, batches, _ = split
    (t0, r0), (t1, r1), _ = batches
    a = rm.partial(t0, r0, ["ndcg@10", "ap@10"])
    with pytest.raises(ValueError, match="different metrics"):
        a.merge(rm.partial(t1, r1, ["ndcg@10", "ap@5"]))
    with pytest.raises(ValueError, match="different metrics"):
        a.merge(rm.partial(t1, r1, ["ndcg@10"]))
    with pytest.raises(ValueError, match="different metrics"):
        a.merge(rm.partial(t1, r1, ["ap@10", "ndcg@10"]))  # same metrics, other order
    with pytest.raises(ValueError, match="different metrics"):
        a.merge(rm.partial(t1, r1, ["ndcg(gain=exponential)@10", "ap@10"]))
    # aliases are the same metric
    merged = a.merge(rm.partial(t1, r1, ["ndcg@10", "map@10"]))
    assert merged.meta["n_users"] == t0.n_users + t1.n_users
    with pytest.raises(TypeError):
        a.merge({"ndcg@10": 0.5})  # type: ignore[arg-type]


def test_from_bytes_rejects_garbage(states):
    blob = states[0].to_bytes()
    bad = [b"", b"R", b"RMST", b"garbage", b"\x00" * 64, b"RMST\x01\x00", blob[:-1], blob + b"\x00", blob + blob]
    rng = np.random.default_rng(11)
    bad += [rng.bytes(int(n)) for n in rng.integers(1, 200, 20)]
    bad += [b"XXXX" + blob[4:]]  # bad magic
    bad += [blob[:4] + struct.pack("<H", 999) + blob[6:]]  # unknown version
    # truncations: every length in the header and the first column, and a sample beyond
    lengths = set(range(0, min(len(blob), 200))) | set(rng.integers(0, len(blob), 300).tolist())
    bad += [blob[:n] for n in sorted(lengths)]
    for data in bad:
        with pytest.raises(ValueError):
            rm.State.from_bytes(data)


def test_from_bytes_rejects_non_bytes():
    with pytest.raises(TypeError, match="data"):
        rm.State.from_bytes("RMST")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="data"):
        rm.State.from_bytes(None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- adversarial exact sum
def test_exact_sum_where_naive_sum_is_wrong():
    # One user with cg = 1.0 followed by 20000 users with cg = 1e-16 each:
    # summed left to right every 1e-16 is lost (it is below half an ulp of 1),
    # so the naive mean is 1/n while the exact one is (1 + 2e-12)/n.
    n_small = 20_000
    truth = {0: {"big": 1.0}}
    recs = {0: ["big"]}
    for u in range(1, n_small + 1):
        truth[u] = {"s": 1e-16}
        recs[u] = ["s"]
    n = n_small + 1
    values = [1.0] + [1e-16] * n_small
    naive = 0.0
    for v in values:
        naive += v
    exact = math.fsum(values) / n
    assert naive / n != exact  # the example is adversarial
    for threads in (1, 2, 3):
        res = rm.evaluate(truth, recs, ["cg", "dcg", "cg@1"], threads=threads)
        assert res.per_user["cg"].tolist() == values
        assert res["cg"] == exact
        assert res["cg@1"] == exact
        assert res["dcg"] == exact  # first position: discount 1


def test_exact_sum_huge_dynamic_range():
    # cg values spanning 1e300 .. 1e-300 on different users; negative grades give 0.
    grades = [1e300, 1.0, 1e-300, -5.0, 3e-310, 1e300, 2.5, 7e-17, 1e-300, 1e200, -1e300, 5e-324]
    rng = np.random.default_rng(5)
    order = rng.permutation(len(grades) * 50) % len(grades)
    truth = {u: {"i": grades[g]} for u, g in enumerate(order)}
    recs = {u: ["i"] for u in range(order.size)}
    expected_values = [max(grades[g], 0.0) for g in order]
    exact = math.fsum(expected_values) / order.size
    res = rm.evaluate(truth, recs, ["cg"], empty="zero", threads=2)
    assert res.per_user["cg"].tolist() == expected_values
    assert res["cg"] == exact
    assert res["cg"] != sum(expected_values) / order.size or math.fsum(expected_values) == sum(expected_values)
    # split into two batches: the same bits
    half = order.size // 2
    a = rm.partial({u: truth[u] for u in range(half)}, recs, ["cg"], empty="zero")
    b = rm.partial({u: truth[u] for u in range(half, order.size)}, recs, ["cg"], empty="zero")
    assert b.merge(a).finalize()["cg"] == exact


def test_exact_sum_dcg_log_base():
    # dcg with a log base: per-user values with long mantissas; many users, two batches.
    rng = np.random.default_rng(8)
    n = 5000
    grades = rng.uniform(0, 1e6, n) * 10.0 ** rng.integers(-200, 200, n)
    pos = rng.integers(0, 7, n)
    truth = {u: {"r": float(grades[u])} for u in range(n)}
    recs = {u: [f"x{j}" for j in range(int(pos[u]))] + ["r"] for u in range(n)}
    metric = "dcg(log_base=3)"
    res = rm.evaluate(truth, recs, [metric], threads=2)
    expected = [float(grades[u]) / (math.log(pos[u] + 2) / math.log(3)) for u in range(n)]
    assert np.allclose(res.per_user[metric], expected, rtol=1e-12, atol=0)
    assert res[metric] == math.fsum(res.per_user[metric].tolist()) / n
    a = rm.partial({u: truth[u] for u in range(0, n, 2)}, recs, [metric])
    b = rm.partial({u: truth[u] for u in range(1, n, 2)}, recs, [metric])
    assert a.merge(b).finalize()[metric] == res[metric]


def test_every_metric_is_covered():
    """Every metric the package knows (aliases resolved) is in METRICS above, so a new
    metric cannot land without its thread-count and merge determinism being tested."""
    from tests.metrics.test_beyond import BEYOND_METRICS  # the beyond-accuracy family, tested there for threads 1/2/3/8
    from tests.metrics.test_calibration import CALIBRATION_DETERMINISM  # threads 1-4, row order and batches there
    from tests.metrics.test_expected_exposure import EE_DETERMINISM  # ee_*, threads 1-3 and merges there
    from tests.metrics.test_exposure import EXPOSURE_DETERMINISM  # threads 1-3, merges in any split and order there
    from tests.metrics.test_popularity import POPULARITY_METRICS  # popularity and long tail, threads 1/2/3/8 there
    from tests.metrics.test_propensity import DETERMINISM as PROPENSITY  # ips_*, threads 1-3, row order, batches
    from tests.metrics.test_subtopic import SUBTOPIC_DETERMINISM  # ndeval's measures, threads 1-4 there

    covered = {
        rm.metrics.parse(m).name
        for m in METRICS
        + BEYOND_METRICS
        + SUBTOPIC_DETERMINISM
        + POPULARITY_METRICS
        + CALIBRATION_DETERMINISM
        + PROPENSITY
        + EXPOSURE_DETERMINISM
        + EE_DETERMINISM
    }
    known = {rm.metrics.parse(n).name for n in rm.metrics.list()}
    assert known <= covered, f"metrics missing from the determinism test: {sorted(known - covered)}"
