"""What the BEIR differential runs ask, shared by the worker (in BEIR's venv: standard library only) and the peer
module (tests/differential/beir.py): the dicts a BEIR user builds from a case, the cutoffs and the calls, each a
function of the case alone so that both sides ask the same.

- ``evaluate``: qrels and results with string ids (BEIR's loaders give strings; pytrec_eval takes no others) and
  int grades (the integer part of a fractional one), at the case's cutoffs (sometimes with a cutoff repeated),
  ``ignore_identical_ids`` on for three cases in four;
- ``raw:<metric>``: ``evaluate_custom`` on the case's own ids and grades, every query of the case (a query of the
  results without qrels, or without a relevant document, is BEIR's KeyError or ZeroDivisionError: compared as an
  error code);
- ``clean:<metric>``: the same on the results of the queries that have a relevant document (grade > 0).
"""

from __future__ import annotations

from typing import Any

CUSTOM = ("mrr", "r_cap", "hole", "acc")
# an exception of a call, compared as a number
ERROR_CODES = {"KeyError": 1.0, "ZeroDivisionError": 2.0, "TypeError": 3.0, "ValueError": 4.0, "SIGSEGV": 5.0}


def error_code(name: str) -> float:
    return ERROR_CODES.get(name, 9.0)


def dicts(case: dict, string_ids: bool) -> tuple[dict, dict]:
    """(qrels, results): ids as strings (``string_ids``) or as in the case; grades as ints (``string_ids``, the
    form of evaluate) or as in the case. A repeated document keeps its last grade or score, as a dict does; a list
    given empty is ``{}``; documents in rank order (equal scores keep it)."""

    def key(x: Any) -> Any:
        return str(x) if string_ids else x

    qrels: dict = {}
    for u, i, g in case["truth"]:
        qrels.setdefault(key(u), {})[key(i)] = int(g) if string_ids else g
    results: dict = {}
    for u, i, _rank, s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        results.setdefault(key(u), {})[key(i)] = float(s)
    for u in case.get("empty_lists", []):
        results[key(u)] = {}
    return qrels, results


def k_values(case: dict) -> list:
    """The case's cutoffs, its own k first; in about a fifth of the cases the first cutoff again at the end."""
    ks = list(case["ks"])
    if (case["k"] + len(case["truth"])) % 5 == 0:
        ks.append(ks[0])
    return ks


def ignore_identical(case: dict) -> bool:
    return (case["k"] + len(case["recs"])) % 4 != 0


def clean(qrels: dict, results: dict) -> dict:
    """The results of the queries whose qrels hold a document of grade > 0."""
    return {q: docs for q, docs in results.items() if any(g > 0 for g in qrels.get(q, {}).values())}
