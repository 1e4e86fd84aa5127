"""Fuzz suite: every public entry point on valid and malformed inputs (issue 6).

Each test draws inputs from tests/support/fuzz_strategies.py and calls an entry point
through :func:`fuzz_strategies.guarded`, which fails on anything but a result
or a ``ValueError``/``TypeError`` naming the argument, on a hang, and on any
write into the caller's arrays. A crash of the interpreter fails the run.
Valid outcomes are checked for correctness: against the pure-Python
reference (tests/support/reference.py) for evaluate/partial/shortcuts, against a
plain sort for ``Recs.from_scores``, and by round trips for the parser, the
readers and the state bytes.

Short mode (CI): ``RANKMETER_FUZZ_EXAMPLES`` unset, 40 examples per test.
Long run (manual)::

    RANKMETER_FUZZ_EXAMPLES=60000 RANKMETER_FUZZ_REPORT=fuzz.json \
        python -m pytest tests/properties/test_fuzz.py -q -p no:cacheprovider

counts every guarded call and writes the totals to the report file.
"""

from __future__ import annotations

import gzip
import json
import math
import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter.evaluation import get_preset
from tests.support import fuzz_strategies as fz
from tests.support.reference import reference_evaluate
from tests.support.same import close


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    path = os.environ.get("RANKMETER_FUZZ_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump({**fz.CALLS, "examples_per_test": fz.EXAMPLES, "by_entry": fz.BY_ENTRY}, f, indent=1)


def check_against_reference(res, truth_py, recs_py, metrics, opts):
    """rankmeter accepted the input: the reference must agree number for number."""
    # None means "the default" to rankmeter; the reference wants the default spelled out
    ref_opts = {k: v for k, v in opts.items() if k not in ("threads", "preset") and v is not None}
    if opts.get("preset"):
        ref_opts.setdefault("ties", "trec")
        ref_opts.setdefault("empty", "zero")
        ref_opts.setdefault("missing", "skip")
        ref_opts.setdefault("whole_lists", True)
    metrics = list(dict.fromkeys(metrics))
    # recs users absent from truth are ignored, unvalidated (docs/metrics.md §5); a positional side's users are 0..n-1
    t_users = set(truth_py) if isinstance(truth_py, dict) else set(range(len(truth_py)))
    pairs = recs_py.items() if isinstance(recs_py, dict) else enumerate(recs_py)
    recs_py = {u: v for u, v in pairs if u in t_users}
    # the metrics with the preset's option defaults (e.g. the trec_eval preset's bpref(negative=unjudged))
    pre = get_preset(opts.get("preset"))
    canon_of = {m: str(rm.metrics.parse(m, pre.metric_options if pre else None)) for m in metrics}
    canon_list = list(dict.fromkeys(canon_of.values()))
    means, per_user, meta = reference_evaluate(truth_py, recs_py, canon_list, **ref_opts)
    assert res.meta["n_users"] == meta["n_users"]
    assert res.meta["n_skipped"] == meta["n_skipped"]
    assert res.meta["n_missing_recs"] == meta["n_missing_recs"]
    for m in metrics:
        canon = canon_of[m]
        if opts.get("preset") and canon.startswith("ndcg") and "@" not in canon:
            continue  # the preset maps a cut-less ndcg to ideal=all; covered by the conformance tests
        assert close(res[m], means[canon]), (m, res[m], means[canon])
        got = res.per_user[m]
        assert all(close(a, b) for a, b in zip(got.tolist(), per_user[canon])), m


def _plain(x):
    return x.item() if isinstance(x, np.generic) else x


def truth_csr_to_python(parts):
    indptr = np.asarray(parts[0]).tolist()
    items = [_plain(x) for x in np.asarray(parts[1]).tolist()]
    grades = None if len(parts) < 3 else np.asarray(parts[2], dtype=np.float64).tolist()
    out = []
    for u in range(len(indptr) - 1):
        row = items[indptr[u] : indptr[u + 1]]
        out.append({i: (1.0 if grades is None else grades[indptr[u] + j]) for j, i in enumerate(row)})
    return out


def recs_csr_to_python(parts):
    indptr = np.asarray(parts[0]).tolist()
    items = [_plain(x) for x in np.asarray(parts[1]).tolist()]
    return [items[indptr[u] : indptr[u + 1]] for u in range(len(indptr) - 1)]


def padded_to_python(arr, pad):
    return [[_plain(x) for x in row if x != pad] for row in np.asarray(arr).tolist()]


# --------------------------------------------------------------------------- evaluate
@fz.FUZZ_SETTINGS
@given(st.data())
def test_fuzz_evaluate_python_forms(data):
    ids = data.draw(st.sampled_from([fz.int_ids, fz.STR_IDS, fz.any_ids]))
    malformed = data.draw(st.booleans())
    truth = data.draw(fz.truth_python(ids, malformed=malformed))
    recs = data.draw(fz.recs_python(ids, malformed=malformed))
    metrics = data.draw(fz.metric_lists(malformed=malformed))
    opts = data.draw(fz.eval_options(malformed=malformed))
    ok, res = fz.guarded(rm.evaluate, truth, recs, metrics, **opts)
    if isinstance(metrics, str):
        metrics = [metrics]
    if ok:
        check_against_reference(res, truth, recs, metrics, opts)
        # partial() of the same call finalizes to the same means, bit for bit
        ok2, state = fz.guarded(rm.partial, truth, recs, metrics, **opts)
        assert ok2
        fin = state.finalize()
        pre = get_preset(opts.get("preset"))
        for m in metrics:
            key = str(rm.metrics.parse(m, pre.metric_options if pre else None))
            assert fin[key] == res[m] or (math.isnan(fin[key]) and math.isnan(res[m]))


@fz.FUZZ_SETTINGS
@given(st.data())
def test_fuzz_evaluate_array_forms(data):
    malformed = data.draw(st.booleans())
    truth = data.draw(fz.csr_truth(malformed=malformed))
    if data.draw(st.booleans()):
        recs_arg = data.draw(fz.csr_recs(malformed=malformed))
        to_python = lambda: recs_csr_to_python(recs_arg)  # noqa: E731
    else:
        arr, pad = data.draw(fz.padded_recs(malformed=malformed))
        recs_arg = rm.Recs.from_array(arr, pad=pad) if (pad != -1 and arr.dtype.kind in "iu") else arr
        to_python = lambda: padded_to_python(arr, pad)  # noqa: E731
    metrics = data.draw(fz.metric_lists(malformed=False))
    opts = data.draw(fz.eval_options(malformed=malformed))
    ok, res = fz.guarded(rm.evaluate, truth, recs_arg, metrics, **opts)
    if ok:
        # accepted: the arrays were well formed, so the reference sees the same users and items
        check_against_reference(res, truth_csr_to_python(truth), to_python(), metrics, opts)


@fz.FUZZ_SETTINGS
@given(st.data())
def test_fuzz_shortcuts(data):
    name = data.draw(
        st.sampled_from(
            [
                "precision",
                "recall",
                "fbeta",
                "map",
                "mar",
                "ndcg",
                "dcg",
                "hit_rate",
                "mrr",
                "arhr",
                "hits",
                "cg",
                "r_precision",
            ]
        )
    )
    fn = getattr(rm, name)
    truth = data.draw(fz.truth_python(fz.int_ids))
    recs = data.draw(fz.recs_python(fz.int_ids))
    k = data.draw(st.one_of(st.none(), st.integers(1, 12), st.sampled_from([0, -1, 1.5, "3", True, 2**70, math.nan])))
    kwargs = {}
    if data.draw(st.booleans()):
        key, val = data.draw(
            st.sampled_from(
                [
                    ("gain", "exponential"),
                    ("gain", "cubic"),
                    ("ideal", "all"),
                    ("denominator", "hits"),
                    ("beta", 2.0),
                    ("beta", -1),
                    ("log_base", 10),
                    ("aggregate", None),
                    ("aggregate", "median"),
                    ("bogus", 1),
                    ("empty", "zero"),
                    ("threads", 3),
                    ("threads", 0),
                ]
            )
        )
        kwargs[key] = val
    ok, out = fz.guarded(fn, truth, recs, k, **kwargs)
    if ok:
        agg = kwargs.pop("aggregate", "mean")
        metric = str(
            rm.metrics.Metric(
                {"map": "ap", "mar": "ar", "mrr": "rr"}.get(name, name),
                k,
                **{a: b for a, b in kwargs.items() if a not in ("empty", "threads")},
            )
        )
        res = rm.evaluate(truth, recs, [metric], **{a: b for a, b in kwargs.items() if a in ("empty", "threads")})
        if agg == "mean":
            assert close(out, res[metric])
        else:
            assert np.array_equal(out, res.per_user[metric], equal_nan=True)


# --------------------------------------------------------------------------- constructors
@fz.FUZZ_SETTINGS
@given(st.data())
def test_fuzz_constructors(data):
    which = data.draw(st.sampled_from(["t_csr", "t_lists", "t_dict", "r_csr", "r_array", "r_lists", "r_dict"]))
    malformed = data.draw(st.booleans())
    users = None
    if which == "t_csr":
        parts = data.draw(fz.csr_truth(malformed=malformed))
        if data.draw(st.booleans()):
            users = data.draw(fz.as_array(data.draw(st.lists(fz.SMALL_INTS, max_size=7, unique=not malformed)), "int"))
        ok, obj = fz.guarded(rm.Truth.from_csr, *parts, users=users)
    elif which == "t_lists":
        rows = data.draw(st.lists(fz.id_list(fz.any_ids, unique=not malformed), max_size=5))
        grades = None
        if data.draw(st.booleans()):
            grades = [
                [data.draw(fz.grades if not malformed else st.one_of(fz.grades, fz.bad_grades)) for _ in r]
                for r in rows
            ]
            if malformed and data.draw(st.booleans()):
                grades.append([1.0])
        ok, obj = fz.guarded(rm.Truth.from_lists, rows, grades)
    elif which == "t_dict":
        ok, obj = fz.guarded(rm.Truth.from_dict, data.draw(fz.truth_python(fz.any_ids, malformed=malformed)))
    elif which == "r_csr":
        parts = data.draw(fz.csr_recs(malformed=malformed))
        by_score = data.draw(st.booleans())
        ok, obj = fz.guarded(rm.Recs.from_csr, *parts, by_score=by_score)
    elif which == "r_array":
        arr, pad = data.draw(fz.padded_recs(malformed=malformed))
        pad_arg = data.draw(st.sampled_from([pad, pad, "x", 1.5, None])) if malformed else pad
        ok, obj = fz.guarded(rm.Recs.from_array, arr, pad=pad_arg)
    elif which == "r_lists":
        rows = data.draw(st.lists(fz.id_list(fz.any_ids, max_size=8, unique=not malformed), max_size=5))
        sc = None
        if data.draw(st.booleans()):
            sc = [[data.draw(fz.scores) for _ in r] for r in rows]
            if malformed and sc and sc[0]:
                sc[0][0] = data.draw(st.sampled_from([math.nan, math.inf, "s"]))
        ok, obj = fz.guarded(rm.Recs.from_lists, rows, sc)
    else:
        ok, obj = fz.guarded(rm.Recs.from_dict, data.draw(fz.recs_python(fz.any_ids, malformed=malformed)))
    if ok:
        # a constructed object evaluates (or is rejected cleanly, e.g. duplicate items)
        if isinstance(obj, rm.Truth):
            fz.guarded(rm.evaluate, obj, {}, ["ndcg@3", "precision"])
        else:
            fz.guarded(rm.evaluate, {}, obj, ["ndcg@3", "precision"])


def _topk_reference(S, k, exclude_rows):
    """Per row: columns by score descending, column order on ties, excluded columns dropped."""
    out = []
    for r in range(S.shape[0]):
        cols = [c for c in range(S.shape[1]) if c not in exclude_rows[r]]
        cols.sort(key=lambda c: (-float(S[r, c]), c))
        out.append(cols[:k])
    return out


@fz.FUZZ_SETTINGS
@given(st.data())
def test_fuzz_from_scores(data):
    n_users = data.draw(st.integers(0, 6))
    n_items = data.draw(st.integers(0, 9))
    vals = data.draw(
        st.lists(
            st.sampled_from([0.0, 1.0, 1.0, 2.5, -3.0, 1e300, -1e300]) | fz.scores,
            min_size=n_users * n_items,
            max_size=n_users * n_items,
        )
    )
    S = np.array(vals, dtype=np.float64).reshape(n_users, n_items)
    malformed = data.draw(st.booleans())
    if malformed and S.size and data.draw(st.booleans()):
        S[data.draw(st.integers(0, n_users - 1)), data.draw(st.integers(0, n_items - 1))] = data.draw(
            st.sampled_from([math.nan, math.inf, -math.inf])
        )
    dtype = data.draw(st.sampled_from(["<f8", ">f8", "<f4", "<i8"] + (["?", "O", "<U2"] if malformed else [])))
    M: np.ndarray
    with np.errstate(all="ignore"):
        try:
            M = S.astype(dtype)
        except (ValueError, OverflowError):
            M = S
    if malformed and data.draw(st.integers(0, 5)) == 0:
        M = M.ravel()
    if data.draw(st.booleans()) and M.ndim == 2:
        M = np.asfortranarray(M)
        M.setflags(write=False)
    k = data.draw(st.integers(1, 10) | (st.sampled_from([0, -2, 2.5, None, "3"]) if malformed else st.integers(1, 3)))
    ex_rows: list[set] = [set() for _ in range(n_users)]
    exclude = None
    if data.draw(st.booleans()):
        for r in range(n_users):
            if n_items:
                ex_rows[r] = set(data.draw(st.lists(st.integers(0, n_items - 1), max_size=3, unique=True)))
        indptr = np.concatenate([[0], np.cumsum([len(s) for s in ex_rows])]).astype(np.int64)
        cols = np.array([c for s in ex_rows for c in sorted(s)], dtype=np.int64)
        if malformed and data.draw(st.booleans()):
            cols = cols + n_items  # out of range
        exclude = (indptr, cols)
    ok, recs = fz.guarded(rm.Recs.from_scores, M, k, exclude=exclude)
    if ok:
        Mf = np.asarray(M, dtype=np.float64)
        ref = _topk_reference(Mf, int(k), ex_rows)
        got = [recs.items[recs.indptr[u] : recs.indptr[u + 1]].tolist() for u in range(n_users)]
        assert got == ref


# --------------------------------------------------------------------------- parser, readers, state
_GRAMMAR_CHARS = "ndcgaprecisonmlhtkfb_@()=,.0123456789 -xe"


@fz.FUZZ_SETTINGS
@given(st.one_of(st.text(alphabet=_GRAMMAR_CHARS, max_size=24), st.sampled_from(fz.BAD_METRICS + fz.METRIC_NAMES)))
def test_fuzz_metric_parse(text):
    ok, m = fz.guarded(rm.metrics.parse, text)
    if ok:
        assert str(rm.metrics.parse(str(m))) == str(m)


def _trec_lines(data, kind):
    lines = []
    for _ in range(data.draw(st.integers(0, 8))):
        q = data.draw(st.sampled_from(["q1", "q2", "10", "9", "qé"]))
        d = data.draw(st.sampled_from(["d1", "d2", "d3", "10", "9", "D-4"]))
        num = data.draw(st.sampled_from(["1", "0", "2", "-1", "0.5", "3e1", "nan", "inf", "x", "1e400"]))
        if kind == "qrels":
            line = f"{q} 0 {d} {num}"
        else:
            line = f"{q} Q0 {d} {data.draw(st.integers(0, 9))} {num} run"
        mutate = data.draw(st.integers(0, 9))
        if mutate == 0:
            line = " ".join(line.split()[:-2])  # too few fields
        elif mutate == 1:
            line = line + " extra"
        elif mutate == 2:
            line = ""
        lines.append(line)
    return "\n".join(lines)


@fz.FUZZ_SETTINGS
@given(data=st.data())
def test_fuzz_trec_readers(tmp_path_factory, data):
    d = tmp_path_factory.mktemp("trec")
    paths = {}
    for kind in ("qrels", "run"):
        text = _trec_lines(data, kind).encode("utf-8")
        if data.draw(st.integers(0, 9)) == 0:
            text += b"\xff\xfe q 0 d 1"
        p = d / (kind + (".gz" if data.draw(st.booleans()) else ""))
        p.write_bytes(gzip.compress(text) if p.suffix == ".gz" else text)
        paths[kind] = p
    okq, qrels = fz.guarded(rm.read_trec_qrels, str(paths["qrels"]))
    okr, run = fz.guarded(rm.read_trec_run, paths["run"])
    if okq and okr:
        ok, res = fz.guarded(
            rm.evaluate,
            qrels,
            run,
            ["ndcg@5", "map", "P@3"],
            preset="trec_eval",
            duplicates=data.draw(st.sampled_from(["error", "first", "miss", "count"])),
        )
        if ok:  # the preset evaluates the queries in both files (trec_eval without -c)
            assert res.meta["n_users"] + res.meta["n_missing_recs"] == qrels.n_users
    bad = data.draw(st.sampled_from([None, 5, b"path", ["x"], str(d / "missing")]))
    try:
        fz.guarded(rm.read_trec_qrels, bad)
    except FileNotFoundError:
        assert isinstance(bad, str)  # a missing file is the OS's error, named with the path


@fz.FUZZ_SETTINGS
@given(st.data())
def test_fuzz_state_bytes(data):
    truth = data.draw(fz.truth_python(fz.int_ids))
    recs = data.draw(fz.recs_python(fz.int_ids))
    truth = dict(enumerate(truth)) if isinstance(truth, list) else truth
    recs = dict(enumerate(recs)) if isinstance(recs, list) else recs
    # every truth user has a recs entry (maybe empty): no user in common is an error (docs/metrics.md §5)
    scored = any(isinstance(v, dict) for v in recs.values())
    recs = {**{u: {} if scored else [] for u in truth}, **recs}
    state = rm.partial(truth, recs, ["ndcg@3", "precision"], duplicates="first")
    blob = bytearray(state.to_bytes())
    assert rm.State.from_bytes(bytes(blob)) == state
    how = data.draw(st.sampled_from(["truncate", "flip", "append", "type", "empty"]))
    if how == "truncate":
        blob = blob[: data.draw(st.integers(0, max(0, len(blob) - 1)))]
    elif how == "flip" and blob:
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] ^= data.draw(st.integers(1, 255))
    elif how == "append":
        blob += data.draw(st.binary(min_size=1, max_size=8))
    elif how == "empty":
        blob = bytearray()
    arg = data.draw(st.sampled_from([None, 5, "RMST"])) if how == "type" else bytes(blob)
    ok, out = fz.guarded(rm.State.from_bytes, arg)
    if ok:
        assert isinstance(out, rm.State)
        out.finalize()  # a flipped byte may still decode to a state; it must be usable
        if how == "append":
            pytest.fail("trailing bytes were accepted")


