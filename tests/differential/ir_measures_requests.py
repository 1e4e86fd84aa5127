"""What the ir_measures differential runs ask, shared by the peer modules (tests/differential/ir_measures.py,
ir_measures_preset.py, ir_measures_cwl.py) and their workers (in the peer's venv, which load this file by path:
standard library only): the measures of every call and the dicts of a case, each a function of the case alone so
that both sides ask the same."""

from __future__ import annotations

GAINS = "{0:0,1:1,2:3,3:7,4:15}"


def measures_of(case: dict) -> dict:
    """{call: {provider: [measure names]}}: every measure rankmeter computes, routed as ir_measures' default
    pipeline routes it, in seven calls. ir_measures puts nDCG without gains= and NumRet/NumQ without rel= into
    whichever pytrec_eval invocation its set of measures lists first (an order of Python's string hashing): in
    one call with nDCG(gains=...) or judged_only=True measures their values are a random draw, so those go to
    calls of their own (B: judged_only, C: gains)."""
    ks = case["ks"]
    k0 = ks[0]
    a = {
        "pytrec_eval": [f"P@{k}" for k in ks]
        + [f"P(rel=2)@{k0}"]
        + [f"R@{k}" for k in ks]
        + [f"R(rel=2)@{k0}", "AP", f"AP@{k0}", "AP(rel=2)", "RR", "RR(rel=2)", "nDCG"]
        + [f"nDCG@{k}" for k in ks]
        + [f"Success@{k}" for k in ks]
        + [f"Success(rel=2)@{k0}", "Rprec", "Rprec(rel=2)", "Bpref", "Bpref(rel=2)"]
        + ["NumRel", "NumRelRet", "NumRet(rel=2)", "NumRet", "NumQ"]
        + ["SetP", "SetP(rel=2)", "SetRelP", "SetR", "SetF", "SetF(beta=0.5)", "SetAP"]
        + [
            "IPrec@0.0",
            "IPrec@0.1",
            "IPrec@0.25",
            "IPrec@0.5",
            "IPrec(rel=2)@0.3",
            "IPrec@1.0",
            "infAP",
            "infAP(rel=2)",
        ],
        "cwl_eval": ["RBP(rel=1)", "RBP(rel=1,p=0.5)", "RBP(rel=2,p=0.95)", "RBP(rel=1,p=0.99)", "RBP(rel=0,p=0.8)"],
        "compat": ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)"],
        "judged": [f"Judged@{k}" for k in ks] + ["Judged"],
        "msmarco": [f"RR@{k}" for k in ks] + [f"RR(rel=2)@{k0}"],
        "gdeval": [f"ERR@{k}" for k in ks] + [f"nDCG(dcg='exp-log2')@{k}" for k in ks],
    }
    b = {
        "pytrec_eval": [
            f"P(judged_only=True)@{k0}",
            f"R(judged_only=True)@{k0}",
            f"AP(judged_only=True)@{k0}",
            f"nDCG(judged_only=True)@{k0}",
            "RR(judged_only=True)",
            "SetP(judged_only=True)",
            f"P@{k0}",
            "Bpref",
        ],
        "msmarco": [f"RR@{k0}"],
    }
    c = {
        "pytrec_eval": [f"nDCG(gains={GAINS})@{k0}", f"nDCG(gains={GAINS})", f"P@{k0}", "AP", "Bpref(rel=2)"],
        "judged": [f"Judged@{k0}"],
    }
    # Accuracy raises ZeroDivisionError on a query whose top k are all relevant: calls of its own, with another
    # provider (defaults for the queries it does not score) and alone (no defaults, the mean of its values)
    d = {"accuracy": [f"Accuracy(rel=2)@{k0}", "Accuracy(rel=2)"], "msmarco": [f"RR@{k0}"]}
    e = {"accuracy": ["Accuracy"]}
    f = {"accuracy": [f"Accuracy@{k0}"]}
    g = {"accuracy": [f"Accuracy(rel=0)@{ks[-1]}"]}
    return {"A": a, "B": b, "C": c, "D": d, "E": e, "F": f, "G": g}


def as_dicts(case: dict) -> tuple[dict, dict]:
    """The qrels and run dicts of a case: string ids, a repeated item keeps its first position and last score."""
    qrels: dict = {}
    run: dict = {}
    for u, i, g in case["truth"]:
        qrels.setdefault(str(u), {})[str(i)] = g
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        run.setdefault(str(u), {})[str(i)] = s
    for u in case.get("empty_lists", []):
        run[str(u)] = {}
    return qrels, run


def preset_calls_of(case: dict, tied: bool) -> dict:
    """{provider: [measure names]} of the preset run (tests/differential/ir_measures_preset.py): the measures
    preset='ir_measures' computes; those whose provider orders tied scores its own way only on untied runs."""
    ks = case["ks"]
    k0 = ks[0]
    calls = {
        "pytrec_eval": [f"P@{k}" for k in ks]
        + [f"P(rel=2)@{k0}"]
        + [f"R@{k}" for k in ks]
        + [f"R(rel=2)@{k0}", "AP", f"AP@{k0}", "AP(rel=2)", "RR", "RR(rel=2)", "nDCG"]
        + [f"nDCG@{k}" for k in ks]
        + [f"Success@{k}" for k in ks]
        + ["Rprec", "Rprec(rel=2)", "Bpref", "Bpref(rel=2)", "NumRel", "NumRelRet", "SetP", "SetR"],
        "gdeval": [f"ERR@{k}" for k in ks] + [f"nDCG(dcg='exp-log2')@{k}" for k in ks],
    }
    if not tied:
        calls["judged"] = [f"Judged@{k}" for k in ks]
        calls["msmarco"] = [f"RR@{k}" for k in ks] + [f"RR(rel=2)@{k0}"]
        calls["cwl_eval"] = ["RBP(rel=1)", "RBP(rel=2,p=0.5)", "RBP(rel=1,p=0.9)"]
    return calls


def cwl_measures_of(case: dict) -> dict:
    """{call: [measure names]} of the C/W/L run (tests/differential/ir_measures_cwl.py): "pipeline" through
    ir_measures' default pipeline, "cwl" through its cwl_eval provider (P, RR and AP, which the pipeline gives
    pytrec_eval). ``case["top"]`` is the largest grade, rounded up (at least 2)."""
    ks = case["ks"]
    k0 = ks[0]
    top = case["top"]
    return {
        "pipeline": [
            f"INST(max_rel={top})",
            f"INST(T=2.5,max_rel={top})",
            f"INSQ(max_rel={top})",
            f"INSQ(T=3.0,min_rel=1,max_rel={top})",
            f"BPM(max_rel={top})@{k0}",
            f"BPM(T=2.0,max_rel={top})@{ks[-1]}",
            f"SDCG(max_rel={top})@{k0}",
            f"SDCG(min_rel=1,max_rel={top})@{ks[-1]}",
            f"NERR8(max_rel={top})@{k0}",
            f"NERR9(max_rel={top})@{k0}",
            f"NERR10(max_rel={top})",
            f"NERR10(p=0.5,max_rel={top})",
            f"NERR11(max_rel={top})",
            f"NERR11(T=2.0,max_rel={top})",
            "RBP(rel=1)",
        ],
        "cwl": [f"P@{k}" for k in ks] + ["P(rel=2)@5", "RR", "RR(rel=2)", "AP", "AP(rel=2)"],
    }
