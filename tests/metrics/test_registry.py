"""The metric registry (cpp/include/rankmeter/metrics.def) is the one source of truth.

Every row must exist in both languages (the C++ `Kind` enum of the fused pass, Python's
`rankmeter.metrics.SPECS`), and have what the "add a metric" checklist of CONTRIBUTING.md asks
for: a formula, a pure-Python reference, a section of docs/metrics.md and an entry in the
determinism suite. These tests fail when one of those is missing.
"""

from __future__ import annotations

import pathlib
import re

import pytest

import rankmeter as rm
from rankmeter import _core, metrics
from tests.metrics.test_beyond import BEYOND_METRICS
from tests.metrics.test_calibration import CALIBRATION_DETERMINISM
from tests.metrics.test_expected_exposure import EE_DETERMINISM
from tests.metrics.test_exposure import EXPOSURE_DETERMINISM
from tests.metrics.test_popularity import POPULARITY_METRICS  # popularity and long tail (helper pop)
from tests.metrics.test_propensity import DETERMINISM as PROPENSITY_DETERMINISM
from tests.metrics.test_subtopic import SUBTOPIC_DETERMINISM
from tests.properties.test_determinism import METRICS as DETERMINISM_METRICS
from tests.support import reference, reference_beyond

ROOT = pathlib.Path(__file__).resolve().parents[2]
REGISTRY = _core.metric_registry()
NAMES = [row["name"] for row in REGISTRY]
ACCURACY = [row["name"] for row in REGISTRY if row["family"] == "accuracy"]
BEYOND = [row["name"] for row in REGISTRY if row["family"] != "accuracy"]


def test_registry_rows_are_unique_and_well_formed():
    assert len(NAMES) == len(set(NAMES))
    for row in REGISTRY:
        assert re.fullmatch(r"[a-z][a-z_0-9]*", row["name"])
        assert row["family"] in ("accuracy", "user", "catalog")
        assert (row["stage"] == "kernel") == (row["family"] != "accuracy"), row
        assert row["summary"], row["name"]


def test_every_accuracy_row_is_a_kind_of_the_fused_pass_and_nothing_else_is():
    kinds = list(_core.Kind.__members__)
    assert kinds == ACCURACY  # same names, same order (the Kind values are the row order)
    assert [int(_core.Kind.__members__[n]) for n in kinds] == list(range(len(kinds)))


def test_python_metric_table_is_the_registry():
    assert list(metrics.SPECS) == NAMES
    for row in REGISTRY:
        spec = metrics.SPECS[row["name"]]
        assert spec.family == row["family"] and spec.stage == row["stage"] and spec.cutoff == row["cutoff"]
        assert [w for w, _ in spec.needs] == [w.split("[")[0] for w in row["needs"].split()]
        for _word, cond in (*spec.needs, *spec.reads):  # a condition names an option and one of its values
            if cond is not None:
                assert cond[0] in spec.options
                assert spec.options[cond[0]][1](cond[1], "registry") == cond[1]
        opts = [o.split(":")[0].strip() for o in row["options"].split(";") if o.strip()]
        assert list(spec.options) == opts


def test_context_needs_follow_the_options():
    assert metrics.parse("diversity@3").needs == ("item_features",)
    assert metrics.parse("diversity(similarity=matrix)@3").needs == ("item_similarity",)
    assert metrics.parse("diversity(similarity=cooccurrence)").needs == ("train",)
    assert metrics.parse("serendipity").needs == ("train", "item_features")
    assert "catalog" in metrics.parse("gini").reads
    assert "catalog" not in metrics.parse("gini(over=recommended)").reads
    assert "catalog" in metrics.parse("coverage@5").reads


def test_every_alias_names_a_registry_row():
    for alias, name, _fixed in _core.metric_aliases():
        assert name in NAMES
        assert alias not in NAMES
        assert metrics.parse(alias).name == name