def test_fuzz_counted_calls():
    """The guard counts every call it makes (the long run reports these totals)."""
    before = fz.CALLS["total"]
    fz.guarded(rm.evaluate, {1: [2]}, {1: [2]}, "ndcg@1")
    fz.guarded(rm.evaluate, {1: [2]}, {1: [2]}, "nope@1")
    assert fz.CALLS["total"] == before + 2


# --------------------------------------------------------------------------- beyond-accuracy entry points
BEYOND = [
    "fcp",
    "fcp(average=users)@3",
    "diversity@3",
    "diversity(similarity=matrix)@2",
    "diversity(similarity=cooccurrence)@3",
    "novelty@3",
    "novelty(unseen=zero,divide_by=k)@2",
    "serendipity@3",
    "serendipity(relevance=all)",
    "personalization@3",
    "personalization(similarity=cosine)",
    "coverage@2",
    "arp(normalize=max)@3",
    "gini@3",
    "gini(over=recommended)",
    "score_entropy@3",
]


@st.composite
def _features_arg(draw):
    form = draw(st.sampled_from(["array", "dict", "pair", "bad"]))
    d = draw(st.integers(0, 3))
    if form == "array":
        rows = draw(st.integers(0, 45))
        vals = draw(st.lists(st.sampled_from([0.0, 1.0, -2.0, 0.5, math.nan]), min_size=rows * d, max_size=rows * d))
        return np.array(vals, dtype=np.float64).reshape(rows, d)
    if form == "dict":
        return {
            i: [draw(st.sampled_from([0.0, 1.0, 3.0])) for _ in range(d)]
            for i in draw(st.lists(fz.SMALL_INTS, max_size=12, unique=True))
        }
    if form == "pair":
        ids = draw(st.lists(fz.any_ids, max_size=8, unique=True))
        return (ids, np.ones((len(ids) + draw(st.sampled_from([0, 0, 1])), d)))
    return draw(st.sampled_from([None, "x", 5, np.zeros(4), [[1, "a"]]]))


