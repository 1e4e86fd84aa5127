"""One ``EvalOptions`` for every entry point: each option works (or is refused by name) everywhere.

The table ``CASES`` holds one case per field of :class:`rankmeter.evaluation.EvalOptions`: data on
which the option changes the value (or on which the call fails without it) and the value to pass.
Every entry point (``evaluate``, ``partial``, the shortcuts, ``evaluate_stream``, ``compare``, the
command line, ``rankmeter.dask`` and ``rankmeter.spark``) must give, for each case, the value of
``evaluate`` with that option, or refuse the option with an error naming it. An option added to
``EvalOptions`` without a case here fails ``test_every_option_has_a_case``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import pathlib
import re
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import rankmeter as rm
import rankmeter.presets
from rankmeter.cli import main
from rankmeter.evaluation import COLUMNS, CONTEXT, DEFAULTS, OPTION_NAMES, EvalOptions, option_field
from tests.support.engines import local_spark, need, need_spark

# ----------------------------------------------------------------------------- data
# subtopic judgments (subtopics=): users 1 and 2, two subtopics each
SUBTOPICS = pd.DataFrame(
    {
        "user_id": [1, 1, 1, 2, 2],
        "subtopic": [1, 2, 2, 1, 2],
        "item_id": [10, 11, 13, 20, 22],
        "relevance": [1, 1, 1, 1, 1],
    }
)
# C/W/L costs per (user, item) (costs=): item 13 of user 1 costs 3, item 11 nothing; items without a row cost 1
COSTS = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [13, 11, 22], "cost": [3.0, 0.0, 0.5]})
# item categories (item_categories=) and histories with a category for users 1, 2 and 5 (miscalibration)
CATEGORIES = {10: "a", 11: ["a", "b"], 12: "b", 13: "c", 20: "a", 21: "c", 22: ["b", "c"], 50: "a", 51: "b"}
# item groups (item_groups=): providers of the listed items (awrf)
GROUPS = {10: "p", 11: ["p", "q"], 12: "q", 13: "r", 20: "p", 21: "r", 22: "q", 50: "p", 51: "q"}
TRAIN_CATEGORIES = pd.DataFrame({"user_id": [1, 1, 2, 5, 5], "item_id": [10, 13, 22, 50, 12]})
# user 3 has no relevant item (empty=), user 4 no recs (missing=), user 6 recs only; grades 1-3 (min_relevance=)
TRUTH = pd.DataFrame(
    {
        "user_id": [1, 1, 1, 2, 2, 3, 4, 5, 5],
        "item_id": [10, 11, 12, 20, 21, 30, 40, 50, 51],
        "relevance": [3.0, 1.0, 2.0, 1.0, 2.0, 0.0, 2.0, 1.0, 3.0],
    }
)
# distinct scores: the order does not depend on how an engine shuffles the rows
RECS = pd.DataFrame(
    {
        "user_id": [1, 1, 1, 1, 2, 2, 2, 3, 3, 5, 5, 5, 6],
        "item_id": [11, 13, 10, 12, 22, 20, 21, 30, 31, 51, 52, 50, 60],
        "score": [0.9, 0.8, 0.7, 0.6, 0.9, 0.5, 0.4, 0.9, 0.8, 0.95, 0.9, 0.85, 0.9],
    }
)
# user 1 lists item 11 twice (duplicates=)
RECS_DUP = pd.concat(
    [RECS.iloc[:2], pd.DataFrame({"user_id": [1], "item_id": [11], "score": [0.75]}), RECS.iloc[2:]],
    ignore_index=True,
)
# user 1's truth lists item 10 twice, grades 3 then 1 (truth_duplicates=)
TRUTH_DUP = pd.concat(
    [TRUTH.iloc[:3], pd.DataFrame({"user_id": [1], "item_id": [10], "relevance": [1.0]}), TRUTH.iloc[3:]],
    ignore_index=True,
)
# equal scores for user 1 (ties=): input order 11, 10, 13; docno descending 13, 11, 10
RECS_TIES = RECS.assign(score=[0.5, 0.1, 0.5, 0.5, 0.9, 0.5, 0.4, 0.9, 0.8, 0.95, 0.9, 0.85, 0.9]).iloc[
    [0, 2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
]
RECS_TIES = RECS_TIES.assign(item_id=[11, 10, 13, 12, 22, 20, 21, 30, 31, 51, 52, 50, 60]).reset_index(drop=True)
# item propensities (propensity=) for every item of the truth: a relevant item weighs 1 / p
PROPENSITY = {10: 0.5, 11: 0.1, 12: 0.25, 20: 0.8, 21: 0.05, 30: 0.3, 40: 0.2, 50: 0.4, 51: 0.6}
TRAIN = pd.DataFrame({"user_id": [1, 1, 2, 5, 7, 7, 8, 8], "item_id": [13, 99, 22, 52, 11, 20, 51, 11]})
ITEMS = sorted(set(TRUTH["item_id"]) | set(RECS["item_id"]))
FEATURES = {i: [float(i % 3), float(i % 5 + 1)] for i in ITEMS}
SIMILARITY = {a: {b: 1.0 / (1 + abs(a - b)) for b in ITEMS} for a in ITEMS}
CATALOG = [10, 11, 12, 13, 20, 21, 22, 50, 51, 52, 99]


@dataclasses.dataclass
class Case:
    """One option on data where it matters: ``metric`` (and the shortcut that computes it: name, k and
    the metric's own keyword arguments) over ``truth`` and ``recs``, with ``option=value``."""

    option: str
    value: object
    metric: str = "ndcg@3"
    shortcut: tuple = ("ndcg", 3, {})
    truth: pd.DataFrame = dataclasses.field(default_factory=lambda: TRUTH)
    recs: pd.DataFrame = dataclasses.field(default_factory=lambda: RECS)
    matters: bool = True  # without the option the value differs (or the call fails)
    also: dict = dataclasses.field(default_factory=dict)  # other options the case needs, passed with and without

    def kw(self) -> dict:
        return {**self.also, self.option: self.value}


def _renamed(frame: pd.DataFrame, old: str, new: str) -> pd.DataFrame:
    return frame.rename(columns={old: new})


CASES = {
    "preset": Case("preset", "ranx"),
    "threads": Case("threads", 1, matters=False),
    "empty": Case("empty", "zero"),
    "duplicates": Case("duplicates", "first", recs=RECS_DUP),
    "truth_duplicates": Case("truth_duplicates", "last", truth=TRUTH_DUP),
    "ties": Case("ties", "trec", recs=RECS_TIES),
    "min_relevance": Case("min_relevance", 2.0, "map@3", ("map", 3, {})),  # ndcg's gains are the grades
    "max_items": Case("max_items", 2),
    "missing": Case("missing", "skip"),
    # user 6 has recs only: with an empty truth it scores 0 under empty="zero"
    "recs_only": Case("recs_only", "empty", also={"empty": "zero"}),
    "train": Case("train", TRAIN, "novelty@3", ("novelty", 3, {})),
    "item_features": Case("item_features", FEATURES, "diversity@3", ("diversity", 3, {})),
    "item_similarity": Case(
        "item_similarity", SIMILARITY, "diversity(similarity=matrix)@3", ("diversity", 3, {"similarity": "matrix"})
    ),
    "catalog": Case("catalog", CATALOG, "coverage@3", ("coverage", 3, {})),
    "subtopics": Case("subtopics", SUBTOPICS, "alpha_ndcg@3", ("alpha_ndcg", 3, {})),
    "costs": Case("costs", COSTS, "cwl_p(quantity=etc)@3", ("precision", 3, {})),
    # the long tail of aplt(tail=given) (popularity and long tail, helper pop): items 11 and 21 of the lists
    "tail_items": Case("tail_items", [11, 21], "aplt(tail=given)@3", ("ndcg", 3, {})),
    "item_categories": Case(
        "item_categories", CATEGORIES, "miscalibration@3", ("ndcg", 3, {}), also={"train": TRAIN_CATEGORIES}
    ),
    "propensity": Case("propensity", PROPENSITY, "ips_ndcg@3", ("ndcg", 3, {})),
    "item_groups": Case("item_groups", GROUPS, "awrf@3", ("ndcg", 3, {})),
    "user_col": Case("user_col", "uid", truth=_renamed(TRUTH, "user_id", "uid"), recs=_renamed(RECS, "user_id", "uid")),
    "item_col": Case("item_col", "iid", truth=_renamed(TRUTH, "item_id", "iid"), recs=_renamed(RECS, "item_id", "iid")),
    "relevance_col": Case("relevance_col", "grade", truth=_renamed(TRUTH, "relevance", "grade")),
    "rank_col": Case(
        "rank_col",
        "pos",
        recs=RECS.assign(pos=RECS.groupby("user_id").cumcount() + 1).drop(columns="score"),
    ),
    "score_col": Case("score_col", "s", recs=_renamed(RECS, "score", "s")),
    # the tables name the user (item) column differently, neither by the default: one keyword per side
    "truth_user_col": Case(
        "truth_user_col",
        "userId",
        truth=_renamed(TRUTH, "user_id", "userId"),
        recs=_renamed(RECS, "user_id", "uid"),
        also={"recs_user_col": "uid"},
    ),
    "truth_item_col": Case(
        "truth_item_col",
        "movieId",
        truth=_renamed(TRUTH, "item_id", "movieId"),
        recs=_renamed(RECS, "item_id", "iid"),
        also={"recs_item_col": "iid"},
    ),
    "recs_user_col": Case(
        "recs_user_col",
        "uid",
        truth=_renamed(TRUTH, "user_id", "userId"),
        recs=_renamed(RECS, "user_id", "uid"),
        also={"truth_user_col": "userId"},
    ),
    "recs_item_col": Case(
        "recs_item_col",
        "iid",
        truth=_renamed(TRUTH, "item_id", "movieId"),
        recs=_renamed(RECS, "item_id", "iid"),
        also={"truth_item_col": "movieId"},
    ),
}

# (entry point, option) pairs refused by name, with the words the error must hold
REFUSED = {
    ("compare", "catalog"): "catalog",  # only catalog-level metrics read it; compare refuses those
    ("spark.per_user", "catalog"): "catalog",
    **{("cli", name): "--" + name.replace("_", "-") for name in CONTEXT},  # Python objects only
    ("shortcut", "costs"): "C/W/L metrics only",  # no shortcut computes a C/W/L metric
    ("shortcut", "tail_items"): "tail='given'",  # no shortcut computes aplt, aclt or tail_percentage
    ("shortcut", "item_categories"): "miscalibration only",  # no shortcut computes miscalibration
    ("shortcut", "item_groups"): "rsp and item_mad only",  # no shortcut computes an item-exposure metric
    ("cli", "item_categories"): "not available on the command line",  # its case passes --train too, refused first
    ("shortcut", "propensity"): "propensity-weighted metrics only",  # no shortcut computes an ips_* metric
}


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _reference(case: Case) -> float:
    return rm.evaluate(case.truth, case.recs, [case.metric], **case.kw())[case.metric]


def test_every_option_has_a_case():
    """An option added to EvalOptions must be added here too, so it is tested at every entry point."""
    assert set(CASES) == set(OPTION_NAMES)
    assert all(c.option == name for name, c in CASES.items())


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_each_case_is_one_where_the_option_matters(name):
    case = CASES[name]
    with_option = _reference(case)
    if not case.matters:
        return
    try:
        with warnings.catch_warnings():  # a table without its grade column warns
            warnings.simplefilter("ignore")
            without = rm.evaluate(case.truth, case.recs, [case.metric], **case.also)[case.metric]
    except (ValueError, TypeError):
        return  # the call needs the option
    assert not _same(with_option, without)


# ----------------------------------------------------------------------------- in memory
@pytest.mark.parametrize("name", OPTION_NAMES)
def test_partial_takes_every_option(name):
    case = CASES[name]
    got = rm.partial(case.truth, case.recs, [case.metric], **case.kw()).finalize()[case.metric]
    assert _same(got, _reference(case))


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_shortcuts_take_every_option(name):
    case = CASES[name]
    short, k, metric_kw = case.shortcut
    if ("shortcut", name) in REFUSED:
        with pytest.raises(ValueError, match=REFUSED["shortcut", name]):
            getattr(rm, short)(case.truth, case.recs, k, **metric_kw, **case.kw())
        return
    got = getattr(rm, short)(case.truth, case.recs, k, **metric_kw, **case.kw())
    assert _same(got, _reference(case))


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_evaluate_stream_takes_every_option(name):
    case = CASES[name]
    recs = [pa.Table.from_pandas(case.recs, preserve_index=False)]
    got = rm.evaluate_stream(case.truth, recs, [case.metric], progress=False, **case.kw())[case.metric]
    assert _same(got, _reference(case))


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_compare_takes_every_option(name):
    case = CASES[name]
    if ("compare", name) in REFUSED:
        with pytest.raises(TypeError, match=REFUSED["compare", name]):
            rm.compare(case.truth, {"a": case.recs, "b": case.recs}, ["ndcg@3"], n_resamples=9, **case.kw())
        return
    cmp = rm.compare(case.truth, {"a": case.recs, "b": case.recs}, [case.metric], n_resamples=9, **case.kw())
    assert _same(cmp.results["a"][case.metric], _reference(case))


# ----------------------------------------------------------------------------- command line
def _cli_value(value: object) -> str:
    return str(value) if isinstance(value, (str, int, float)) else "x"


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_cli_takes_every_option(name, tmp_path, capsys):
    case = CASES[name]
    truth, recs = tmp_path / "truth.csv", tmp_path / "recs.csv"
    case.truth.to_csv(truth, index=False)
    case.recs.to_csv(recs, index=False)
    argv = ["eval", str(truth), str(recs), "-m", case.metric, "--format", "json", "--no-progress"]
    if name != "preset":
        argv += ["--preset", "none"]  # rankmeter eval defaults to trec_eval's conventions
    for key, value in case.kw().items():
        argv += ["--" + key.replace("_", "-"), _cli_value(value)]
    code = main(argv)
    out, err = capsys.readouterr()
    if ("cli", name) in REFUSED:
        assert code == 2 and REFUSED["cli", name] in err
        return
    assert code == 0, err
    (run,) = json.loads(out).values()
    (got,) = run["all"].values()  # one measure (named as trec_eval names it under its preset)
    assert _same(got, _reference(case))


def test_cli_flags_are_the_options():
    """rankmeter eval and rankmeter compare have a flag for every option, declared once in EvalOptions."""
    import argparse

    from rankmeter.cli import add_option_flags

    p = argparse.ArgumentParser()
    add_option_flags(p)
    flags = {s for a in p._actions for s in a.option_strings}
    assert {"--" + n.replace("_", "-") for n in OPTION_NAMES} <= flags
    for name in OPTION_NAMES:
        allowed = option_field(name).metadata["allowed"]
        action = next(a for a in p._actions if a.dest == name)
        assert tuple(action.choices or ()) == tuple(allowed)


# ----------------------------------------------------------------------------- engines
@pytest.mark.engines
@pytest.mark.parametrize("name", OPTION_NAMES)
def test_dask_takes_every_option(name):
    dd = need("dask.dataframe", "pip install 'dask[dataframe]'")
    import rankmeter.dask as rdk

    case = CASES[name]
    df = dd.from_pandas(case.recs, npartitions=2)
    truth = dd.from_pandas(case.truth, npartitions=2)
    got = rdk.evaluate(df, [case.metric], truth=truth, **case.kw())[case.metric]  # type: ignore[index]
    assert _same(got, _reference(case))


@pytest.fixture(scope="module")
def spark():
    need_spark()
    s = local_spark("rankmeter-options", shuffle_partitions=2)
    yield s
    s.stop()


@pytest.mark.engines
@pytest.mark.parametrize("name", OPTION_NAMES)
def test_spark_takes_every_option(name, spark):
    import rankmeter.spark as rs

    case = CASES[name]
    df, truth = spark.createDataFrame(case.recs), spark.createDataFrame(case.truth)
    got = rs.evaluate(df, [case.metric], truth=truth, **case.kw())[case.metric]  # type: ignore[index]
    assert _same(got, _reference(case))
    # per-user values, or the option refused by name
    metric = case.metric if rm.metrics.parse(case.metric).family != "catalog" else "ndcg@3"
    if ("spark.per_user", name) in REFUSED:
        with pytest.raises(TypeError, match=REFUSED["spark.per_user", name]):
            rs.per_user(df, [metric], truth=truth, **case.kw())
        return
    user_col = case.kw().get("user_col", "user_id")
    rows = rs.per_user(df, [metric], truth=truth, **case.kw()).collect()
    got_users = {r[user_col]: r[metric] for r in rows}
    res = rm.evaluate(case.truth, case.recs, [metric], **case.kw())
    want = dict(zip(np.asarray(res.users).tolist(), np.asarray(res.per_user[metric]).tolist()))
    assert got_users.keys() == want.keys()
    assert all(_same(got_users[u], want[u]) for u in want)


@pytest.mark.engines
@pytest.mark.parametrize(
    "metric, preset",
    [
        ("novelty@3", None),
        ("coverage@3", None),
        ("diversity(similarity=cooccurrence)@3", None),
        ("diversity@3", "recommenders"),
    ],
)
def test_spark_train_frame_read_as_the_metric_table_says(metric, preset, spark):
    """A Spark-frame train is collected when a metric reads it (the metric table's needs, and diversity's
    similarity option, also when a preset sets it) and reduced to the catalog for coverage."""
    import rankmeter.spark as rs

    train = spark.createDataFrame(TRAIN)
    got = rs.evaluate(
        spark.createDataFrame(RECS), [metric], truth=spark.createDataFrame(TRUTH), train=train, preset=preset
    )
    assert _same(got[metric], rm.evaluate(TRUTH, RECS, [metric], train=TRAIN, preset=preset)[metric])  # type: ignore[index]


# ----------------------------------------------------------------------------- signatures and errors
def test_evaluate_and_partial_list_every_option_in_their_signature():
    """help(rm.evaluate) shows every option as a keyword argument, in the declaration order."""
    for fn, extra in ((rm.evaluate, ["per_user", "user_groups"]), (rm.partial, ["user_groups"])):
        params = [p for p in inspect.signature(fn).parameters if p not in ("truth", "recs", "metrics")]
        assert params == [*OPTION_NAMES, *extra]
    for name in OPTION_NAMES:
        assert re.search(rf"\b{name}\b.* :", rm.evaluate.__doc__ or "")


def test_stream_and_engines_list_the_options_they_do_not_take_as_context():
    import rankmeter.dask as rdk
    import rankmeter.spark as rs

    stream = inspect.signature(rm.evaluate_stream).parameters
    assert [n for n in OPTION_NAMES if n not in CONTEXT and n not in stream] == []
    for fn in (rs.evaluate, rs.per_user, rdk.evaluate):
        params = inspect.signature(fn).parameters
        assert set(COLUMNS) | set(CONTEXT) <= set(params)


def test_shortcut_missing_equals_evaluate():
    truth = {1: {10: 1}, 2: {20: 1}, 3: {30: 1}}
    recs = {1: [10, 11], 3: [31, 30]}
    got = rm.ndcg(truth, recs, k=10, missing="skip")
    assert got == rm.evaluate(truth, recs, ["ndcg@10"], missing="skip")["ndcg@10"]
    assert got != rm.ndcg(truth, recs, k=10)


def test_shortcut_reads_frames_with_column_names():
    truth, recs = CASES["user_col"].truth, CASES["user_col"].recs
    got = rm.ndcg(truth, recs, k=3, user_col="uid", gain="exponential")
    assert got == rm.evaluate(truth, recs, ["ndcg(gain=exponential)@3"], user_col="uid")["ndcg(gain=exponential)@3"]
    per_user = rm.ndcg(truth, recs, k=3, user_col="uid", aggregate=None)
    assert np.array_equal(
        per_user, rm.evaluate(truth, recs, ["ndcg@3"], user_col="uid").per_user["ndcg@3"], equal_nan=True
    )


def test_shortcut_mean_is_the_mean_of_evaluate_for_every_shortcut():
    """aggregate='mean' skips the per-user column: the same exact mean."""
    kw = dict(train=TRAIN, item_features=FEATURES)
    for short, metric in [
        ("ndcg", "ndcg@3"),
        ("map", "map@3"),
        ("mrr", "mrr@3"),
        ("mar", "mar@3"),
        ("novelty", "novelty@3"),
        ("gini", "gini@3"),
        ("serendipity", "serendipity@3"),
    ]:
        assert _same(getattr(rm, short)(TRUTH, RECS, 3, **kw), rm.evaluate(TRUTH, RECS, [metric], **kw)[metric])


@pytest.mark.parametrize(
    "call",
    [
        lambda: rm.ndcg(TRUTH, RECS, 3, bogus_option=1),
        lambda: rm.evaluate(TRUTH, RECS, ["ndcg@3"], bogus_option=1),  # type: ignore[call-arg]
        lambda: rm.partial(TRUTH, RECS, ["ndcg@3"], bogus_option=1),  # type: ignore[call-arg]
        lambda: rm.evaluate_stream(TRUTH, [pa.Table.from_pandas(RECS)], ["ndcg@3"], progress=False, bogus_option=1),
        lambda: rm.compare(TRUTH, {"a": RECS, "b": RECS}, ["ndcg@3"], bogus_option=1),
        lambda: EvalOptions.from_kwargs(bogus_option=1),
    ],
)
def test_an_unknown_keyword_is_refused_by_name(call):
    with pytest.raises((TypeError, ValueError), match="bogus_option"):
        call()


def test_an_unknown_keyword_names_the_closest_option():
    with pytest.raises(TypeError, match=r"evaluate_stream\(\).*'tie'.*did you mean 'ties'"):
        rm.evaluate_stream(TRUTH, [pa.Table.from_pandas(RECS)], ["ndcg@3"], progress=False, tie="trec")
    with pytest.raises(ValueError, match=r"unknown option 'tie' for metric 'ndcg'.*evaluation options: preset"):
        rm.ndcg(TRUTH, RECS, 3, tie="trec")
    with pytest.raises(TypeError, match="aggregate=None"):
        rm.ndcg(TRUTH, RECS, 3, per_user=True)


def test_a_metric_option_goes_to_the_metric():
    """relevance is serendipity's option (not relevance_col); gain is ndcg's."""
    kw = dict(train=TRAIN, item_features=FEATURES)
    got = rm.serendipity(TRUTH, RECS, 3, relevance="all", **kw)
    assert got == rm.evaluate(TRUTH, RECS, ["serendipity(relevance=all)@3"], **kw)["serendipity(relevance=all)@3"]


BAD = [
    ("preset", "nope", ValueError, "unknown preset 'nope'"),
    ("preset", 3, TypeError, "`preset` must be a string"),
    ("threads", 0, ValueError, "`threads` must be a positive integer"),
    ("threads", 1.5, TypeError, "`threads` must be a positive integer"),
    ("empty", "bogus", ValueError, "`empty` must be one of 'skip', 'zero', 'one', 'error'"),
    ("duplicates", "last", ValueError, "`duplicates` must be one of 'error', 'first'"),
    ("ties", "random", ValueError, "`ties` must be one of 'item'"),
    ("missing", "drop", ValueError, "`missing` must be one of 'zero', 'skip'"),
    ("min_relevance", "2", TypeError, "`min_relevance` must be a number"),
    ("min_relevance", float("nan"), ValueError, "`min_relevance` must be finite"),
    ("max_items", 0, ValueError, "`max_items` must be a positive integer"),
    ("max_items", True, TypeError, "`max_items` must be a positive integer"),
]


@pytest.mark.parametrize("name, value, exc, message", BAD)
def test_a_bad_value_gets_one_message_everywhere(name, value, exc, message):
    """EvalOptions checks once, with the messages evaluate() has always given."""
    calls = [
        lambda: EvalOptions(**{name: value}),
        lambda: rm.evaluate(TRUTH, RECS, ["ndcg@3"], **{name: value}),
        lambda: rm.ndcg(TRUTH, RECS, 3, **{name: value}),
        lambda: rm.evaluate_stream(TRUTH, [pa.Table.from_pandas(RECS)], ["ndcg@3"], progress=False, **{name: value}),
        lambda: rm.compare(TRUTH, {"a": RECS, "b": RECS}, ["ndcg@3"], **{name: value}),
    ]
    for call in calls:
        with pytest.raises(exc, match=re.escape(message)):
            call()


# ----------------------------------------------------------------------------- the defaults table
def test_defaults_are_declared_once():
    """presets.describe, the metric table of the command line and evaluate() read one table."""
    assert rankmeter.presets.DEFAULTS is DEFAULTS
    assert set(DEFAULTS) <= set(OPTION_NAMES)
    for name, value in DEFAULTS.items():
        assert value in option_field(name).metadata["allowed"]
    # rankmeter's defaults are what evaluate() does when nothing is passed
    case = CASES["ties"]
    assert rm.evaluate(TRUTH, case.recs, ["ndcg@3", "map@3"], **DEFAULTS).state.sums == (
        rm.evaluate(TRUTH, case.recs, ["ndcg@3", "map@3"]).state.sums
    )
    assert EvalOptions().resolved().kwargs() == DEFAULTS
    assert rankmeter.presets.summary("none").endswith(", ".join(f"{k}={v!r}" for k, v in DEFAULTS.items()) + ")")


@pytest.mark.skipif(not (pathlib.Path(rm.__file__).parent / "evaluation" / "_options.py").is_file(), reason="no source")
def test_no_module_keeps_a_copy_of_the_defaults_table():
    pkg = pathlib.Path(rm.__file__).parent
    copies = [
        str(p.relative_to(pkg))
        for p in pkg.rglob("*.py")
        if re.search(r"""["']duplicates["']\s*:\s*["']error["']""", p.read_text(encoding="utf-8"))
    ]
    assert copies == []


def test_resolved_fills_in_the_presets_then_rankmeters_defaults():
    opts = EvalOptions(preset="trec_eval", empty="one").resolved()
    assert (opts.empty, opts.ties, opts.missing, opts.duplicates) == ("one", "trec", "skip", "error")


def test_evaluate_docstring_lists_the_option_table_verbatim():
    """The options part of evaluate's docstring is the option table's own text (the docs site reads the
    docstring from the source, so it is written out there; this test keeps the two the same)."""
    from rankmeter.evaluation._options import options_doc

    assert options_doc() in (rm.evaluate.__doc__ or "")
