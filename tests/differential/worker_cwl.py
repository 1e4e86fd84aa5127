"""Differential worker for cwl-eval (runs in the ir_measures venv, which holds the `cwl` package; stdlib and
cwl only).

For every case it does what cwl-eval's command line does with the case written as a gain file and a TREC run
file in rank order, through cwl-eval's own classes: the gains are checked (``validate_gains``: a gain outside
[0, 1] raises ValueError), each query of the run is read as a ranking of its documents in file order
(``RankingMaker`` with max_gain 1, max_n the depth and, for a case with costs, the cost file, each
document's element type, max_cost and min_cost; else cwl-eval's defaults: costs 1) and every metric of
``SPECS`` measures it with residuals on. Each label ``<metric>|<quantity>`` holds the per-query values of one
quantity (eu, etu, ec, etc, ed and the residuals res_eu .. res_ed) and their mean over the queries scored.
An empty run makes cwl-eval's command line fail (AttributeError: no ranking to measure), reported as that
error.
"""

from __future__ import annotations

import logging
import math
import warnings

warnings.simplefilter("ignore")
# the worker runs as `python -P` (ISOLATED in the peer module): this directory is not on sys.path
logging.disable(logging.CRITICAL)

from cwl.ruler.measures.cwl_ap import APCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric, BPMDCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_insq import INSQCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_inst import INSTCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_nerr import (  # noqa: E402
    NERReq8CWLMetric,
    NERReq9CWLMetric,
    NERReq10CWLMetric,
    NERReq11CWLMetric,
)
from cwl.ruler.measures.cwl_precision import PrecisionCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_rr import RRCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_tbg import TBGCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_umeasure import UMeasureCWLMetric  # noqa: E402
from cwl.ruler.ranking import RankingMaker  # noqa: E402
from cwl.seeker.trec_qrel_handler import TrecQrelHandler  # noqa: E402

QUANTITIES = ("eu", "etu", "ec", "etc", "ed", "res_eu", "res_etu", "res_ec", "res_etc", "res_ed")
DEPTHS = (1000, 7)


def specs(case):
    """[(label, depth, metric object)]: every cwl-eval metric rankmeter computes, with a few parameters each,
    at the default depth 1000; a few of them also at depth 7 (a list cut to 7 positions)."""
    ks = case["ks"]
    k0 = ks[0]
    k1 = ks[1] if len(ks) > 1 else k0 + 3
    out = []
    for k in ks:
        out.append((f"P@{k}", 1000, PrecisionCWLMetric(k)))
        out.append((f"NDCG-k@{k}", 1000, NDCGCWLMetric(k)))
    out += [
        ("RBP@0.9", 1000, RBPCWLMetric(0.9)),
        ("RBP@0.5", 1000, RBPCWLMetric(0.5)),
        ("RR", 1000, RRCWLMetric()),
        ("AP", 1000, APCWLMetric()),
        ("INST-T=1.0", 1000, INSTCWLMetric(1.0)),
        ("INST-T=2.5", 1000, INSTCWLMetric(2.5)),
        ("INSQ-T=1.0", 1000, INSQCWLMetric(1.0)),
        ("INSQ-T=3.0", 1000, INSQCWLMetric(3.0)),
        (f"BPM-Static-T=1.0-K={k0}", 1000, BPMCWLMetric(1.0, k0)),
        (f"BPM-Static-T=2.5-K={k1}", 1000, BPMCWLMetric(2.5, k1)),
        (f"BPM-Dynamic-T=1.0-K={k0}-hb=1.0-hc=1.0", 1000, BPMDCWLMetric(1.0, k0, 1.0, 1.0, 0.5)),
        (f"BPM-Dynamic-T=2.0-K={k1}-hb=0.5-hc=2.0", 1000, BPMDCWLMetric(2.0, k1, 0.5, 2.0, 0.25)),
        (f"NERR-EQ8@k={k0}", 1000, NERReq8CWLMetric(k0)),
        (f"NERR-EQ9@k={k0}", 1000, NERReq9CWLMetric(k0)),
        (f"NERR-EQ8@k={k1}", 1000, NERReq8CWLMetric(k1)),
        (f"NERR-EQ9@k={k1}", 1000, NERReq9CWLMetric(k1)),
        ("NERR-EQ10@phi=0.9", 1000, NERReq10CWLMetric(0.9)),
        ("NERR-EQ10@phi=0.5", 1000, NERReq10CWLMetric(0.5)),
        ("NERR-EQ11@T=1.0", 1000, NERReq11CWLMetric(1.0)),
        ("NERR-EQ11@T=2.0", 1000, NERReq11CWLMetric(2.0)),
        ("U-L@1000", 1000, UMeasureCWLMetric(1000)),
        ("U-L@5", 1000, UMeasureCWLMetric(5)),
        ("TBG-H@224", 1000, TBGCWLMetric(224)),
        ("TBG-H@3", 1000, TBGCWLMetric(3)),
        ("INST-T=1.0|d7", 7, INSTCWLMetric(1.0)),
        ("AP|d7", 7, APCWLMetric()),
        ("P@5|d7", 7, PrecisionCWLMetric(5)),
        ("NERR-EQ10@phi=0.9|d7", 7, NERReq10CWLMetric(0.9)),
        ("U-L@5|d7", 7, UMeasureCWLMetric(5)),
        ("TBG-H@3|d7", 7, TBGCWLMetric(3)),
    ]
    return out


def run_case(case):
    qrh = TrecQrelHandler(None)
    for u, i, g in case["truth"]:
        qrh.put_value(str(u), str(i), repr(float(g)))
    qrh.validate_gains(min_gain=0.0, max_gain=1.0)
    # the run file: each user's rows by rank, users in order of first appearance
    lines: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        lines.setdefault(str(u), []).append(str(i))
    if not lines:
        raise AttributeError("'NoneType' object has no attribute 'get_ranking'")
    metrics = specs(case)
    values: dict = {(label, q): [] for label, _d, _m in metrics for q in QUANTITIES}
    c = case.get("costs")
    cost_file = c["file"] if c else None
    hi, lo = (c["max_cost"], c["min_cost"]) if c else (1.0, 1.0)
    etype = {(str(u), str(i)): t for u, i, t in c["types"]} if c else {}
    for topic, docs in lines.items():
        rankings = {}
        for depth in DEPTHS:
            maker = RankingMaker(topic, qrh, cost_file, max_gain=1.0, max_cost=hi, min_cost=lo, max_n=depth)
            for d in docs:
                maker.add(d, etype.get((topic, d), "_"))
            rankings[depth] = maker.get_ranking()
        for label, depth, m in metrics:
            m.residuals = True
            m.measure(rankings[depth])
            got = (
                m.expected_utility,
                m.expected_total_utility,
                m.expected_cost,
                m.expected_total_cost,
                m.expected_items,
                m.residual_expected_utility,
                m.residual_expected_total_utility,
                m.residual_expected_cost,
                m.residual_expected_total_cost,
                m.residual_expected_items,
            )
            for q, v in zip(QUANTITIES, got):
                values[(label, q)].append([topic, float(v)])
    out = {}
    for (label, q), pu in values.items():
        vals = [v for _u, v in pu]
        out[f"{label}|{q}"] = {"per_user": pu, "mean": math.fsum(vals) / len(vals) if vals else None}
    return out


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(run_case)