@st.composite
def _similarity_arg(draw):
    n = draw(st.integers(0, 45))
    m = np.full((n, n), draw(st.sampled_from([0.0, 0.5, 1.0])))
    form = draw(st.sampled_from(["square", "square", "rect", "pair", "object"]))
    if form == "rect" and n:
        return m[:, :-1]
    if form == "pair":
        return (list(range(n)), m)
    if form == "object":
        return m.astype(object)
    return m


@fz.FUZZ_SETTINGS
@given(st.data())
def test_fuzz_beyond_metrics_and_context(data):
    ids = data.draw(st.sampled_from([fz.int_ids, fz.SMALL_INTS, fz.STR_IDS]))
    malformed = data.draw(st.booleans())
    truth = data.draw(fz.truth_python(ids, malformed=malformed))
    recs = data.draw(fz.recs_python(ids, malformed=malformed))
    metrics = data.draw(st.lists(st.sampled_from(BEYOND), min_size=1, max_size=3))
    if data.draw(st.booleans()):
        metrics.append(data.draw(st.sampled_from(fz.METRIC_NAMES)) + "@3")
    ctx = {}
    if data.draw(st.integers(0, 3)):
        ctx["train"] = data.draw(fz.truth_python(ids, malformed=malformed))
    if data.draw(st.booleans()):
        ctx["item_features"] = data.draw(_features_arg())
    if data.draw(st.booleans()):
        ctx["item_similarity"] = data.draw(_similarity_arg())
    if data.draw(st.booleans()):
        ctx["catalog"] = data.draw(st.lists(ids, max_size=10))
    opts = data.draw(fz.eval_options(malformed=malformed))
    opts.pop("preset", None)
    ok, res = fz.guarded(rm.evaluate, truth, recs, metrics, **opts, **ctx)
    if ok:
        for m in metrics:
            v = res[m]
            assert isinstance(v, float)
            if rm.metrics.parse(m).family == "user":
                assert res.per_user[m].shape == (res.meta["n_users"],)
        # thread count never changes a value
        ok2, res2 = fz.guarded(rm.evaluate, truth, recs, metrics, **{**opts, "threads": 3}, **ctx)
        assert ok2
        for m in metrics:
            assert res2[m] == res[m] or (math.isnan(res2[m]) and math.isnan(res[m]))


