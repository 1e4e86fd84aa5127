"""compat.pytrec_eval against the live pytrec_eval on its whole ``supported_measures``: random qrels and runs
with graded, zero and negative (unjudged) grades, documents without judgments, float32 and docno ties, empty
rankings, queries on one side only, both relevance levels and judged_docs_only_flag; every measure asked in one
evaluator (``all_trec`` and the sets with parameters), every per-query value equal at relative 1e-9.

pytrec_eval is run in a forked child per example: a query whose grades are all negative crashes it (the
documented case of presets.describe('trec_eval')), and so does a first query with an empty ranking; such
examples are not drawn. ``runid`` is an unset double in pytrec_eval (any value): only its presence is compared.
"""

from __future__ import annotations

import math
import os
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.compat import pytrec_eval as pe
from tests.support.peers import skip_peer_c_code_if_sanitized

pytrec_eval = pytest.importorskip(
    "pytrec_eval", reason="pytrec_eval (pip install pytrec-eval-terrier) is not installed"
)

REQUESTS = [
    {"all_trec"},
    {"official", "set"},
    {"iprec_at_recall.0.25,0.5,0.33", "Rprec_mult.0.5,1.5", "11pt_avg.0.3,0.7", "set_F.0.5", "P.2,3", "map_cut.1"},
    {"relative_P.1,2", "success.2", "ndcg_cut.1,4", "recall.3", "gm_map", "gm_bpref", "utility", "relstring"},
]
docs = st.sampled_from(["d1", "d2", "d10", "d3", "x", "y", "z", "w"])
scores = st.sampled_from([0.5, 0.5 + 1e-12, 1.0, 0.0, -1.0, 2.0, 0.25, 3e38, 3.5e38])
queries = st.sampled_from(["q1", "q2", "q3", "q4"])


def _peer(qrels, run, measures, level, judged):
    """pytrec_eval's answer, computed in a forked child (None: the child crashed)."""
    skip_peer_c_code_if_sanitized("pytrec_eval")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        try:
            ev = pytrec_eval.RelevanceEvaluator(qrels, measures, level, judged)
            data = pickle.dumps(ev.evaluate(run))
        except Exception as e:
            data = pickle.dumps(e)
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return pickle.loads(data) if data else None


@st.composite
def collections(draw):
    qrels = draw(st.dictionaries(queries, st.dictionaries(docs, st.integers(-1, 3), min_size=1, max_size=6)))
    # pytrec_eval crashes on a query whose grades are all negative: every query gets a grade >= 0
    qrels = {q: g if any(v >= 0 for v in g.values()) else {**g, "j": 0} for q, g in qrels.items()}
    if not qrels:
        qrels = {"q1": {"d1": 1}}
    run = draw(st.dictionaries(queries, st.dictionaries(docs, scores, max_size=8), min_size=1))
    # pytrec_eval crashes on a first evaluated query with an empty ranking (also once judged_docs_only_flag has
    # left out its unjudged documents): that query gets one of its documents judged >= 0
    first = next((q for q in run if q in qrels), None)
    if first is not None:
        judged = next(d for d, g in qrels[first].items() if g >= 0)
        run[first] = {**run[first], judged: draw(scores)}
    return qrels, run


@settings(max_examples=300, deadline=None)
@given(collections(), st.sampled_from(range(len(REQUESTS))), st.integers(1, 2), st.booleans())
def test_every_supported_measure_equals_pytrec_eval(collection, which, level, judged):
    qrels, run = collection
    measures = REQUESTS[which]
    want = _peer(qrels, run, measures, level, judged)
    assert want is not None and not isinstance(want, Exception), want
    got = pe.RelevanceEvaluator(qrels, measures, relevance_level=level, judged_docs_only_flag=judged).evaluate(run)
    assert list(got) == list(want)
    for q, values in want.items():
        assert list(got[q]) == list(values), q
        for m, v in values.items():
            if m == "runid":
                continue
            mine = got[q][m]
            assert (math.isnan(v) and math.isnan(mine)) or math.isclose(mine, v, rel_tol=1e-9, abs_tol=1e-12), (
                q,
                m,
                mine,
                v,
            )


def test_supported_measures_and_nicknames_are_pytrec_evals():
    assert pe.supported_measures == frozenset(pytrec_eval.supported_measures)
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "c": 0.5}}
    for nick in ("all_trec", "official", "set"):
        want = _peer(qrels, run, {nick}, 1, False)
        assert list(pe.RelevanceEvaluator(qrels, {nick}).evaluate(run)["q"]) == list(want["q"]), nick


def test_utility_with_coefficients_and_ndcg_with_gains_are_refused():
    # pytrec_eval prints "improper number of coefficients" and returns 0 for utility.a,b,c,d; it aborts on ndcg gains
    with pytest.raises(ValueError, match="utility with coefficients"):
        pe.RelevanceEvaluator({"q": {"a": 1}}, {"utility.2,1,0,0"})
    with pytest.raises(ValueError, match="grade=gain"):
        pe.RelevanceEvaluator({"q": {"a": 1}}, {"G.1"})
