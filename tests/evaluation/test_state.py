"""Mergeable states (issue 11): names as asked, users that may not be counted twice,
catalog-level metrics through item-count histograms, the versioned byte form."""

import itertools
import math
import struct

import numpy as np
import pytest

import rankmeter as rm

CATALOG = [
    "coverage@5",
    "coverage",
    "gini@5",
    "gini(over=recommended)@5",
    "gini(over=recommended)",
    "personalization@5",
    "personalization",
    "personalization(similarity=cosine)@5",
    "personalization(similarity=cosine)",
]
PER_USER = ["ndcg@5", "ap", "novelty@5", "arp(popularity=interactions)@5", "recall@3"]


def _data(seed, n_users=60, n_items=40, strings=False):
    rng = np.random.default_rng(seed)

    def item(i):
        return f"i{i}" if strings else int(i) * 7919 + 3  # sparse ints: not their own codes

    def user(u):
        return f"u{u}" if strings else int(u) * 13

    truth, recs, train = {}, {}, {}
    for u in range(n_users):
        length = int(rng.integers(0, 9))  # empty and short lists, several lengths
        lst = rng.choice(n_items, size=length, replace=False)
        recs[user(u)] = {item(i): float(s) for i, s in zip(lst, rng.normal(size=length).round(2))}
        t = rng.choice(n_items, size=int(rng.integers(1, 6)), replace=False)
        truth[user(u)] = {item(i): int(rng.integers(0, 3)) for i in t}
        train[user(u)] = [item(i) for i in rng.choice(n_items, size=int(rng.integers(0, 7)), replace=True)]
    return truth, recs, train


def _split(d, parts, rng):
    users = list(d)
    which = rng.integers(0, parts, size=len(users))
    return [{u: d[u] for u, w in zip(users, which) if w == p} for p in range(parts)]


# --------------------------------------------------------------------------- names (item 2)
def test_finalized_state_answers_to_every_name():
    truth = {1: {5: 1, 6: 2}, 2: {7: 1}}
    recs = {1: [5, 8, 6], 2: [9, 7]}
    asked = ["map@100", "mrr@100", "ndcg"]
    st = rm.partial(truth, recs, asked)
    res = rm.evaluate(truth, recs, asked)
    fin = st.finalize()
    for key in ["map@100", "ap@100", "mrr@100", "rr@100", rm.metrics.MAP(k=100), "ndcg", str(rm.metrics.NDCG())]:
        assert fin[key] == res[key]
        assert key in fin
    assert list(fin) == asked  # keyed by the names as asked, in order
    assert fin.meta == res.meta
    assert "precision@3" not in fin
    with pytest.raises(KeyError, match="was not evaluated"):
        fin["precision@3"]
    # through bytes and merges too
    other = rm.partial({3: {1: 1}}, {3: [1]}, ["ap@100", "rr@100", "ndcg"])
    merged = rm.State.from_bytes(st.to_bytes()).merge(other).finalize()
    assert merged["map@100"] == merged["ap@100"]
    assert merged.meta["n_users"] == 3


# --------------------------------------------------------------------------- users (item 5)
def test_merging_states_that_share_a_user_raises():
    a = rm.partial({1: {5: 1}}, {1: [5]}, ["precision@1"])
    b = rm.partial({1: {5: 1}}, {1: [6]}, ["precision@1"])
    with pytest.raises(ValueError, match="user 1 is in more than one"):
        a.merge(b)
    with pytest.raises(ValueError, match="user 1 is in more than one"):
        rm.State.merge_all([a, a])
    s1 = rm.partial({"x": {5: 1}, "y": {6: 1}}, {"x": [5]}, ["precision@1"])
    s2 = rm.partial({"z": {5: 1}, "y": {6: 1}}, {"z": [5]}, ["precision@1"])
    with pytest.raises(ValueError, match="user 'y'"):
        rm.State.from_bytes(s1.to_bytes()).merge(rm.State.from_bytes(s2.to_bytes()))
    # ids of different kinds cannot be compared: an error, not a silent union
    s3 = rm.partial({"1": {5: 1}}, {"1": [5]}, ["precision@1"])
    with pytest.raises(ValueError, match="different kinds"):
        a.merge(s3)


def test_per_shard_recipe_gives_the_one_call_numbers():
    truth, recs, _ = _data(3, n_users=80)
    rng = np.random.default_rng(0)
    shards = _split(recs, 4, rng)
    metrics = ["precision@5", "ndcg@5", "ap"]
    # the trap: the full truth with each shard evaluates every truth user in every shard
    with pytest.raises(ValueError, match="more than one of the states"):
        rm.State.merge_all([rm.partial(truth, s, metrics) for s in shards])
    # the recipe: missing="skip" per shard, then the truth users no shard recommends to
    states = [rm.partial(truth, s, metrics, missing="skip") for s in shards]
    done = rm.State.merge_all(states)
    seen = set(done.users.tolist())
    rest = {u: g for u, g in truth.items() if u not in seen}
    if rest:
        states.append(rm.partial(rest, {}, metrics))
    total = rm.State.merge_all(states).finalize()
    one = rm.evaluate(truth, recs, metrics)
    for m in metrics:
        assert total[m] == one[m]
    assert total.meta["n_users"] == one.meta["n_users"]


