"""Conformance with trec_eval 10.0 on trec_eval's own test data (docs/metrics.md §8).

The data lives next to the development checkout, in
``../shared/conformance/trec_eval/`` (see the README there): trec_eval's qrels,
runs and the output it printed for them. For each expected output we read the
same inputs with ``rm.read_trec_qrels`` / ``rm.read_trec_run``, evaluate them with
``preset="trec_eval"`` and compare every measure rankmeter implements, for every
query and for ``all``, to trec_eval's 4 printed decimals.

Facts about the data this file relies on (checked by ``test_data_facts``):

* qrels.test and qrels.rel_level judge queries 301, 302 and 303; every one of
  them has relevant documents (also at ``-l2``), so the ``empty=`` policy never
  decides a value here.
* results.test ranks 500 documents for each of 301, 302 and 303.
  results.trunc ranks 500 for 301 and 84 for 303, and nothing for 302; some of its
  lines carry extra junk columns after the run id ("reserved for future
  expansion"), which a reader must ignore.
* Every file has ``num_q = 3``. With ``-c`` (aqc, aqcM) query 302 is a qrels
  query without results and counts as zeros, which is rankmeter's default (the
  evaluated users are the truth users; one without recs gets an empty list).
  Without ``-c`` (aq, aql) trec_eval evaluates only the run's queries that have
  qrels; results.test covers all three qrels queries, so this is again the
  truth users and no restriction of the truth is needed. ``_evaluate`` still
  restricts the truth to the run's queries for a file without ``-c`` whenever
  that would make a difference, so the test stays right if the data changes.
* Equal scores occur (e.g. query 301, score 2.243509: FBIS3-58055, relevant,
  and FBIS3-58025, not relevant). trec_eval orders by score descending, then
  docno descending as strings; the file's own line order (docno ascending)
  would swap them. The effect on ``map`` is 8e-6, invisible at 4 decimals (only a
  few ``all`` ndcg values of aqc/aqcM move by about 5e-5), so
  ``test_trec_tie_order_full_precision`` checks it at full precision against the
  pure-Python reference below.
"""

from __future__ import annotations

import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pytest

from tests.support import ROOT

CONFORMANCE_DIR = ROOT.parent / "shared" / "conformance" / "trec_eval"
SKIP_REASON = (
    "../shared/conformance not found: trec_eval conformance data is only available next to the development checkout"
)

# trec_eval prints 4 decimals: the true value lies within half a unit of the
# last printed digit (plus a hair for the binary representation).
TOLERANCE = 5e-5 + 1e-9


@dataclass(frozen=True)
class Case:
    qrels: str
    run: str
    complete: bool  # trec_eval -c: qrels queries without results count as zeros
    options: Dict[str, Any] = field(default_factory=dict)  # extra rm.evaluate keywords
    command: str = ""