@fz.FUZZ_SETTINGS
@given(st.data())
def test_fuzz_tables(data):
    recs = data.draw(fz.recs_python(fz.int_ids, malformed=data.draw(st.booleans())))
    train = data.draw(fz.truth_python(fz.int_ids))
    which = data.draw(st.sampled_from(["item", "user", "cases"]))
    cats = data.draw(
        st.one_of(
            st.dictionaries(fz.int_ids, st.sampled_from(["a", "b", None, 3]), max_size=8),
            st.sampled_from([None, 5, "x", (1, 2, 3), ([1, 2], ["a"])]),
        )
    )
    k = data.draw(st.sampled_from([None, 1, 3, 0, -1, 2.5]))
    if which == "item":
        fz.guarded(rm.item_bias, recs, train, cats, k=k)
    elif which == "user":
        fz.guarded(rm.user_bias, recs, train, cats)
    else:
        users = data.draw(st.one_of(st.none(), st.lists(fz.SMALL_INTS, max_size=3)))
        fz.guarded(
            rm.rec_cases,
            recs,
            train,
            users=users,
            n=data.draw(st.sampled_from([0, 2, -1, 1.5])),
            k=data.draw(st.sampled_from([1, 3, 10])),
        )


# --------------------------------------------------------------------------- fast random driver
def test_fuzz_random_calls():
    """Numpy-drawn inputs over every entry point (tests/support/fuzz_random.py): the long-run driver.

    RANKMETER_FUZZ_CALLS sets the number of calls (CI: 3000), RANKMETER_FUZZ_SEED the seed."""
    from tests.support import fuzz_random

    n = int(os.environ.get("RANKMETER_FUZZ_CALLS", "3000"))
    seed = int(os.environ.get("RANKMETER_FUZZ_SEED", "0"))
    before = dict(fz.CALLS)
    after = fuzz_random.run(n, seed)
    done = after["total"] - before["total"]
    assert done >= n
    # both outcomes must occur, or the driver is not reaching the kernels / the checks
    assert after["ok"] > before["ok"] and after["rejected"] > before["rejected"]