def test_every_option_of_an_accuracy_metric_reaches_the_pass_or_python():
    # Options that are fields of the pass's Column cross under their own name; those that are
    # applied in Python (hit_scores, rounding, missing_recs, rows) are named here, so a new option cannot be dropped.
    applied_in_python = {"hit_scores", "rounding", "missing_recs", "rows"}
    column = _core.Column()
    for name in ACCURACY:
        for opt, (default, _check) in metrics.SPECS[name].options.items():
            assert hasattr(column, opt) or opt in applied_in_python, (name, opt)
            if hasattr(column, opt):  # the default reaches the pass unchanged
                col = metrics.Metric(name)._column()
                value = getattr(col, opt)
                assert (value == default) if isinstance(value, float) else (value.name == default), (name, opt)


@pytest.mark.parametrize("name", ACCURACY)
def test_every_accuracy_metric_has_a_reference(name):
    assert name in reference.METRICS, f"tests/support/reference.py has no reference for {name!r}"
    assert (name in reference.COUNT_LIKE) == metrics.SPECS[name].count_like


@pytest.mark.parametrize("name", BEYOND)
def test_every_beyond_metric_has_a_reference(name):
    funcs = [f for f in dir(reference_beyond) if f == name or f.startswith(name + "_")]
    assert funcs, f"tests/support/reference_beyond.py has no reference for {name!r}"


@pytest.mark.parametrize("name", NAMES)
def test_every_metric_is_computed_by_evaluate(name):
    # a registry row without a formula or kernel behind it fails here (or does not compile, for the pass)
    truth = {1: {10: 2.0, 11: 1.0, 12: 0.0}, 2: {10: 1.0, 13: 3.0}}
    recs = {1: {10: 0.9, 14: 0.5, 11: 0.4}, 2: {13: 0.8, 12: 0.7, 10: 0.1}}
    train = {1: [10, 12], 2: [11, 13, 14], 3: [10, 11]}
    features = {i: [float(i % 3), float(i % 2), 1.0] for i in range(10, 15)}
    subtopics = [(1, "s1", 10, 1), (1, "s2", 11, 1), (2, "s1", 13, 1)]
    # read by miscalibration only (refused with the other metrics)
    categories = {10: "g1", 11: ["g1", "g2"], 13: "g2", 14: "g3"} if name == "miscalibration" else None
    # read by the propensity-weighted metrics only: the popularity of `train` (items 12 and 13: p = 1/7, 2/7)
    propensity = "popularity" if name.startswith("ips_") else None
    # read by the group exposure metrics only
    groups = (
        {10: "p1", 11: ["p1", "p2"], 13: "p2"}
        if name in ("exposure_disparity", "awrf", "awrf_ndcg", "reo", "rsp", "item_mad")
        else None
    )
    res = rm.evaluate(
        truth,
        recs,
        [name],
        train=train,
        item_features=features,
        subtopics=subtopics,
        item_categories=categories,
        propensity=propensity,
        item_groups=groups,
    )
    assert isinstance(res[name], float)


def _sections() -> dict:
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"#{2,4} (\d+(?:\.\d+)*)\b", line)
        if m:
            current = m.group(1)
            out[current] = []
        elif line.startswith("## "):
            current = None
        if current:
            out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


@pytest.mark.skipif(not (ROOT / "docs" / "metrics.md").is_file(), reason="needs the source tree")
@pytest.mark.parametrize("name", NAMES)
def test_every_metric_has_a_docs_section(name):
    section = metrics.SPECS[name].section
    sections = _sections()
    assert section in sections, f"docs/metrics.md has no section {section} (the registry's section of {name!r})"
    assert f"`{name}`" in sections[section], f"docs/metrics.md section {section} does not define `{name}`"


@pytest.mark.parametrize("name", NAMES)
def test_every_metric_is_in_the_determinism_suite(name):
    names = {
        metrics.parse(m).name
        for m in [
            *DETERMINISM_METRICS,
            *BEYOND_METRICS,
            *SUBTOPIC_DETERMINISM,
            *POPULARITY_METRICS,
            *CALIBRATION_DETERMINISM,
            *PROPENSITY_DETERMINISM,
            *EXPOSURE_DETERMINISM,
            *EE_DETERMINISM,
        ]
    }
    assert name in names, f"{name!r} is in no determinism test (tests/properties/test_determinism.py)"


def test_shortcut_or_class_for_every_metric():
    # every metric is reachable by name through evaluate; a metric object's canonical name parses back
    for name in NAMES:
        m = metrics.Metric(name)
        assert metrics.parse(str(m)) == m
    assert callable(rm.evaluate)