CASES: Dict[str, Case] = {
    "out.test.aq": Case("qrels.test", "results.test", False, {}, "trec_eval -m all_trec -q qrels.test results.test"),
    "out.test.aqc": Case(
        "qrels.test",
        "results.trunc",
        True,
        {},
        "trec_eval -m all_trec -q -c qrels.test results.trunc",
    ),
    "out.test.aqcM": Case(
        "qrels.test",
        "results.trunc",
        True,
        {"max_items": 100},
        "trec_eval -m all_trec -q -c -M100 qrels.test results.trunc",
    ),
    "out.test.aql": Case(
        "qrels.rel_level",
        "results.test",
        False,
        {"min_relevance": 2},
        "trec_eval -m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    ),
}

# trec_eval measure name -> rankmeter metric string (docs/metrics.md §8.2).
_PATTERNS: List[Tuple[str, Callable[[re.Match], str]]] = [
    (r"P_(\d+)", lambda m: f"precision@{m.group(1)}"),
    (r"recall_(\d+)", lambda m: f"recall@{m.group(1)}"),
    (r"map", lambda m: "ap"),
    (r"map_cut_(\d+)", lambda m: f"ap@{m.group(1)}"),
    (r"ndcg", lambda m: "ndcg"),
    (r"ndcg_cut_(\d+)", lambda m: f"ndcg@{m.group(1)}"),
    (r"recip_rank", lambda m: "rr"),
    (r"success_(\d+)", lambda m: f"hit_rate@{m.group(1)}"),
    (r"Rprec", lambda m: "r_precision"),
    (r"num_rel_ret", lambda m: "hits"),
    (r"bpref", lambda m: "bpref"),
    # trec_eval's other measures of the fused pass (docs/metrics.md 8.2)
    (r"iprec_at_recall_(\d\.\d\d)", lambda m: f"iprec(at={float(m.group(1))!r})"),
    (r"Rprec_mult_(\d\.\d\d)", lambda m: f"rprec_mult(mult={float(m.group(1))!r})"),
    (r"relative_P_(\d+)", lambda m: f"recall(denominator=min_relevant_k)@{m.group(1)}"),
    (r"set_P", lambda m: "precision"),
    (r"set_recall", lambda m: "recall"),
    (r"set_relative_P", lambda m: "recall(denominator=min_relevant_k)"),
    (r"set_F", lambda m: "fbeta"),
    (r"num_nonrel_judged_ret", lambda m: "num_nonrel_judged"),
    (r"unj_(\d+)", lambda m: f"unjudged@{m.group(1)}"),
    (r"infAP", lambda m: "infap"),
    (r"binG", lambda m: "bin_g"),
    (r"G", lambda m: "trec_g"),
    (r"ndcg_rel", lambda m: "ndcg_rel"),
    (r"Rndcg", lambda m: "rndcg"),
    (r"rbp", lambda m: "rbp(p=0.9,gain=linear,scale=max_grade)"),
    (r"rbp_resid", lambda m: "rbp_resid"),
]
# trec_eval's `all` line sums these (the others are means over queries)
SUMS = ("num_rel_ret", "num_nonrel_judged_ret")


def rankmeter_name(trec_measure: str) -> Optional[str]:
    """rankmeter's metric string for a trec_eval measure, None when not compared."""
    for pattern, build in _PATTERNS:
        match = re.fullmatch(pattern, trec_measure)
        if match:
            return build(match)
    return None


# ---------------------------------------------------------------------------
# Plain-text parsers (independent of rankmeter)
# ---------------------------------------------------------------------------


def parse_trec_eval_output(path: Path) -> Dict[str, Dict[str, str]]:
    """``{measure: {query: printed value}}`` from trec_eval's ``-q`` output.

    Lines are ``measure<TAB>query<TAB>value`` with the measure padded by spaces.
    Queries keep file order (``all`` comes last).
    """
    out: Dict[str, Dict[str, str]] = defaultdict(dict)
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{path.name}:{lineno}: expected 3 tab-separated fields: {line!r}")
        measure, query, value = (p.strip() for p in parts)
        if query in out[measure]:
            raise ValueError(f"{path.name}:{lineno}: duplicate {measure} for query {query}")
        out[measure][query] = value
    return dict(out)


def parse_qrels(path: Path) -> Dict[str, Dict[str, int]]:
    """``{query: {docno: grade}}`` from a qrels file (``query 0 docno grade``)."""
    qrels: Dict[str, Dict[str, int]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        if line.strip():
            query, _, docno, grade = line.split()
            qrels[query][docno] = int(grade)
    return dict(qrels)


def parse_run(path: Path) -> Dict[str, List[Tuple[float, str]]]:
    """``{query: [(score, docno), ...]}`` in file order.

    Run lines are ``query Q0 docno rank score runid``; trec_eval ignores the rank
    column and anything after the run id.
    """
    run: Dict[str, List[Tuple[float, str]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        if line.strip():
            fields = line.split()
            run[fields[0]].append((float(fields[4]), fields[2]))
    return dict(run)


def trec_order(docs: List[Tuple[float, str]]) -> List[str]:
    """trec_eval's ranking: score descending, equal scores by docno descending (strcmp)."""
    return [docno for _, docno in sorted(docs, reverse=True)]


def input_order(docs: List[Tuple[float, str]]) -> List[str]:
    """Score descending, equal scores in file order (what ties="input" would do)."""
    return [docno for _, docno in sorted(docs, key=lambda d: -d[0])]


def reference_p10_map_hits(
    grades: Dict[str, int],
    ranking: List[str],
    min_relevance: int = 1,
    max_items: Optional[int] = None,
) -> Tuple[float, float, int]:
    """P_10, map and num_rel_ret of one query, computed the way trec_eval does."""
    if max_items is not None:
        ranking = ranking[:max_items]
    relevant = {doc for doc, grade in grades.items() if grade >= min_relevance}
    hits = 0
    precision_sum = 0.0
    for position, doc in enumerate(ranking, 1):
        if doc in relevant:
            hits += 1
            precision_sum += hits / position
    p10 = sum(doc in relevant for doc in ranking[:10]) / 10
    ap = precision_sum / len(relevant) if relevant else 0.0
    return p10, ap, hits


# ---------------------------------------------------------------------------
# Locating the data; collection-time parametrization
# ---------------------------------------------------------------------------


def require_conformance_dir() -> Path:
    """The conformance folder; skip when it is missing, but fail on CI."""
    if CONFORMANCE_DIR.is_dir():
        return CONFORMANCE_DIR
    if os.environ.get("CI") == "true":
        pytest.fail(
            f"CI=true but the trec_eval conformance data is missing ({CONFORMANCE_DIR}); "
            "CI must check out ../shared next to the repository",
            pytrace=False,
        )
    pytest.skip(SKIP_REASON)
    raise AssertionError("unreachable: pytest.skip raises")  # for type checkers without pytest's types


def _short(file: str) -> str:
    return file.replace("out.test.", "")


def _measure_params() -> List[Any]:
    if not CONFORMANCE_DIR.is_dir():
        # One placeholder per test so that the skip (or the CI failure) is reported.
        return [pytest.param(None, None, id="conformance-data-missing")]
    params = []
    for file in CASES:
        expected = parse_trec_eval_output(CONFORMANCE_DIR / file)
        for measure in expected:
            if rankmeter_name(measure) is not None:
                params.append(pytest.param(file, measure, id=f"{_short(file)}-{measure}"))
    return params


def _file_params() -> List[Any]:
    return [pytest.param(file, id=_short(file)) for file in CASES]


# ---------------------------------------------------------------------------
# Evaluation with rankmeter (one evaluate() per expected file, cached)
# ---------------------------------------------------------------------------


@dataclass
class Evaluated:
    expected: Dict[str, Dict[str, str]]
    result: Any


def evaluated_queries(case: Case, qrels: Dict[str, Any], run: Dict[str, Any]) -> List[str]:
    """The queries trec_eval evaluates: all qrels queries with -c, else the run's with qrels."""
    if case.complete:
        return list(qrels)
    return [query for query in qrels if query in run]


def _evaluate(rm: Any, directory: Path, file: str) -> Evaluated:
    case = CASES[file]
    expected = parse_trec_eval_output(directory / file)
    names = (rankmeter_name(m) for m in expected)
    metrics = sorted({n for n in names if n is not None})

    truth = rm.read_trec_qrels(str(directory / case.qrels))
    recs = rm.read_trec_run(str(directory / case.run))

    # Without -c trec_eval evaluates only the run's queries that have qrels: the
    # preset's default (missing="skip"); -c is missing="zero".
    options = dict(case.options, missing="zero") if case.complete else dict(case.options)
    result = rm.evaluate(truth, recs, metrics, preset="trec_eval", **options)
    return Evaluated(expected, result)


@pytest.fixture(scope="module")
def evaluated() -> Callable[[str], Evaluated]:
    # Lazy, so that a test reports the missing data (skip, or failure on CI)
    # itself before rankmeter is imported.
    cache: Dict[str, Evaluated] = {}

    def get(file: str) -> Evaluated:
        if file not in cache:
            directory = require_conformance_dir()
            import rankmeter as rm

            cache[file] = _evaluate(rm, directory, file)
        return cache[file]

    return get


def _close(ours: float, expected: float) -> bool:
    return abs(ours - expected) <= TOLERANCE


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("file", "measure"), _measure_params())
def test_measure_matches_trec_eval(
    file: Optional[str], measure: Optional[str], evaluated: Callable[[str], Evaluated]
) -> None:
    require_conformance_dir()
    assert file is not None and measure is not None
    ev = evaluated(file)
    name = rankmeter_name(measure)
    assert name is not None
    res = ev.result
    per_user = np.asarray(res.per_user[name], dtype=np.float64)
    users = [str(u) for u in res.users]
    assert len(per_user) == len(users), f"per_user[{name!r}] is not aligned with users"
    index = {user: i for i, user in enumerate(users)}

    mismatches = []
    for query, printed in ev.expected[measure].items():
        want = float(printed)
        if query == "all":
            if measure in SUMS:
                # trec_eval's `all` for num_rel_ret is a sum over queries, not a mean.
                ours = math.fsum(per_user.tolist())
                label = f"all (sum of per-query {name})"
            else:
                ours = float(res[name])
                label = f"all (mean {name})"
        else:
            if query not in index:
                mismatches.append(f"query {query}: trec_eval {printed}, rankmeter has no such user")
                continue
            ours = float(per_user[index[query]])
            label = f"query {query}"
        if not _close(ours, want):
            mismatches.append(f"{label}: trec_eval {printed}, rankmeter {ours!r} (diff {ours - want:+.6g})")
    assert not mismatches, (
        f"{file} [{CASES[file].command}] {measure} -> rankmeter {name!r} "
        f"(preset='trec_eval', {CASES[file].options}): "
        f"{len(mismatches)} mismatch(es), first 10:\n  " + "\n  ".join(mismatches[:10])
    )


@pytest.mark.parametrize("file", _file_params())
def test_num_q_matches_trec_eval(file: str, evaluated: Callable[[str], Evaluated]) -> None:
    require_conformance_dir()
    ev = evaluated(file)
    res = ev.result
    num_q = int(ev.expected["num_q"]["all"])
    file_queries = sorted({q for values in ev.expected.values() for q in values} - {"all"})
    assert res.meta["n_users"] == num_q, (
        f"{file}: trec_eval num_q = {num_q}, rankmeter meta n_users = {res.meta['n_users']} (meta: {res.meta})"
    )
    assert sorted(str(u) for u in res.users) == file_queries, (
        f"{file}: trec_eval evaluated queries {file_queries}, rankmeter users {list(res.users)}"
    )


@pytest.mark.parametrize("file", _file_params())
def test_data_facts(file: str) -> None:
    """Pure Python: the facts the module docstring states about the data."""
    directory = require_conformance_dir()
    case = CASES[file]
    expected = parse_trec_eval_output(directory / file)
    qrels = parse_qrels(directory / case.qrels)
    run = parse_run(directory / case.run)
    min_relevance = case.options.get("min_relevance", 1)

    wanted = evaluated_queries(case, qrels, run)
    assert int(expected["num_q"]["all"]) == len(wanted) == len(qrels) == 3
    assert set(wanted) == set(qrels)  # no truth restriction needed for this data
    for query, grades in qrels.items():
        n_rel = sum(grade >= min_relevance for grade in grades.values())
        assert n_rel > 0, f"{file}: query {query} has no relevant document"
        assert int(expected["num_rel"][query]) == n_rel
        assert int(expected["num_ret"][query]) == min(len(run.get(query, [])), case.options.get("max_items", math.inf))


@pytest.mark.parametrize("file", _file_params())
def test_reference_matches_trec_eval(file: str) -> None:
    """A plain-Python P_10, map and num_rel_ret reproduce trec_eval's printed values.

    This validates the parsers above and our reading of trec_eval (ordering by
    score then docno descending, -c, -M, -l), independently of rankmeter.
    """
    directory = require_conformance_dir()
    case = CASES[file]
    expected = parse_trec_eval_output(directory / file)
    qrels = parse_qrels(directory / case.qrels)
    run = parse_run(directory / case.run)
    min_relevance = case.options.get("min_relevance", 1)
    max_items = case.options.get("max_items")

    queries = evaluated_queries(case, qrels, run)
    assert "301" in queries
    mismatches = []
    for query in queries:
        ranking = trec_order(run.get(query, []))
        p10, ap, hits = reference_p10_map_hits(qrels[query], ranking, min_relevance, max_items)
        for measure, ours in (("P_10", p10), ("map", ap), ("num_rel_ret", hits)):
            printed = expected[measure][query]
            if not (_close(ours, float(printed)) and round(ours, 4) == float(printed)):
                mismatches.append(f"{measure} {query}: trec_eval {printed}, reference {ours!r}")
    assert not mismatches, f"{file}: " + "; ".join(mismatches)


def test_trec_tie_order_full_precision(evaluated: Callable[[str], Evaluated]) -> None:
    """rankmeter's trec tie order, checked where 4 decimals cannot see it.

    In results.test, query 301 has two documents scored 2.243509: FBIS3-58055
    (relevant) and FBIS3-58025 (not), in that order for trec_eval, in the opposite
    order in the file. Swapping them changes map for 301 by ~8e-6.
    """
    directory = require_conformance_dir()
    qrels = parse_qrels(directory / "qrels.test")
    run = parse_run(directory / "results.test")
    _, ap_trec, _ = reference_p10_map_hits(qrels["301"], trec_order(run["301"]))
    _, ap_input, _ = reference_p10_map_hits(qrels["301"], input_order(run["301"]))
    assert abs(ap_trec - ap_input) > 1e-6  # the tie matters at full precision

    res = evaluated("out.test.aq").result
    users = [str(u) for u in res.users]
    ours = float(np.asarray(res.per_user["ap"])[users.index("301")])
    assert math.isclose(ours, ap_trec, rel_tol=1e-12, abs_tol=1e-15), (
        f"query 301 ap: rankmeter {ours!r}, trec_eval order {ap_trec!r}, file (input) order {ap_input!r}"
    )
