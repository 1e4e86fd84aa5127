"""The metric grammar and metric objects: spellings, aliases and options parse to one canonical name;
objects compare, hash and print as that name."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from rankmeter import metrics as M


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("map@10", "ap@10"),
        ("MAP@10", "ap@10"),
        ("ap@10", "ap@10"),
        ("map", "ap"),
        (" map @ 10 ", "ap@10"),
        ("NDCG @ 10", "ndcg@10"),
        ("ndcg(gain=exponential)@10", "ndcg(gain=exponential)@10"),
        ("ndcg( gain = exponential )@10", "ndcg(gain=exponential)@10"),
        ("ndcg(ideal=cut)@10", "ndcg@10"),
        ("ndcg(gain=linear)@10", "ndcg@10"),
        ("ndcg(ideal=all, gain=exponential)@10", "ndcg(gain=exponential,ideal=all)@10"),
        ("ndcg(gain=binary,ideal=k_slots)", "ndcg(gain=binary,ideal=k_slots)"),
        ("f1@5", "f1@5"),
        ("F1@5", "f1@5"),
        ("fbeta@5", "f1@5"),
        ("fbeta(beta=1)", "f1"),
        ("fbeta(beta=1.0)@2", "f1@2"),
        ("fbeta(beta=0.5)@3", "fbeta(beta=0.5)@3"),
        ("fbeta(beta=2)@5", "fbeta(beta=2)@5"),
        ("mrr", "rr"),
        ("mrr@10", "rr@10"),
        ("success@5", "hit_rate@5"),
        ("hitrate@5", "hit_rate@5"),
        ("num_rel_ret", "hits"),
        ("rprec", "r_precision"),
        ("mar@3", "ar@3"),
        ("ar(denominator=hits)@3", "ar(denominator=hits)@3"),
        ("ap(denominator=hits)@20", "ap(denominator=hits)@20"),
        ("ap(denominator=relevant)@20", "ap@20"),
        ("recall(denominator=min_relevant_k)@5", "recall(denominator=min_relevant_k)@5"),
        ("dcg(log_base=e)@5", "dcg(log_base=2.718281828459045)@5"),
        ("dcg(log_base=2)@5", "dcg@5"),
        ("dcg(log_base=10, gain=binary)@5", "dcg(gain=binary,log_base=10)@5"),
        ("cg(gain=exponential)", "cg(gain=exponential)"),
        ("ndcg@03", "ndcg@3"),
        ("num_rel", "num_rel"),
    ],
)
def test_parse_canonical(written, canonical):
    m = M.parse(written)
    assert str(m) == canonical
    again = M.parse(str(m))
    assert again == m and str(again) == canonical and hash(again) == hash(m)
    assert M.parse(m) is m


def test_metric_objects_canonical_names():
    assert str(M.NDCG(k=10, gain="exponential")) == "ndcg(gain=exponential)@10"
    assert str(M.NDCG()) == "ndcg"
    assert str(M.AP(k=5, denominator="k")) == "ap(denominator=k)@5"
    assert str(M.MAP(k=5)) == "ap@5"
    assert str(M.MRR()) == "rr"
    assert str(M.F1(5)) == "f1@5"
    assert str(M.FBeta(k=3, beta=0.5)) == "fbeta(beta=0.5)@3"
    assert str(M.FBeta(k=3, beta=1)) == "f1@3"
    assert str(M.DCG(k=4, log_base=10)) == "dcg(log_base=10)@4"
    assert str(M.HitRate(k=2)) == "hit_rate@2"
    assert str(M.RPrecision()) == "r_precision"
    assert str(M.NumRel()) == "num_rel"
    assert str(M.Hits(k=np.int64(7))) == "hits@7"
    assert str(M.Metric("map", 10)) == "ap@10"


def test_metric_equality_and_hash():
    a, b, c = M.parse("map@10"), M.AP(k=10), M.MAP(k=10, denominator="relevant")
    assert a == b == c
    assert len({a, b, c}) == 1
    assert hash(a) == hash(b) == hash(c)
    assert a != M.parse("ap@5")
    assert a != M.parse("ap(denominator=hits)@10")
    assert M.parse("ndcg@10") != M.parse("ndcg(gain=exponential)@10")
    assert M.parse("f1@3") == M.FBeta(k=3, beta=1.0) == M.F1(3)
    assert M.parse("f1@3") != M.FBeta(k=3, beta=0.5)
    assert a != "ap@10"  # a metric is not its string
    d = {M.parse("ndcg@10"): 1}
    assert d[M.NDCG(k=10)] == 1


def test_metric_objects_are_immutable_and_with_options():
    m = M.NDCG(k=10)
    with pytest.raises(AttributeError):
        m.k = 5
    m2 = m.with_options(gain="binary", k=3)
    assert str(m2) == "ndcg(gain=binary)@3" and str(m) == "ndcg@10"
    assert repr(m) == "rankmeter.metrics.parse('ndcg@10')"
    assert eval(repr(m), {"rankmeter": rm}) == m


def test_metrics_list_has_every_name_and_alias():
    names = rm.metrics.list()
    expected = {
        "hits",
        "precision",
        "recall",
        "fbeta",
        "f1",
        "ap",
        "map",
        "ar",
        "mar",
        "cg",
        "dcg",
        "ndcg",
        "hit_rate",
        "success",
        "hitrate",
        "rr",
        "mrr",
        "arhr",
        "r_precision",
        "rprec",
        "num_rel",
        "num_rel_ret",
    }
    assert expected <= set(names)
    assert len(names) == len(set(names))
    for name in names:  # every name parses, with a cutoff when its registry row takes one
        if M.SPECS[M.parse(name).name].cutoff:
            M.parse(f"{name}@3")
        else:
            M.parse(name)


def test_a_parsed_name_is_remembered_and_a_bad_one_raises_every_time():
    assert M.parse("ndcg@10") is M.parse("ndcg@10")  # a name in a loop is parsed once
    for _ in range(2):
        with pytest.raises(ValueError, match="unknown metric"):
            M.parse("ndgc@10")


def test_metrics_pickle_and_copy_by_name_cutoff_and_options():
    import copy
    import pickle

    m = M.parse("ndcg(gain=exponential,ideal=all)@5")
    m._column()  # the cached pass column is not part of the pickle
    for back in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), copy.copy(m)):
        assert back == m and str(back) == str(m) and back.options == m.options and back.k == 5
        col = back._column()
        assert col.cutoff == 5 and col.kind == m._column().kind
