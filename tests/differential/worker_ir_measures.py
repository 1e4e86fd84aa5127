"""Differential worker for ir_measures (runs in the ir_measures venv: stdlib, numpy and ir_measures with its
providers pytrec_eval, cwl_eval, gdeval (perl), judged, msmarco).

For every case: every measure rankmeter computes (``measures_of``, the same list as ir_measures.py's), in one
``iter_calc`` and one ``calc_aggregate`` call with string ids (pytrec_eval requires them): per-query values and
aggregates. When the call raises, the label ``"all|raises <type>"`` and the same calls per provider
(``"<provider>|raises <type>"`` for those that raise; gdeval's perl script dying counts as ValueError). Each
case runs in a forked child: pytrec_eval can crash on a query with an empty ranking (a segmentation fault),
reported as the error ``"Segfault"``. NumRel of a query with an empty ranking is left out (pytrec_eval reads
another query's count there), and then its sum too.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
import warnings

warnings.simplefilter("ignore")
# the worker runs as `python -P` (ISOLATED in the peer module): this directory is not on sys.path
logging.disable(logging.CRITICAL)

import ir_measures  # noqa: E402

GAINS = "{0:0,1:1,2:3,3:7,4:15}"


def measures_of(case):
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


def as_dicts(case):
    qrels: dict = {}
    run: dict = {}
    for u, i, g in case["truth"]:
        qrels.setdefault(str(u), {})[str(i)] = g
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        run.setdefault(str(u), {})[str(i)] = s
    for u in case.get("empty_lists", []):
        run[str(u)] = {}
    return qrels, run


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def _type(e):
    return "ValueError" if type(e).__name__ == "CalledProcessError" else type(e).__name__


def compute(call, names, qrels, run, empty_queries):
    ms = [ir_measures.parse_measure(n) for n in names]
    per: dict = {}
    for m in ir_measures.iter_calc(ms, qrels, run):
        per.setdefault(m.measure, {})[m.query_id] = m.value
    agg = ir_measures.calc_aggregate(ms, qrels, run)
    out = {}
    for n, m in zip(names, ms):
        pu = per.get(m, {})
        if (n == "NumRel" or n.startswith("IPrec")) and empty_queries:
            # pytrec_eval reads another query's count for an empty ranking (IPrec's level in documents with it)
            out[f"{call}|{n}"] = {"per_user": [[q, _f(v)] for q, v in pu.items() if q not in empty_queries]}
            continue
        out[f"{call}|{n}"] = {"per_user": [[q, _f(v)] for q, v in pu.items()], "mean": _f(agg[m])}
    return out


def one_case(case):
    qrels, run = as_dicts(case)
    empty_queries = {q for q in qrels if q in run and not run[q]}
    out = {}
    for call, groups in measures_of(case).items():
        everything = [n for ns in groups.values() for n in ns]
        try:
            out.update(compute(call, everything, qrels, run, empty_queries))
            continue
        except Exception as e:
            out[f"{call}|all|raises {_type(e)}"] = {"per_user": None, "mean": 1.0}
        for provider, names in groups.items():
            try:
                out.update(compute(call, names, qrels, run, empty_queries))
            except Exception as e:
                out[f"{call}|{provider}|raises {_type(e)}"] = {"per_user": None, "mean": 1.0}
    return out


def forked(case):
    """one_case in a child process: a crash of the peer (pytrec_eval's segfault) is the case's error."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            payload = json.dumps({"ok": one_case(case)})
        except Exception as e:  # pragma: no cover - a bug of the worker
            payload = json.dumps({"error": type(e).__name__, "message": str(e)[:300]})
        with os.fdopen(w, "w") as f:
            f.write(payload)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        payload = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not payload:
        return {"error": "Segfault", "message": f"the peer died (status {status})"}
    return json.loads(payload)


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    results = [forked(case) for case in data["cases"]]
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
