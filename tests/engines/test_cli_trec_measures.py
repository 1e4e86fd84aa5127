"""`rankmeter eval`'s trec_eval measures computed by the command (set_map, utility, 11pt_avg, gm_map,
gm_bpref, relstring) and the registry rows behind trec_eval's other names, against the pure-Python
references (tests/support/reference.py) on random qrels and runs: ties of scores, judged non-relevant
(grade 0) and unjudged (negative grade) rows, documents without a qrels row, grades above 9, queries
without relevant documents, qrels queries missing from the run (-c), -M, -l, -J and -N (docs/metrics.md 8.1,
8.2).
"""

from __future__ import annotations

import contextlib
import io
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankmeter.cli import main
from tests.support import reference as ref

DOCS = [f"d{i}" for i in range(10)]
MEASURES = [
    *("set_map", "utility", "utility.2,-1,0.5,0.25", "11pt_avg", "11pt_avg..25,.5", "gm_map", "gm_bpref"),
    *("relstring", "relstring.4", "set_P", "set_recall", "set_relative_P", "set_F", "set_F.0.25"),
    *("relative_P.2,5", "unj.1,3", "num_nonrel_judged_ret", "iprec_at_recall..1,.5,1", "Rprec_mult.0.3,1,2.5"),
    *("infAP", "binG", "G", "ndcg_rel", "Rndcg", "rbp", "rbp.p=0.5", "rbp_resid"),
    *("ndcg.1=3,2=9,4=4.5", "G.1=2,3=0.5", "ndcg_rel.2=1,12=0"),
]


@st.composite
def cases(draw):
    qrels, run = {}, {}
    for q in ("q1", "q2", "q3", "q4"):
        if draw(st.integers(0, 4)):
            docs = draw(st.lists(st.sampled_from(DOCS), max_size=7, unique=True))
            qrels[q] = {d: draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3, 12])) for d in docs}
        if draw(st.integers(0, 4)):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9, unique=True))
            run[q] = {d: draw(st.sampled_from([0.5, 1.0, 1.0, 2.0, 3.25])) for d in docs}
    qrels = {q: t for q, t in qrels.items() if t}
    if not qrels:
        qrels = {"q1": {"d0": 1}}
    if not set(qrels) & set(run):
        run[next(iter(qrels))] = {"d0": 1.0}
    flags = draw(
        st.fixed_dictionaries(
            {
                "c": st.booleans(),
                "M": st.sampled_from([None, 2, 5]),
                "l": st.sampled_from([None, 2]),
                "J": st.booleans(),
                "N": st.sampled_from([0, 0, 50]),
            }
        )
    )
    return qrels, run, flags


def _regrade(truth, gains):
    return {d: gains.get(g, g) for d, g in truth.items()}


def _reference(qrels, run, flags):
    """{(measure, query): value} as trec_eval defines them, from the references."""
    minrel = flags["l"]
    queries = sorted(qrels) if flags["c"] else sorted(set(qrels) & set(run))
    out: dict = {}
    per_q: dict = {"map": [], "bpref": []}
    for q in queries:
        truth = qrels[q]
        docs = sorted(run.get(q, {}).items(), key=lambda t: (t[1], t[0]), reverse=True)  # score, docno desc
        ranked = [d for d, _ in docs][: flags["M"]] if flags["M"] else [d for d, _ in docs]
        if flags["J"]:  # -J: only the judged documents (a qrels row with a grade >= 0), after -M
            ranked = [d for d in ranked if d in truth and truth[d] >= 0]
        per_q["map"].append(ref.ap(ranked, truth, None, minrel))
        per_q["bpref"].append(ref.bpref(ranked, truth, None, minrel, negative="unjudged"))
        vals = {
            "set_map": ref.trec_set_map(ranked, truth, minrel),
            "utility": ref.trec_utility(ranked, truth, minrel, num_docs=flags["N"]),
            "utility_2,-1,0.5,0.25": ref.trec_utility(ranked, truth, minrel, (2, -1, 0.5, 0.25), flags["N"]),
            "11pt_avg": ref.trec_11pt_avg(ranked, truth, minrel),
            "11pt_avg_.25,.5": ref.trec_11pt_avg(ranked, truth, minrel, (0.25, 0.5)),
            "set_P": ref.precision(ranked, truth, None, minrel),
            "set_recall": ref.recall(ranked, truth, None, minrel),
            "set_relative_P": ref.recall(ranked, truth, None, minrel, denominator="min_relevant_k"),
            "set_F": ref.fbeta(ranked, truth, None, minrel),
            "set_F_0.25": ref.fbeta(ranked, truth, None, minrel, beta=0.5),
            "num_nonrel_judged_ret": ref.num_nonrel_judged(ranked, truth, None, minrel),
            "infAP": ref.infap(ranked, truth, None, minrel),
            "binG": ref.bin_g(ranked, truth, None, minrel),
            "G": ref.trec_g(ranked, truth, None, minrel),
            "ndcg_rel": ref.ndcg_rel(ranked, truth, None, minrel),
            "Rndcg": ref.rndcg(ranked, truth, None, minrel),
            "rbp": ref.rbp(ranked, truth, None, minrel, p=0.9, gain="linear", scale="max_grade"),
            "rbp_p=0.5": ref.rbp(ranked, truth, None, minrel, p=0.5, gain="linear", scale="max_grade"),
            "rbp_resid": ref.rbp_resid(ranked, truth, None, minrel),
            "relstring": "'" + ref.trec_relstring(ranked, truth) + "'",
            "relstring_4": "'" + ref.trec_relstring(ranked, truth, 4) + "'",
            # gains per grade: each listed grade replaced by its gain
            "ndcg_1=3,2=9,4=4.5": ref.ndcg(ranked, _regrade(truth, {1: 3, 2: 9, 4: 4.5}), None, minrel, ideal="all"),
            "G_1=2,3=0.5": ref.trec_g(ranked, _regrade(truth, {1: 2, 3: 0.5}), None, minrel),
            "ndcg_rel_2=1,12=0": ref.ndcg_rel(ranked, _regrade(truth, {2: 1, 12: 0}), None, minrel),
        }
        for k in (2, 5):
            vals[f"relative_P_{k}"] = ref.recall(ranked, truth, k, minrel, denominator="min_relevant_k")
        for k in (1, 3):
            vals[f"unj_{k}"] = ref.unjudged(ranked, truth, k, minrel) if ranked else 0.0
        for x in (0.1, 0.5, 1.0):
            vals[f"iprec_at_recall_{x:.2f}"] = ref.iprec(ranked, truth, None, minrel, at=x)
        for x in (0.3, 1.0, 2.5):
            vals[f"Rprec_mult_{x:.2f}"] = ref.rprec_mult(ranked, truth, None, minrel, mult=x)
        if flags["J"] and not ranked:
            # -J left the query without documents: trec_eval's interpolation starts at 0/0, NaN at a recall level
            # of round(x |R|) = 0 documents (11pt_avg: its level 0 always is)
            n_rel = len(ref.relevant_set(truth, minrel))
            for x in (0.1, 0.5, 1.0):
                if math.floor(x * n_rel + 0.5) == 0:
                    vals[f"iprec_at_recall_{x:.2f}"] = math.nan
            vals["11pt_avg"] = math.nan
            if math.floor(0.25 * n_rel + 0.5) == 0:
                vals["11pt_avg_.25,.5"] = math.nan
        for name, v in vals.items():
            out[(name, q)] = v
            if not name.startswith("relstring"):
                out.setdefault((name, "all"), []).append(v)
    for name in [k for k in out if k[1] == "all"]:
        vs = out[name]
        out[name] = sum(vs) if name[0] == "num_nonrel_judged_ret" else sum(vs) / len(vs)
    out[("gm_map", "all")] = ref.trec_geometric_mean(per_q["map"])
    out[("gm_bpref", "all")] = ref.trec_geometric_mean(per_q["bpref"])
    return out


