"""What the pytrec_eval differential runs ask, shared by the worker (in the peer's venv: standard library only)
and by the peer modules (tests/differential/pytrec_eval.py, tests/differential/trec_eval.py).

From a case (tests/differential/cases.py): the qrels and run dicts a pytrec_eval user builds (ids as strings,
int grades, one score per document: a repeated document keeps its last score, as a dict does; a user whose list
is empty gets ``{}``), the relevance level, the judged-only flag and the measure requests, each a function of
the case alone so that both sides ask the same.
"""

from __future__ import annotations

from typing import Any, Callable

# every measure rankmeter computes, in trec_eval's order
PLAIN = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "ndcg")
CUT = ("P", "recall", "ndcg_cut", "map_cut", "success")
# trec_eval's other measures rankmeter computes in the fused pass, asked in the preset's run (style "params")
PRESET_PLAIN = (
    *("infAP", "binG", "G", "ndcg_rel", "Rndcg", "set_P", "set_recall", "set_relative_P", "set_F"),
    *("num_nonrel_judged_ret", "Rprec_mult"),
)
PRESET_CUT = ("relative_P",)
# the rest of pytrec_eval's supported_measures, asked of the compat module (runid is left out: pytrec_eval returns
# an unset double for it)
COMPAT_MORE = (
    *PRESET_PLAIN,
    *("gm_map", "gm_bpref", "utility", "set_map", "11pt_avg", "relstring", "iprec_at_recall", "relative_P"),
)
# the same with parameters where they take some
COMPAT_MORE_PARAMS = (
    *(m for m in PRESET_PLAIN if m not in ("Rprec_mult", "set_F")),
    *("gm_map", "gm_bpref", "utility", "set_map", "relstring.20"),
    *("Rprec_mult.0.5,1.5,0.25", "set_F.0.5", "11pt_avg.0.3,0.7,0.25", "iprec_at_recall.0.25,0.5,0.3,0.7"),
)
DEFAULT_CUTOFFS = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10),
}


def qrels_run(case: dict, key: Callable[[Any], Any] = str) -> tuple[dict, dict]:
    """(qrels, run) dicts of the case, ids passed through ``key`` (str for pytrec_eval)."""
    qrels: dict = {}
    for u, i, g in case["truth"]:
        qrels.setdefault(key(u), {})[key(i)] = int(g)
    run: dict = {}
    for u, i, _rank, s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        run.setdefault(key(u), {})[key(i)] = float(s)
    for u in case.get("empty_lists", []):
        run[key(u)] = {}
    return qrels, run


def relevance_level(case: dict) -> int:
    """2 for some graded cases, else 1."""
    return 2 if "graded" in case["on"] and case["k"] in (2, 5) else 1


def judged_only(case: dict) -> bool:
    """judged_docs_only_flag for about a quarter of the cases (the compat module's runs only)."""
    return (case["k"] + len(case["truth"])) % 4 == 0


def requests(case: dict, style: str) -> list:
    """The measures asked of pytrec_eval: every measure rankmeter computes (style "compat": every measure of
    pytrec_eval's supported_measures but runid).

    ``style="params"``: the cutoff measures at the case's cutoffs ("P.1,3,5"); ``"compat"`` rotates over
    pytrec_eval's spellings: the plain names (trec_eval's default cutoffs), "P.1,3" and "P_1" requests with a
    plain name beside them (the parameters win)."""
    ks = ",".join(str(k) for k in case["ks"])
    if style == "params":
        return [*PLAIN, *(f"{m}.{ks}" for m in CUT), *PRESET_PLAIN, *(f"{m}.{ks}" for m in PRESET_CUT)]
    mode = (case["k"] + len(case["ks"])) % 3 if style == "compat" else 1
    more: tuple = ()
    if style == "compat":  # every other measure of supported_measures, plain or with parameters
        more = COMPAT_MORE if mode != 1 else (*COMPAT_MORE_PARAMS, f"relative_P.{ks}")
    if mode == 0:
        return [*PLAIN, *CUT, *more]
    if mode == 1:
        return [*PLAIN, *(f"{m}.{ks}" for m in CUT), *more]
    return [*PLAIN, "P", *(f"{m}_{k}" for m in CUT for k in case["ks"]), *more]


def cutoffs(case: dict, style: str) -> dict:
    """{cut measure: the cutoffs its requests give} for ``requests(case, style)``."""
    out: dict = {}
    for req in requests(case, style):
        for m in (*CUT, *PRESET_CUT):
            if req == m:
                out.setdefault(m, set())
            elif req.startswith(m + ".") or (req.startswith(m + "_") and req[len(m) + 1 :].isdigit()):
                out.setdefault(m, set()).update(int(x) for x in req[len(m) + 1 :].split(","))
    return {m: sorted(ks) if ks else list(DEFAULT_CUTOFFS[m]) for m, ks in out.items()}