def test_positional_batches_need_ids():
    a = rm.partial([[1]], [[1]], ["precision@1"])
    b = rm.partial([[2]], [[2]], ["precision@1"])
    with pytest.raises(ValueError, match="user 0"):
        a.merge(b)
    # with ids the batches merge
    a = rm.partial(rm.Truth.from_csr([0, 1], [1], users=[10]), rm.Recs.from_csr([0, 1], [1], users=[10]), ["hits@1"])
    b = rm.partial(rm.Truth.from_csr([0, 1], [2], users=[11]), rm.Recs.from_csr([0, 1], [3], users=[11]), ["hits@1"])
    assert a.merge(b).finalize()["hits@1"] == 0.5


# --------------------------------------------------------------------------- catalog metrics (item 9)
@pytest.mark.parametrize("strings", [False, True], ids=["int", "str"])
@pytest.mark.parametrize("parts", [1, 2, 3, 5, 7])
def test_catalog_metrics_merge_bit_for_bit(parts, strings):
    truth, recs, train = _data(parts + 10 * strings, strings=strings)
    metrics = CATALOG + PER_USER + ["score_entropy@5", "score_entropy"]
    one = rm.evaluate(truth, recs, metrics, train=train)
    rng = np.random.default_rng(parts)
    batches = [(t, {u: recs[u] for u in t}) for t in _split(truth, parts, rng)]
    states = [rm.partial(t, r, metrics, train=train) for t, r in batches]
    orders = (
        list(itertools.permutations(range(parts))) if parts <= 3 else [list(rng.permutation(parts)) for _ in range(6)]
    )
    for order in orders:
        for how in ("fold", "all", "bytes", "tree"):
            seq = [states[i] for i in order]
            if how == "fold":
                st = seq[0]
                for s in seq[1:]:
                    st = st.merge(s)
            elif how == "all":
                st = rm.State.merge_all(seq)
            elif how == "bytes":
                st = rm.State.merge_all([rm.State.from_bytes(s.to_bytes()) for s in seq])
            else:
                while len(seq) > 1:
                    seq = [seq[i].merge(seq[i + 1]) if i + 1 < len(seq) else seq[i] for i in range(0, len(seq), 2)]
                st = seq[0]
            fin = st.finalize()
            for m in metrics:
                if m.startswith("score_entropy"):
                    assert fin[m] == pytest.approx(one[m], rel=1e-12, abs=1e-300)
                else:
                    assert fin[m] == one[m] or (math.isnan(fin[m]) and math.isnan(one[m])), (m, how, order)
            assert fin.meta == one.meta
            assert np.array_equal(st.users, np.sort(np.asarray(list(truth), dtype=st.users.dtype)))


def test_catalog_values_match_their_definitions():
    """The histogram route gives the definitions' values (plain Python here)."""
    truth, recs, train = _data(42, strings=True)
    res = rm.evaluate(truth, recs, [*CATALOG, "score_entropy@5"], train=train)
    ranked = {u: [i for i, _ in sorted(r.items(), key=lambda kv: -kv[1])] for u, r in recs.items()}
    catalog = {i for items in train.values() for i in items}

    def tops(k):
        return [lst[:k] if k else lst for lst in ranked.values()]

    for k in (5, None):
        rec_items = {i for lst in tops(k) for i in lst}
        suffix = f"@{k}" if k else ""
        assert res[f"coverage{suffix}"] == len(rec_items & catalog) / len(catalog)
        lists = [set(lst) for lst in tops(k) if lst]
        pairs = [(a, b) for a, b in itertools.combinations(lists, 2)]
        kk = k or max(len(x) for x in lists)
        overlap = 1 - math.fsum(len(a & b) / kk for a, b in pairs) / len(pairs)
        cosine = 1 - math.fsum(len(a & b) / math.sqrt(len(a) * len(b)) for a, b in pairs) / len(pairs)
        assert res[f"personalization{suffix}"] == pytest.approx(overlap, rel=1e-12)
        assert res[f"personalization(similarity=cosine){suffix}"] == pytest.approx(cosine, rel=1e-12)
    scores = [s for r in recs.values() for s in sorted(r.values(), reverse=True)[:5]]
    z = math.fsum(math.exp(s) for s in scores)
    h = -math.fsum(math.exp(s) / z * math.log(math.exp(s) / z) for s in scores)
    assert res["score_entropy@5"] == pytest.approx(h, rel=1e-12)


def test_states_of_different_context_do_not_merge():
    truth, recs, train = _data(5)
    users = list(truth)
    a = rm.partial({u: truth[u] for u in users[:30]}, recs, ["coverage@5"], train=train, missing="skip")
    other_train = dict(train)
    other_train[users[0]] = [123456789]
    b = rm.partial({u: truth[u] for u in users[30:]}, recs, ["coverage@5"], train=other_train, missing="skip")
    with pytest.raises(ValueError, match="different catalogs"):
        a.merge(b)
    a = rm.partial({u: truth[u] for u in users[:30]}, recs, ["novelty@5"], train=train, missing="skip")
    b = rm.partial({u: truth[u] for u in users[30:]}, recs, ["novelty@5"], train=other_train, missing="skip")
    with pytest.raises(ValueError, match="different context"):
        a.merge(b)


def test_old_state_version_is_rejected_clearly():
    old = b"RMST" + struct.pack("<HI", 1, 0) + struct.pack("<qqqq", 0, 0, 0, 0)
    with pytest.raises(ValueError, match="version 1"):
        rm.State.from_bytes(old)