def _write(path: Path, qrels, run):
    (path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, t in qrels.items() for d, g in t.items()))
    lines = [f"{q} Q0 {d} 0 {s} run\n" for q, r in run.items() for d, s in r.items()]
    (path / "run").write_text("".join(lines))


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_trec_eval_measures_of_the_command_match_the_reference(case):
    qrels, run, flags = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp)
        _write(path, qrels, run)
        argv = ["eval", str(path / "qrels"), str(path / "run"), "-q", *(["-c"] if flags["c"] else [])]
        argv += [f"-M{flags['M']}"] if flags["M"] else []
        argv += [f"-l{flags['l']}"] if flags["l"] else []
        argv += ["-J"] if flags["J"] else []
        argv += [f"-N{flags['N']}"] if flags["N"] else []
        for m in MEASURES:
            argv += ["-m", m]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            assert main(argv) == 0
    ours = {}
    for line in buf.getvalue().splitlines():
        name, q, value = (x.strip() for x in line.split("\t"))
        ours[(name, q)] = value
    want = _reference(qrels, run, flags)
    assert set(ours) == set(want)
    for key, v in want.items():
        if isinstance(v, str):
            assert ours[key] == v, key
        else:
            if math.isnan(v):
                assert ours[key] == "-nan", (key, ours[key])  # trec_eval's printf("%6.4f") of 0.0 / 0.0
                continue
            assert math.isclose(float(ours[key]), v, abs_tol=5e-5 + 1e-9), (key, ours[key], v)


def test_judged_only_refuses_an_order_of_ties_other_than_trec_evals(tmp_path, capsys):
    _write(tmp_path, {"q1": {"d0": 1, "d1": 0}}, {"q1": {"d0": 1.0, "d1": 1.0, "d2": 2.0}})
    argv = ["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-J", "-m", "map"]
    assert main([*argv, "--ties", "input"]) == 2
    assert "-J ranks equal scores as trec_eval does" in capsys.readouterr().err
    assert main(argv) == 0  # the trec_eval preset's ties="trec": d2 (unjudged) leaves, d1 then d0
    assert capsys.readouterr().out == "map                   \tall\t0.5000\n"


def test_num_docs_must_be_a_non_negative_integer(tmp_path, capsys):
    _write(tmp_path, {"q1": {"d0": 1}}, {"q1": {"d0": 1.0}})
    argv = ["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "utility.0,0,0,1"]
    with pytest.raises(SystemExit) as exc:  # argparse refuses the value
        main([*argv, "-N", "-3"])
    assert exc.value.code == 2
    assert "must be >= 0" in capsys.readouterr().err
    assert main([*argv, "-N", "10"]) == 0
    assert capsys.readouterr().out == "utility_0,0,0,1       \tall\t9.0000\n"  # 10 + 1 - 1 - 1


def test_compare_refuses_by_name_what_only_rankmeter_eval_computes(tmp_path, capsys):
    _write(tmp_path, {"q1": {"d0": 1, "d1": 0}}, {"q1": {"d0": 1.0, "d1": 2.0}})
    argv = ["compare", str(tmp_path / "qrels"), str(tmp_path / "run"), str(tmp_path / "run")]
    for name in ("utility.2,-1,0,0", "gm_map", "relstring"):
        assert main([*argv, "-m", name]) == 2
        assert "computed by rankmeter eval" in capsys.readouterr().err
    assert main([*argv, "-m", "num_ret"]) == 2
    assert "a count of the run" in capsys.readouterr().err
